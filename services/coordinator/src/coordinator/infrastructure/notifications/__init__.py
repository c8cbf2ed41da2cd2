"""Formats one notification for one channel and sends it."""

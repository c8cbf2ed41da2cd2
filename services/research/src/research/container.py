"""Composition root."""

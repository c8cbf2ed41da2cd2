"""Registers the routers."""

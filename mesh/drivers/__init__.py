"""Drivers bind the sans-IO session to real byte streams (stdio now; a Unix socket later)."""

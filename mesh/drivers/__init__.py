"""Drivers bind the sans-IO session to real byte streams: stdio, the daemon's Unix socket, the proxy."""

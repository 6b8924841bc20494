"""The ``kg-memory`` command line."""

from kg_memory.cli.app import app, main

__all__ = ["app", "main"]

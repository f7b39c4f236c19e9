"""Implementations of the CLI commands (the typer declarations are in :mod:`promptcanary.cli`)."""

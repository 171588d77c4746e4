"""Adapters for one machine: run memory in SQLite."""

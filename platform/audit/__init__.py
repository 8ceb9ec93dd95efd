"""Append-only audit log: who changed what, when, from where."""

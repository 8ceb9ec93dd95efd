"""Roles written in DPML: parser, built-in experts, and each role's memory network binding."""

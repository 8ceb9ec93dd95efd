"""The base every app stands on: service errors, contracts, cursor pagination, the Redis client.

It imports no other first-party package (see docs/ARCHITECTURE.md).
"""

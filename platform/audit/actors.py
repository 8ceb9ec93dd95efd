"""Who performs a write: a dashboard user, an API key, or the system itself."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Protocol


class _User(Protocol):  # tenants.models.User (audit sits below tenants: no import)
    pk: int
    email: str


class _Key(Protocol):  # tenants.models.ApiKey
    pk: int
    name: str
    prefix: str
    scopes: list[str]
    write_policy: str


@dataclass(frozen=True)
class Actor:
    kind: str  # one of AuditEvent.ActorKind
    id: int | None
    label: str
    role: str | None = None  # the membership role, for a user acting inside a tenant
    scopes: tuple[str, ...] = ()  # the key's scopes, for an API key
    write_policy: str = ""  # the key's own write policy (moderation), blank: the tenant's

    @classmethod
    def for_user(cls, user: _User, role: str | None = None) -> Actor:
        return cls(kind="user", id=user.pk, label=user.email, role=role)

    @classmethod
    def for_key(cls, key: _Key) -> Actor:
        return cls(
            kind="api_key",
            id=key.pk,
            label=f"{key.name} ({key.prefix})",
            scopes=tuple(key.scopes),
            write_policy=key.write_policy,
        )

    @classmethod
    def system(cls, label: str = "system") -> Actor:
        return cls(kind="system", id=None, label=label)

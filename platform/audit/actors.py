"""Who performs a write: a dashboard user, an API key, or the system itself."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Protocol


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

    def as_json(self) -> dict[str, Any]:
        """The actor as stored on queued work (an import, an extraction), for the worker."""
        return {
            "kind": self.kind,
            "id": self.id,
            "label": self.label,
            "role": self.role,
            "scopes": list(self.scopes),
            "write_policy": self.write_policy,
        }

    @classmethod
    def from_json(cls, data: dict[str, Any] | None, default: str = "system") -> Actor:
        """The actor ``as_json`` stored; the system (labelled ``default``) when none was."""
        if not data:
            return cls.system(default)
        return cls(
            kind=data["kind"],
            id=data.get("id"),
            label=data.get("label", default),
            role=data.get("role"),
            scopes=tuple(data.get("scopes", ())),
            write_policy=data.get("write_policy", ""),
        )

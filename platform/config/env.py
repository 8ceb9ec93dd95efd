"""Typed readers for environment variables; the only place settings touch ``os.environ``."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any
from urllib.parse import parse_qs, unquote, urlsplit


class ConfigError(RuntimeError):
    """A setting is present but cannot be understood."""


def env_str(name: str, default: str = "") -> str:
    return os.environ.get(name, default)


def env_bool(name: str, default: bool = False) -> bool:
    raw = os.environ.get(name)
    if raw is None or raw == "":
        return default
    value = raw.strip().lower()
    if value in {"1", "true", "yes", "on"}:
        return True
    if value in {"0", "false", "no", "off"}:
        return False
    raise ConfigError(f"{name}={raw!r} is not a boolean (use 1/0, true/false, yes/no, on/off)")


def env_int(name: str, default: int) -> int:
    raw = os.environ.get(name)
    if raw is None or raw == "":
        return default
    try:
        return int(raw)
    except ValueError as exc:
        raise ConfigError(f"{name}={raw!r} is not an integer") from exc


def env_list(name: str, default: list[str] | None = None) -> list[str]:
    raw = os.environ.get(name)
    if raw is None or raw.strip() == "":
        return list(default or [])
    return [part.strip() for part in raw.split(",") if part.strip()]


def database_from_url(url: str) -> dict[str, Any]:
    """``postgresql://user:pass@host:port/name?host=/socket/dir`` as a Django DATABASES entry."""
    parts = urlsplit(url)
    if parts.scheme not in {"postgres", "postgresql"}:
        raise ConfigError(f"DATABASE_URL must be a postgresql:// URL, got scheme {parts.scheme!r}")
    query = {key: values[-1] for key, values in parse_qs(parts.query).items()}
    host = query.pop("host", None) or (unquote(parts.hostname) if parts.hostname else "")
    options: dict[str, object] = {}
    if "sslmode" in query:
        options["sslmode"] = query.pop("sslmode")
    return {
        "ENGINE": "django.db.backends.postgresql",
        "NAME": unquote(parts.path.lstrip("/")) or "postgres",
        "USER": unquote(parts.username or ""),
        "PASSWORD": unquote(parts.password or ""),
        "HOST": host,
        "PORT": str(parts.port or ""),
        "OPTIONS": options,
    }


def read_secret_file(path: Path, create: bool) -> str:
    """Return the secret kept in ``path``; on a laptop, make one the first time."""
    if path.exists():
        return path.read_text().strip()
    if not create:
        return ""
    import secrets

    path.parent.mkdir(parents=True, exist_ok=True)
    value = secrets.token_urlsafe(50)
    path.write_text(value)
    path.chmod(0o600)
    return value


def queues(profile: str) -> dict[str, str]:
    """The Celery queues of a profile (settings route tasks to them; launchers start workers
    on them): ``default``, ``imports``, ``extraction``, ``embeddings``, ``maintenance``."""
    base = f"mnemo-{profile}"
    return {
        "default": base,
        "imports": f"{base}-imports",
        "extraction": f"{base}-extraction",
        "embeddings": f"{base}-embeddings",
        "maintenance": f"{base}-maintenance",
    }

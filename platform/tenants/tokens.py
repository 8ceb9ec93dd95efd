"""Secrets handed out once: API keys (``mnemo_<prefix>_<secret>``) and invitation tokens.

Only an HMAC-SHA256 digest (keyed by ``settings.API_KEY_PEPPER``) is stored, so a database dump
does not yield usable keys; the prefix lets the owner recognise a key and lets lookup avoid a scan.
"""

from __future__ import annotations

import hashlib
import hmac
import secrets
import string

from django.conf import settings

KEY_MARKER = "mnemo"
_PREFIX_ALPHABET = string.ascii_lowercase + string.digits
PREFIX_LENGTH = 10


def digest(secret: str) -> str:
    return hmac.new(settings.API_KEY_PEPPER.encode(), secret.encode(), hashlib.sha256).hexdigest()


def digests_match(secret: str, stored: str) -> bool:
    return hmac.compare_digest(digest(secret), stored)


def new_api_key() -> tuple[str, str]:
    """Return ``(prefix, full_key)``."""
    prefix = "".join(secrets.choice(_PREFIX_ALPHABET) for _ in range(PREFIX_LENGTH))
    return prefix, f"{KEY_MARKER}_{prefix}_{secrets.token_urlsafe(32)}"


def api_key_prefix(raw: str) -> str | None:
    """The prefix of something shaped like an API key, else None (no database work for junk)."""
    marker, sep, rest = raw.partition("_")
    if marker != KEY_MARKER or not sep:
        return None
    prefix, sep, secret = rest.partition("_")
    if len(prefix) != PREFIX_LENGTH or not sep or len(secret) < 20 or len(raw) > 120:
        return None
    return prefix if all(ch in _PREFIX_ALPHABET for ch in prefix) else None


def new_invitation_token() -> str:
    return secrets.token_urlsafe(32)

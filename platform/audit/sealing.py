"""Sealed audit payloads: an event about a subject (a memory) keeps its label, before and after
encrypted with that subject's key (AES-256-GCM, bound to the tenant and subject). Reading
unseals them; erasing the subject destroys the key, and the events then say only who did what
to which subject, when.

Keys live in ``audit_sealkey`` (row-level security like every tenant table); the audit table
itself stays append-only.
"""

from __future__ import annotations

import base64
import json
import os
from collections.abc import Iterable, Sequence
from typing import Any

from cryptography.exceptions import InvalidTag
from cryptography.hazmat.primitives.ciphers.aead import AESGCM
from django.db import connection

from audit.models import AuditEvent, SealKey

SEALED = "sealed"


def keys_for(tenant_id: int, subjects: Iterable[str], *, create: bool = False) -> dict[str, bytes]:
    """{subject: key} for the subjects that have one (made first when ``create``: one
    statement when every subject is new, as a memory just written is)."""
    wanted = sorted(set(subjects))
    if not wanted:
        return {}
    keys: dict[str, bytes] = {}
    if create:
        with connection.cursor() as cursor:
            cursor.execute(
                """
                INSERT INTO audit_sealkey (tenant_id, subject, key, created_at)
                SELECT %s, s, k, now() FROM unnest(%s::text[], %s::bytea[]) AS n(s, k)
                ON CONFLICT (tenant_id, subject) DO NOTHING
                RETURNING subject, key
                """,
                [tenant_id, wanted, [os.urandom(32) for _ in wanted]],
            )
            keys = {subject: bytes(key) for subject, key in cursor.fetchall()}
    missing = [s for s in wanted if s not in keys]
    if missing:
        rows = SealKey.objects.filter(tenant_id=tenant_id, subject__in=missing)
        keys.update({row.subject: bytes(row.key) for row in rows.only("subject", "key")})
    return keys


def _aad(tenant_id: int, subject: str) -> bytes:
    return f"mnemo-audit:{tenant_id}:{subject}".encode()


def seal(tenant_id: int, subject: str, key: bytes, payload: dict[str, Any]) -> dict[str, str]:
    nonce = os.urandom(12)
    data = json.dumps(payload, ensure_ascii=False, default=str).encode()
    box = AESGCM(key).encrypt(nonce, data, _aad(tenant_id, subject))
    return {SEALED: base64.b64encode(nonce + box).decode(), "subject": subject}


def _open(tenant_id: int, subject: str, key: bytes, blob: str) -> dict[str, Any] | None:
    raw = base64.b64decode(blob)
    try:
        data = AESGCM(key).decrypt(raw[:12], raw[12:], _aad(tenant_id, subject))
    except InvalidTag:
        return None
    payload = json.loads(data)
    return payload if isinstance(payload, dict) else None


def is_sealed(event: AuditEvent) -> bool:
    return isinstance(event.after, dict) and SEALED in event.after


def unseal[E: AuditEvent](events: Sequence[E]) -> Sequence[E]:
    """The events as they were written (in memory; rows are never changed): sealed payloads
    opened where the subject's key exists, marked erased where it was destroyed."""
    sealed = [e for e in events if is_sealed(e)]
    by_tenant: dict[int, set[str]] = {}
    for event in sealed:
        box: dict[str, Any] = event.after or {}
        by_tenant.setdefault(event.tenant_id, set()).add(str(box["subject"]))
    keys = {
        (tenant_id, subject): key
        for tenant_id, subjects in by_tenant.items()
        for subject, key in keys_for(tenant_id, subjects).items()
    }
    for event in sealed:
        box = event.after or {}
        subject = str(box["subject"])
        key = keys.get((event.tenant_id, subject))
        payload = _open(event.tenant_id, subject, key, box[SEALED]) if key else None
        if payload is None:
            event.target_label = f"{event.target_label} (erased)"
            event.before, event.after = None, {"erased": True}
        else:
            event.target_label = str(payload.get("label", event.target_label))
            event.before, event.after = payload.get("before"), payload.get("after")
    return events


def shred(tenant_id: int, subjects: Iterable[str]) -> int:
    """Destroy the subjects' keys: their sealed payloads can never be read again."""
    deleted, _ = SealKey.objects.filter(tenant_id=tenant_id, subject__in=set(subjects)).delete()
    return deleted

"""The tenant's language model: its provider settings (the key sealed at rest, shown once as it
is typed and never again), the daily token budget, the circuit breaker, and the usage meter.

Extraction asks ``gate`` before each call and reports each call with ``meter`` (its own short
transaction, so a batch that rolls back never loses what was spent). The key is AES-256-GCM
under a key derived from SECRET_KEY and bound to the tenant: a row copied to another tenant
does not open. Three failed calls in a row open the circuit for ``OPEN_FOR``; the rules read
meanwhile, and the first call after it either closes the circuit or opens it again.
"""

from __future__ import annotations

import hashlib
import hmac
import ipaddress
import logging
import os
import re
import threading
from dataclasses import dataclass
from datetime import date, timedelta
from typing import Any
from urllib.parse import urlsplit

from cryptography.exceptions import InvalidTag
from cryptography.hazmat.primitives.ciphers.aead import AESGCM
from django.conf import settings
from django.db import connection, transaction
from django.db.models import Sum
from django.utils import timezone

from audit.actors import Actor
from audit.services import audit_record
from base.errors import NotFound, PermissionDenied, ValidationFailed
from memory.extraction import llm
from memory.models import LlmProvider, LlmUsage
from tenants import rls
from tenants.models import Tenant
from tenants.permissions import Capability, actor_allows

log = logging.getLogger(__name__)

FAILURES_TO_OPEN = 3
OPEN_FOR = timedelta(minutes=5)
MAX_DAILY_TOKENS = 100_000_000
URL = re.compile(
    r"https?://[A-Za-z0-9.-]+(:(6553[0-5]|655[0-2][0-9]|65[0-4][0-9]{2}|6[0-4][0-9]{3}|[1-5][0-9]{4}|[0-9]{1,4}))?(/[^\s?#]*)?"
)


def _box_key() -> bytes:
    return hmac.new(
        settings.SECRET_KEY.encode(), b"mnemo llm provider keys", hashlib.sha256
    ).digest()


def _aad(tenant_id: int) -> bytes:
    return f"mnemo-llm:{tenant_id}".encode()


def seal_key(tenant_id: int, api_key: str) -> bytes:
    nonce = os.urandom(12)
    return nonce + AESGCM(_box_key()).encrypt(nonce, api_key.encode(), _aad(tenant_id))


def open_key(tenant_id: int, sealed: bytes) -> str | None:
    """The key, or None when it cannot be opened (another tenant's row, another SECRET_KEY)."""
    raw = bytes(sealed)
    if not raw:
        return ""
    try:
        return AESGCM(_box_key()).decrypt(raw[:12], raw[12:], _aad(tenant_id)).decode()
    except (InvalidTag, ValueError):
        return None


def _check_url(url: str) -> str:
    url = url.strip().rstrip("/")
    parts = urlsplit(url)
    if not URL.fullmatch(url) or parts.scheme not in ("http", "https") or not parts.hostname:
        raise ValidationFailed.field(
            "base_url", "an http(s) URL, such as https://api.openai.com/v1"
        )
    if parts.username or parts.password:
        raise ValidationFailed.field("base_url", "put the key in api_key, not in the URL")
    try:
        parts.port  # noqa: B018 -- a port past 65535 raises here
    except ValueError as error:
        raise ValidationFailed.field("base_url", "the port must be 1 to 65535") from error
    if not settings.LLM_PRIVATE_HOSTS:
        host = parts.hostname.lower()
        try:
            address = ipaddress.ip_address(host)
        except ValueError:
            address = None
        if (
            host == "localhost"
            or host.endswith(".localhost")
            or (address is not None and not address.is_global)
        ):
            raise ValidationFailed.field(
                "base_url", "a public address: loopback and private networks are not reachable"
            )
    return url


def _shown(config: LlmProvider | None) -> dict[str, Any]:
    """What the audit log keeps of the settings: never the key, only its last characters."""
    if config is None:
        return {}
    return {
        "base_url": config.base_url,
        "model": config.model,
        "key_hint": config.key_hint,
        "daily_tokens": config.daily_tokens,
        "enabled": config.enabled,
    }


def settings_of(*, tenant: Tenant) -> LlmProvider | None:
    return LlmProvider.objects.filter(tenant=tenant).first()


def llm_configure(
    *,
    tenant: Tenant,
    actor: Actor,
    base_url: str,
    model: str,
    api_key: str | None = None,
    daily_tokens: int | None = None,
    enabled: bool | None = None,
) -> LlmProvider:
    """Set the provider (admins). ``api_key`` None keeps the key already set (a new provider
    then has none: a local server that takes none). Audited without the key."""
    if not actor_allows(actor, Capability.LLM_SETTINGS):
        raise PermissionDenied("Only admins and owners set the workspace's language model.")
    url = _check_url(base_url)
    model = model.strip()
    if not model:
        raise ValidationFailed.field("model", "the model's name, such as gpt-4o-mini")
    if daily_tokens is not None and not 0 <= daily_tokens <= MAX_DAILY_TOKENS:
        raise ValidationFailed.field("daily_tokens", f"between 0 and {MAX_DAILY_TOKENS:,}")
    with transaction.atomic():
        config = LlmProvider.objects.select_for_update().filter(tenant=tenant).first()
        before = _shown(config)
        if config is None:
            config = LlmProvider(tenant=tenant)  # no key: a local server that takes none
        config.base_url, config.model = url, model[:120]
        if api_key is not None:
            config.key_sealed = seal_key(tenant.pk, api_key.strip())
            config.key_hint = api_key.strip()[-4:] if len(api_key.strip()) >= 8 else ""
        if daily_tokens is not None:
            config.daily_tokens = daily_tokens
        if enabled is not None:
            config.enabled = enabled
        config.failures, config.open_until, config.last_error = 0, None, ""
        config.updated_at = timezone.now()
        config.save()
        audit_record(
            tenant_id=tenant.pk,
            actor=actor,
            verb="llm.configure",
            target=config,
            target_label=f"{config.model} at {config.base_url}"[:200],
            before=before,
            after={**_shown(config), "key_changed": api_key is not None},
        )
    return config


def llm_remove(*, tenant: Tenant, actor: Actor) -> None:
    """Forget the provider and its key (admins); the usage meter stays. Extraction uses the
    rules from its next batch."""
    if not actor_allows(actor, Capability.LLM_SETTINGS):
        raise PermissionDenied("Only admins and owners set the workspace's language model.")
    with transaction.atomic():
        config = LlmProvider.objects.select_for_update().filter(tenant=tenant).first()
        if config is None:
            raise NotFound("This workspace has no language model set.")
        before = _shown(config)
        audit_record(
            tenant_id=tenant.pk,
            actor=actor,
            verb="llm.remove",
            target=config,
            target_label=f"{config.model} at {config.base_url}"[:200],
            before=before,
        )
        config.delete()


@dataclass(frozen=True)
class Gate:
    """What extraction may spend now: the provider, or why the rules read instead."""

    provider: llm.Provider | None
    tokens_left: int
    reason: str  # "", "circuit open", "budget spent", "key unreadable"


def spent_today(tenant_id: int) -> int:
    total = LlmUsage.objects.filter(tenant_id=tenant_id, day=timezone.localdate()).aggregate(
        p=Sum("prompt_tokens"), c=Sum("completion_tokens")
    )
    return int(total["p"] or 0) + int(total["c"] or 0)


def configured(tenant_id: int) -> LlmProvider | None:
    """The tenant's enabled provider (inside the tenant's scope)."""
    return LlmProvider.objects.filter(tenant_id=tenant_id, enabled=True).first()


def gate(tenant_id: int) -> Gate:
    """May extraction call the provider now, with how many tokens left today."""
    config = configured(tenant_id)
    if config is None:
        return Gate(None, 0, "no provider")
    if config.open_until is not None and config.open_until > timezone.now():
        return Gate(None, 0, "circuit open")
    left = config.daily_tokens - spent_today(tenant_id)
    if left <= 0:
        return Gate(None, 0, "budget spent")
    key = open_key(tenant_id, bytes(config.key_sealed))
    if key is None:
        return Gate(None, 0, "key unreadable")
    return Gate(llm.Provider(config.base_url, config.model, key), left, "")


USAGE_UPSERT = """
INSERT INTO memory_llmusage
    (tenant_id, day, job_id, calls, prompt_tokens, completion_tokens, failures, fallbacks)
VALUES (%s, %s, %s, %s, %s, %s, %s, %s)
ON CONFLICT (tenant_id, day, job_id) DO UPDATE SET
    calls = memory_llmusage.calls + EXCLUDED.calls,
    prompt_tokens = memory_llmusage.prompt_tokens + EXCLUDED.prompt_tokens,
    completion_tokens = memory_llmusage.completion_tokens + EXCLUDED.completion_tokens,
    failures = memory_llmusage.failures + EXCLUDED.failures,
    fallbacks = memory_llmusage.fallbacks + EXCLUDED.fallbacks
"""


@dataclass(frozen=True)
class Spent:
    calls: int = 0
    prompt_tokens: int = 0
    completion_tokens: int = 0
    failures: int = 0
    fallbacks: int = 0
    last_error: str = ""
    succeeded: bool = False  # at least one call answered
    failures_in_row: int = 0  # failed calls after the last that answered

    @property
    def tokens(self) -> int:
        return self.prompt_tokens + self.completion_tokens


def meter(*, tenant_id: int, job_id: int | None, spent: Spent) -> None:
    """Add what a batch of calls spent to today's meter and move the circuit breaker, in its own
    transaction (the tenant's scope)."""
    if not (spent.calls or spent.fallbacks):
        return
    with rls.tenant_scope(tenant_id):
        with connection.cursor() as cursor:
            cursor.execute(
                USAGE_UPSERT,
                [
                    tenant_id,
                    timezone.localdate(),
                    job_id,
                    spent.calls,
                    spent.prompt_tokens,
                    spent.completion_tokens,
                    spent.failures,
                    spent.fallbacks,
                ],
            )
        config = LlmProvider.objects.select_for_update().filter(tenant_id=tenant_id).first()
        if config is None or not spent.calls:
            return
        if spent.succeeded:  # an answer closes the circuit; failures after it count on
            config.failures, config.open_until = spent.failures_in_row, None
        else:
            config.failures += spent.failures
        if spent.failures:
            config.last_error = spent.last_error[:300]
        if config.failures >= FAILURES_TO_OPEN:
            config.open_until = timezone.now() + OPEN_FOR
        config.save(update_fields=["failures", "open_until", "last_error"])


def meter_apart(*, tenant_id: int, spent: Spent) -> None:
    """``meter`` on a connection of its own, committed at once: for a call made inside a
    request's transaction (intent routing), which must neither lose the spend if that
    transaction rolls back nor hold the provider row's lock until it ends."""

    def work() -> None:
        try:
            meter(tenant_id=tenant_id, job_id=None, spent=spent)
        except Exception:  # the meter is bookkeeping: the recall goes on
            log.warning("could not meter a call for tenant %s", tenant_id, exc_info=True)
        finally:
            connection.close()

    worker = threading.Thread(target=work, name="llm-meter", daemon=True)
    worker.start()
    worker.join(timeout=5)


@dataclass(frozen=True)
class DayUse:
    day: date
    calls: int
    tokens: int
    failures: int
    fallbacks: int


def usage_by_day(*, tenant: Tenant, days: int = 30) -> list[DayUse]:
    """The last ``days`` days, oldest first, every day present (zeros where nothing was spent)."""
    today = timezone.localdate()
    first = today - timedelta(days=days - 1)
    rows = (
        LlmUsage.objects.filter(tenant=tenant, day__gte=first)
        .values("day")
        .annotate(
            calls=Sum("calls"),
            prompt=Sum("prompt_tokens"),
            completion=Sum("completion_tokens"),
            failures=Sum("failures"),
            fallbacks=Sum("fallbacks"),
        )
    )
    found: dict[date, dict[str, Any]] = {row["day"]: dict(row) for row in rows}
    out = []
    for offset in range(days):
        day = first + timedelta(days=offset)
        row = found.get(day) or {}
        out.append(
            DayUse(
                day=day,
                calls=int(row.get("calls") or 0),
                tokens=int(row.get("prompt") or 0) + int(row.get("completion") or 0),
                failures=int(row.get("failures") or 0),
                fallbacks=int(row.get("fallbacks") or 0),
            )
        )
    return out


def usage_by_job(*, tenant: Tenant, limit: int = 20) -> list[dict[str, Any]]:
    """The jobs that spent most recently: job id, calls, tokens, failures, fallbacks."""
    rows = (
        LlmUsage.objects.filter(tenant=tenant, job__isnull=False)
        .values("job_id")
        .annotate(
            calls=Sum("calls"),
            prompt=Sum("prompt_tokens"),
            completion=Sum("completion_tokens"),
            failures=Sum("failures"),
            fallbacks=Sum("fallbacks"),
        )
        .order_by("-job_id")[:limit]
    )
    return [
        {
            "job": row["job_id"],
            "calls": int(row["calls"] or 0),
            "tokens": int(row["prompt"] or 0) + int(row["completion"] or 0),
            "failures": int(row["failures"] or 0),
            "fallbacks": int(row["fallbacks"] or 0),
        }
        for row in rows
    ]

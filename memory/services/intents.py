"""Intent routing for a workspace: its vocabulary (the shipped intents with its own ``Intent``
rows), their prototypes (each intent's examples embedded, once per process and model), and
``route`` — forced, else rules, else prototypes, else the workspace's language model when one
is set, else none (``memory.core.intents`` decides; this module only fetches what it needs).

The model is asked only about queries the rules and prototypes left open, with a short timeout
(recall waits for it), and its answers are kept per workspace and query for ``ASKED_TTL``: an
agent repeating a query does not pay twice. Its calls go through the workspace's budget and
circuit breaker and are metered like extraction's; a failed call routes to none."""

from __future__ import annotations

import dataclasses
import hashlib
import threading
import time
from collections import OrderedDict
from collections.abc import Callable, Sequence

from django.utils import timezone

from audit.actors import Actor
from audit.services import audit_record
from base.db import atomic_with_retry
from base.errors import NotFound, PermissionDenied
from memory.core.intents import (
    DEFAULTS,
    IntentDef,
    Routed,
    by_llm,
    by_prototypes,
    by_rules,
    keyword_rules,
    unit,
    vocabulary,
)
from memory.embeddings import embed_query, embedder
from memory.extraction import llm
from memory.models import Intent
from memory.services.llm import Spent, gate, meter_apart
from tenants.models import Tenant
from tenants.permissions import Capability, actor_allows

VOCABULARY_TTL = 60.0  # seconds a workspace's own intents are cached in this process
ASK_TIMEOUT = 4.0  # seconds recall waits for the language model's answer
ASKED_TTL = 900.0  # seconds its answer to a query (for this vocabulary) is kept
ASKED_MAX = 4096  # answers kept in this process, the oldest forgotten first

_lock = threading.Lock()
_vocabularies: dict[int, tuple[float, list[IntentDef]]] = {}
_prototypes: dict[tuple[str, str, tuple[str, ...]], tuple[tuple[float, ...], ...]] = {}
_asked: OrderedDict[tuple[int, str, str], tuple[float, Routed]] = OrderedDict()


def vocabulary_of(tenant_id: int) -> list[IntentDef]:
    """The workspace's intents: the defaults, changed or added to by its ``Intent`` rows."""
    now = time.monotonic()
    with _lock:
        cached = _vocabularies.get(tenant_id)
        if cached and now - cached[0] < VOCABULARY_TTL:
            return cached[1]
    rows = list(Intent.objects.filter(tenant_id=tenant_id).order_by("name"))
    own = [
        IntentDef(r.name, r.description, keyword_rules(r.keywords), tuple(r.examples))
        for r in rows
        if r.enabled
    ]
    merged = vocabulary(own, disabled=[r.name for r in rows if not r.enabled])
    with _lock:
        _vocabularies[tenant_id] = (now, merged)
    return merged


def forget_vocabulary(tenant_id: int) -> None:
    """Drop what this process keeps of the workspace's intents (and the model's answers about
    them)."""
    with _lock:
        _vocabularies.pop(tenant_id, None)
        for key in [k for k in _asked if k[0] == tenant_id]:
            del _asked[key]


def prototypes_of(intents: Sequence[IntentDef]) -> dict[str, tuple[tuple[float, ...], ...]]:
    """Each intent's prototypes: its examples' embeddings (empty when no embedder answers)."""
    try:
        model = embedder().model_id
    except Exception:
        return {}
    out: dict[str, tuple[tuple[float, ...], ...]] = {}
    for intent in intents:
        if not intent.examples:
            continue
        key = (model, intent.name, intent.examples)
        with _lock:
            known = _prototypes.get(key)
        if known is None:
            try:
                known = tuple(unit(embed_query(example, 0)) for example in intent.examples)
            except Exception:
                return out
            with _lock:
                _prototypes[key] = known
        out[intent.name] = known
    return out


def route(
    *,
    tenant_id: int,
    query: str | None,
    forced: str | None = None,
    embedding: Callable[[], Sequence[float] | None] | None = None,
) -> Routed:
    """The query's intent: ``forced`` if the caller named one, else the rules', else the
    nearest prototype's, else none. ``embedding``: the query's, when the caller is computing
    it already (recall)."""
    intents = vocabulary_of(tenant_id)
    if forced:
        return Routed(forced, "forced", 1.0)
    if not query:
        return Routed("", "none", 0.0)
    ruled = by_rules(query, intents)
    if ruled.intent:
        return ruled
    prototypes = prototypes_of(intents)
    near = Routed("", "none", 0.0)
    if prototypes:
        try:
            vector = embedding() if embedding is not None else embed_query(query, tenant_id)
            if vector is not None:
                near = by_prototypes(vector, prototypes)
        except Exception:  # no embedder now: the model may still answer
            near = Routed("", "none", 0.0)
    if near.intent:
        return near
    asked = ask_model(tenant_id, query, intents)
    if asked is not None and asked.intent:
        return asked
    return Routed("", "none", 0.0, ruled.scores or near.scores)


def ask_model(tenant_id: int, query: str, intents: Sequence[IntentDef]) -> Routed | None:
    """The workspace's language model's route for ``query`` (kept for ``ASKED_TTL``), or None
    when there is no model to ask now or its call failed (metered either way, in its own
    transaction: the recall's may still roll back). A kept answer is used before anything
    else is looked up."""
    if not intents:
        return None
    offered = [(d.name, d.description) for d in intents]
    vocabulary = hashlib.sha256(repr(offered).encode()).hexdigest()[:16]
    key = (tenant_id, vocabulary, " ".join(query.lower().split()))
    now = time.monotonic()
    with _lock:
        kept = _asked.get(key)
        if kept and now - kept[0] < ASKED_TTL:
            _asked.move_to_end(key)
            return kept[1]
    allowed = gate(tenant_id)
    if allowed.provider is None:
        return None
    provider = dataclasses.replace(allowed.provider, timeout=ASK_TIMEOUT)
    try:
        name, confidence, usage = llm.classify_intent(provider, query, offered)
    except llm.ProviderError as error:
        wasted = error.usage or llm.Usage(0, 0)
        failed = Spent(
            calls=1,
            prompt_tokens=wasted.prompt_tokens,
            completion_tokens=wasted.completion_tokens,
            failures=1,
            last_error=str(error),
            failures_in_row=1,
        )
        meter_apart(tenant_id=tenant_id, spent=failed)
        return None
    spent = Spent(
        calls=1,
        prompt_tokens=usage.prompt_tokens,
        completion_tokens=usage.completion_tokens,
        succeeded=True,
    )
    meter_apart(tenant_id=tenant_id, spent=spent)
    routed = by_llm(name, confidence)
    with _lock:
        _asked[key] = (now, routed)
        while len(_asked) > ASKED_MAX:
            _asked.popitem(last=False)
    return routed


def known_names(tenant_id: int) -> list[str]:
    return [d.name for d in vocabulary_of(tenant_id)] or [d.name for d in DEFAULTS]


def intent_set(
    *,
    tenant: Tenant,
    actor: Actor,
    name: str,
    description: str | None = None,
    keywords: list[str] | None = None,
    examples: list[str] | None = None,
    enabled: bool | None = None,
) -> Intent:
    """Add an intent to the workspace, or change a default's description, keywords, examples
    or whether it routes (audited ``intent.set``); what is not given stays."""
    if not actor_allows(actor, Capability.INTENTS_EDIT):
        raise PermissionDenied("changing the intents needs an admin")

    def work() -> Intent:
        row, created = Intent.objects.select_for_update().get_or_create(tenant=tenant, name=name)
        before = {
            "description": row.description,
            "keywords": list(row.keywords),
            "examples": list(row.examples),
            "enabled": row.enabled,
        }
        if description is not None:
            row.description = description
        if keywords is not None:
            row.keywords = list(dict.fromkeys(keywords))
        if examples is not None:
            row.examples = list(dict.fromkeys(examples))
        if enabled is not None:
            row.enabled = enabled
        row.updated_at = timezone.now()
        row.save()
        audit_record(
            tenant_id=tenant.pk,
            actor=actor,
            verb="intent.set",
            target=row,
            target_label=name,
            before=None if created else before,
            after={
                "description": row.description,
                "keywords": row.keywords,
                "examples": row.examples,
                "enabled": row.enabled,
            },
        )
        return row

    row = atomic_with_retry(work)
    forget_vocabulary(tenant.pk)
    return row


def intent_reset(*, tenant: Tenant, actor: Actor, name: str) -> None:
    """Remove the workspace's own row for ``name``: a default goes back to as shipped, an
    intent of its own is gone (audited ``intent.reset``)."""
    if not actor_allows(actor, Capability.INTENTS_EDIT):
        raise PermissionDenied("changing the intents needs an admin")

    def work() -> None:
        row = Intent.objects.filter(tenant=tenant, name=name).first()
        if row is None:
            raise NotFound(f"this workspace has not changed or added the intent {name!r}")
        audit_record(
            tenant_id=tenant.pk,
            actor=actor,
            verb="intent.reset",
            target=row,
            target_label=name,
            before={"keywords": row.keywords, "examples": row.examples, "enabled": row.enabled},
        )
        row.delete()

    atomic_with_retry(work)
    forget_vocabulary(tenant.pk)


def intents_listed(*, tenant: Tenant) -> list[tuple[IntentDef, Intent | None, bool]]:
    """Every intent the workspace routes or has disabled: (its definition, the workspace's own
    row if any, shipped or not)."""
    rows = {r.name: r for r in Intent.objects.filter(tenant=tenant).order_by("name")}
    shipped = {d.name for d in DEFAULTS}
    merged = {d.name: d for d in vocabulary_of(tenant.pk)}

    def as_changed(default: IntentDef) -> IntentDef:
        """A disabled default as the workspace changed it (its own text, not the shipped)."""
        row = rows.get(default.name)
        if row is None:
            return default
        return dataclasses.replace(
            default,
            description=row.description or default.description,
            examples=tuple(row.examples) or default.examples,
        )

    out = [(merged.get(d.name) or as_changed(d), rows.get(d.name), True) for d in DEFAULTS]
    out += [(merged[n], rows.get(n), False) for n in merged if n not in shipped]
    out += [
        (IntentDef(n, r.description, keyword_rules(r.keywords), tuple(r.examples)), r, False)
        for n, r in rows.items()
        if n not in shipped and n not in merged
    ]
    return out

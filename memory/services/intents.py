"""Intent routing for a workspace: its vocabulary (the shipped intents with its own ``Intent``
rows), their prototypes (each intent's examples embedded, once per process and model), and
``route`` — forced, else rules, else prototypes, else the default (``memory.core.intents``
decides; this module only fetches what it needs)."""

from __future__ import annotations

import threading
import time
from collections.abc import Sequence

from memory.core.intents import (
    DEFAULTS,
    IntentDef,
    Routed,
    by_prototypes,
    by_rules,
    keyword_rules,
    vocabulary,
)
from memory.embeddings import embed_query, embedder
from memory.models import Intent

VOCABULARY_TTL = 60.0  # seconds a workspace's own intents are cached in this process

_lock = threading.Lock()
_vocabularies: dict[int, tuple[float, list[IntentDef]]] = {}
_prototypes: dict[tuple[str, str, tuple[str, ...]], tuple[tuple[float, ...], ...]] = {}


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
    with _lock:
        _vocabularies.pop(tenant_id, None)


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
                known = tuple(embed_query(example, 0) for example in intent.examples)
            except Exception:
                return out
            with _lock:
                _prototypes[key] = known
        out[intent.name] = known
    return out


def route(*, tenant_id: int, query: str | None, forced: str | None = None) -> Routed:
    """The query's intent: ``forced`` if the caller named one, else the rules', else the
    nearest prototype's, else none."""
    intents = vocabulary_of(tenant_id)
    if forced:
        return Routed(forced, "forced", 1.0)
    if not query:
        return Routed("", "none", 0.0)
    ruled = by_rules(query, intents)
    if ruled.intent:
        return ruled
    prototypes = prototypes_of(intents)
    if not prototypes:
        return ruled
    try:
        vector = embed_query(query, tenant_id)
    except Exception:
        return ruled
    near = by_prototypes(vector, prototypes)
    return near if near.intent else Routed("", "none", 0.0, ruled.scores or near.scores)


def known_names(tenant_id: int) -> list[str]:
    return [d.name for d in vocabulary_of(tenant_id)] or [d.name for d in DEFAULTS]

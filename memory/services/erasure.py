"""Verifiable erasure: memories removed from every store that holds their words, and a receipt
that says so, signed by the service.

What is asked: engram ids, a subject (every memory that names a person or entity — as a word
of its content, or as its speaker), a network, or a mix (ids and subject matches, within the
network when one is named; a network alone is the whole network). A Celery worker runs it
(``memory.tasks.erase``): in one transaction, per store —

* **engrams**: left as tombstones (status ``erased``; content, schema, terms, metadata,
  external id and vector emptied, the content's SHA-256 kept for the receipt); the full-text
  index follows the content (a generated column);
* **graph**: their links to cues removed; cues left with no memory (and the subject's own) and
  their edges deleted;
* **moderation**: the items about them keep their decision, not their words;
* **knowledge**: the episodes they came from emptied, their entity mentions and fact evidence
  deleted, facts no evidence is left for (and every fact about the subject) deleted, entities
  nothing names any more deleted;
* **uploads**: import jobs whose stored lines or errors hold the text are emptied (exports are
  streamed, never stored);
* **audit payloads**: the memories' seal keys destroyed (audit.sealing) — the events stay, with
  who did what and when, and can no longer be read;
* **caches**: the words' cached document frequencies and the networks' statistics dropped.

Then a probe recalls the erased words in each network and counts what comes back (0 expected),
and the receipt (counts, hashes, probe, who, when) is signed with the service's Ed25519 key
(derived from SECRET_KEY); ``verify`` checks a receipt against it.
"""

from __future__ import annotations

import base64
import hashlib
import json
import re
from typing import Any

from cryptography.exceptions import InvalidSignature
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey, Ed25519PublicKey
from cryptography.hazmat.primitives.serialization import Encoding, PublicFormat
from django.conf import settings
from django.core.cache import cache
from django.db import connection, transaction
from django.db.models import Count, F, Q
from django.utils import timezone

from audit import sealing
from audit.actors import Actor
from audit.models import AuditEvent
from audit.services import AuditEntry, audit_records
from base.background import after_commit
from base.errors import NotFound, PermissionDenied, ValidationFailed
from memory.core.knowledge import entity_key
from memory.core.text import lemma
from memory.models import (
    Cue,
    Edge,
    Engram,
    EngramCue,
    Entity,
    EntityAlias,
    EntityMention,
    Episode,
    Erasure,
    Fact,
    FactEvidence,
    ImportJob,
    ModerationItem,
    Network,
)
from memory.services import lifecycle
from memory.services.facts import fact_reopen
from memory.services.recall import df_key, stats_key
from tenants import rls
from tenants.models import Tenant
from tenants.permissions import Capability, actor_allows

MAX_IDS = 10_000
PROBES = 20  # recalls run after an erasure, at most


def erasure_request(
    *,
    tenant: Tenant,
    actor: Actor,
    network_key: str = "",
    engram_ids: list[int] | None = None,
    subject: str = "",
) -> Erasure:
    """Queue an erasure (admins, admin keys); the worker runs it after commit."""
    if not actor_allows(actor, Capability.MEMORY_ERASE):
        raise PermissionDenied("Only admins and owners erase memories.")
    subject = " ".join(subject.split())
    ids = sorted(set(engram_ids or []))
    if not (network_key or ids or subject):
        raise ValidationFailed("name what to erase: network, engram_ids or subject")
    if len(ids) > MAX_IDS:
        raise ValidationFailed.field("engram_ids", f"at most {MAX_IDS} at once")
    if network_key and not Network.objects.filter(tenant=tenant, key=network_key).exists():
        raise NotFound(f"There is no network {network_key!r} in this workspace.")
    with transaction.atomic():
        erasure = Erasure.objects.create(
            tenant=tenant,
            network_key=network_key,
            engram_ids=ids,
            subject=subject,
            subject_sha256=hashlib.sha256(subject.casefold().encode()).hexdigest()
            if subject
            else "",
            actor=actor.as_json(),
        )
        after_commit("memory.tasks.erase", tenant.pk, erasure.pk)
    return erasure


def erasure_get_for_tenant(*, tenant: Tenant, id: int) -> Erasure:
    erasure = Erasure.objects.filter(tenant=tenant, pk=id).first()
    if erasure is None:
        raise NotFound("There is no such erasure.")
    return erasure


def _targets(erasure: Erasure) -> list[Engram]:
    engrams = Engram.objects.filter(tenant_id=erasure.tenant_id).exclude(
        status=Engram.Status.ERASED
    )
    if erasure.network_key:
        engrams = engrams.filter(network__key=erasure.network_key)
    wanted = Q()
    if erasure.engram_ids:
        wanted |= Q(pk__in=erasure.engram_ids)
    if erasure.subject:
        word = r"\m" + re.escape(erasure.subject) + r"\M"
        wanted |= Q(content__iregex=word) | Q(metadata__speaker__iexact=erasure.subject)
    if wanted:
        engrams = engrams.filter(wanted)
    return list(engrams.select_for_update(of=("self",)).select_related("network").order_by("id"))


def erasure_run(*, tenant_id: int, erasure_id: int) -> Erasure | None:
    """Run a queued erasure (idempotent: a finished one is left as it is)."""
    with rls.tenant_scope(tenant_id):
        erasure = Erasure.objects.select_for_update().filter(pk=erasure_id).first()
        if erasure is None or erasure.state == Erasure.State.DONE:
            return erasure
        if erasure.counts:  # erased already (a redelivery after the commit): probe and sign
            engrams = list(Engram.objects.filter(tenant_id=tenant_id, pk__in=erasure.erased_ids))
            words = {e.network_id: [erasure.subject] if erasure.subject else [] for e in engrams}
        else:
            erasure.state = Erasure.State.RUNNING
            erasure.save(update_fields=["state"])
            engrams = _targets(erasure)
            words = _erase(erasure, engrams)
    with rls.tenant_scope(tenant_id):
        probe = _probe(erasure, engrams, words)
    with rls.tenant_scope(tenant_id):
        erasure = Erasure.objects.select_for_update().get(pk=erasure_id)
        erasure.probe = probe
        erasure.subject = ""  # the receipt keeps its hash
        erasure.state = Erasure.State.DONE
        erasure.finished_at = timezone.now()
        erasure.public_key = public_key()
        erasure.signature = sign(receipt_body(erasure))
        erasure.save()
    return erasure


def _erase(erasure: Erasure, engrams: list[Engram]) -> dict[int, list[str]]:
    """Remove the memories' words from every store (one transaction, the caller's); returns
    {network id: probe queries}."""
    tenant_id = erasure.tenant_id
    now = timezone.now()
    ids = [e.pk for e in engrams]
    networks = {e.network_id: e.network for e in engrams}
    if erasure.network_key:
        net = Network.objects.filter(tenant_id=tenant_id, key=erasure.network_key).first()
        if net is not None:
            networks.setdefault(net.pk, net)
    texts = [e.content for e in engrams]
    counts: dict[str, int] = {
        "engrams": len(engrams),
        "vectors": sum(1 for e in engrams if e.embedding is not None),
        "text_index": sum(1 for e in engrams if e.content.strip()),
    }
    lexemes = _lexemes(ids)
    probes = {
        nid: _probe_queries(erasure.subject, [e.content for e in engrams if e.network_id == nid])
        for nid in networks
    }
    counts["cue_links"] = EngramCue.objects.filter(tenant_id=tenant_id, engram_id__in=ids).count()
    for engram in engrams:  # out of the graph first (edges weakened, counts lowered)
        if engram.status == Engram.Status.ACTIVE:
            lifecycle.delete(engram.network, engram, now)
    EngramCue.objects.filter(tenant_id=tenant_id, engram_id__in=ids).delete()
    schema_lemmas = {lemma(w) for e in engrams for w in e.schema} - {""}
    subject_lemmas = {lemma(w) for w in erasure.subject.split()} - {""}
    subject_cue = Q(lemma=" ".join(lemma(w) for w in erasure.subject.split())) | Q(
        word__iexact=erasure.subject
    )
    dead = Cue.objects.filter(tenant_id=tenant_id, network_id__in=list(networks)).filter(
        Q(lemma__in=schema_lemmas, engram_count__lte=0)
        | (subject_cue if erasure.subject else Q(pk__in=[]))
        | (Q(lemma__in=subject_lemmas, engram_count__lte=0) if subject_lemmas else Q(pk__in=[]))
    )
    dead_ids = list(dead.values_list("pk", flat=True))
    counts["edges"], _ = Edge.objects.filter(
        Q(source_id__in=dead_ids) | Q(target_id__in=dead_ids), tenant_id=tenant_id
    ).delete()
    EngramCue.objects.filter(tenant_id=tenant_id, cue_id__in=dead_ids).delete()
    # their vectors are deleted with them; the receipt counts the cues alone
    gone = Cue.objects.filter(tenant_id=tenant_id, pk__in=dead_ids).delete()[1]
    counts["cues"] = gone.get("memory.Cue", 0)
    Engram.objects.filter(tenant_id=tenant_id, pk__in=ids).update(
        content="",
        schema=[],
        terms=[],
        metadata={},
        external_id=None,
        embedding=None,
        embedding_model="",
        token_count=0,
        status=Engram.Status.ERASED,
        updated_at=now,
    )
    counts["moderation_items"] = ModerationItem.objects.filter(
        tenant_id=tenant_id, engram_id__in=ids
    ).update(proposed={}, note="", hits=[], decision_note="")
    ModerationItem.objects.filter(
        tenant_id=tenant_id, engram_id__in=ids, state=ModerationItem.State.PENDING
    ).update(
        state=ModerationItem.State.EXPIRED,
        decided_at=now,
        decided_by={"kind": "system", "id": None, "label": f"erasure {erasure.pk}"},
    )
    scope = list(networks) if erasure.network_key else None
    counts.update(_erase_knowledge(tenant_id, ids, erasure.subject, scope))
    counts["uploads"] = _scrub_uploads(
        tenant_id, texts + ([erasure.subject] if erasure.subject else [])
    )
    counts["exports"] = 0  # exports are streamed to the client, never stored
    subjects = [f"engram:{pk}" for pk in ids]
    # events sealed with these memories' keys (older, unsealed ones cannot be read away)
    counts["audit_payloads"] = AuditEvent.objects.filter(
        tenant_id=tenant_id,
        target_type="engram",
        target_id__in=[str(pk) for pk in ids],
        after__has_key=sealing.SEALED,
    ).count()
    counts["audit_keys"] = sealing.shred(tenant_id, subjects)
    counts["cache_entries"] = _drop_cached(tenant_id, list(networks), lexemes)
    erasure.counts = counts
    erasure.content_hashes = [hashlib.sha256(text.encode()).hexdigest() for text in texts]
    erasure.erased_ids = ids
    erasure.save(update_fields=["counts", "content_hashes", "erased_ids"])
    audit_records(
        tenant_id=tenant_id,
        actor=Actor.from_json(erasure.actor, default="erasure"),
        entries=[
            AuditEntry(
                verb="memory.erase",
                target_type="erasure",
                target_id=erasure.pk,
                target_label=f"erasure {erasure.pk}",
                after={
                    "network": erasure.network_key,
                    "engram_ids": ids[:1000],
                    "subject_sha256": erasure.subject_sha256,
                    "counts": counts,
                },
            )
        ],
    )
    return probes


def _erase_knowledge(
    tenant_id: int, ids: list[int], subject: str, network_ids: list[int] | None
) -> dict[str, int]:
    """The knowledge read from these memories: their episodes emptied (kept as tombstones, as
    the engrams are), their mentions and evidence deleted, facts left with no evidence deleted
    (a value they had superseded is current again), every fact about the subject deleted (in
    ``network_ids``, or everywhere), and entities nothing names any more deleted, with the
    names only the erased memories wrote."""
    episodes = Episode.objects.filter(tenant_id=tenant_id, engram_id__in=ids)
    episode_ids = list(episodes.values_list("pk", flat=True))
    counts = {"episodes": episodes.update(content="", speaker="", metadata={}, external_id=None)}
    mentions = EntityMention.objects.filter(tenant_id=tenant_id, engram_id__in=ids)
    touched = set(mentions.values_list("entity_id", flat=True))
    counts["entity_mentions"] = mentions.delete()[0]
    evidence = FactEvidence.objects.filter(tenant_id=tenant_id).filter(
        Q(engram_id__in=ids) | Q(episode_id__in=episode_ids)
    )
    facts = set(evidence.values_list("fact_id", flat=True))
    counts["fact_evidence"] = evidence.delete()[0]
    named: set[int] = set()
    if subject:
        aliases = EntityAlias.objects.filter(tenant_id=tenant_id, key=entity_key(subject))
        if network_ids is not None:
            aliases = aliases.filter(network_id__in=network_ids)
        named = set(aliases.values_list("entity_id", flat=True))
        named |= _merged_into(tenant_id, named)
    left = dict(
        FactEvidence.objects.filter(tenant_id=tenant_id, fact_id__in=facts)
        .values("fact_id")
        .annotate(n=Count("pk"))
        .values_list("fact_id", "n")
    )
    for fact_id, n in left.items():  # what still says it: the count follows
        Fact.objects.filter(tenant_id=tenant_id, pk=fact_id).update(evidence_count=n)
    gone = Fact.objects.filter(tenant_id=tenant_id).filter(
        Q(pk__in=facts - set(left)) | Q(subject_id__in=named) | Q(object_entity_id__in=named)
    )
    rows = list(gone.values("pk", "subject_id", "object_entity_id", "supersedes_id", "status"))
    dead = {r["pk"] for r in rows}
    touched |= {r["subject_id"] for r in rows} | {r["object_entity_id"] for r in rows} - {None}
    Fact.objects.filter(tenant_id=tenant_id, supersedes__in=dead).update(supersedes=None)
    counts["facts"] = gone.delete()[1].get("memory.Fact", 0)
    for row in rows:  # the value an erased statement replaced holds again
        before = row["supersedes_id"]
        if row["status"] == Fact.Status.CURRENT and before is not None and before not in dead:
            fact_reopen(tenant_id=tenant_id, fact_id=before)
    counts["entities"] = _drop_unnamed(tenant_id, touched | named, named)
    return counts


def _merged_into(tenant_id: int, roots: set[int]) -> set[int]:
    """Every entity merged, directly or along a chain, into one of ``roots``."""
    found: set[int] = set()
    frontier = set(roots)
    while frontier:
        frontier = (
            set(
                Entity.objects.filter(tenant_id=tenant_id, merged_into_id__in=frontier).values_list(
                    "pk", flat=True
                )
            )
            - found
        )
        found |= frontier
    return found


def _drop_unnamed(tenant_id: int, candidates: set[int], named: set[int]) -> int:
    """Delete the candidates nothing names any more (no mention, no fact about them; the
    subject's own always), with what was merged into them; on the others, drop the aliases
    no remaining mention or fact wrote. Returns the entities deleted."""
    mentioned = EntityMention.objects.filter(tenant_id=tenant_id).values("entity_id")
    about = Fact.objects.filter(tenant_id=tenant_id).values("subject_id")
    unused = set(
        Entity.objects.filter(tenant_id=tenant_id, pk__in=candidates)
        .exclude(pk__in=mentioned)
        .exclude(pk__in=about)
        .values_list("pk", flat=True)
    ) | (named - set(about.filter(subject_id__in=named).values_list("subject_id", flat=True)))
    unused |= _merged_into(tenant_id, unused)
    for entity_id in candidates - unused:
        written = set(
            EntityMention.objects.filter(tenant_id=tenant_id, entity_id=entity_id).values_list(
                "name", flat=True
            )
        ) | set(
            Fact.objects.filter(tenant_id=tenant_id, subject_id=entity_id).values_list(
                "subject_name", flat=True
            )
        )
        EntityAlias.objects.filter(tenant_id=tenant_id, entity_id=entity_id).exclude(
            alias__in=written
        ).exclude(entity__name=F("alias")).delete()
    Fact.objects.filter(tenant_id=tenant_id, object_entity__in=unused).update(object_entity=None)
    Entity.objects.filter(tenant_id=tenant_id, merged_into__in=unused).update(merged_into=None)
    return (
        Entity.objects.filter(tenant_id=tenant_id, pk__in=unused)
        .delete()[1]
        .get("memory.Entity", 0)
    )


def _lexemes(ids: list[int]) -> list[str]:
    """The full-text index's words of these memories (the keys recall caches by)."""
    if not ids:
        return []
    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT DISTINCT unnest(tsvector_to_array(search)) FROM memory_engram "
            "WHERE id = ANY(%s)",
            [ids],
        )
        return [row[0] for row in cursor.fetchall()]


def _scrub_uploads(tenant_id: int, texts: list[str]) -> int:
    needles = [t for t in texts if t.strip()]
    if not needles:
        return 0
    scrubbed = 0
    for job in ImportJob.objects.filter(tenant_id=tenant_id).only("pk", "payload", "errors"):
        stored = job.payload + json.dumps(job.errors, ensure_ascii=False)
        if any(needle in stored for needle in needles):
            ImportJob.objects.filter(pk=job.pk).update(payload="", errors=[])
            scrubbed += 1
    return scrubbed


def _drop_cached(tenant_id: int, network_ids: list[int], lexemes: list[str]) -> int:
    keys = [df_key(tenant_id, nid, lex) for nid in network_ids for lex in lexemes]
    keys += [stats_key(tenant_id, nid) for nid in network_ids]
    try:
        present = cache.get_many(keys)
        cache.delete_many(keys)
    except Exception:
        return 0
    return len(present)


def _probe_queries(subject: str, contents: list[str]) -> list[str]:
    queries = [subject] if subject else []
    for content in contents[: PROBES - len(queries)]:
        words = sorted(set(re.findall(r"\w{4,}", content)), key=len, reverse=True)[:6]
        if words:
            queries.append(" ".join(words))
    return queries


def _probe(erasure: Erasure, engrams: list[Engram], probes: dict[int, list[str]]) -> dict[str, Any]:
    """Recall the erased words: anything erased (or, for a subject, anything still naming it)
    that comes back is a failure the receipt shows."""
    from memory.services.recall import RecallOptions, network_recall

    erased = {e.pk for e in engrams}
    tenant = Tenant.objects.get(pk=erasure.tenant_id)
    actor = Actor.system("erasure probe")
    queries = found = 0
    named = re.compile(rf"\b{re.escape(erasure.subject)}\b", re.IGNORECASE)
    for network_id, queries_here in probes.items():
        network = Network.objects.filter(pk=network_id).first()
        if network is None:
            continue
        for query in queries_here:
            queries += 1
            mind = network_recall(
                tenant=tenant,
                actor=actor,
                network_key=network.key,
                query=query,
                options=RecallOptions(k=50, token_budget=100_000, record=False),
            )
            found += sum(
                1
                for e in mind.engrams
                if e.id in erased or bool(erasure.subject and named.search(e.content))
            )
    return {"queries": queries, "found": found}


# --- the receipt -------------------------------------------------------------------------------


def _signing_key() -> Ed25519PrivateKey:
    seed = hashlib.sha256(b"mnemo-erasure-receipt:" + settings.SECRET_KEY.encode()).digest()
    return Ed25519PrivateKey.from_private_bytes(seed)


def public_key() -> str:
    raw = _signing_key().public_key().public_bytes(Encoding.Raw, PublicFormat.Raw)
    return base64.b64encode(raw).decode()


def receipt_body(erasure: Erasure) -> dict[str, Any]:
    """What the signature covers, in a canonical form."""
    return {
        "erasure": erasure.pk,
        "tenant": erasure.tenant_id,
        "scope": {
            "network": erasure.network_key,
            "engram_ids": list(erasure.engram_ids),
            "subject_sha256": erasure.subject_sha256,
        },
        "counts": erasure.counts,
        "content_hashes": list(erasure.content_hashes),
        "probe": erasure.probe,
        "actor": erasure.actor,
        "requested_at": erasure.requested_at.isoformat(),
        "finished_at": erasure.finished_at.isoformat() if erasure.finished_at else None,
    }


def _canonical(body: dict[str, Any]) -> bytes:
    return json.dumps(body, sort_keys=True, separators=(",", ":"), ensure_ascii=False).encode()


def sign(body: dict[str, Any]) -> str:
    return base64.b64encode(_signing_key().sign(_canonical(body))).decode()


def verify(body: dict[str, Any], signature: str, key: str | None = None) -> bool:
    """Whether ``signature`` is the service's (or ``key``'s) over ``body``."""
    try:
        public = Ed25519PublicKey.from_public_bytes(base64.b64decode(key or public_key()))
        public.verify(base64.b64decode(signature), _canonical(body))
    except (InvalidSignature, ValueError):
        return False
    return True

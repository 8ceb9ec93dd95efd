"""Export and import of a network as JSON lines.

A file is a header line, then one line per engram (content, schema, type, strength,
importance, occurred_at, external_id, metadata, and its timestamps), cue (word and access
statistics) and edge (source and target words, kind, weight, count). Import re-remembers the
engrams in batches — idempotent by ``external_id``, each line validated on its own, so a bad line
is reported by number and the rest goes in — and then restores the cues' statistics and the edge
weights the engrams re-created (the greater of the two; an edge no engram re-creates is skipped).

A peer's export (mem0, Zep / Graphiti, Letta) is read into these lines first
(``memory.core.peers``), each memory keyed by the peer's id: the same export twice adds nothing.
"""

from __future__ import annotations

import json
import logging
import time
from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from typing import Any

from django.db import InterfaceError, OperationalError, connection, transaction
from django.utils import timezone

from audit.actors import Actor
from audit.services import audit_record
from base.background import after_commit
from base.contracts import in_range, validated
from base.errors import MnemoError, PermissionDenied, ValidationFailed
from memory.contracts import EngramIn, checked_network_key
from memory.core import peers
from memory.core.knowledge import value_key
from memory.core.text import lemma
from memory.extraction.types import FactDraft
from memory.models import Cue, Edge, Engram, ImportJob, Network
from memory.services.entities import Names
from memory.services.facts import Said, fact_imported
from memory.services.lifecycle import Plan
from memory.services.remember import RememberResult, engrams_remember
from tenants import rls
from tenants.models import Tenant
from tenants.permissions import Capability, actor_allows

log = logging.getLogger(__name__)
FORMAT = "mnemo-network"
BATCH = 500
MAX_ERRORS_KEPT = 500
MAX_LINES = 200_000
# An engram line holds what remember takes (its JSON names: "schema", not "schema_").
ENGRAM_FIELDS = tuple(info.alias or name for name, info in EngramIn.model_fields.items())


def _iso(value: datetime | None) -> str | None:
    return value.isoformat() if value else None


def export_lines(*, network: Network, chunk: int = 2000) -> Iterator[str]:
    """The network as JSON lines in id order. Rows are read in keyset chunks, each in its own
    short tenant-scoped transaction, so a response can stream a big network after the view has
    returned, in constant memory."""
    tenant_id, network_id = network.tenant_id, network.pk
    yield _line(
        {
            "kind": FORMAT,
            "version": 1,
            "network": network.key,
            "exported_at": timezone.now().isoformat(),
        }
    )
    for e in _chunks(
        tenant_id,
        chunk,
        lambda: (
            Engram.objects.filter(tenant_id=tenant_id, network_id=network_id)
            # held and hidden memories are a moderator's to release, not an export's
            .exclude(
                status__in=[
                    Engram.Status.DELETED,
                    Engram.Status.ERASED,
                    Engram.Status.QUARANTINED,
                    Engram.Status.HIDDEN,
                ]
            )
            .defer("embedding", "terms")
        ),
    ):
        yield _line(
            {
                "kind": "engram",
                "external_id": e.external_id,
                "content": e.content,
                "schema": list(e.schema),
                "type": e.type,
                "strength": e.strength,
                "importance": e.importance,
                "occurred_at": _iso(e.occurred_at),
                "metadata": e.metadata,
                "status": e.status,
                "source": e.source,
                "created_at": _iso(e.created_at),
                "updated_at": _iso(e.updated_at),
            }
        )
    for c in _chunks(
        tenant_id,
        chunk,
        lambda: Cue.objects.filter(tenant_id=tenant_id, network_id=network_id).only(
            "word", "lemma", "recall_count", "last_recalled_at"
        ),
    ):
        yield _line(
            {
                "kind": "cue",
                "word": c.word,
                "lemma": c.lemma,
                "recall_count": c.recall_count,
                "last_recalled_at": _iso(c.last_recalled_at),
            }
        )
    for edge in _chunks(
        tenant_id,
        chunk,
        lambda: Edge.objects.filter(tenant_id=tenant_id, network_id=network_id).select_related(
            "source", "target"
        ),
    ):
        yield _line(
            {
                "kind": "edge",
                "source": edge.source.lemma,
                "target": edge.target.lemma,
                "type": edge.kind,
                "weight": edge.weight,
                "count": edge.count,
                "last_reinforced_at": _iso(edge.last_reinforced_at),
            }
        )


def _chunks(tenant_id: int, size: int, rows: Any) -> Iterator[Any]:
    after = 0
    while True:
        with rls.tenant_scope(tenant_id):
            batch = list(rows().filter(pk__gt=after).order_by("pk")[:size])
        yield from batch
        if len(batch) < size:
            return
        after = batch[-1].pk


def _line(data: dict[str, Any]) -> str:
    return json.dumps(data, ensure_ascii=False, separators=(",", ":")) + "\n"


def import_start(
    *, tenant: Tenant, actor: Actor, network_key: str, filename: str, data: bytes
) -> ImportJob:
    """Check the file is text of reasonable size, record the job, queue it after commit."""
    if not actor_allows(actor, Capability.MEMORY_IMPORT):
        raise PermissionDenied("Only admins import memories.")
    key = checked_network_key(network_key)
    try:
        text = data.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        raise ValidationFailed.field("file", "must be UTF-8 text (JSON lines)") from exc
    if "\x00" in text:
        raise ValidationFailed.field("file", "holds NUL characters: not a JSON-lines file")
    peer, text = peers.convert(text)
    if peer is not None and text.count("\n") <= 1:
        raise ValidationFailed.field("file", f"is a {peer} export with no memories in it")
    lines = text.count("\n") + (0 if text.endswith("\n") else 1)
    if not text.strip():
        raise ValidationFailed.field("file", "is empty")
    if lines > MAX_LINES:
        raise ValidationFailed.field("file", f"at most {MAX_LINES:,} lines per import")
    with transaction.atomic():
        job = ImportJob.objects.create(
            tenant=tenant,
            network_key=key,
            filename=filename[:200],
            payload=text,
            total_lines=lines,
            created_by=actor.label[:200],
            actor=actor.as_json(),
        )
        audit_record(
            tenant_id=tenant.pk,
            actor=actor,
            verb="network.import",
            target=job,
            after={"network": key, "lines": lines, "file": filename[:200], "from": peer or FORMAT},
        )
        # robust: with the broker away the job stays queued and the sweep sends it later
        after_commit("memory.tasks.import_network", tenant.pk, job.pk)
    return job


def _no_constant(name: str) -> Any:
    raise ValueError(f"{name} is not a JSON number Postgres can store")


MAX_INT = 2**31 - 1


def _count(raw: object, default: int) -> int:
    if not isinstance(raw, int | float | str):
        return default
    try:
        return max(0, min(MAX_INT, int(raw)))
    except (TypeError, ValueError, OverflowError):
        return default


def _when(raw: object) -> datetime | None:
    if not isinstance(raw, str):
        return None
    try:
        value = datetime.fromisoformat(raw)
    except ValueError:
        return None
    value = value if value.tzinfo else value.replace(tzinfo=UTC)
    return value if in_range(value) else None


# Zep relation names that hold one value at a time (a new one supersedes); any other relation
# is one of many ("LIKES"), its slot keyed by the value too. Zep's own invalid_at closes values.
ONE_VALUE = frozenset(
    "works_at employed_by lives_in based_in located_in role title name age status reports_to "
    "married_to manager_of".split()
)


def _zep_draft(content: str, meta: dict[str, Any]) -> FactDraft | None:
    """The fact a Zep edge states: subject and object (the entities it joins), its relation
    name as the predicate, its slot, its ``valid_at``; None without both ends."""
    subject, obj = meta.get("subject"), meta.get("object")
    if not isinstance(subject, str) or not isinstance(obj, str) or not subject or not obj:
        return None
    raw = meta.get("name")
    name = raw if isinstance(raw, str) else ""
    relation = "_".join(name.lower().split()) or "relates_to"
    slot = relation if relation in ONE_VALUE else f"{relation}:{value_key(obj)}"
    return FactDraft(
        subject=subject[:200],
        predicate=relation.replace("_", " ")[:120],
        object=obj[:500],
        slot=slot[:300],
        confidence=0.8,
        start=0,
        end=len(content),
        valid_from=_when(meta.get("valid_at")),
    )


class _Importer:
    def __init__(self, job: ImportJob, tenant: Tenant) -> None:
        self.job = job
        self.tenant = tenant
        self.actor = Actor.from_json(job.actor, default="import")
        self.counts: dict[str, int] = {}
        self.errors: list[dict[str, Any]] = []
        self.error_count = 0
        self.cues: list[dict[str, Any]] = []
        self.edges: list[dict[str, Any]] = []

    def fail(self, line: int, message: str) -> None:
        self.error_count += 1
        if len(self.errors) < MAX_ERRORS_KEPT:
            self.errors.append({"line": line, "message": message})

    def bump(self, name: str, n: int = 1) -> None:
        self.counts[name] = self.counts.get(name, 0) + n

    def read(self, number: int, raw: str) -> tuple[int, EngramIn] | None:
        """One line: an engram to remember, a cue or edge to restore later, or an error."""
        if not raw.strip():
            return None
        try:
            data = json.loads(raw, parse_constant=_no_constant)
        except json.JSONDecodeError as exc:
            self.fail(number, f"not valid JSON ({exc.msg}, column {exc.colno})")
            return None
        except RecursionError:
            self.fail(number, "JSON nested too deeply")
            return None
        except ValueError as exc:  # NaN / Infinity, which JSON allows and jsonb does not
            self.fail(number, str(exc))
            return None
        if not isinstance(data, dict):
            self.fail(number, "each line must be a JSON object")
            return None
        kind = data.get("kind", "engram" if "content" in data else None)
        if kind == FORMAT:
            return None
        if kind in ("cue", "edge"):
            try:
                json.dumps(data, ensure_ascii=False).encode("utf-8")
            except UnicodeEncodeError:
                self.fail(
                    number, "holds an unpaired surrogate (\\ud800-\\udfff): not valid Unicode"
                )
                return None
            (self.cues if kind == "cue" else self.edges).append(data)
            return None
        if kind is None:
            self.fail(number, 'no "content": a memory is {"content": "…"} (or a cue or edge line)')
            return None
        if kind != "engram":
            self.fail(number, f"unknown kind {kind!r}: engram, cue or edge")
            return None
        fields = {k: data[k] for k in ENGRAM_FIELDS if k in data and data[k] is not None}
        if "occurred_at" not in fields and isinstance(data.get("created_at"), str):
            fields["occurred_at"] = data["created_at"]  # the original time is kept here
        try:
            return number, validated(EngramIn, fields)
        except MnemoError as exc:
            self.fail(number, exc.message)
            return None

    def remember(self, batch: list[tuple[int, EngramIn]]) -> None:
        seen: dict[str, int] = {}
        kept: list[tuple[int, EngramIn]] = []
        for number, item in batch:
            if item.external_id is not None:
                if item.external_id in seen:
                    self.fail(number, f"external_id repeats line {seen[item.external_id]}")
                    continue
                seen[item.external_id] = number
            kept.append((number, item))
        if not kept:
            return
        try:
            result = self._remember([item for _, item in kept])
        except (OperationalError, InterfaceError):
            raise
        except Exception:  # a line Postgres refuses for a reason the checks missed: find it
            log.exception("an import batch failed; retrying its lines one by one")
            for number, item in kept:
                try:
                    self.bump_counts(self._remember([item]))
                except (OperationalError, InterfaceError):
                    raise
                except Exception:
                    log.exception("import line %s could not be stored", number)
                    self.fail(number, "could not be stored (the server log has the details)")
            return
        self.bump_counts(result)
        self.facts([item for _, item in kept], result)

    def facts(self, items: list[EngramIn], result: RememberResult) -> None:
        """The facts a peer's export states with their validity (Zep / Graphiti edges, kept in
        the memories' metadata by memory.core.peers) into the fact table, each memory its
        evidence; held memories give none until released. Idempotent: a re-imported line
        adds no evidence."""
        found = [
            (item, outcome)
            for item, outcome in zip(
                items, sorted(result.outcomes, key=lambda o: o.index), strict=True
            )
            if item.metadata.get("zep_kind") == "fact" and outcome.moderation != "held"
        ]
        if not found:
            return
        names = Names(result.network)
        with transaction.atomic():
            for item, outcome in found:
                draft = _zep_draft(item.content, item.metadata)
                if draft is None:
                    continue
                said = Said(None, outcome.id, draft.valid_from or timezone.now(), "zep")
                ended = _when(item.metadata.get("invalid_at") or item.metadata.get("expired_at"))
                fact_imported(names=names, draft=draft, said=said, valid_to=ended)
                self.bump("facts")

    def _remember(self, items: list[EngramIn]) -> RememberResult:
        return engrams_remember(
            tenant=self.tenant,
            actor=self.actor,
            network_key=self.job.network_key,
            items=items,
            source="import",
        )

    def bump_counts(self, result: RememberResult) -> None:
        for plan in Plan:
            if result.count(plan):
                self.bump(plan.value, result.count(plan))


IMPORT_SLICE_SECONDS = 20  # then the task queues its continuation (tasks stay short)
# A worker's hold on a job, renewed at every batch of 500 lines (a second or two): a job whose
# worker died is free again this long after its last batch, and the sweep (every 15 s) resumes it.
LEASE = timedelta(seconds=30)


def _claim(tenant_id: int, job_id: int) -> tuple[Tenant, ImportJob] | None:
    """Take the job for this worker, or None when it is finished or another worker holds it
    (a duplicate delivery, or the sweep's requeue of a job that was only slow)."""
    with rls.tenant_scope(tenant_id):
        tenant = Tenant.objects.get(pk=tenant_id)
        job = ImportJob.objects.select_for_update().get(tenant=tenant, pk=job_id)
        now = timezone.now()
        if job.status in (ImportJob.Status.DONE, ImportJob.Status.FAILED):
            return None
        if job.lease_until is not None and job.lease_until > now:
            return None
        job.status = ImportJob.Status.RUNNING
        job.lease_until = now + LEASE
        job.save(update_fields=["status", "lease_until"])
    return tenant, job


def import_run(*, tenant_id: int, job_id: int) -> ImportJob | None:
    """Run a queued import for up to IMPORT_SLICE_SECONDS (the Celery task calls this), then
    queue its continuation. Each batch commits on its own with the job's progress and lease,
    so the dashboard sees the bar move and a crash loses nothing done: a redelivery, or the
    sweep after the lease ran out, resumes after the last committed line. A line that fails is
    that line's error; only a bug the lines do not explain fails the job."""
    claimed = _claim(tenant_id, job_id)
    if claimed is None:
        return None
    tenant, job = claimed
    importer = _Importer(job, tenant)
    resume = job.processed_lines
    if resume:
        importer.counts = dict(job.counts)
        importer.errors = list(job.errors)
        importer.error_count = job.error_count
    lines = job.payload.split("\n")
    if lines and lines[-1] == "":
        lines.pop()
    started = time.monotonic()
    batch: list[tuple[int, EngramIn]] = []
    try:
        for number, raw in enumerate(lines, 1):
            if number <= resume:
                if '"cue"' in raw or '"edge"' in raw:  # its errors were counted the first time
                    kept = (list(importer.errors), importer.error_count)
                    importer.read(number, raw)
                    importer.errors, importer.error_count = kept
                continue
            item = importer.read(number, raw)
            if item is not None:
                batch.append(item)
            if len(batch) >= BATCH or number == len(lines):
                with rls.tenant_scope(tenant_id):
                    importer.remember(batch)
                    _save_progress(job, importer, number)
                batch = []
                if number < len(lines) and time.monotonic() - started > IMPORT_SLICE_SECONDS:
                    _continue_later(tenant_id, job, importer, number)
                    return job
        with rls.tenant_scope(tenant_id):
            importer.bump("edges restored", _restore_graph(tenant, job.network_key, importer))
            job.status = ImportJob.Status.DONE
            job.message = f"{len(lines):,} lines read, {importer.error_count:,} with errors"
            _finish(job, importer, len(lines))
    except (OperationalError, InterfaceError):
        raise  # the database went away: the job keeps its progress; the sweep resumes it
    except Exception:
        log.exception("import %s of tenant %s failed", job_id, tenant_id)
        with rls.tenant_scope(tenant_id):
            job.status = ImportJob.Status.FAILED
            job.message = "stopped at an unexpected error; the lines before it are imported"
            _finish(job, importer, job.processed_lines)
        raise
    return job


def _continue_later(tenant_id: int, job: ImportJob, importer: _Importer, processed: int) -> None:
    """Let go of the job and queue the next slice (the sweep queues it if this is lost)."""
    with rls.tenant_scope(tenant_id):
        job.lease_until = None
        _save_progress(job, importer, processed)
        after_commit("memory.tasks.import_network", tenant_id, job.pk)


def _finish(job: ImportJob, importer: _Importer, processed: int) -> None:
    job.lease_until = None
    job.payload = ""
    job.finished_at = timezone.now()
    _save_progress(job, importer, processed)
    job.save(update_fields=["payload"])  # the upload is written once, and dropped once


def _save_progress(job: ImportJob, importer: _Importer, processed: int) -> None:
    if job.lease_until is not None:
        job.lease_until = timezone.now() + LEASE
    job.processed_lines = processed
    job.counts = dict(importer.counts)
    job.errors = importer.errors
    job.error_count = importer.error_count
    job.save(
        update_fields=[
            "processed_lines",
            "counts",
            "errors",
            "error_count",
            "status",
            "finished_at",
            "message",
            "lease_until",
        ]
    )


def _restore_graph(tenant: Tenant, network_key: str, importer: _Importer) -> int:
    """Cue statistics and edge weights from the file, never lowering what is there."""
    network = Network.objects.filter(tenant=tenant, key=network_key).first()
    if network is None or not (importer.cues or importer.edges):
        return 0
    restored = 0
    with transaction.atomic(), connection.cursor() as cursor:
        cues = [
            (
                lemma(str(c.get("lemma") or c.get("word") or "")),
                _count(c.get("recall_count"), 0),
                _when(c.get("last_recalled_at")),
            )
            for c in importer.cues
        ]
        cues = [c for c in cues if c[0]]
        if cues:
            cursor.execute(
                """
                UPDATE memory_cue c SET recall_count = greatest(c.recall_count, v.n),
                       last_recalled_at = greatest(c.last_recalled_at, v.at)
                  FROM unnest(%s::text[], %s::int[], %s::timestamptz[]) AS v(lemma, n, at)
                 WHERE c.tenant_id = %s AND c.network_id = %s AND c.lemma = v.lemma
                """,
                [
                    [c[0] for c in cues],
                    [c[1] for c in cues],
                    [c[2] for c in cues],
                    tenant.pk,
                    network.pk,
                ],
            )
        edges = []
        for e in importer.edges:
            try:
                weight = float(e.get("weight", 0))
            except (TypeError, ValueError):
                continue
            if 0 < weight <= 1:
                edges.append(
                    (
                        lemma(str(e.get("source", ""))),
                        lemma(str(e.get("target", ""))),
                        str(e.get("type", "")),
                        weight,
                        _count(e.get("count"), 1),
                    )
                )
        if edges:
            cursor.execute(
                """
                UPDATE memory_edge e SET weight = greatest(e.weight, v.weight),
                       count = greatest(e.count, v.n)
                  FROM unnest(%s::text[], %s::text[], %s::text[], %s::float8[], %s::int[])
                       AS v(src, tgt, kind, weight, n),
                       memory_cue s, memory_cue t
                 WHERE s.tenant_id = %s AND s.network_id = %s AND s.lemma = v.src
                   AND t.tenant_id = %s AND t.network_id = %s AND t.lemma = v.tgt
                   AND e.tenant_id = %s AND e.network_id = %s AND e.source_id = s.id
                   AND e.target_id = t.id AND e.kind = v.kind
                """,
                [
                    [x[0] for x in edges],
                    [x[1] for x in edges],
                    [x[2] for x in edges],
                    [x[3] for x in edges],
                    [x[4] for x in edges],
                    tenant.pk,
                    network.pk,
                    tenant.pk,
                    network.pk,
                    tenant.pk,
                    network.pk,
                ],
            )
            restored = cursor.rowcount
    return restored

"""``remember``: the fast write path — synchronous, no LLM, one transaction per batch.

For each engram: derive the schema when absent (rules extractor), match it to a stored engram by
``external_id`` (or by content, without one), let ``lifecycle.plan`` say what that means, then
apply every plan in a few batched statements: cues upserted once in one lock order, new engrams
inserted in one statement, edges reinforced in one. Audited, and after commit the changed
engrams are queued for embedding: recallable by text and graph at once, by vector shortly.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, field

from django.utils import timezone

from audit.actors import Actor
from audit.services import AuditEntry, audit_records
from base.db import atomic_with_retry
from base.errors import Unprocessable
from memory import live
from memory.contracts import EngramIn, RememberedOut, RememberOut
from memory.firewall.credentials import scans_shared
from memory.models import Engram, Network
from memory.services import lifecycle, moderation
from memory.services.graph import (
    cues_count_add,
    cues_ensure,
    cues_lock,
    edges_reinforce,
    insert_engrams,
    links_insert,
)
from memory.services.lifecycle import Plan
from memory.services.networks import network_for_write
from tenants.models import Tenant


@dataclass(frozen=True)
class Outcome:
    index: int
    id: int
    external_id: str | None
    plan: Plan
    moderation: str | None = None  # "held" or "queued"
    redacted: tuple[str, ...] = ()


@dataclass(frozen=True)
class RememberResult:
    network: Network
    outcomes: list[Outcome]
    edges: int

    def count(self, plan: Plan) -> int:
        return sum(1 for o in self.outcomes if o.plan is plan)


def present_remembered(result: RememberResult) -> RememberOut:
    return RememberOut(
        network=result.network.key,
        created=result.count(Plan.CREATE),
        updated=result.count(Plan.REVISE),
        unchanged=result.count(Plan.UNCHANGED),
        reinforced=result.count(Plan.REINFORCE),
        deleted=result.count(Plan.KEEP_DELETED),
        edges=result.edges,
        held=sum(1 for o in result.outcomes if o.moderation == "held"),
        engrams=[
            RememberedOut(
                index=o.index,
                id=o.id,
                external_id=o.external_id,
                status=o.plan.value,
                moderation=o.moderation,
                redacted=list(o.redacted),
            )
            for o in result.outcomes
        ],
    )


def engrams_remember(
    *, tenant: Tenant, actor: Actor, network_key: str, items: Sequence[EngramIn], source: str
) -> RememberResult:
    """Remember a validated batch. Retried once after a concurrent insert of the same
    external_id (two clients sending one memory get one engram) or a deadlock."""
    with scans_shared():
        return atomic_with_retry(lambda: _Batch(tenant, actor, network_key, items, source).run())


@dataclass
class _Batch:
    tenant: Tenant
    actor: Actor
    network_key: str
    items: Sequence[EngramIn]
    source: str
    outcomes: list[Outcome] = field(default_factory=list)
    audits: list[AuditEntry] = field(default_factory=list)
    reinforced: list[list[str]] = field(default_factory=list)  # schemas whose edges strengthen
    to_embed: list[int] = field(default_factory=list)
    created: list[Engram] = field(default_factory=list)
    queued: list[tuple[Engram, moderation.Verdict]] = field(default_factory=list)

    def run(self) -> RememberResult:
        self.network = network_for_write(tenant=self.tenant, key=self.network_key)
        self.now = timezone.now()
        self._screen()
        self.schemas = [
            lifecycle.secret_free_schema(
                lifecycle.schema_of(item), item.content, self.verdicts[i].hits
            )
            for i, item in enumerate(self.items)
        ]
        self.existing = _existing(self.network, self.items)
        self.plans = [
            lifecycle.plan(self.existing.get(i), item, self.schemas[i][0])
            for i, item in enumerate(self.items)
        ]
        # items bringing words not stored yet (decided before any engram changes)
        self.fresh = {
            i
            for i, plan in enumerate(self.plans)
            if plan is Plan.CREATE
            or (plan is Plan.REVISE and self.items[i].content != self.existing[i].content)
        }
        self.changes = {
            i: lifecycle.revision(
                self.existing[i], item, self.schemas[i][0], reactivate=True, hold=self._held(i)
            )
            for i, item in enumerate(self.items)
            if self.plans[i] is Plan.REVISE
        }
        joins = self._cues()
        if self.changes:  # re-filing stored engrams: every cue they touch, locked in one order
            cues_lock(self.network, list(self.cue_ids.values()))
        for index, item in enumerate(self.items):
            self._apply(index, item)
        self._insert_created()
        moderation.queue_items(
            tenant=self.tenant, network=self.network, actor=self.actor, entries=self.queued
        )
        # Last, just before commit: the rows every remember of this network shares (hub cues'
        # counts, the edges between them), so they stay locked for as short a time as possible.
        cues_count_add(self.network, {self.cue_ids[key]: n for key, n in joins.items()})
        edges = edges_reinforce(self.network, self.reinforced, self.cue_ids)
        audit_records(tenant_id=self.tenant.pk, actor=self.actor, entries=self.audits)
        lifecycle.embed_later(self.tenant.pk, self.network.pk, self.to_embed)
        patterns = [
            o.id
            for o in self.outcomes
            if o.index in self.fresh
            and self.items[o.index].type == Engram.Type.PATTERN
            and not self._held(o.index)
        ]
        lifecycle.learn_later(self.tenant.pk, self.network.pk, patterns, self.actor)
        outcomes = sorted(self.outcomes, key=lambda o: o.index)
        result = RememberResult(self.network, outcomes, edges)
        _announce(self.tenant, result, self.created)
        return result

    def _screen(self) -> None:
        """The firewall and the write policy on every item (memory.services.moderation): a
        rejected item refuses the batch, a redacted one is stored redacted (its schema derived
        again from the redacted text), and ``verdicts`` say which are held or queued."""
        settings = moderation.settings_of(self.tenant)
        policy = moderation.write_policy(settings, self.actor, self.network)
        self.verdicts: list[moderation.Verdict] = []
        items = []
        for index, item in enumerate(self.items):
            try:
                verdict = moderation.screen(settings, policy, item.content)
            except Unprocessable as refused:
                name = f"engrams[{index}].content"
                raise Unprocessable(
                    refused.message.replace("content:", f"{name}:", 1),
                    fields={name: refused.fields["content"]},
                    code=refused.code,
                ) from None
            if verdict.content != item.content:
                item = item.model_copy(update={"content": verdict.content, "schema_": None})
            self.verdicts.append(verdict)
            items.append(item)
        self.items = items

    def _held(self, index: int) -> bool:
        """A new memory (or new content) the firewall or the policy keeps out of sight."""
        return self.verdicts[index].hold and index in self.fresh

    def _cues(self) -> Counter[str]:
        """Make sure every cue the batch touches exists — new schemas, and the old schemas of
        engrams re-filed or reinforced — without locking the existing ones; sets ``cue_ids``
        and returns how many engrams join each cue."""
        words: dict[str, str] = {}
        joins: Counter[str] = Counter()
        for index, plan in enumerate(self.plans):
            change = self.changes.get(index)
            if (plan is Plan.CREATE and not self._held(index)) or (
                change is not None and change.joins
            ):
                for word, key in zip(*self.schemas[index], strict=True):
                    words.setdefault(key, word)
                    joins[key] += 1
            if plan in (Plan.REVISE, Plan.REINFORCE):
                for key, word in lifecycle.lemma_words(self.existing[index].schema).items():
                    words.setdefault(key, word)
        self.cue_ids = cues_ensure(self.network, words)
        return joins

    def _apply(self, index: int, item: EngramIn) -> None:
        plan = self.plans[index]
        display, lemmas = self.schemas[index]
        engram = self.existing.get(index)
        if plan is Plan.CREATE:
            engram = lifecycle.new_engram(
                tenant=self.tenant,
                network=self.network,
                item=item,
                display=display,
                source=self.source,
                now=self.now,
                held=self._held(index),
            )
            self.created.append(engram)
            if not self._held(index):
                self.reinforced.append(lemmas)
            return  # its outcome follows the insert, which gives it an id
        assert engram is not None
        if plan is Plan.REINFORCE:
            lifecycle.reinforce_repeat(engram, self.now)
            if engram.status == Engram.Status.ACTIVE:  # a held repeat strengthens no edge
                self.reinforced.append(list(lifecycle.lemma_words(engram.schema)))
            self.audits.append(
                lifecycle.entry("engram.reinforce", engram, after={"strength": engram.strength})
            )
        elif plan is Plan.REVISE:
            before = lifecycle.snapshot(engram)
            change = self.changes[index]
            lifecycle.revise(
                network=self.network,
                engram=engram,
                item=item,
                display=display,
                lemmas=lemmas,
                cue_ids=self.cue_ids,
                change=change,
                now=self.now,
            )
            if change.reinforces:
                self.reinforced.append(lemmas)
            if change.words_changed and change.will_link:
                self.to_embed.append(engram.pk)
            after = lifecycle.snapshot(engram)  # lifecycle.entry keeps secrets out of the log
            self.audits.append(lifecycle.entry("engram.update", engram, before=before, after=after))
        self.outcomes.append(self._outcome(index, engram, plan))

    def _outcome(self, index: int, engram: Engram, plan: Plan) -> Outcome:
        verdict = self.verdicts[index]
        state = None
        if index in self.fresh and verdict.queue:
            state = "held" if verdict.hold else "queued"
            self.queued.append((engram, verdict))
        return Outcome(index, engram.pk, engram.external_id, plan, state, verdict.redacted)

    def _insert_created(self) -> None:
        if not self.created:
            return
        insert_engrams(self.network, self.created)
        new = iter(self.created)
        links = []
        for index, plan in enumerate(self.plans):
            if plan is not Plan.CREATE:
                continue
            engram = next(new)
            self.outcomes.append(self._outcome(index, engram, Plan.CREATE))
            self.audits.append(
                lifecycle.entry("engram.create", engram, after=lifecycle.snapshot(engram))
            )
            if self._held(index):
                continue  # filed under its cues and embedded when a person approves it
            links += [
                (engram.pk, self.cue_ids[key], position)
                for position, key in enumerate(self.schemas[index][1])
            ]
            self.to_embed.append(engram.pk)
        links_insert(self.network, links)


def _announce(tenant: Tenant, result: RememberResult, new: list[Engram]) -> None:
    """Tell open dashboards (after commit): counts to refresh, the first new memories to show."""
    if all(o.plan is Plan.UNCHANGED for o in result.outcomes):
        return
    live.publish(
        tenant.pk,
        {
            "type": "remembered",
            "network": result.network.key,
            **{p.value: result.count(p) for p in (Plan.CREATE, Plan.REVISE, Plan.REINFORCE)},
            "engrams": [live.engram_summary(e) for e in new[:20]],
        },
    )


def _existing(network: Network, items: Sequence[EngramIn]) -> dict[int, Engram]:
    """Engrams this batch may update (same external_id) or repeat (same content, no id),
    locked in id order."""
    by_external = {item.external_id: i for i, item in enumerate(items) if item.external_id}
    found: dict[int, Engram] = {}
    if by_external:
        rows = (
            Engram.objects.select_for_update()
            .filter(tenant_id=network.tenant_id, network=network, external_id__in=list(by_external))
            .order_by("id")
        )
        for engram in rows:
            found[by_external[str(engram.external_id)]] = engram
    hashes = {
        lifecycle.content_hash(item.content): i
        for i, item in enumerate(items)
        if not item.external_id
    }
    if hashes:
        rows = Engram.objects.select_for_update().filter(
            tenant_id=network.tenant_id,
            network=network,
            content_hash__in=list(hashes),
            # a held copy is the same memory: an agent retrying does not fill the queue
            status__in=[Engram.Status.ACTIVE, Engram.Status.QUARANTINED],
            external_id__isnull=True,
        )
        for engram in rows.order_by("id"):
            found.setdefault(hashes[engram.content_hash], engram)
    return found

"""The life of an engram, in one place: what an incoming memory means for the one stored
(``Plan``), how a revision moves it in the graph (``Revision``), and every change of content,
links or status — create, reinforce, revise, restore, delete, archive.

Remember, edit, import, maintenance (and moderation next) call these; none of them decides on
its own whether an engram is in the graph. The graph rule: an engram is filed under its cues
(linked) exactly while it is ``active``. Callers hold the engram's row lock and have upserted
every cue a change touches in one sorted statement first (see memory.services.graph).
"""

from __future__ import annotations

import hashlib
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime
from enum import StrEnum
from typing import Any

from audit.actors import Actor
from audit.services import AuditEntry
from base.background import after_commit
from base.contracts import validated
from memory.contracts import EngramIn
from memory.core.extract import extract_schema, speaker_of
from memory.core.hebbian import reinforce
from memory.core.intents import DEFAULT_NAMES, DEFAULTS, clean_names, tag
from memory.core.text import content_lemmas, estimate_tokens, lemma
from memory.firewall import Hit, credentials, redact
from memory.models import Engram, Network
from memory.services.graph import cues_upsert, edges_reinforce, engram_link, engram_unlink
from tenants.models import Tenant

REPEAT_STRENGTH_ETA = 0.1  # the same content remembered again strengthens the memory
GONE = frozenset({Engram.Status.DELETED, Engram.Status.ERASED})  # a person's decision: final


class Plan(StrEnum):
    """What remembering an item does to the engram it matches (the value is the outcome)."""

    CREATE = "created"  # nothing matches
    REVISE = "updated"  # same external_id, something differs
    UNCHANGED = "unchanged"  # same external_id, same fields
    REINFORCE = "reinforced"  # same content, no external_id: strengthen, do not duplicate
    KEEP_DELETED = "deleted"  # a person deleted it: an agent repeating itself does not undo that


@dataclass(frozen=True)
class Revision:
    """How applying new fields moves an engram in the graph."""

    words_changed: bool  # content or schema differ: re-file, re-embed
    was_linked: bool
    will_link: bool
    status_after: str

    @property
    def joins(self) -> bool:
        """It is filed under the new schema's cues (cue counts rise)."""
        return self.will_link and (self.words_changed or not self.was_linked)

    @property
    def leaves(self) -> bool:
        """It is taken out from under its old cues (edges weakened, counts lowered)."""
        return self.was_linked and (self.words_changed or not self.will_link)

    @property
    def reinforces(self) -> bool:
        """Its new words strengthen the edges between them."""
        return self.words_changed and self.will_link


# --- reading an item -------------------------------------------------------------------------


def content_hash(content: str) -> str:
    return hashlib.sha256(" ".join(content.split()).casefold().encode()).hexdigest()


def lemma_words(words: list[str]) -> dict[str, str]:
    """{lemma: first display word}, in order, one per concept."""
    out: dict[str, str] = {}
    for word in words:
        key = lemma(word)
        if key and key not in out:
            out[key] = word
    return out


def schema_of(item: EngramIn) -> tuple[list[str], list[str]]:
    """(display words, lemmas), one per concept, in order; derived when the client gave none."""
    display = lemma_words(item.schema_ if item.schema_ else extract_schema(item.content))
    return list(display.values()), list(display)


def metadata_of(item: EngramIn) -> dict[str, Any]:
    """The item's metadata, with ``speaker`` from a leading "Name:" label of the content when
    the client named none: the speaker is a filter for recall, not a concept (issue 10)."""
    if "speaker" in item.metadata:
        return item.metadata
    speaker, _ = speaker_of(item.content)
    return {**item.metadata, "speaker": speaker} if speaker else item.metadata


def intents_of(content: str, metadata: dict[str, Any]) -> tuple[str, ...]:
    """The intents an engram serves: the known ones its writer named (``metadata.intents``),
    then the shipped vocabulary's tags of its text (a tenant's own intents route queries; they
    do not tag at write time)."""
    named = metadata.get("intents")
    given = clean_names(named if isinstance(named, list) else (), DEFAULT_NAMES)
    return tuple(dict.fromkeys([*given, *tag(content, DEFAULTS)]))[:4]


def snapshot(engram: Engram) -> dict[str, Any]:
    """What history shows of an engram (before/after in audit events)."""
    return {
        "content": engram.content,
        "schema": list(engram.schema),
        "type": engram.type,
        "strength": engram.strength,
        "importance": engram.importance,
        "occurred_at": engram.occurred_at.isoformat() if engram.occurred_at else None,
        "external_id": engram.external_id,
        "metadata": engram.metadata,
        "status": engram.status,
    }


def as_input(engram: Engram, changes: dict[str, Any]) -> EngramIn:
    """The engram's fields with ``changes`` applied, as an input (validated again). New content
    without a new schema derives the schema again; the external id never changes."""
    fields = {
        key: value for key, value in snapshot(engram).items() if key not in ("status", "schema")
    }
    if "content" not in changes:
        fields["schema"] = list(engram.schema)
    fields.update(changes)
    fields["external_id"] = engram.external_id
    return validated(EngramIn, {k: v for k, v in fields.items() if v is not None})


# --- deciding ----------------------------------------------------------------------------------


def _same(engram: Engram, item: EngramIn, display: list[str]) -> bool:
    return (
        engram.status == Engram.Status.ACTIVE
        and engram.content == item.content
        and list(engram.schema) == display
        and engram.type == item.type
        and engram.strength == item.strength
        and engram.importance == item.importance
        and engram.occurred_at == item.occurred_at
        and engram.metadata == metadata_of(item)
    )


def plan(existing: Engram | None, item: EngramIn, display: list[str]) -> Plan:
    if existing is None:
        return Plan.CREATE
    if existing.status in GONE:
        return Plan.KEEP_DELETED
    if item.external_id:
        return Plan.UNCHANGED if _same(existing, item, display) else Plan.REVISE
    return Plan.REINFORCE


def revision(
    engram: Engram, item: EngramIn, display: list[str], *, reactivate: bool, hold: bool = False
) -> Revision:
    """``reactivate``: an agent remembering an archived engram again brings it back; a person's
    edit does not. ``hold``: the new content is quarantined (memory.services.moderation).
    Otherwise moderation states and deletions never change here."""
    status = engram.status
    if reactivate and status == Engram.Status.ARCHIVED:
        status = Engram.Status.ACTIVE
    if hold and status not in GONE:
        status = Engram.Status.QUARANTINED
    return Revision(
        words_changed=item.content != engram.content or display != list(engram.schema),
        was_linked=engram.status == Engram.Status.ACTIVE,
        will_link=status == Engram.Status.ACTIVE,
        status_after=status,
    )


# --- changing ----------------------------------------------------------------------------------


def _apply(engram: Engram, item: EngramIn, display: list[str], now: datetime) -> None:
    engram.content = item.content
    engram.schema = display
    engram.terms = sorted(set(content_lemmas(item.content)) | {lemma(w) for w in display})
    engram.intents = list(intents_of(item.content, item.metadata))
    engram.type = item.type
    engram.strength = item.strength
    engram.importance = item.importance
    engram.occurred_at = item.occurred_at
    engram.external_id = item.external_id
    engram.metadata = metadata_of(item)
    engram.token_count = estimate_tokens(item.content)
    engram.content_hash = content_hash(item.content)
    engram.updated_at = now


def new_engram(
    *,
    tenant: Tenant,
    network: Network,
    item: EngramIn,
    display: list[str],
    source: str,
    now: datetime,
    held: bool = False,
) -> Engram:
    """An active engram (quarantined when ``held``), not yet saved (remember inserts a batch in
    one statement)."""
    status = Engram.Status.QUARANTINED if held else Engram.Status.ACTIVE
    engram = Engram(tenant=tenant, network=network, source=source, created_at=now, status=status)
    engram.embedding, engram.embedding_model = None, ""
    _apply(engram, item, display, now)
    return engram


def revise(
    *,
    network: Network,
    engram: Engram,
    item: EngramIn,
    display: list[str],
    lemmas: list[str],
    cue_ids: dict[str, int],
    change: Revision,
    now: datetime,
) -> None:
    """Apply ``item`` to a locked engram as ``change`` says: new words re-file it under its cues
    and clear its vector (re-embedded after commit by the caller); the same words keep both."""
    if change.leaves:
        engram_unlink(network, engram)
    _apply(engram, item, display, now)
    engram.status = change.status_after
    if change.words_changed:
        engram.embedding, engram.embedding_model = None, ""
    engram.save()
    if change.joins:
        engram_link(network, engram, lemmas, cue_ids)


def rewrite(
    network: Network, engram: Engram, changes: dict[str, Any], *, activate: bool, now: datetime
) -> Revision:
    """Apply ``changes`` to a locked engram, as a person's edit does: new words re-file it
    (every cue touched upserted in one sorted statement first), re-embed it after commit;
    ``activate`` also brings it into the graph (a moderator's redaction of a held memory)."""
    item = as_input(engram, changes)
    display, lemmas = secret_free_schema(schema_of(item), item.content)
    change = revision(engram, item, display, reactivate=False)
    if activate and change.status_after != Engram.Status.ACTIVE:
        change = Revision(
            words_changed=change.words_changed,
            was_linked=change.was_linked,
            will_link=True,
            status_after=Engram.Status.ACTIVE,
        )
    touched = dict(zip(lemmas, display, strict=True)) if change.joins else {}
    touched.update(lemma_words(engram.schema))
    cue_ids = cues_upsert(network, touched, Counter(lemmas) if change.joins else None)
    revise(
        network=network,
        engram=engram,
        item=item,
        display=display,
        lemmas=lemmas,
        cue_ids=cue_ids,
        change=change,
        now=now,
    )
    if change.reinforces:
        edges_reinforce(network, [lemmas], cue_ids)
    if change.words_changed or (change.will_link and not change.was_linked):
        embed_later(engram.tenant_id, network.pk, [engram.pk])
    if engram.type == Engram.Type.PATTERN and engram.status == Engram.Status.ACTIVE:
        learn_later(engram.tenant_id, network.pk, [engram.pk])  # its procedure may have changed
    return change


def reinforce_repeat(engram: Engram, now: datetime) -> None:
    """The same content remembered again: a stronger memory, not a second one."""
    engram.strength = round(reinforce(engram.strength, REPEAT_STRENGTH_ETA), 6)
    engram.updated_at = now
    engram.save(update_fields=["strength", "updated_at"])


def _leave(network: Network, engram: Engram, status: str, now: datetime) -> str:
    """Take a locked engram out of the graph into ``status``; returns the status it had."""
    before = engram.status
    if before == Engram.Status.ACTIVE:
        engram_unlink(network, engram)
    engram.status = status
    engram.updated_at = now
    engram.save(update_fields=["status", "updated_at"])
    return before


def enter(network: Network, engram: Engram, now: datetime) -> str:
    """Bring a locked engram that is out of the graph (held, hidden, deleted) back in:
    filed under its schema's cues (counts raised, edges reinforced) and embedded after commit.
    Returns the status it had."""
    before = engram.status
    if before == Engram.Status.ACTIVE:
        return before
    words = lemma_words(list(engram.schema))
    lemmas = list(words)
    cue_ids = cues_upsert(network, words, Counter(lemmas))
    engram_link(network, engram, lemmas, cue_ids)
    edges_reinforce(network, [lemmas], cue_ids)
    engram.status = Engram.Status.ACTIVE
    engram.updated_at = now
    engram.save(update_fields=["status", "updated_at"])
    embed_later(engram.tenant_id, network.pk, [engram.pk])
    if engram.type == Engram.Type.PATTERN:
        learn_later(engram.tenant_id, network.pk, [engram.pk])
    return before


def hide(network: Network, engram: Engram, now: datetime) -> str:
    """Out of recall and the graph, kept for moderators (a decision on the queue)."""
    return _leave(network, engram, Engram.Status.HIDDEN, now)


def delete(network: Network, engram: Engram, now: datetime) -> str:
    """Soft delete: out of recall and the graph; the row and its history stay."""
    return _leave(network, engram, Engram.Status.DELETED, now)


def archive(network: Network, engram: Engram, now: datetime) -> str:
    """Retire a cold engram: out of recall and the graph, still listed, back when remembered."""
    return _leave(network, engram, Engram.Status.ARCHIVED, now)


def entry(
    verb: str,
    engram: Engram,
    *,
    before: dict[str, Any] | None = None,
    after: dict[str, Any] | None = None,
    label: str | None = None,
) -> AuditEntry:
    """The audit entry of a change to ``engram``, labelled by its content unless ``label``
    says otherwise. Whatever the caller passes, secrets the firewall finds in the label and in
    the before / after contents and schemas are redacted: the log is append-only."""
    return AuditEntry(
        verb=verb,
        target_type="engram",
        target_id=engram.pk,
        target_label=without_secrets(engram.content if label is None else label)[:200],
        before=_scrubbed(before),
        after=_scrubbed(after),
        subject=f"engram:{engram.pk}",
    )


def without_secrets(text: str) -> str:
    hits = credentials.scan(text)
    return redact(text, hits) if hits else text


def _scrubbed(image: dict[str, Any] | None) -> dict[str, Any] | None:
    if not image:
        return image
    out = dict(image)
    if isinstance(out.get("content"), str):
        out["content"] = without_secrets(out["content"])
    schema = out.get("schema")
    # a client's schema may name the secret: one scan of the words together, then each word
    # only when that finds something (a scan per word would cost every write)
    if isinstance(schema, list) and credentials.scan(" ".join(map(str, schema))):
        out["schema"] = [w for w in schema if not credentials.scan(str(w))]
    return out


def secret_free_schema(
    schema: tuple[list[str], list[str]], content: str, hits: Sequence[Hit] | None = None
) -> tuple[list[str], list[str]]:
    """A secret is no concept: schema words inside a secret's span in ``content`` are left
    out (a key must not become a cue, nor sit in a schema the audit and dashboard show).
    ``hits``: the firewall's, when the caller has screened the text already."""
    found = credentials.scan(content) if hits is None else hits
    spans = [content[h.start : h.end].casefold() for h in found if h.family == "secret"]
    if not spans:
        return schema
    keep = [i for i, word in enumerate(schema[0]) if not any(word.casefold() in s for s in spans)]
    return [schema[0][i] for i in keep], [schema[1][i] for i in keep]


def embed_later(tenant_id: int, network_id: int, ids: list[int]) -> None:
    """Queue the embedding of these engrams after commit."""
    if ids:
        after_commit("memory.tasks.embed_engrams", tenant_id, network_id, sorted(ids))


def learn_later(
    tenant_id: int, network_id: int, ids: list[int], actor: Actor | None = None
) -> None:
    """Queue, after commit, the learning of the procedures these PATTERN memories write down
    (memory.services.skills; a memory whose procedure was learned already is skipped)."""
    if ids:
        who = actor.as_json() if actor else None
        after_commit("memory.tasks.learn_skills", tenant_id, network_id, sorted(ids), who)

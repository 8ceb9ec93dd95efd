"""The contracts of the memory operations: what remember, recall, prime, the engram list, edit
and history take, and what they answer (see base/contracts.py for how interfaces use them).

Inputs keep PromptX's argument names (``role``, ``query``, ``mode``,
``engrams[{content, schema, strength, type}]``). Outputs are built by the ``present_*``
functions, so REST, MCP and the dashboard show the same value with the same JSON type.
"""

from __future__ import annotations

import json
import math
import re
from datetime import datetime
from typing import TYPE_CHECKING, Annotated, Any, Literal, cast

from pydantic import (
    AfterValidator,
    BaseModel,
    BeforeValidator,
    ConfigDict,
    Field,
    StrictBool,
    ValidationError,
    ValidationInfo,
    field_validator,
    model_validator,
)
from pydantic_core import InitErrorDetails, PydanticCustomError

from base.contracts import (
    NOT_BLANK,
    SPACE,
    Contract,
    Instant,
    Output,
    PageSize,
    QueryContract,
    Text,
    UnitInterval,
    blank_is_none,
    document_blanks,
    identifier,
    lenient,
    or_only_space,
    refuse,
    validated,
    whole,
)
from base.errors import ValidationFailed
from memory.core.mind import Mind
from memory.firewall import detectors
from memory.firewall.credentials import scan as secrets_scan
from memory.models import Engram, ModerationItem, Network
from memory.selectors import CountedNetwork

MAX_BATCH = 1000
MAX_CONTENT_CHARS = 16_000
MAX_SCHEMA_WORDS = 32
MAX_WORD_CHARS = 100
MAX_QUERY_CHARS = 2000
MAX_METADATA_BYTES = 8_192
MAX_EXTERNAL_ID = 200
MAX_K = 50
MAX_TOKEN_BUDGET = 32_000
NETWORK_KEY = r"[a-z0-9][a-z0-9_.:@-]{0,99}"
NETWORK_KEY_RE = re.compile(f"^{NETWORK_KEY}$")
ROLE_NAME = r"[a-z0-9_.:@-]{1,95}"  # what may follow "role:" in a network key
NETWORK_KEY_RULE = (
    "Use 1–100 lowercase letters, digits and . _ - : @, starting with a letter or digit "
    "(for example default, role:writer, user:42)."
)
RECALL_MODES = ("balanced", "creative", "focused")
CHANNELS: tuple[Literal["text", "vector", "activation"], ...] = ("text", "vector", "activation")

# --- field types ---------------------------------------------------------------------------


def network_key(value: object) -> str:
    """A network key as a client may write it (case and surrounding space forgiven)."""
    if not isinstance(value, str):
        raise refuse("must be text, for example default")
    return identifier(value, NETWORK_KEY_RE, NETWORK_KEY_RULE)


def checked_network_key(raw: object, *, field: str = "network") -> str:
    """A network key from a URL or form, or ValidationFailed naming ``field``."""
    try:
        return network_key(raw)
    except PydanticCustomError as exc:
        raise ValidationFailed.field(field, str(exc)) from None


def _role_name(value: object) -> str:
    if not isinstance(value, str):
        raise refuse("must be a role slug, for example code-reviewer")
    rule = "must be a role slug, for example code-reviewer (`discover` lists them)"
    return identifier(value, re.compile(ROLE_NAME), rule)


def _content(value: str) -> str:
    if not value.strip(SPACE):
        raise refuse("is required and may not be empty")
    return value.strip(SPACE)


def _schema(value: object) -> object:
    """PromptX clients often send the schema as one string: "a b c" or "a\\nb\\nc"."""
    if isinstance(value, str):
        parts = [part for part in re.split(r"[\n,]+|\s{2,}", value) if part.strip()]
        return parts[0].split() if len(parts) == 1 else parts
    return value


def _schema_words(words: list[str]) -> list[str] | None:
    kept = [w.strip() for w in words if w.strip()]
    return kept or None


def _or_one_string(schema: dict[str, Any]) -> None:
    """Document the one-string form next to the list."""
    listed = dict(schema)
    schema.clear()
    schema["anyOf"] = [
        listed,
        {
            "type": "string",
            "description": "words split at new lines, commas or runs of spaces (at single "
            f"spaces when that gives one part); at most {MAX_SCHEMA_WORDS} words of at most "
            f"{MAX_WORD_CHARS} characters",
        },
    ]


def _metadata(value: dict[str, Any]) -> dict[str, Any]:
    encoded = json.dumps(value)
    if len(encoded) > MAX_METADATA_BYTES:
        raise refuse(f"at most {MAX_METADATA_BYTES} bytes as JSON")
    if "\\u0000" in encoded:
        raise refuse("may not contain NUL characters")
    try:
        json.dumps(value, ensure_ascii=False).encode("utf-8")
    except UnicodeEncodeError:
        raise refuse("holds an unpaired surrogate (\\ud800-\\udfff): not valid Unicode") from None
    return value


def _upper(value: object) -> object:
    return value.upper() if isinstance(value, str) and value.isascii() else value


def _query(value: object) -> object:
    if value is not None and not isinstance(value, str):
        raise refuse("a string, or null to start from the hub cues")
    return value


def _blank_query(value: str | None) -> str | None:
    return (value or "").strip() or None


NetworkKey = Annotated[
    str,
    BeforeValidator(network_key),
    Field(
        description="default, role:writer, user:42",
        json_schema_extra={"pattern": lenient(NETWORK_KEY)},
    ),
]
RoleName = Annotated[
    str,
    BeforeValidator(_role_name),
    Field(
        description="a role's slug: the memory network role:<slug>",
        json_schema_extra={"pattern": lenient(ROLE_NAME)},
    ),
]
Content = Annotated[
    Text,
    Field(max_length=MAX_CONTENT_CHARS),
    AfterValidator(_content),
    Field(json_schema_extra={"pattern": NOT_BLANK}),
]
Schema = Annotated[
    list[Annotated[Text, Field(strict=True, max_length=MAX_WORD_CHARS)]],
    Field(max_length=MAX_SCHEMA_WORDS),
    BeforeValidator(_schema),
    AfterValidator(_schema_words),
    Field(
        description="its key words in order (a list, or one string); derived when missing",
        json_schema_extra=_or_one_string,
    ),
]
EngramType = Annotated[
    Literal["ATOMIC", "LINK", "PATTERN"],
    BeforeValidator(_upper),
    Field(json_schema_extra={"description": "ATOMIC, LINK or PATTERN, in any case"}),
]
ExternalId = Annotated[Text, Field(strict=True, min_length=1, max_length=MAX_EXTERNAL_ID)]
Metadata = Annotated[dict[str, Any], AfterValidator(_metadata)]
Speaker = Annotated[Text, Field(strict=True, min_length=1, max_length=100)]
MaybeSpeaker = Annotated[
    Speaker | None,
    Field(description='only memories of this speaker (metadata.speaker; from a leading "Name:")'),
]
Query = Annotated[
    Annotated[Text, Field(max_length=MAX_QUERY_CHARS)] | None,
    BeforeValidator(_query),
    AfterValidator(_blank_query),
]
Mode = Literal["balanced", "creative", "focused"]
K = Annotated[int, Field(strict=True, ge=1, le=MAX_K), BeforeValidator(whole)]
TokenBudget = Annotated[int, Field(strict=True, ge=1, le=MAX_TOKEN_BUDGET), BeforeValidator(whole)]
Channel = Literal["text", "vector", "activation"]
MaybeNetworkKey = Annotated[
    NetworkKey | None, BeforeValidator(blank_is_none), Field(json_schema_extra=or_only_space)
]
MaybeRoleName = Annotated[
    RoleName | None, BeforeValidator(blank_is_none), Field(json_schema_extra=or_only_space)
]


# --- inputs --------------------------------------------------------------------------------


def _not_both_in_schema(schema: dict[str, Any], model: type[Contract]) -> None:
    """JSON schema of "role or network, not both": both sent and neither blank is refused."""
    document_blanks(schema, model)
    sent = {"type": "string", "pattern": "[^ \\t\\n\\r]"}
    schema["not"] = {
        "required": ["network", "role"],
        "properties": {"network": sent, "role": sent},
    }


class MemoryTarget(Contract):
    """Which network: ``network`` by key, or ``role`` for the network ``role:<role>``."""

    model_config = ConfigDict(extra="forbid", json_schema_extra=_not_both_in_schema)

    network: MaybeNetworkKey = None
    role: MaybeRoleName = None

    @field_validator("role")
    @classmethod
    def _not_both(cls, role: str | None, info: ValidationInfo) -> str | None:
        if role and info.data.get("network"):
            raise refuse(
                f"give either role or network, not both (role “{role}” means the network "
                f"role:{role})"
            )
        return role

    @property
    def network_key(self) -> str | None:
        if self.network:
            return self.network
        return f"role:{self.role}" if self.role else None


class EngramIn(Contract):
    """One memory to remember."""

    content: Content
    schema_: Schema | None = Field(None, alias="schema")
    type: EngramType = "ATOMIC"
    strength: UnitInterval = 0.5
    importance: UnitInterval = 0.5
    occurred_at: Instant | None = Field(None, description="when it happened (ISO 8601, with zone)")
    external_id: ExternalId | None = Field(None, description="idempotent upsert key")
    metadata: Metadata = Field(default_factory=dict)

    # null (and "" or [] where they cannot mean anything) is the same as leaving a field out
    blank_means_absent = ("schema", "type", "occurred_at", "metadata")
    null_means_absent = ("strength", "importance", "external_id")


class RememberIn(MemoryTarget):
    engrams: list[EngramIn] = Field(min_length=1, max_length=MAX_BATCH)

    @model_validator(mode="after")
    def _external_ids_are_unique(self) -> RememberIn:
        seen: dict[str, int] = {}
        errors = []
        for index, engram in enumerate(self.engrams):
            if engram.external_id is None:
                continue
            if engram.external_id in seen:
                error = PydanticCustomError(
                    "mnemo", "repeats engrams[{first}]", {"first": seen[engram.external_id]}
                )
                errors.append(
                    InitErrorDetails(
                        type=error, loc=("engrams", index, "external_id"), input=engram.external_id
                    )
                )
            seen.setdefault(engram.external_id, index)
        if errors:
            raise ValidationError.from_exception_data("RememberIn", errors)
        return self


class RecallIn(MemoryTarget):
    query: Query = Field(None, description="key words; null or empty: what the network is about")
    mode: Mode = "balanced"
    k: K = 10
    token_budget: TokenBudget = 2000
    now: Instant | None = Field(None, description="score recency as of this time")
    channels: list[Channel] = Field(default=list(CHANNELS), description="[] or null: all")
    record: StrictBool = Field(
        True,
        description="false: look without touching (no access counted, nothing primed; "
        "for evaluations and previews)",
    )
    speaker: Speaker | None = Field(
        None,
        description="only memories of this speaker (metadata.speaker, any case; remember "
        'fills it from a leading "Name:" label)',
    )

    facts: StrictBool = Field(
        True,
        description="false: memories only; true: the facts the found memories stated (their "
        "current values; earlier ones for questions about the past) lead the context, then "
        "the skills (procedures that worked) the query names",
    )
    intent: Annotated[Text, Field(max_length=40)] | None = Field(
        None,
        description="force the query's intent (fact, temporal, preference, procedure, "
        "multi_hop, debugging, planning, status, or the workspace's own); else it is routed",
    )
    task: Annotated[Text, Field(max_length=200)] | None = Field(
        None,
        description="the task at hand (its key): its steps are candidates and coherence "
        "with its latest step counts",
    )
    selection: Literal["auto", "pareto", "sum", "score"] = Field(
        "auto",
        description="auto (default): pareto when there is a task at hand, else score; "
        "pareto: non-dominated fronts over relevance, salience and coherence; "
        "sum: the top k by their sum; score: by relevance weighted by salience alone",
    )
    objectives: StrictBool = Field(
        False, description="true: every sorted candidate's objectives (the playground's plot)"
    )

    blank_means_absent = (
        "mode",
        "k",
        "token_budget",
        "now",
        "channels",
        "record",
        "speaker",
        "facts",
        "intent",
        "task",
        "selection",
        "objectives",
    )


class PrimeIn(MemoryTarget):
    token_budget: TokenBudget = 600

    blank_means_absent = ("token_budget",)


class EngramPatch(Contract):
    """Fields to change; ``schema: null`` derives the schema from the content again."""

    content: Content | None = None
    schema_: Schema | None = Field(None, alias="schema")
    type: EngramType | None = None
    strength: UnitInterval | None = None
    importance: UnitInterval | None = None
    occurred_at: Instant | None = None
    metadata: Metadata | None = None

    required_if_sent = ("content",)  # null elsewhere puts the default back

    @property
    def changes(self) -> dict[str, Any]:
        """Only what was sent, by field name (``schema``, not ``schema_``)."""
        return {
            ("schema" if name == "schema_" else name): getattr(self, name)
            for name in self.model_fields_set
        }


EngramStatusFilter = Literal[
    "active", "quarantined", "hidden", "superseded", "archived", "deleted", "erased", "any"
]


class EngramFilters(QueryContract):
    """Query parameters of the engram list."""

    network: NetworkKey | None = None
    q: Annotated[Text, Field(max_length=MAX_QUERY_CHARS)] = ""
    type: Annotated[EngramType | Literal[""], BeforeValidator(_upper)] = ""
    status: EngramStatusFilter = "active"
    cursor: Text = ""
    limit: PageSize = 50


# --- outputs -------------------------------------------------------------------------------


class EngramOut(Output):
    id: int
    network: str
    external_id: str | None
    content: str
    schema_: list[str] = Field(alias="schema")
    type: str
    strength: float
    importance: float
    occurred_at: datetime | None
    metadata: dict[str, Any]
    source: str
    status: str
    token_count: int
    embedded: bool
    recall_count: int
    last_recalled_at: datetime | None
    created_at: datetime
    updated_at: datetime


def present_engram(engram: Engram, network: Network | None = None) -> EngramOut:
    return EngramOut(
        id=engram.pk,
        network=(network or engram.network).key,
        external_id=engram.external_id,
        content=engram.content,
        schema_=list(engram.schema),
        type=engram.type,
        strength=engram.strength,
        importance=engram.importance,
        occurred_at=engram.occurred_at,
        metadata=engram.metadata,
        source=engram.source,
        status=engram.status,
        token_count=engram.token_count,
        embedded=engram.embedding is not None,
        recall_count=engram.recall_count,
        last_recalled_at=engram.last_recalled_at,
        created_at=engram.created_at,
        updated_at=engram.updated_at,
    )


class EngramPage(Output):
    engrams: list[EngramOut]
    next_cursor: str | None


class RememberedOut(Output):
    index: int = Field(description="position in the request's engrams")
    id: int
    external_id: str | None
    status: Literal["created", "updated", "unchanged", "reinforced", "deleted"]
    moderation: Literal["held", "queued"] | None = Field(
        None,
        description="held: quarantined until a person approves (never recalled before); "
        "queued: kept, and waiting for a person to confirm",
    )
    redacted: list[str] = Field(
        default_factory=list, description="detectors whose matches were replaced before storing"
    )


class RememberOut(Output):
    network: str
    created: int
    updated: int
    unchanged: int
    reinforced: int
    deleted: int = Field(description="sent again, but a person deleted them: left deleted")
    edges: int = Field(description="associations strengthened")
    held: int = Field(0, description="quarantined for moderation: not recalled until approved")
    engrams: list[RememberedOut]


class CueOut(Output):
    id: int
    word: str
    energy: float
    depth: int = Field(description="0 for a query's own concept, n for n hops away")
    parent: int | None = Field(description="the concept it was reached from")
    seed: str | None = Field(
        description="how a starting concept matched: exact, alias, fuzzy, semantic, prime, hub"
    )


class ConnectionOut(Output):
    source: int
    target: int
    weight: float
    kind: str


class WhyOut(Output):
    channels: list[str] = Field(description="text, vector, activation")
    path: list[str] = Field(description="concept words from a query concept to this memory")
    parts: dict[str, float] = Field(description="the score's parts")
    led_by: str = Field(
        description="the strongest evidence, which fusion keeps whole: text, vector, direct "
        "(a query concept filed under it) or associative (reached by spreading)"
    )
    front: int | None = Field(
        None, description="its Pareto front over relevance, salience and coherence (0: best)"
    )
    crowding: float | None = Field(
        None,
        description="its crowding distance in that front (null: an extreme of the front, "
        "or not selected by fronts)",
    )


class ObjectiveOut(Output):
    id: int
    relevance: float
    salience: float
    coherence: float
    front: int
    chosen: bool


class OpenTaskOut(Output):
    id: int
    key: str
    goal: str
    steps: int
    last: list[str] = Field(description="its latest steps, as remembered")


class IntentOut(Output):
    name: str = Field(description='the query\'s intent ("" for none)')
    via: Literal["forced", "rules", "prototype", "llm", "none"]
    confidence: float


class RankedEngramOut(Output):
    id: int
    external_id: str | None
    type: str
    content: str
    metadata: dict[str, Any]
    score: float
    tokens: int
    in_context: bool = Field(description="packed into `context` within the token budget")
    why: WhyOut


class KnownFactOut(Output):
    id: int
    subject: str
    predicate: str
    object: str
    status: str = Field(description="current, or superseded (a value the slot held before)")
    valid_from: datetime | None
    valid_to: datetime | None
    confidence: float
    score: float = Field(description="the best score of a found memory that stated its slot")
    evidence: list[int] = Field(description="found engrams that stated a value of its slot")
    in_context: bool


class KnownSkillOut(Output):
    id: int
    goal: str
    steps: list[str]
    preconditions: list[str]
    pitfalls: list[str]
    placeholders: dict[str, str] = Field(description="each placeholder and a literal a run used")
    successes: int
    failures: int
    version: int
    score: float
    evidence: list[int] = Field(description="found engrams the skill was learned from")
    in_context: bool


class MindOut(Output):
    """What recall and prime answer: the activated concepts, ranked memories, a packed context."""

    network: str
    query: str | None
    mode: str
    cues: list[CueOut]
    connections: list[ConnectionOut]
    engrams: list[RankedEngramOut]
    context: str
    context_tokens: int
    context_ids: list[int] = Field(description="the engrams `context` holds, in its order")
    facts: list[KnownFactOut] = Field(
        default_factory=list, description="facts the found memories stated, grouped by subject"
    )
    context_fact_ids: list[int] = Field(
        default_factory=list, description="the facts `context` holds (before the memories)"
    )
    skills: list[KnownSkillOut] = Field(
        default_factory=list, description="procedures that worked, for what the query names"
    )
    context_skill_ids: list[int] = Field(
        default_factory=list, description="the skills `context` holds (after the facts)"
    )
    suppressed_duplicates: int
    took_ms: float
    notice: str | None = Field(
        None, description="set when the network holds no memories: what to do instead"
    )
    intent: IntentOut | None = Field(None, description="how the query was routed")
    selection: str = Field(
        "score", description="how the engrams were picked: pareto, sum or score (auto resolved)"
    )
    task: str | None = Field(None, description="the task the recall was scoped to")
    objectives: list[ObjectiveOut] = Field(
        default_factory=list,
        description="with objectives=true: every candidate sorted into fronts",
    )
    open_tasks: list[OpenTaskOut] = Field(
        default_factory=list, description="prime: the open tasks and their latest steps"
    )


def _crowding(value: float | None) -> float | None:
    return None if value is None or math.isinf(value) else round(value, 4)


def present_mind(mind: Mind) -> MindOut:
    in_context = set(mind.context_ids)
    return MindOut(
        network=mind.network,
        query=mind.query,
        mode=mind.mode,
        cues=[
            CueOut(
                id=c.id,
                word=c.word,
                energy=round(c.energy, 4),
                depth=c.depth,
                parent=c.parent,
                seed=c.seed_via or None,
            )
            for c in mind.cues
        ],
        connections=[
            ConnectionOut(source=c.source, target=c.target, weight=round(c.weight, 4), kind=c.kind)
            for c in mind.connections
        ],
        engrams=[
            RankedEngramOut(
                id=e.id,
                external_id=e.external_id,
                type=e.type,
                content=e.content,
                metadata=dict(e.metadata),
                score=e.score,
                tokens=e.token_count,
                in_context=e.id in in_context,
                why=WhyOut(
                    channels=list(e.why.channels),
                    path=list(e.why.path),
                    parts=dict(e.why.parts),
                    led_by=e.why.led_by,
                    front=e.why.front,
                    crowding=_crowding(e.why.crowding),
                ),
            )
            for e in mind.engrams
        ],
        context=mind.context,
        context_tokens=mind.context_tokens,
        context_ids=list(mind.context_ids),
        facts=[
            KnownFactOut(
                id=f.id,
                subject=f.subject,
                predicate=f.predicate,
                object=f.object,
                status=f.status,
                valid_from=f.valid_from,
                valid_to=f.valid_to,
                confidence=round(f.confidence, 3),
                score=f.score,
                evidence=list(f.evidence),
                in_context=f.id in set(mind.context_fact_ids),
            )
            for f in mind.facts
        ],
        context_fact_ids=list(mind.context_fact_ids),
        skills=[
            KnownSkillOut(
                id=k.id,
                goal=k.goal,
                steps=list(k.steps),
                preconditions=list(k.preconditions),
                pitfalls=list(k.pitfalls),
                placeholders=dict(k.placeholders),
                successes=k.successes,
                failures=k.failures,
                version=k.version,
                score=k.score,
                evidence=list(k.evidence),
                in_context=k.id in set(mind.context_skill_ids),
            )
            for k in mind.skills
        ],
        context_skill_ids=list(mind.context_skill_ids),
        suppressed_duplicates=mind.suppressed,
        took_ms=mind.took_ms,
        notice=mind.notice or None,
        intent=IntentOut(
            name=mind.intent,
            via=cast(Any, mind.intent_via or "none"),
            confidence=mind.intent_confidence,
        )
        if mind.query
        else None,
        selection=mind.selection,
        task=mind.task or None,
        objectives=[
            ObjectiveOut(
                id=o.id,
                relevance=o.relevance,
                salience=o.salience,
                coherence=o.coherence,
                front=o.front,
                chosen=o.chosen,
            )
            for o in mind.objectives
        ],
        open_tasks=[
            OpenTaskOut(id=t.id, key=t.key, goal=t.goal, steps=t.steps, last=list(t.last))
            for t in mind.open_tasks
        ],
    )


class NetworkOut(Output):
    key: str
    engrams: int
    cues: int
    edges: int
    pending_embeddings: int = Field(
        description="active engrams still waiting for their vector (0: ready for semantic recall)"
    )
    pending_cue_embeddings: int = Field(
        description="cues still waiting for their vector (numbers, dates and times get none: "
        "they match exactly)"
    )
    created_at: datetime


class NetworkList(Output):
    networks: list[NetworkOut]


def present_network(network: CountedNetwork) -> NetworkOut:
    """A network annotated with its counts (``engram_count``, ``cue_count``, ``edge_count``)."""
    return NetworkOut(
        key=network.key,
        engrams=network.engram_count,
        cues=network.cue_count,
        edges=network.edge_count,
        pending_embeddings=network.pending_embeddings,
        pending_cue_embeddings=network.pending_cue_embeddings,
        created_at=network.created_at,
    )


def engram_items(raw: list[dict[str, Any]]) -> list[EngramIn]:
    """A list of engrams as clients send them, validated as one remember batch (scripts,
    benchmarks and tests; interfaces validate whole requests)."""
    return validated(RememberIn, {"engrams": raw}).engrams


# --- moderation ----------------------------------------------------------------------------

RowId = Annotated[int, Field(strict=True, gt=0, le=2**63 - 1), BeforeValidator(whole)]
Offset = Annotated[int, Field(strict=True, ge=0, le=1_000_000), BeforeValidator(whole)]

ModerationAction = Literal["approve", "reject", "redact", "hide", "restore"]
MAX_NOTE = 2000
Note = Annotated[Text, Field(max_length=MAX_NOTE)]


class ModerationFilters(QueryContract):
    """Query parameters of the moderation queue."""

    state: Literal[
        "pending", "approved", "rejected", "redacted", "hidden", "restored", "expired", "any"
    ] = "pending"
    kind: Literal["write", "edit", "delete", "flag", ""] = ""
    network: NetworkKey | None = None
    cursor: Text = ""
    limit: PageSize = 50


class Span(Contract):
    """Characters [start, end) of a memory's content; an empty span (end <= start) is none."""

    start: Offset
    end: Offset


class DecideIn(Contract):
    """A decision on one queue item. ``redactions``: spans of the memory's content to replace
    (``redact`` only; without them, the spans the firewall found)."""

    action: ModerationAction
    note: Note = ""
    redactions: list[Span] | None = Field(None, max_length=200)


class BulkDecideIn(Contract):
    ids: list[RowId] = Field(min_length=1, max_length=500)
    action: Literal["approve", "reject", "hide", "restore"]
    note: Note = ""


class FlagIn(Contract):
    reason: Annotated[Text, Field(min_length=1, max_length=MAX_NOTE)]


class HitOut(Output):
    detector: str
    family: str
    start: int
    end: int
    confidence: float
    match: str | None = Field(None, description="the matched text (never for secrets)")


class ModerationItemOut(Output):
    id: int
    kind: str
    state: str
    reason: str
    held: bool = Field(description="the memory is quarantined until decided")
    network: str
    engram: EngramOut | None
    hits: list[HitOut]
    note: str
    proposed: dict[str, Any] = Field(description="an edit's changed fields")
    diff: list[dict[str, Any]] = Field(
        description="an edit's changes, field by field: {field, before, after}"
    )
    author: dict[str, Any]
    created_at: datetime
    decided_at: datetime | None
    decided_by: dict[str, Any]
    decision_note: str


class ModerationPage(Output):
    items: list[ModerationItemOut]
    next_cursor: str | None


class DecidedOut(Output):
    decided: int
    items: list[ModerationItemOut]


def item_content(item: ModerationItem) -> str:
    """The text the item's spans refer to: a proposed edit's new content, else the memory's."""
    if item.kind == ModerationItem.Kind.EDIT and "content" in item.proposed:
        return str(item.proposed["content"])
    return item.engram.content if item.engram is not None else ""


def secret_spans(text: str, hits: list[dict[str, Any]] | None = None) -> list[tuple[int, int]]:
    """Where ``text`` holds a secret: the item's secret hits and what the secret detectors find
    in it now."""
    spans = [(h.start, h.end) for h in secrets_scan(text)]
    spans += [(h["start"], h["end"]) for h in hits or () if h.get("family") == "secret"]
    return spans


def mask(secret: str) -> str:
    """A secret as a moderator sees it: its first four characters, then dots."""
    return secret[:4] + "•" * min(12, max(3, len(secret) - 4))


def masked(text: str, hits: list[dict[str, Any]] | None = None) -> str:
    """``text`` with every secret shown as its first four characters and dots: enough to
    recognise it, not to use it (the moderator's view; the memory itself is unchanged)."""
    out = text
    for start, end in sorted(set(secret_spans(text, hits)), reverse=True):
        if 0 <= start < end <= len(out):
            out = out[:start] + mask(out[start:end]) + out[end:]
    return out


def present_item(item: ModerationItem) -> ModerationItemOut:
    engram = item.engram
    content = item_content(item)
    hidden = secret_spans(content, item.hits)
    hits = [
        HitOut(
            **{k: v for k, v in hit.items() if k in HitOut.model_fields and k != "match"},
            # never a secret, nor a span that overlaps one (an exfiltration URL with a token)
            match=None
            if any(hit["start"] < end and start < hit["end"] for start, end in hidden)
            else content[hit["start"] : hit["end"]],
        )
        for hit in item.hits
    ]
    diff = []
    if engram is not None and item.kind == ModerationItem.Kind.EDIT:
        diff = [
            {
                "field": name,
                "before": _masked_value(getattr(engram, name, None)),
                "after": _masked_value(value, item.hits if name == "content" else None),
            }
            for name, value in item.proposed.items()
        ]
    shown = present_engram(engram, item.network) if engram is not None else None
    if shown is not None:
        own_hits = item.hits if item.kind != ModerationItem.Kind.EDIT else None
        shown = shown.model_copy(update={"content": masked(shown.content, own_hits)})
    return ModerationItemOut(
        id=item.pk,
        kind=item.kind,
        state=item.state,
        reason=item.reason,
        held=item.held,
        network=item.network.key,
        engram=shown,
        hits=hits,
        note=item.note,
        proposed={
            k: _masked_value(v, item.hits if k == "content" else None)
            for k, v in item.proposed.items()
        },
        diff=diff,
        author=item.author,
        created_at=item.created_at,
        decided_at=item.decided_at,
        decided_by=item.decided_by,
        decision_note=item.decision_note,
    )


def _masked_value(value: Any, hits: list[dict[str, Any]] | None = None) -> Any:
    return masked(value, hits) if isinstance(value, str) else value


class ProposedOut(Output):
    """An agent's edit or delete waiting for a moderator (the memory is unchanged until then)."""

    proposed: Literal[True] = True
    moderation_item: int
    kind: Literal["edit", "delete"]
    held: bool
    engram: EngramOut


WritePolicyName = Literal["auto", "review", "quarantine"]
# a family or a detector (memory.firewall); the type checker sees text
if TYPE_CHECKING:
    FirewallName = str
else:
    FirewallName = Literal[tuple(sorted({"secret", "personal", "injection", *detectors()}))]
FirewallAction = Literal["allow", "flag", "redact", "quarantine", "reject"]


class PolicyIn(Contract):
    """Changes to the workspace's moderation policy (fields left out stay as they are).
    ``firewall``: an action per family (secret, personal, injection) or per detector, "" to
    go back to the default; ``networks`` / ``keys``: a write policy per network key / API key
    id, "" to follow the workspace's."""

    write_policy: WritePolicyName | None = None
    agent_changes: Literal["auto", "review"] | None = None
    firewall: dict[FirewallName, FirewallAction | Literal[""]] | None = Field(None, max_length=100)
    networks: dict[str, WritePolicyName | Literal[""]] | None = Field(None, max_length=200)
    keys: dict[str, WritePolicyName | Literal[""]] | None = Field(None, max_length=200)
    quarantine_days: (
        Annotated[int, Field(strict=True, ge=1, le=3650), BeforeValidator(whole)] | None
    ) = Field(
        None, description="held memories nobody reviewed expire (deleted) after this many days"
    )
    retention_days: (
        dict[str, Annotated[int, Field(strict=True, ge=0, le=36500), BeforeValidator(whole)]] | None
    ) = Field(
        None, max_length=200, description="per network: delete memories older than this (0: keep)"
    )


class PolicyOut(Output):
    write_policy: str
    agent_changes: str
    firewall: dict[str, str] = Field(description="the action for each family and detector")
    overrides: dict[str, str] = Field(description="the actions set here (by family or detector)")
    networks: dict[str, str] = Field(description="networks with their own write policy")
    keys: dict[str, str] = Field(description="API keys (by id) with their own write policy")
    quarantine_days: int
    retention_days: dict[str, int] = Field(description="networks with a retention, in days")
    detectors: dict[str, str] = Field(description="every detector and its family")


def present_policy(policy: Any, effective: dict[str, str]) -> PolicyOut:
    """memory.services.moderation.Policy as the API shows it, with the action every family
    and detector has in effect (``moderation.effective_actions``)."""
    return PolicyOut(
        write_policy=policy.settings.write_policy,
        agent_changes=policy.settings.agent_changes,
        firewall=effective,
        overrides=dict(policy.settings.actions),
        networks=policy.networks,
        keys=policy.keys,
        quarantine_days=policy.quarantine_days,
        retention_days=policy.retention,
        detectors=detectors(),
    )


# --- erasure -------------------------------------------------------------------------------


def _one_of_erasure_fields(schema: dict[str, Any], model: type[BaseModel]) -> None:
    document_blanks(schema, model)
    schema["anyOf"] = [{"required": [name]} for name in ("network", "engram_ids", "subject")]


class ErasureIn(Contract):
    """What to erase: engram ids, a subject (every memory naming it), a network, or a mix —
    at least one of them."""

    model_config = ConfigDict(extra="forbid", json_schema_extra=_one_of_erasure_fields)
    network: NetworkKey | None = None
    engram_ids: list[RowId] | None = Field(None, min_length=1, max_length=10_000)
    subject: Annotated[Text, Field(min_length=1, max_length=200)] | None = None

    required_if_sent = ("network", "engram_ids", "subject")

    @model_validator(mode="before")
    @classmethod
    def _named(cls, data: Any) -> Any:
        if isinstance(data, dict):
            nulls = [name for name in cls.required_if_sent if name in data and data[name] is None]
            if nulls:
                raise PydanticCustomError(
                    "mnemo", "{name} may be left out, not null", {"name": nulls[0]}
                )
            if not any(name in data for name in cls.required_if_sent):
                raise PydanticCustomError(
                    "mnemo", "name what to erase: network, engram_ids or subject"
                )
        return data


class ErasureOut(Output):
    id: int
    state: str
    receipt: dict[str, Any] = Field(description="what the signature covers")
    signature: str = Field(description="Ed25519 over the receipt's canonical JSON (base64)")
    public_key: str = Field(description="the service's receipt key (base64, raw Ed25519)")
    message: str


class VerifyIn(Contract):
    receipt: dict[str, Any]
    signature: Annotated[Text, Field(max_length=200)]


class VerifyOut(Output):
    valid: bool
    public_key: str

"""Intents (PRISM's intent awareness) — pure: the shipped vocabulary, how a query is routed to
one of its intents, what an intent changes in recall, and the intents a unit is tagged with.

Routing tries the cheap, explainable things first. **Rules**: each intent has weighted
patterns; the best intent wins when it scores at least ``RULE_MIN`` and leads the next by
``RULE_MARGIN``. **Prototypes**: else the query's embedding is compared with each intent's
prototype (the mean embedding of its examples, computed by the caller); the nearest wins when
it is close enough and clear of the next. **Language model**: else, when the workspace has
one, the caller asks it to pick among the intents' names and descriptions; an answer at least
``LLM_MIN`` sure wins. Else the query has no intent ("" — recall as without one).

An intent's **profile** says what it changes: a temporal question reads superseded facts and
prefers the time it names; a question about work in progress (status, debugging, planning,
procedure) is scoped to the active task and weighs coherence; each sets type quotas.
"""

from __future__ import annotations

import math
import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field

RULE_MIN = 0.8
RULE_MARGIN = 0.3
PROTOTYPE_MIN = 0.2  # MiniLM cosine (nearest examples): below it a query is near no intent
PROTOTYPE_MARGIN = 0.0  # the nearest must lead by more: a tie is no answer
LLM_MIN = 0.5  # a language model's answer it is less sure of than this is no answer
NAME = re.compile(r"^[a-z][a-z0-9_]{1,39}$")


@dataclass(frozen=True)
class Rule:
    pattern: re.Pattern[str]
    weight: float = 1.0


@dataclass(frozen=True)
class Profile:
    """What an intent changes in recall."""

    past: bool | None = None  # superseded facts too (None: if the query asks)
    task_scope: bool = False  # the active task's steps are candidates, coherence counts more
    quotas: Mapping[str, float] = field(default_factory=dict)  # type -> share of k, at most
    skills: bool = True  # skills are shown
    prefer_window: bool = False  # a time the query names narrows harder


@dataclass(frozen=True)
class IntentDef:
    name: str
    description: str
    rules: tuple[Rule, ...] = ()
    examples: tuple[str, ...] = ()
    profile: Profile = field(default_factory=Profile)
    tags: tuple[Rule, ...] = ()  # patterns that tag a *unit* (a memory, a step) at write time


@dataclass(frozen=True)
class Routed:
    """How a query was routed: the intent ("" for none), by what, how sure, and the scores the
    deciding stage saw (rules' points or prototypes' cosines), best first."""

    intent: str
    via: str  # forced | rules | prototype | llm | none
    confidence: float
    scores: tuple[tuple[str, float], ...] = ()


def _rules(*pairs: tuple[str, float]) -> tuple[Rule, ...]:
    return tuple(Rule(re.compile(p, re.I), w) for p, w in pairs)


MONTHS = (
    r"(?:jan(?:uary)?|feb(?:ruary)?|mar(?:ch)?|apr(?:il)?|may|june?|july?|aug(?:ust)?|"
    r"sep(?:t(?:ember)?)?|oct(?:ober)?|nov(?:ember)?|dec(?:ember)?)"
)

DEFAULTS: tuple[IntentDef, ...] = (
    IntentDef(
        "fact",
        "Look up a stated fact or attribute: who, what, where, which.",
        _rules(
            (r"^\s*(?:who|what|which|where)(?:'s|\s+(?:is|are|was|were|does|do))\b", 0.8),
            (r"\b(?:name|address|email|phone|number|id|version|size|price|capacity)\b", 0.4),
            (r"\b(?:password|sku|title|called|named|contact|owner|author|wrote|location)\b", 0.6),
            (r"\bwhat (?:version|kind|type|model|brand|size|colou?r)\b", 0.6),
            (r"\bhow (?:old|tall|big|many|much)\b", 0.8),
            (r"\b(?:what|which) (?:\w+ ){0,2}(?:does|do|did) \w+ (?:use|run|have|own)\b", 0.4),
        ),
        (
            "what database does the billing service use",
            "who is Maya's manager",
            "what is my dog's name",
            "which cloud region hosts production",
            "where does Tom work",
            "what's the API rate limit",
            "how many people are on the data team",
            "Ana's phone number",
            "the license key for the design tool",
            "which vendor supplies our laptops",
            "what is the staging database host",
            "who owns the payments repository",
            "address of the Lisbon office",
            "what size is the production disk",
            "name of the contractor who built the deck",
            "what timezone is the Sydney team in",
        ),
        Profile(quotas={"ATOMIC": 0.8}),
    ),
    IntentDef(
        "temporal",
        "When something happened, the order of events, what was true at some time, how long.",
        _rules(
            (r"^\s*when (?:did|was|were|had|have|has)\b", 2.0),
            (r"\bwhat (?:date|day|time|year|month)\b", 1.5),
            (r"\bhow long (?:ago|did|was|has|have|had|it took|since)\b", 2.0),
            (r"\bhow many (?:days|weeks|months|years|hours|minutes)\b", 1.5),
            (r"\b(?:before|after|since|until|prior to|earlier than|later than)\b", 0.6),
            (r"\bwhat (?:did|was|were) \w+(?: \w+)? (?:use|using|have|say|decide)\w*\b", 0.5),
            (r"\b(?:happened|took place|back in|on the \d{1,2}(?:st|nd|rd|th)|this past)\b", 0.8),
            (r"\b(?:in|during|last) (?:the )?(?:spring|summer|autumn|fall|winter)\b", 0.8),
            (r"\b(?:first|last) time\b", 1.2),
            (r"\b(?:used to|previously|formerly|originally|back then|at the time|anymore)\b", 1.2),
            (rf"\b(?:in|on|during|since|by) {MONTHS}\b", 1.2),
            (r"\b(?:in|during|since) (?:19|20)\d\d\b", 1.2),
            (r"\b(?:yesterday|last (?:week|month|year|night|time)|ago|earlier)\b", 0.6),
            (r"\b(?:timeline|chronolog\w*|order of|sequence of|history of|changed?)\b", 0.8),
            (r"\bwhich (?:came|happened) first\b", 2.0),
        ),
        (
            "when did we move the database to Postgres",
            "what did Maya use before Jira",
            "how long ago did the outage happen",
            "what was the team size in March",
            "which happened first, the launch or the hire",
            "how many days between the demo and the release",
            "where did I live before Berlin",
            "what was the price back then",
            "when was the contract signed",
            "what changed in the pricing since January",
            "how long did the database migration take",
            "what was our headcount last year",
            "did the outage happen before or after the deploy",
            "when did she start at the company",
            "what did he say in the call two weeks ago",
            "the week we switched providers",
        ),
        Profile(past=True, prefer_window=True, quotas={"ATOMIC": 0.8}),
        _rules(
            (r"\b(?:19|20)\d\d-\d\d-\d\d\b", 1.0),
            (rf"\b(?:on|in|since) {MONTHS}\b", 1.0),
            (r"\b(?:yesterday|last (?:week|month|year)|ago)\b", 1.0),
        ),
    ),
    IntentDef(
        "preference",
        "What someone likes, prefers, dislikes, wants, avoids or is allergic to; style, habits.",
        _rules(
            (r"\b(?:prefers?|preferred|preference|favou?rite|likes?|loves?|enjoys?)\b", 1.5),
            (r"\b(?:dislikes?|hates?|avoids?|can't stand|allerg\w*|intoleran\w*)\b", 1.5),
            (r"\b(?:rather|taste|style|habit|usually|tend to|wants?|vegan|vegetarian)\b", 0.9),
            (r"\b(?:go-to|routine|or (?:\w+ ){0,2}(?:\w+ly|\w+s)\b\?*$)", 0.5),
            (r"\bhow (?:does|do) \w+ (?:like|want|take)\b", 1.2),
            (r"\b(?:tabs or spaces|dark mode|light mode|formatted|tone)\b", 0.8),
        ),
        (
            "how does Ana like her reports formatted",
            "does the user prefer tabs or spaces",
            "any food allergies I should know about",
            "what music does Tom enjoy",
            "which airline seat does she want",
            "what tone should replies to this customer take",
            "favourite coffee order",
            "things Maya dislikes in code reviews",
            "does Tom drink coffee or tea",
            "what kind of music does my daughter listen to",
            "seating preference on long flights",
            "is the client fine with email or do they want calls",
            "which editor theme do I use",
            "foods the kids refuse to eat",
            "how formal should emails to the board be",
            "what does Lee order at the Thai place",
        ),
        Profile(quotas={"ATOMIC": 0.8}),
        _rules(
            (r"\b(?:i|we|he|she|they)\s+(?:really\s+)?(?:prefer|like|love|hate|dislike)\b", 1.0),
            (r"\b(?:prefers|likes|loves|hates|dislikes|allergic|favou?rite)\b", 1.0),
        ),
    ),
    IntentDef(
        "procedure",
        "How to do something: the steps, a runbook, a recipe, a setup.",
        _rules(
            (r"\bhow (?:do|can|should|would) (?:i|we|you|one)\b", 1.5),
            (r"\bhow to\b", 2.0),
            (
                r"\b(?:steps?|procedure|runbook|playbook|instructions?|recipe|guide|checklist)\b",
                1.0,
            ),
            (r"\b(?:set ?up|install|configure|deploy|rotate|migrate|restore|onboard)\b", 0.5),
            (r"\b(?:walk me through|remind me how|what's the process|process for)\b", 1.5),
            (
                r"\b(?:how does one|method for|script for|sequence to|teach me|recreate|"
                r"from scratch)\b",
                1.2,
            ),
            (r"\b(?:escalation|apply for|reimburse\w*)\b", 0.6),
        ),
        (
            "how do I deploy the API to staging",
            "what are the steps to rotate the signing key",
            "remind me how we set up the VPN",
            "recipe for the sourdough starter",
            "runbook for restoring a backup",
            "how to onboard a new customer",
            "walk me through configuring SSO",
            "checklist before a release",
            "the steps for resetting a user's two-factor",
            "how can I export the monthly report",
            "instructions to build the mobile app locally",
            "setting up a new laptop for an engineer",
            "how we restore the wiki from backup",
            "process to request a new vendor",
            "how should I bleed the radiators",
            "the way to renew the SSL certificate",
        ),
        Profile(task_scope=True, quotas={"PATTERN": 0.6, "LINK": 0.5, "ATOMIC": 0.6}),
        _rules(
            (r"(?m)^\s*(?:\d{1,2}[.)]|step\s+\d+)", 1.0),
            (r"\b(?:first|then|next|finally)\b.*\b(?:then|next|finally)\b", 1.0),
            (r"\bhow to\b", 1.0),
        ),
    ),
    IntentDef(
        "multi_hop",
        "A question that joins two or more facts or entities: a relation of a relation, a "
        "comparison.",
        _rules(
            (r"\b(?:of|for) the (?:\w+ ){0,2}(?:who|that|which)\b", 1.2),
            (
                r"\b(?:manager|owner|lead|team|author|client|sister|brother|wife|husband|friend)"
                r"\w* of (?:the )?\w+",
                0.7,
            ),
            (r"\b(?:compare|comparison|versus|vs\.?|difference between|in common|both)\b", 1.2),
            (r"\b(?:anyone|anybody|someone|everyone) (?:on|in|from) \w+'?s?\b", 1.0),
            (r"\b(?:related|connection|connected|link(?:ed)? between)\b", 0.8),
            (r"\bwho (?:\w+ ){1,4}(?:that|who|which) \w+", 0.8),
            (r"\b(?:the teams?|the people|the projects?) (?:that|who|which)\b", 1.0),
            (r"\b(?:any of|which of|among|everyone|all of) (?:my|our|the|his|her|their)\b", 1.6),
            (
                r"\b(?:\w+'s|my|our|his|her) (?:\w+ )?(?:best )?(?:friend|wife|husband|manager|"
                r"boss|team|colleague|sister|brother|mother|father)\b.{0,40}\b(?:like|use|live|know)",
                1.6,
            ),
            (
                r"\b(?:given (?:her|his|their)|same \w+ as|"
                r"who (?:had|has|owns|wrote) .{0,30} and)\b",
                1.2,
            ),
            (r"\b(?:services|repos|teams|customers|people) (?:owning|using|that|who|which)\b", 1.2),
        ),
        (
            "which city does the manager of the Falcon project live in",
            "what language do the teams that use Kafka write in",
            "does anyone on Maya's team know Rust",
            "compare the two vendors' prices",
            "what do Tom and Ana have in common",
            "who reviews the code of the person who wrote the parser",
            "which client of our biggest account is in Spain",
            "how is the billing service related to the ledger",
            "which of our customers use both products",
            "the manager of the team that owns search, where is she based",
            "do any of Maya's reports speak German",
            "what connects the outage to the vendor change",
            "which projects does the person who hired Tom lead",
            "the phone number of the author of the design doc",
            "is the Berlin client on the same contract as the Paris one",
            "which hotels near the venue take our corporate rate",
        ),
        Profile(quotas={"ATOMIC": 0.7, "LINK": 0.6}),
    ),
    IntentDef(
        "debugging",
        "An error, failure, bug or crash: why something broke, how it was fixed.",
        _rules(
            (r"\b(?:error|exception|traceback|stack ?trace|crash\w*|bug\w*|panic\w*)\b", 1.5),
            (
                r"\b(?:fail(?:ed|s|ing|ure)?|broke(?:n)?|breaks|down|outage|timeout|timed out)\b",
                1.2,
            ),
            (r"\b(?:fix(?:ed|es)?|debug\w*|root cause|regression|workaround|incident)\b", 1.2),
            (r"\b(?:oom|segfault|5\d\d|4\d\d|econn\w+|null pointer|deadlock|leak\w*)\b", 1.2),
            (r"\bwhy (?:did|does|is|was) \w+ (?:\w+ ){0,3}(?:not|n't|fail|stop|slow)", 1.2),
            (r"\bnot working\b|\bwon't (?:start|load|build|connect)\b", 1.5),
            (
                r"\b(?:stopped working|keeps \w+ing|expired|garbage|glitch\w*|drops?|dropping)\b",
                1.5,
            ),
            (r"\bwhy (?:does|do|is|isn't|doesn't|are|aren't|did|didn't)\b", 0.8),
            (r"\b(?:slower|a day off|off by|wrong (?:value|date|total)s?|stuck|hangs?)\b", 1.0),
        ),
        (
            "why did the build fail yesterday",
            "have we seen ECONNRESET from the payments API before",
            "what fixed the OOM in the worker",
            "the login page throws a 500",
            "how did we fix the flaky test",
            "root cause of last week's outage",
            "deploy keeps timing out",
            "stack trace from the parser crash",
            "the sync job keeps failing at midnight",
            "what caused the spike in 502s",
            "why is the dashboard blank",
            "memory leak in the image worker",
            "users can't log in with SSO",
            "what was the workaround for the flaky upload",
            "the washing machine shows error E21",
            "payments are double charged sometimes",
        ),
        Profile(task_scope=True, quotas={"ATOMIC": 0.7, "PATTERN": 0.5}),
        _rules(
            (r"\b(?:error|exception|traceback|failed|failure|crash\w*|bug)\b", 1.0),
            (r"\b(?:fixed|fix|workaround|root cause)\b", 1.0),
        ),
    ),
    IntentDef(
        "planning",
        "What to do next: goals, plans, priorities, deadlines, schedules, decisions to make.",
        _rules(
            (
                r"\b(?:the plan|plan (?:for|to|out)|planned|planning|roadmap|priorit\w*|goals?|"
                r"objectives?|milestones?|itinerary)\b",
                1.2,
            ),
            (
                r"\b(?:help me (?:decide|choose|pick)|decide between|what's next|next spring|"
                r"next year|this weekend)\b",
                1.2,
            ),
            (r"\b(?:deadline|due|schedule\w*|agenda|calendar|upcoming|next (?:week|month))\b", 1.2),
            (r"\bwhat should (?:i|we) (?:do|work on|tackle|focus on)\b", 2.0),
            (r"\b(?:next steps?|to-?do|todo|backlog|should we|shall we|going to|will we)\b", 1.0),
            (r"^\s*when (?:should|will|shall|can|do we need to)\b", 1.5),
        ),
        (
            "what should I work on next",
            "what's the plan for the launch",
            "what's due on Friday",
            "priorities for this sprint",
            "when should we ship the beta",
            "goals for Q3",
            "what's on my calendar tomorrow",
            "should we migrate before or after the audit",
            "what do we need to get done before the launch",
            "plan the next sprint",
            "which features go into the next release",
            "what are my tasks for tomorrow",
            "deadline for the grant application",
            "should I refinance this year",
            "agenda for Monday's offsite",
            "what is the target date for the beta",
        ),
        Profile(task_scope=True, quotas={"ATOMIC": 0.7, "PATTERN": 0.5}),
        _rules(
            (r"\b(?:plan|deadline|due|by (?:mon|tues|wednes|thurs|fri|satur|sun)day)\b", 1.0),
            (r"\b(?:will|going to|intend to|next week)\b", 0.5),
        ),
    ),
    IntentDef(
        "status",
        "Progress of a task or piece of work: where it stands, what is left, the last step.",
        _rules(
            (r"\b(?:status|progress|left off|so far|remaining|still open|stand(?:s|ing)?)\b", 1.5),
            (r"\bwhat(?:'s| is) left\b|\bwhere (?:are|were|did) (?:we|i|you)\b", 1.5),
            (
                r"\b(?:did|has|have) (?:the )?\w+ (?:finish\w*|complete\w*|succeed\w*|land\w*)\b",
                1.5,
            ),
            (r"\b(?:last|latest|previous) step\b|\bsteps? (?:did|has|have)\b", 1.5),
            (r"\b(?:task|ticket|job|migration|import|refactor|rollout)\s*#?\d*\b", 0.5),
            (r"\b(?:done|finished|completed|in progress|blocked|pending)\b", 0.7),
            (
                r"\b(?:how far along|coming along|percent complete|how much (?:is )?left|eta on)\b",
                1.6,
            ),
            (
                r"\b(?:has|have|did) \w+ "
                r"(?:sent|replied|signed|returned|shipped|merged|approved)\b",
                1.2,
            ),
        ),
        (
            "where did we leave off on the migration",
            "what's left on task 42",
            "did the import finish",
            "what has the agent done so far on the refactor",
            "last step of the deploy task",
            "is the rollout blocked",
            "progress on the onboarding tickets",
            "which steps of the upgrade are still pending",
            "how far is the agent with the data cleanup",
            "has the deploy task finished",
            "what happened on the last run of the import task",
            "is the report ready yet",
            "what remains to do on the refactor",
            "current state of the vendor onboarding",
            "did the backfill complete",
            "latest update on the migration ticket",
        ),
        Profile(task_scope=True, quotas={"ATOMIC": 0.8}),
    ),
)

DEFAULT_NAMES = tuple(d.name for d in DEFAULTS)


def vocabulary(custom: Iterable[IntentDef] = (), disabled: Iterable[str] = ()) -> list[IntentDef]:
    """The shipped intents with a tenant's own: one of the same name replaces a default (its
    rules and profile kept when it brings none), ``disabled`` names are left out."""
    gone = set(disabled)
    mine = {d.name: d for d in custom}
    merged: list[IntentDef] = []
    for default in DEFAULTS:
        own = mine.pop(default.name, None)
        if default.name in gone:
            continue
        if own is None:
            merged.append(default)
            continue
        merged.append(
            IntentDef(
                default.name,
                own.description or default.description,
                own.rules + default.rules,
                own.examples or default.examples,
                default.profile,
                default.tags,
            )
        )
    merged.extend(d for name, d in mine.items() if name not in gone)
    return merged


def keyword_rules(keywords: Iterable[str]) -> tuple[Rule, ...]:
    """A tenant's keywords as rules: each a whole word or phrase, worth a rule's full point."""
    rules = []
    for keyword in keywords:
        words = keyword.strip()
        if words:
            rules.append(Rule(re.compile(rf"\b{re.escape(words)}\b", re.I), 1.0))
    return tuple(rules)


def _points(text: str, rules: Sequence[Rule]) -> float:
    return sum(rule.weight for rule in rules if rule.pattern.search(text))


def by_rules(query: str, intents: Sequence[IntentDef]) -> Routed:
    """The intent the rules are sure of, else ``via`` "none" with the points seen."""
    scores = sorted(
        ((d.name, _points(query, d.rules)) for d in intents), key=lambda p: (-p[1], p[0])
    )
    scores = [(n, round(s, 3)) for n, s in scores if s > 0]
    if scores:
        best, points = scores[0]
        runner = scores[1][1] if len(scores) > 1 else 0.0
        if points >= RULE_MIN and points - runner >= RULE_MARGIN:
            confidence = min(1.0, 0.5 + (points - runner) / (2 * points))
            return Routed(best, "rules", round(confidence, 3), tuple(scores))
    return Routed("", "none", 0.0, tuple(scores))


NEAREST = 3  # an intent's closeness: the mean of its nearest examples' cosines


def unit(vector: Sequence[float]) -> tuple[float, ...]:
    """``vector`` scaled to length 1 (a zero vector as it is): prototypes are kept so."""
    norm = math.sqrt(math.sumprod(vector, vector))
    return tuple(x / norm for x in vector) if norm else tuple(vector)


def by_prototypes(
    vector: Sequence[float], examples: Mapping[str, Sequence[Sequence[float]]]
) -> Routed:
    """The intent whose examples are nearest ``vector`` (the mean cosine of its NEAREST
    closest), if near enough and clear of the next. ``examples`` are unit vectors (``unit``):
    a recall compares its query with ~100 of them, each a single product in C
    (``math.sumprod``; Python loops over 384 numbers took ~6 ms, a cosine with both norms
    computed each time ~1.4 ms)."""
    query = unit(vector)
    scores = []
    for name, vectors in examples.items():
        if vectors:
            near = sorted((math.sumprod(query, v) for v in vectors), reverse=True)[:NEAREST]
            scores.append((name, round(sum(near) / len(near), 4)))
    scores.sort(key=lambda p: (-p[1], p[0]))
    if scores:
        best, cos = scores[0]
        runner = scores[1][1] if len(scores) > 1 else 0.0
        if cos >= PROTOTYPE_MIN and cos - runner > PROTOTYPE_MARGIN:
            return Routed(best, "prototype", round(min(1.0, cos), 3), tuple(scores[:4]))
    return Routed("", "none", 0.0, tuple(scores[:4]))


def by_llm(name: str, confidence: float) -> Routed:
    """A language model's answer (``name`` "" for none) as a route, if it is sure enough."""
    if name and confidence >= LLM_MIN:
        return Routed(name, "llm", round(min(1.0, confidence), 3), ((name, confidence),))
    return Routed("", "none", 0.0, ((name, confidence),) if name else ())


def profile_of(name: str, intents: Sequence[IntentDef]) -> Profile:
    return next((d.profile for d in intents if d.name == name), Profile())


def tag(text: str, intents: Sequence[IntentDef], limit: int = 3) -> tuple[str, ...]:
    """The intents a unit's own text serves (its write-time tags), strongest first."""
    points = sorted(
        ((d.name, _points(text, d.tags)) for d in intents if d.tags),
        key=lambda p: (-p[1], p[0]),
    )
    return tuple(name for name, p in points if p >= 1.0)[:limit]


def clean_names(names: Iterable[object], known: Iterable[str]) -> tuple[str, ...]:
    """``names`` a client sent as intents, lower-cased, deduplicated, the unknown left out."""
    allowed = set(known)
    seen: dict[str, None] = {}
    for name in names:
        if isinstance(name, str):
            key = name.strip().lower().replace("-", "_").replace(" ", "_")
            if key in allowed:
                seen[key] = None
    return tuple(seen)

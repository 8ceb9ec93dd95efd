"""Skills (PlugMem's procedural memory) — pure: how a trajectory or a written procedure becomes
a reusable skill draft, and how sure a skill is.

A skill is a goal, the preconditions it needs, and the steps that reached it, with the
*literals* of one run (paths, URLs, numbers, versions, ids, quoted names) turned into named
placeholders, so "copy /srv/a.csv to /tmp/b.csv" becomes "copy {path} to {path2}" and the same
literal keeps its name across steps. Steps that failed are not steps: they become pitfalls, so
a task with a failure and its fix teaches the fix and warns about the failure. Retries of one
step (the same template twice in a row) are one step.

A skill's identity is its goal's key (content lemmas, sorted): the same goal with other steps is
a new *version*; a goal whose words include another skill's whole goal is that skill's child
(the hierarchy PlugMem recommends: "export data" above "export data as CSV").
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field

from memory.core.text import content_lemmas

MAX_STEPS = 20
MAX_STEP_CHARS = 240
MAX_GOAL_CHARS = 200

# literal kinds, most specific first; each match becomes {kind}, {kind2}, ...
LITERALS: tuple[tuple[str, re.Pattern[str]], ...] = (
    ("url", re.compile(r"\bhttps?://[^\s'\"`<>)]+", re.I)),
    ("email", re.compile(r"\b[\w.+-]+@[\w-]+(?:\.[\w-]+)+\b")),
    (
        "id",
        re.compile(r"\b[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}\b", re.I),
    ),
    ("ip", re.compile(r"\b(?:\d{1,3}\.){3}\d{1,3}(?::\d{1,5})?\b")),
    ("path", re.compile(r"(?<![\w/])(?:~|\.{1,2})?/[\w.\-/]+|\b[\w\-]+(?:/[\w.\-]+)+")),
    ("file", re.compile(r"\b[\w\-]+\.(?:csv|json|ya?ml|toml|txt|log|md|py|js|ts|sql|xlsx?|pdf)\b")),
    ("date", re.compile(r"\b\d{4}-\d{2}-\d{2}(?:[T ]\d{2}:\d{2}(?::\d{2})?)?\b")),
    ("version", re.compile(r"\bv?\d+\.\d+(?:\.\d+)+\b|\bv\d+(?:\.\d+)?\b")),
    ("ticket", re.compile(r"\b[A-Z][A-Z0-9]{1,9}-\d+\b")),
    ("hash", re.compile(r"\b(?=[0-9a-f]*\d)(?=[0-9a-f]*[a-f])[0-9a-f]{7,64}\b")),
    ("value", re.compile(r"\"[^\"\n]{1,80}\"|'[^'\n]{1,80}'")),
    ("number", re.compile(r"(?<![\w.])\d+(?:[.,]\d+)?(?![\w.])")),
)
PLACEHOLDER = re.compile(r"\{[a-z]+\d*\}")

PRECONDITION = re.compile(
    r"(?i)^\s*(?:requires?|needs?|make sure|ensure|check that|verify that|given|assuming|"
    r"before you start|prerequisites?:?|preconditions?:?)\b[\s:,-]*"
)
BULLET = re.compile(r"^\s*(?:[-*•]|\d{1,2}[.)]|step\s+\d+[.:)]?)\s+", re.I)
INLINE_NUMBERED = re.compile(r"(?:^|\s)\(?\d{1,2}[.)]\s+")
ARROWS = re.compile(r"\s*(?:->|→|=>|⇒)\s*")
THEN = re.compile(r"(?i)\s*(?:;|,?\s+then\s+|,?\s+and then\s+|,?\s+after that\s+|,?\s+finally\s+)")
GOAL_LEAD = re.compile(r"(?i)^\s*(?:how to|to|in order to|procedure(?: for)?|recipe(?: for)?)\s+")


@dataclass(frozen=True)
class StepSeen:
    """One step of a trajectory as the agent recorded it."""

    text: str
    failed: bool = False
    observation: str = ""


@dataclass
class Literals:
    """The run's literals and the placeholder each became (one name per literal)."""

    names: dict[str, str] = field(default_factory=dict)  # literal -> placeholder name
    counts: dict[str, int] = field(default_factory=dict)  # kind -> names handed out

    def name(self, kind: str, literal: str) -> str:
        if literal not in self.names:
            n = self.counts.get(kind, 0) + 1
            self.counts[kind] = n
            self.names[literal] = kind if n == 1 else f"{kind}{n}"
        return self.names[literal]

    def examples(self) -> dict[str, str]:
        return {name: literal for literal, name in self.names.items()}


@dataclass(frozen=True)
class SkillDraft:
    goal: str
    key: str
    preconditions: tuple[str, ...]
    steps: tuple[str, ...]  # templates with {placeholders}
    placeholders: dict[str, str]  # name -> the literal this run used
    pitfalls: tuple[str, ...] = ()

    @property
    def terms(self) -> list[str]:
        """What the skill is found by: the goal's and the steps' content lemmas."""
        text = " ".join((self.goal, *self.steps, *self.preconditions))
        return sorted(set(content_lemmas(PLACEHOLDER.sub(" ", text))))


def generalise(text: str, literals: Literals) -> str:
    """``text`` with every literal replaced by its placeholder."""
    spans: list[tuple[int, int, str]] = []
    for kind, pattern in LITERALS:
        for match in pattern.finditer(text):
            start, end = match.span()
            if any(start < e and s < end for s, e, _ in spans):
                continue  # inside a more specific literal
            spans.append((start, end, kind))
    out, at = [], 0
    for start, end, kind in sorted(spans):
        out.append(text[at:start])
        out.append("{" + literals.name(kind, text[start:end]) + "}")
        at = end
    out.append(text[at:])
    return "".join(out)


def _clean(text: str, limit: int) -> str:
    text = " ".join(text.split()).strip(" .;,")
    return text if len(text) <= limit else text[: limit - 1].rstrip() + "…"


def skill_key(goal: str) -> str:
    """A goal's identity: its content lemmas, sorted and unique (placeholders left out)."""
    return " ".join(sorted(set(content_lemmas(PLACEHOLDER.sub(" ", goal)))))[:300]


def from_trajectory(
    goal: str, steps: Sequence[StepSeen], preconditions: Iterable[str] = ()
) -> SkillDraft | None:
    """The skill a trajectory that reached ``goal`` teaches; None when nothing is left to
    reuse (no step that worked)."""
    literals = Literals()
    template_goal = _clean(generalise(goal, literals), MAX_GOAL_CHARS)
    needs = [_clean(generalise(p, literals), MAX_STEP_CHARS) for p in preconditions if p.strip()]
    done: list[str] = []
    pitfalls: list[str] = []
    for step in steps:
        text = step.text.strip()
        if not text:
            continue
        if PRECONDITION.match(text) and not done and not step.failed:
            needs.append(_clean(generalise(PRECONDITION.sub("", text), literals), MAX_STEP_CHARS))
            continue
        template = _clean(generalise(text, literals), MAX_STEP_CHARS)
        if step.failed:
            why = _clean(generalise(step.observation, literals), 120) if step.observation else ""
            pitfall = f"{template} (failed: {why})" if why else f"{template} (failed)"
            if pitfall not in pitfalls:
                pitfalls.append(pitfall)
            continue
        if not done or done[-1] != template:  # a retry of the same step is one step
            done.append(template)
    if not done:
        return None
    key = skill_key(template_goal)
    if not key:
        return None
    return SkillDraft(
        goal=template_goal,
        key=key,
        preconditions=tuple(dict.fromkeys(needs)),
        steps=tuple(done[:MAX_STEPS]),
        placeholders=literals.examples(),
        pitfalls=tuple(pitfalls[:MAX_STEPS]),
    )


def _split_steps(body: str) -> list[str]:
    lines = [line for line in body.splitlines() if line.strip()]
    if len(lines) >= 2:
        return [BULLET.sub("", line) for line in lines]
    text = body.strip()
    for splitter in (INLINE_NUMBERED, ARROWS, THEN):
        parts = [p for p in splitter.split(text) if p and p.strip(" .;,")]
        if len(parts) >= 2:
            return parts
    return [text] if text else []


def from_pattern(content: str) -> SkillDraft | None:
    """A written procedure ("To deploy: 1. build 2. push 3. restart", a goal line then
    bulleted steps, "build -> push -> restart") as a skill; None when it is not one (fewer
    than two steps)."""
    text = content.strip()
    if not text:
        return None
    first, _, rest = text.partition("\n")
    if rest.strip() and (first.rstrip().endswith(":") or not BULLET.match(first)):
        goal, body = first, rest
    elif ":" in first and not BULLET.match(first):
        goal, _, tail = first.partition(":")
        body = tail + ("\n" + rest if rest else "")
    else:
        goal, body = "", text
    steps = [s for s in _split_steps(body) if s.strip(" .;,")]
    if len(steps) < 2:
        return None
    goal = GOAL_LEAD.sub("", goal.strip().rstrip(":")).strip()
    if not goal:
        goal = _clean(" → ".join(_clean(s, 40) for s in steps), MAX_GOAL_CHARS)
    return from_trajectory(goal, [StepSeen(s) for s in steps])


def reliability(successes: int, failures: int) -> float:
    """How often it worked, with a prior of one success and one failure (a new skill is 0.5,
    not 1.0 after one lucky run)."""
    return (successes + 1) / (successes + failures + 2)


def parent_of(key: str, others: Iterable[tuple[int, str]]) -> int | None:
    """The most specific other skill whose goal's words are all in this goal's (a strict
    subset): the more general skill this one refines."""
    mine = set(key.split())
    best: tuple[int, int] | None = None
    for skill_id, other in others:
        theirs = set(other.split())
        if theirs and theirs < mine and (best is None or len(theirs) > best[1]):
            best = (skill_id, len(theirs))
    return best[0] if best else None

"""The rules extractor: a schema (ordered cue words) from free text, without an LLM.

PromptX asks the agent for a schema like ["Redis", "default port", "6379"] and applies "Occam's
razor": keep the essential, drop filler. When a client sends no schema we derive one: entities
(capitalised names), numbers and dates, identifiers, then the most salient remaining terms, in the
order they appear, each concept once.
"""

from __future__ import annotations

import re
from collections import Counter
from dataclasses import dataclass

from memory.core.text import (
    CJK_RE,
    IDENTIFIER_RE,
    MAX_WORD,
    is_number,
    is_stop_word,
    lemma,
    nfkc,
    word_spans,
)

DATE_RE = re.compile(
    r"\b(?:\d{4}-\d{2}-\d{2}|\d{1,2}/\d{1,2}/\d{2,4}|"
    r"(?:jan|feb|mar|apr|may|jun|jul|aug|sep|sept|oct|nov|dec)[a-z]*\.?\s+\d{1,2}(?:st|nd|rd|th)?"
    r"(?:,?\s+\d{4})?|\d{1,2}(?:st|nd|rd|th)?\s+(?:jan|feb|mar|apr|may|jun|jul|aug|sep|sept|oct|"
    r"nov|dec)[a-z]*\.?(?:\s+\d{4})?|\d{1,2}:\d{2}(?:\s?[ap]\.?m\b\.?)?)(?!\w)",
    re.IGNORECASE,
)
ENTITY_RE = re.compile(r"\b[A-Z][\w'’-]*(?:\s+(?:of|de|van|von|the)?\s*[A-Z][\w'’-]*)*")
# Capitalised at the start of a sentence or a greeting, never a name: "Hey John", "Glad I"
NOT_NAMES = frozenset(
    "hey hi hello dear thanks thank glad sorry yeah yep oh ok okay well last next this that so "
    "but and or also just i".split()
)
# Verbs and fillers every conversation is full of: as concepts they join everything
GENERIC = frozenset(
    """
    want wants wanted wanting ask asks asked asking think thinks thought thinking know knows
    knew feel feels felt try tries tried trying go goes going went gone come comes came coming
    take takes took taking tell tells told telling see sees saw seen look looks looked looking
    figure figuring lot lots kind sort sure pretty great good nice bad right actually probably
    definitely maybe totally stuff anything something everything nothing someone anyone
    """.split()
)
SENTENCE_START_RE = re.compile(r"(?:^|[.!?:;\n]\s*)([A-Z][\w'’-]*)")
MAX_CUES = 12
# "Maya: …", "Dr. Lee: …", "user: …" — who says a chat message, not what it is about
SPEAKER_RE = re.compile(
    r"\s*((?:[A-Z][\w'’.-]*)(?:\s[A-Z][\w'’.-]*)?|user|assistant|system)\s?:\s+"
)
SPEAKER_MIN_WORDS = 4  # "Redis: port 6379" is a topic and a fact, not a message


def speaker_of(text: str) -> tuple[str | None, str]:
    """(speaker, message) when ``text`` opens with a speaker's label and goes on as a message
    of a few words, else (None, text). The label is kept out of the cues: every message of a
    chat carries it, so as a concept it would join everything to everything."""
    match = SPEAKER_RE.match(text)
    if match is None:
        return None, text
    rest = text[match.end() :]
    if len(rest.split()) < SPEAKER_MIN_WORDS:
        return None, text
    return match.group(1), rest


@dataclass(frozen=True)
class Term:
    display: str
    lemma: str
    position: int
    kind: str  # entity | date | number | identifier | term


def _sentence_starts(text: str) -> set[int]:
    return {m.start(1) for m in SENTENCE_START_RE.finditer(text)}


def _entities(text: str, starts: set[int]) -> list[Term]:
    found = []
    for match in ENTITY_RE.finditer(text):
        words = match.group(0).split()
        at = match.start()
        while words and words[0].casefold() in NOT_NAMES:  # "Hey John" -> "John"
            at = text.index(words[0], at) + len(words[0])
            words.pop(0)
            at = text.index(words[0], at) if words else at
        while words and words[-1].casefold() in NOT_NAMES:  # "Last Fri I" -> "Last Fri"
            words.pop()
        if not words:
            continue
        span = " ".join(words)
        # A lone capitalised stop word or a sentence's first word is not a name by itself.
        if len(words) == 1 and (is_stop_word(span) or at in starts):
            continue
        found.append(Term(span, lemma(span), at, "entity"))
    return found


def _pattern_terms(text: str, pattern: re.Pattern[str], kind: str) -> list[Term]:
    return [Term(m.group(0), lemma(m.group(0)), m.start(), kind) for m in pattern.finditer(text)]


def _plain_terms(text: str) -> list[Term]:
    out: list[Term] = []
    for word, here in word_spans(text):
        if is_number(word):
            out.append(Term(word, lemma(word), here, "number"))
        elif (
            not is_stop_word(word)
            and word.casefold() not in GENERIC
            and word.casefold() not in NOT_NAMES
            and (len(word) >= 3 or CJK_RE.fullmatch(word))
        ):
            out.append(Term(word, lemma(word), here, "term"))
    return out


def extract_terms(text: str) -> list[Term]:
    """Every candidate term with its kind, in text order (duplicates kept)."""
    text = nfkc(text)
    starts = _sentence_starts(text)
    special = (
        _pattern_terms(text, DATE_RE, "date")
        + _pattern_terms(text, IDENTIFIER_RE, "identifier")
        + _entities(text, starts)
    )
    covered = [(t.position, t.position + len(t.display)) for t in special]
    plain = [t for t in _plain_terms(text) if not any(a <= t.position < b for a, b in covered)]
    return sorted(special + plain, key=lambda t: t.position)


KIND_PRIORITY = {"entity": 3.0, "identifier": 3.0, "date": 2.5, "number": 2.0, "term": 1.0}


def extract_schema(text: str, max_cues: int = MAX_CUES) -> list[str]:
    """The schema of ``text``: up to ``max_cues`` display forms, in order of first appearance
    (a speaker's label left out)."""
    text = speaker_of(text)[1]
    terms = extract_terms(text)
    if not terms:
        return []
    frequency = Counter(t.lemma for t in terms)
    first: dict[str, Term] = {}
    for term in terms:
        if term.lemma and term.lemma not in first:
            first[term.lemma] = term
    total = max(len(text), 1)

    def salience(term: Term) -> float:
        early = 1.0 - 0.1 * (term.position / total)  # openings carry the topic, a little
        longer = 1.0 + 0.08 * min(max(len(term.display) - 4, 0), 6)  # longer words are rarer
        repeated = 1 + 0.5 * (frequency[term.lemma] - 1)
        return KIND_PRIORITY[term.kind] * repeated * early * longer

    keep = sorted(first.values(), key=salience, reverse=True)[:max_cues]
    return [t.display[:MAX_WORD] for t in sorted(keep, key=lambda t: t.position)]

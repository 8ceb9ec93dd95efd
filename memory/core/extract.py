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
    r"nov|dec)[a-z]*\.?(?:\s+\d{4})?)\b",
    re.IGNORECASE,
)
ENTITY_RE = re.compile(r"\b[A-Z][\w'’-]*(?:\s+(?:of|de|van|von|the)?\s*[A-Z][\w'’-]*)*")
SENTENCE_START_RE = re.compile(r"(?:^|[.!?:;\n]\s*)([A-Z][\w'’-]*)")
MAX_CUES = 12


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
        span = match.group(0).strip()
        first = span.split()[0]
        # A lone capitalised stop word or a sentence's first word is not a name by itself.
        if " " not in span and (is_stop_word(first) or match.start() in starts):
            continue
        found.append(Term(span, lemma(span), match.start(), "entity"))
    return found


def _pattern_terms(text: str, pattern: re.Pattern[str], kind: str) -> list[Term]:
    return [Term(m.group(0), lemma(m.group(0)), m.start(), kind) for m in pattern.finditer(text)]


def _plain_terms(text: str) -> list[Term]:
    out: list[Term] = []
    for word, here in word_spans(text):
        if is_number(word):
            out.append(Term(word, lemma(word), here, "number"))
        elif not is_stop_word(word) and (len(word) >= 3 or CJK_RE.fullmatch(word)):
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
    """The schema of ``text``: up to ``max_cues`` display forms, in order of first appearance."""
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
        early = 1.0 - 0.3 * (term.position / total)  # openings carry the topic
        return KIND_PRIORITY[term.kind] * (1 + 0.5 * (frequency[term.lemma] - 1)) * early

    keep = sorted(first.values(), key=salience, reverse=True)[:max_cues]
    return [t.display[:MAX_WORD] for t in sorted(keep, key=lambda t: t.position)]

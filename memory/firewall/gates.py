"""Which patterns are worth running on a text: a pattern whose matches can only start the way
a few words start ("ign…", "dis…", "for…") need not run on a text with no such word.

``starts_of`` reads a compiled pattern with the standard library's own regular-expression
parser and lists every way (up to ``KEY`` letters, lower-cased) a match can start; None when
it cannot tell (a pattern that starts with punctuation, a class of all letters, an anchor on a
line). ``word_keys`` lists the starts of a text's words. A pattern runs when the two meet, so
skipping it never changes what is found — the firewall scans every memory written, and most
texts hold none of most detectors' words.
"""

from __future__ import annotations

import importlib
import re
from functools import cache
from typing import Any

# the standard library's regular-expression parser and its opcodes (private modules, stable
# since Python 3.11; typeshed does not describe them)
_parser: Any = importlib.import_module("re._parser")
_codes: Any = importlib.import_module("re._constants")

KEY = 3  # starts are compared on a word's first three characters
TOKEN = re.compile(r"[^\W_]+")
LETTERS = re.compile(r"[^\W\d_]+")


def _chars(item: tuple[object, object]) -> set[str] | None:
    """The characters one LITERAL or IN item matches (lower-cased), None when unbounded."""
    op, arg = item
    if op is _codes.LITERAL:
        return {chr(arg).lower()}  # type: ignore[arg-type]
    if op is not _codes.IN:
        return None
    chars: set[str] = set()
    for sub_op, sub_arg in arg:  # type: ignore[attr-defined]
        if sub_op is _codes.LITERAL:
            chars.add(chr(sub_arg).lower())
        elif sub_op is _codes.RANGE and sub_arg[1] - sub_arg[0] <= 40:
            chars.update(chr(c).lower() for c in range(sub_arg[0], sub_arg[1] + 1))
        else:
            return None
    return chars


def _walk(items: list[tuple[object, object]], active: set[str]) -> tuple[set[str], set[str]] | None:
    """(still growing, finished) prefixes after ``items``, from ``active``; None: unknown."""
    done: set[str] = set()
    for item in items:
        op, arg = item
        if op in (_codes.AT, _codes.ASSERT, _codes.ASSERT_NOT) or not active:
            continue
        if op in (_codes.LITERAL, _codes.IN):
            chars = _chars(item)
            if chars is None:
                if "" in active:
                    return None
                done |= active
                active = set()
                continue
            if "" in active and any(not c.isalnum() for c in chars):
                return None  # it can start with punctuation: no word start tells
            grown = {s + c for s in active for c in chars if c.isalnum()}
            done |= {s for s in active if s} if any(not c.isalnum() for c in chars) else set()
            done |= {s for s in grown if len(s) >= KEY}
            active = {s for s in grown if len(s) < KEY}
        elif op is _codes.SUBPATTERN:
            walked = _walk(list(arg[3]), active)  # type: ignore[index]
            if walked is None:
                return None
            active, finished = walked
            done |= finished
        elif op is _codes.BRANCH:
            merged_active: set[str] = set()
            for branch in arg[1]:  # type: ignore[index]
                walked = _walk(list(branch), set(active))
                if walked is None:
                    return None
                merged_active |= walked[0]
                done |= walked[1]
            active = merged_active
        elif op in (_codes.MAX_REPEAT, _codes.MIN_REPEAT):
            low: int = arg[0]  # type: ignore[index]
            high: int = arg[1]  # type: ignore[index]
            body: list[tuple[object, object]] = list(arg[2])  # type: ignore[index]
            paths = {frozenset(active)} if low == 0 else set()
            current = set(active)
            for count in range(1, min(high, KEY) + 1):
                walked = _walk(body, current)
                if walked is None:
                    if "" in current:
                        return None
                    done |= current
                    break
                current, finished = walked
                done |= finished
                if count >= low:
                    paths.add(frozenset(current))
            active = set().union(*paths) if paths else set()
        else:
            if "" in active:
                return None
            done |= active
            active = set()
    return active, done


def _starts(parsed: object) -> set[str] | None:
    walked = _walk(list(parsed), {""})  # type: ignore[call-overload]
    if walked is None:
        return None
    active, done = walked
    starts = {s for s in active | done if s}
    return None if "" in active or not starts else starts


@cache
def starts_of(pattern: re.Pattern[str]) -> frozenset[str] | None:
    """Every start (1 to ``KEY`` characters, lower-cased) a match of ``pattern`` can have, or
    None when a match could start anyhow."""
    starts = _starts(_parser.parse(pattern.pattern, pattern.flags))
    return None if starts is None else frozenset(starts)


# letters that Python's case-insensitive matching takes for others ("ıgnore" matches
# "ignore", "ſ" matches "s", the Kelvin sign matches "k"): compared as those
FOLD = str.maketrans({"ı": "i", "ſ": "s", "\u212a": "k", "\u212b": "å"})


def fold(text: str) -> str:
    """``text`` lower-cased the way a case-insensitive pattern compares it (same length)."""
    return text.lower().translate(FOLD)


def word_keys(text: str) -> set[str]:
    """The first one, two and three characters of every word of ``text`` (lower-cased; runs of
    letters and runs of letters and digits both count as words)."""
    lowered = fold(text).replace("\u0307", "")  # "İ" lowers to i + a combining dot
    words = {*TOKEN.findall(lowered), *LETTERS.findall(lowered)}
    return {word[:k] for word in words for k in range(1, KEY + 1)}


def worth(pattern: re.Pattern[str], keys: set[str]) -> bool:
    """Whether ``pattern`` can match a text whose word starts are ``keys``."""
    starts = _STARTS.get(pattern)
    if starts is None:
        starts = _STARTS[pattern] = starts_of(pattern) or ANY
    return starts is ANY or not starts.isdisjoint(keys)


ANY: frozenset[str] = frozenset({"\x00any"})
_STARTS: dict[re.Pattern[str], frozenset[str]] = {}


# A phrase as literals: "assistent\w{0,3}" is the literal "assistent" that may run on for up
# to three more word characters; "(?:chat)?bots?" is four literals. Most phrases of the
# lexicon expand to a handful of literals, which a dictionary finds far faster than a regular
# expression of a thousand alternatives tries them.
Suffix = int | None  # how many more word characters may follow (ANY_SUFFIX: any), or none
ANY_SUFFIX = 1 << 30
EXPANSIONS = 64  # a phrase with more literals than this stays a regular expression


def _literal_chars(item: tuple[object, object]) -> list[str] | None:
    chars = _chars(item)
    return None if chars is None or len(chars) > 12 else sorted(chars)


def _expand(items: list[tuple[Any, Any]]) -> list[tuple[str, Suffix]] | None:
    outs: list[tuple[str, Suffix]] = [("", None)]
    for index, item in enumerate(items):
        op, arg = item
        last = index == len(items) - 1
        if op in (_codes.LITERAL, _codes.IN):
            chars = _literal_chars(item)
            if chars is None:
                return None
            outs = [(s + c, None) for s, _ in outs for c in chars]
        elif op in (_codes.SUBPATTERN, _codes.BRANCH):
            branches = [list(arg[3])] if op is _codes.SUBPATTERN else [list(b) for b in arg[1]]
            found: list[tuple[str, Suffix]] = []
            for branch in branches:
                sub = _expand(branch)
                if sub is None or (not last and any(sf is not None for _, sf in sub)):
                    return None
                found += sub
            outs = [(s + t, sf) for s, _ in outs for t, sf in found]
        elif op in (_codes.MAX_REPEAT, _codes.MIN_REPEAT):
            low, high, body = arg[0], arg[1], list(arg[2])
            word_run = len(body) == 1 and body[0] == (
                _codes.IN,
                [(_codes.CATEGORY, _codes.CATEGORY_WORD)],
            )
            if word_run and last and low == 0:
                outs = [(s, ANY_SUFFIX if high >= _codes.MAXREPEAT else high) for s, _ in outs]
                continue
            sub = _expand(body)
            if sub is None or high > 3 or any(sf is not None for _, sf in sub):
                return None
            repeated: list[str] = []
            for count in range(high, low - 1, -1):  # greedy: the longest first
                current = [""]
                for _ in range(count):
                    current = [a + b for a in current for b, _ in sub]
                repeated += current
            outs = [(s + t, None) for s, _ in outs for t in repeated]
        else:
            return None
        if len(outs) > EXPANSIONS:
            return None
    return outs


def expand(phrase: str) -> list[tuple[str, Suffix]] | None:
    """The literals (lower-cased) a case-insensitive ``phrase`` matches, each with how many
    word characters may follow it; None when it is not a small set of literals."""
    found = _expand(list(_parser.parse("(?i)" + phrase)))
    if found is None or any(not literal for literal, _ in found):
        return None
    return found  # in the order the pattern would try them (a greedy "?" takes the longer)

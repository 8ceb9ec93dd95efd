"""Words, lemmas, stop words and token estimates, shared by extraction, cue matching and packing.

Deliberately small and deterministic: the same normalisation runs when an engram is remembered
and when a query arrives, so a query word finds the cue its memory created.
"""

from __future__ import annotations

import re
import unicodedata
from functools import lru_cache

# A word: letters/digits joined by inner apostrophes, dots or dashes ("don't", "v1.2", "e-mail").
WORD_RE = re.compile(r"[^\W_]+(?:['’.\-][^\W_]+)*", re.UNICODE)
IDENTIFIER_RE = re.compile(
    r"(?<![\w.])(?:[A-Za-z_][A-Za-z0-9]*(?:[_.:/][A-Za-z0-9]+)+|[a-z]+[A-Z][A-Za-z0-9]*)(?![\w])"
)
CJK_RE = re.compile(r"[\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uac00-\ud7af]+")
NUMBER_RE = re.compile(r"^\d+(?:[.,:]\d+)*(?:[a-z%]{0,3})?$", re.IGNORECASE)

STOP_WORDS = frozenset(
    """
    a about above after again against all almost also am an and any are aren't around as at be
    became because been before being below between both but by can can't cannot could couldn't
    did didn't do does doesn't doing don't done down during each either else even ever every
    few for from further get gets getting got had hadn't has hasn't have haven't having he he'd
    he'll he's her here here's hers herself him himself his how how's however i i'd i'll i'm i've
    if in into is isn't it it's its itself just let's like make makes many may maybe me might
    mine more most much must mustn't my myself need needs no nor not now of off often on once one
    only or other ought our ours ourselves out over own per quite rather really said same say
    says she she'd she'll she's should shouldn't since so some still such than that that's the
    their theirs them themselves then there there's these they they'd they'll they're they've
    thing things this those though through thus to too under until up upon us use used using
    very via was wasn't we we'd we'll we're we've were weren't what what's when when's where
    where's whether which while who who's whom whose why why's will with within without won't
    would wouldn't yes yet you you'd you'll you're you've your yours yourself yourselves
    的 了 和 是 在 我 有 就 不 人 都 一 一个 上 也 很 到 说 要 去 你 会 着 没有 看 好 自己 这
    """.split()
)


# Function characters that make a CJK bigram meaningless ("型的", "的训").
CJK_FUNCTION_CHARS = frozenset("的了和是在就不都也很到说要去会着这那与及或而之其于")


def nfkc(text: str) -> str:
    return unicodedata.normalize("NFKC", text)


def word_spans(text: str) -> list[tuple[str, int]]:
    """``(word, offset)`` in order (``text`` already NFKC); CJK runs become overlapping bigrams,
    since single characters say little and no segmenter is at hand."""
    out: list[tuple[str, int]] = []
    for match in WORD_RE.finditer(text):
        token, start = match.group(0), match.start()
        if CJK_RE.fullmatch(token) and len(token) > 2:
            for i in range(len(token) - 1):
                pair = token[i : i + 2]
                if not CJK_FUNCTION_CHARS.intersection(pair):
                    out.append((pair, start + i))
        else:
            out.append((token, start))
    return out


def words(text: str) -> list[str]:
    """Word tokens of ``text`` in order (see word_spans)."""
    return [word for word, _ in word_spans(nfkc(text))]


def _stem(word: str) -> str:
    """A light English stemmer: plurals, possessives, -ing/-ed. Symmetric, not linguistic."""
    if not word.isascii() or not word.isalpha() or len(word) <= 3:
        return word
    if word.endswith("ies") and len(word) > 4:
        return word[:-3] + "y"
    if word.endswith("sses"):
        return word[:-2]
    if word.endswith("s") and not word.endswith(("ss", "us", "is", "ous")):
        word = word[:-1]
    for suffix in ("ing", "ed"):
        if word.endswith(suffix) and len(word) - len(suffix) >= 3:
            base = word[: -len(suffix)]
            if any(v in base for v in "aeiouy"):
                if len(base) > 3 and base[-1] == base[-2] and base[-1] not in "lsz":
                    base = base[:-1]
                return base
    return word


MAX_WORD = 100  # longer "words" (hashes, base64, run-on names) are cut: cues are concepts


@lru_cache(maxsize=200_000)
def lemma(word: str) -> str:
    """The normal form a cue is stored and matched under (cached: vocabularies repeat)."""
    word = nfkc(word).casefold().strip("'’.-")[:MAX_WORD]
    word = word.removesuffix("'s").removesuffix("’s")
    if " " in word:
        return " ".join(_stem(part) for part in word.split())
    return _stem(word)


def is_stop_word(word: str) -> bool:
    return nfkc(word).casefold() in STOP_WORDS


def is_number(word: str) -> bool:
    return bool(NUMBER_RE.match(word))


def content_lemmas(text: str) -> list[str]:
    """Lemmas of the meaningful words of ``text`` (stop words and one-letter words dropped)."""
    return [
        lemma(w)
        for w in words(text)
        if not is_stop_word(w) and (len(w) > 1 or is_number(w) or CJK_RE.fullmatch(w))
    ]


_PIECE_RE = re.compile(r"[^\W_]+|[^\w\s]", re.UNICODE)


def estimate_tokens(text: str) -> int:
    """Roughly what a BPE tokenizer (cl100k-like) counts: words, long-word pieces, punctuation.

    Within ~10-15% of real tokenizers on English prose, deterministic, and free of dependencies;
    budgets are enforced against this count, so packing never exceeds what it reports.
    """
    count = 0
    for piece in _PIECE_RE.findall(text):
        if CJK_RE.fullmatch(piece):
            count += len(piece)
        elif piece[0].isalnum():
            count += 1 + (len(piece) - 1) // 6
        else:
            count += 1
    return count

"""Secrets (the firewall's ``secret`` family): keys and tokens (``tokens``), passwords and
access codes (``passwords``), recovery phrases, one-time-password seeds and recovery codes
(``phrases``). What their values look like is ``shape``.

Named ``credentials``, not ``secrets``: a package of that name would read as the standard
library's (STYLE.md).
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from contextvars import ContextVar

from memory.firewall.credentials import passwords, phrases, tokens
from memory.firewall.hits import Hit, merged

FAMILY = "secret"

_memo: ContextVar[dict[str, tuple[Hit, ...]] | None] = ContextVar("secret_scans", default=None)


@contextmanager
def scans_shared() -> Iterator[None]:
    """Within the block each text is scanned for secrets once: a memory's firewall screen, its
    audit entry's label and its snapshot ask about the same text (three scans of every new
    memory before). Held for one batch only: a cache across requests would let one tenant
    time whether another wrote the same text."""
    token = _memo.set({})
    try:
        yield
    finally:
        _memo.reset(token)


def scan(text: str) -> list[Hit]:
    """Every secret in ``text``, but nothing inside a public key or certificate."""
    memo = _memo.get()
    if memo is None:
        return _scan(text)
    found = memo.get(text)
    if found is None:
        found = memo[text] = tuple(_scan(text))
    return list(found)


def _scan(text: str) -> list[Hit]:
    hits = [*tokens.scan(text), *passwords.scan(text), *phrases.scan(text)]
    public = tokens.public_spans(text)
    if public:
        hits = [h for h in hits if not any(a <= h.start and h.end <= b for a, b in public)]
    return merged(hits)


DETECTORS = sorted({*tokens.DETECTORS, *passwords.DETECTORS, *phrases.DETECTORS})

"""Secrets (the firewall's ``secret`` family): keys and tokens (``tokens``), passwords and
access codes (``passwords``), recovery phrases, one-time-password seeds and recovery codes
(``phrases``). What their values look like is ``shape``.

Named ``credentials``, not ``secrets``: a package of that name would read as the standard
library's (STYLE.md).
"""

from __future__ import annotations

from memory.firewall.credentials import passwords, phrases, tokens
from memory.firewall.hits import Hit, merged

FAMILY = "secret"


def scan(text: str) -> list[Hit]:
    """Every secret in ``text``, but nothing inside a public key or certificate."""
    hits = [*tokens.scan(text), *passwords.scan(text), *phrases.scan(text)]
    public = tokens.public_spans(text)
    if public:
        hits = [h for h in hits if not any(a <= h.start and h.end <= b for a, b in public)]
    return merged(hits)


DETECTORS = sorted({*tokens.DETECTORS, *passwords.DETECTORS, *phrases.DETECTORS})

"""The memory firewall: detectors that read a text about to be remembered and report what it
holds that should not be served to agents as is — secrets, personal data, prompt injection.

Plain functions over text, no Django (a ruff ban keeps it so): what to *do* with a hit (allow,
flag, quarantine, redact, reject) is the tenant's policy, decided in ``memory.services.
moderation``. Each hit names its detector, its family, the span and a confidence; ``scan``
returns the hits at or above ``THRESHOLD``, overlapping hits of one family merged.

The detectors lean on maintained libraries where they exist: ``detect-secrets`` (Yelp) for the
shapes of provider tokens, ``phonenumbers`` (libphonenumber's metadata) for phone numbers and
``python-stdnum`` for the checksums of payment cards, IBANs and government ids. Measured on a
labelled set by ``make bench-firewall`` (bench/firewall.py).
"""

from __future__ import annotations

from memory.firewall import credentials, injection, personal
from memory.firewall.hits import FAMILIES, THRESHOLD, Hit, redact

__all__ = ["FAMILIES", "THRESHOLD", "Hit", "detectors", "redact", "scan"]

SCANNERS = {"secret": credentials.scan, "personal": personal.scan, "injection": injection.scan}


def scan(text: str, *, threshold: float = THRESHOLD) -> list[Hit]:
    """Every hit in ``text`` at or above ``threshold``, in text order. A number inside a
    secret (a bot token's id, a recovery code) is the secret's, not a phone or an id."""
    hits: list[Hit] = []
    for scanner in SCANNERS.values():
        hits.extend(hit for hit in scanner(text) if hit.confidence >= threshold)
    secrets = [(h.start, h.end) for h in hits if h.family == "secret"]
    if secrets:
        hits = [
            h
            for h in hits
            if h.family != "personal"
            or h.detector == "email"
            or not any(a <= h.start and h.end <= b for a, b in secrets)
        ]
    return sorted(hits, key=lambda hit: (hit.start, -hit.end, hit.detector))


def detectors() -> dict[str, str]:
    """{detector: family} for every detector (a tenant's policy may name each)."""
    return {
        **dict.fromkeys(credentials.DETECTORS, "secret"),
        **dict.fromkeys(personal.DETECTORS, "personal"),
        **dict.fromkeys(injection.DETECTORS, "injection"),
    }

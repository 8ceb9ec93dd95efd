"""What a detector reports, and redaction by it."""

from __future__ import annotations

import re
from dataclasses import dataclass

FAMILIES = ("secret", "personal", "injection")
THRESHOLD = 0.5  # below it a match is too weak to act on (a quoted example, a bare number)


@dataclass(frozen=True)
class Hit:
    detector: str  # e.g. "aws_access_key", "email", "instruction_override"
    family: str  # one of FAMILIES
    start: int  # span in the text, [start, end)
    end: int
    confidence: float  # 0..1

    def as_dict(self, text: str | None = None) -> dict[str, object]:
        out: dict[str, object] = {
            "detector": self.detector,
            "family": self.family,
            "start": self.start,
            "end": self.end,
            "confidence": round(self.confidence, 2),
        }
        if text is not None and self.family != "secret":
            out["match"] = text[self.start : self.end][:200]  # never echo a secret back
        return out


def merged(hits: list[Hit]) -> list[Hit]:
    """Overlapping hits of one family become one (the most confident detector names it)."""
    out: list[Hit] = []
    for hit in sorted(hits, key=lambda h: (h.family, h.start, -h.end)):
        last = out[-1] if out else None
        if last and last.family == hit.family and hit.start < last.end:
            best = last if last.confidence >= hit.confidence else hit
            out[-1] = Hit(
                best.detector,
                hit.family,
                last.start,
                max(last.end, hit.end),
                max(last.confidence, hit.confidence),
            )
        else:
            out.append(hit)
    return out


def redact(text: str, hits: list[Hit]) -> str:
    """``text`` with every hit's span replaced by ``[redacted: <detector>]``."""
    pieces: list[str] = []
    cursor = 0
    for hit in sorted(hits, key=lambda h: (h.start, -h.end)):
        if hit.end <= cursor:
            continue
        start = max(hit.start, cursor)
        pieces.append(text[cursor:start])
        pieces.append(f"[redacted: {hit.detector}]")
        cursor = hit.end
    pieces.append(text[cursor:])
    return "".join(pieces)


def near(text: str, start: int, end: int, words: re.Pattern[str], reach: int = 40) -> bool:
    """``words`` occurs within ``reach`` characters of the span [start, end)."""
    return bool(words.search(text[max(0, start - reach) : end + reach]))

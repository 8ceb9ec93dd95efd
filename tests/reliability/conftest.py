"""The reliability suite: schemathesis against the OpenAPI document and the cross-tenant fuzz.

``make test`` runs it small (a few examples per operation); ``make reliability`` runs it large
(``RELIABILITY_EXAMPLES``) and collects what each part wrote into ``RELIABILITY_RESULTS``
(bench/results/) for its table.
"""

from __future__ import annotations

import json
import os
from pathlib import Path


def examples(default: int) -> int:
    """How many examples per operation: small in make test, RELIABILITY_EXAMPLES when long."""
    configured = os.environ.get("RELIABILITY_EXAMPLES", "")
    return int(configured) if configured.isdigit() and int(configured) > 0 else default


def report(part: str, numbers: dict[str, object]) -> None:
    """Write one part's numbers for make reliability's table (nothing when RELIABILITY_RESULTS
    is not set, as in make test)."""
    folder = os.environ.get("RELIABILITY_RESULTS")
    if folder:
        Path(folder).mkdir(parents=True, exist_ok=True)
        (Path(folder) / f"{part}.json").write_text(json.dumps(numbers, indent=2))

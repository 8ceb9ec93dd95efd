"""Schemathesis against the live API: no server error and no disagreement with the document.

The real CLI, over HTTP, against the real ASGI server, with a fixed seed: every operation in
/api/v1/schema/ gets boundary cases (the coverage phase) and generated ones (fuzzing), valid and
invalid, and every check runs — 5xx, status codes, content types, response bodies against their
schemas, schema-valid requests accepted, schema-violating ones refused, auth ignored. The few
rules JSON Schema cannot state are listed with their reasons in schemathesis.toml.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from tenants import ratelimit, rls
from tenants.models import Tenant
from tests.factories import make_key, make_tenant
from tests.reliability.conftest import examples, report

HERE = Path(__file__).resolve().parent
SEED = 7


def test_the_api_matches_its_document_and_never_fails(
    live_url: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # the invalid-key probes of 40-odd operations would pass the 30-a-minute budget of bad keys
    # per client address (tests/gateway/test_walls.py tests it): the server runs in this process
    monkeypatch.setattr(ratelimit, "AUTH_FAILURES_PER_CLIENT", 10**6)
    tenant = make_tenant("schema-fuzz")
    with rls.tenant_scope(tenant.pk):
        # measure the API, not the rate limit (limits have tests of their own)
        Tenant.objects.filter(pk=tenant.pk).update(settings={"rate_limit_per_minute": 10**7})
    _, secret = make_key(tenant, scopes=("read", "write", "admin"), name="schemathesis")
    result_file = tmp_path / "schemathesis.json"
    command = [
        str(Path(sys.executable).with_name("schemathesis")),
        "--config-file",
        str(HERE / "schemathesis.toml"),
        "run",
        f"{live_url}/api/v1/schema/",
        "--header",
        f"Authorization: Bearer {secret}",
        "--checks",
        "all",
        "--phases",
        "coverage,fuzzing",
        "--seed",
        str(SEED),
        "--max-examples",
        str(examples(3)),
        "--generation-database",
        "none",
        "--workers",
        "2",
        "--no-color",
        "--report",
        "json",
        "--report-json-path",
        str(result_file),
    ]
    run = subprocess.run(command, capture_output=True, text=True, timeout=1800, check=False)
    summary = json.loads(result_file.read_text()) if result_file.exists() else {}
    cases = summary.get("test_cases", {})
    failures = summary.get("failures", [])
    report(
        "schema",
        {
            "seed": SEED,
            "examples_per_operation": examples(3),
            "operations": summary.get("operations", {}).get("tested"),
            "test_cases": cases.get("generated"),
            "failures": len(failures) if isinstance(failures, list) else failures,
            "exit_code": run.returncode,
        },
    )
    assert run.returncode == 0, run.stdout[-6000:] + run.stderr[-2000:]
    assert summary.get("operations", {}).get("tested", 0) >= 30, summary.get("operations")

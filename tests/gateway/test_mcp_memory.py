"""remember, recall and prime through the real mcp client over HTTP."""

from __future__ import annotations

from typing import Any

import httpx2
from mcp import Client
from mcp.client.streamable_http import streamable_http_client
from rest_framework.test import APIClient

from memory.services.extraction import job_run
from tests.conftest import bearer
from tests.factories import make_cast, make_key
from tests.gateway.test_mcp import run


async def _calls(url: str, secret: str, calls: list[tuple[str, dict[str, Any]]]) -> list[Any]:
    http = httpx2.AsyncClient(headers={"Authorization": f"Bearer {secret}"})
    async with Client(streamable_http_client(url, http_client=http)) as client:
        return [await client.call_tool(name, args) for name, args in calls]


def calls(url: str, secret: str, *items: tuple[str, dict[str, Any]]) -> list[Any]:
    return run(_calls(url, secret, list(items)))


def text(result: Any) -> str:
    return str(result.content[0].text)


ENGRAMS = [
    {
        "content": "Redis listens on port 6379",
        "schema": "Redis\nport\n6379",
        "strength": 0.9,
        "type": "ATOMIC",
    },
    {
        "content": "Deploy: build, test, then tag the release",
        "schema": ["deploy", "build", "tag"],
        "type": "PATTERN",
    },
]


def test_an_agent_remembers_recalls_and_primes_over_mcp(live_url: str) -> None:
    cast = make_cast()
    _, secret = make_key(cast.tenant)
    url = f"{live_url}/t/acme/mcp"
    stored, recalled, typo, primed = calls(
        url,
        secret,
        ("remember", {"role": "tool-integrator", "engrams": ENGRAMS}),
        ("recall", {"role": "tool-integrator", "query": "redis port"}),
        ("recall", {"role": "tool-integrator", "query": "reddis"}),
        ("prime", {"role": "tool-integrator"}),
    )
    assert (
        not stored.is_error
        and "2 created" in text(stored)
        and "role:tool-integrator" in text(stored)
    )
    assert "Redis listens on port 6379" in text(recalled) and "Next steps" in text(recalled)
    assert "Redis listens on port 6379" in text(typo)  # not a cue, still found
    assert not primed.is_error and "Primed" in text(primed)


def test_an_agent_can_ask_for_one_speakers_memories(live_url: str) -> None:
    cast = make_cast()
    _, secret = make_key(cast.tenant)
    chat = [
        {"content": "Maya: the staging database moves to Postgres 18 next week"},
        {"content": "John: I will update the staging database runbook for Postgres 18"},
    ]
    _, maya = calls(
        f"{live_url}/t/acme/mcp",
        secret,
        ("remember", {"network": "chat", "engrams": chat}),
        ("recall", {"network": "chat", "query": "staging database Postgres", "speaker": "Maya"}),
    )
    assert "1 memories" in text(maya) and "moves to Postgres 18" in text(maya)
    assert "I will update" not in text(maya)


def test_roles_keep_their_memories_apart(live_url: str) -> None:
    cast = make_cast()
    _, secret = make_key(cast.tenant)
    url = f"{live_url}/t/acme/mcp"
    _, other_role, same_role = calls(
        url,
        secret,
        ("remember", {"role": "technical-writer", "engrams": [{"content": "Prefer active voice"}]}),
        ("recall", {"role": "code-reviewer", "query": "active voice"}),
        ("recall", {"role": "technical-writer", "query": "active voice"}),
    )
    assert "nothing found" in text(other_role)
    assert "Prefer active voice" in text(same_role)


def test_tenants_never_see_each_others_memories(live_url: str) -> None:
    cast = make_cast()
    _, ours = make_key(cast.tenant)
    _, theirs = make_key(cast.other)
    calls(
        f"{live_url}/t/acme/mcp",
        ours,
        ("remember", {"network": "default", "engrams": [{"content": "Acme launch code is tulip"}]}),
    )
    (result,) = calls(
        f"{live_url}/t/globex/mcp",
        theirs,
        ("recall", {"network": "default", "query": "launch code tulip"}),
    )
    assert result.is_error and "no network “default”" in text(result)
    assert "Acme launch" not in text(result)


def test_scopes_and_bad_input_come_back_as_tool_errors(live_url: str) -> None:
    cast = make_cast()
    _, reader = make_key(cast.tenant, scopes=("read",))
    _, writer = make_key(cast.tenant, scopes=("read", "write"))
    url = f"{live_url}/t/acme/mcp"
    (denied,) = calls(
        url, reader, ("remember", {"role": "code-reviewer", "engrams": [{"content": "x"}]})
    )
    assert denied.is_error and "write" in text(denied)
    (bad,) = calls(
        url,
        writer,
        ("remember", {"role": "code-reviewer", "engrams": [{"content": "x", "strength": 7}]}),
    )
    assert bad.is_error and "strength" in text(bad)
    (empty,) = calls(
        url, writer, ("remember", {"role": "code-reviewer", "engrams": [{"content": "   "}]})
    )
    assert empty.is_error and "content" in text(empty)


def test_held_memories_are_named_and_recall_is_fenced_over_mcp(live_url: str) -> None:
    """The firewall over MCP: the agent is told which memories are held; recall serves the
    rest as quoted data inside a fence, with Mnemo's own guidance outside it."""
    cast = make_cast()
    _, secret = make_key(cast.tenant)
    fake_key = "AKIA" + "Q7H2K9M4T1X8C3V6"
    stored, recalled, primed = calls(
        f"{live_url}/t/acme/mcp",
        secret,
        (
            "remember",
            {
                "network": "default",
                "engrams": [
                    {"content": f"Falcon staging key {fake_key}"},
                    {"content": "Falcon ships in April, says Maya"},
                ],
            },
        ),
        ("recall", {"network": "default", "query": "falcon staging ships"}),
        ("prime", {"network": "default"}),
    )
    assert "Held for moderation" in text(stored) and "not recalled" in text(stored)
    answer = text(recalled)
    assert fake_key not in answer and "Falcon ships in April" in answer
    fence = answer.index('<memories id="')
    closing = answer.index("</memories id=")
    assert fence < answer.index("Falcon ships in April") < closing
    assert "quoted data" in answer[:fence]
    assert fake_key not in text(primed)
    assert "Next steps" not in answer[:closing]  # our guidance never inside the fence


def test_forget_deletes_or_proposes_over_mcp(live_url: str) -> None:
    cast = make_cast()
    _, secret = make_key(cast.tenant)
    url = f"{live_url}/t/acme/mcp"
    stored, first = calls(
        url,
        secret,
        ("remember", {"network": "default", "engrams": [{"content": "Standup is at nine"}]}),
        ("remember", {"network": "default", "engrams": [{"content": "Retro is on Friday"}]}),
    )
    standup = text(stored).split("Ids: #")[1].split(".")[0]
    retro = text(first).split("Ids: #")[1].split(".")[0]
    [forgot] = calls(url, secret, ("forget", {"engram_id": int(standup), "reason": "moved"}))
    assert not forgot.is_error and "Deleted memory" in text(forgot)
    cast.tenant.settings = {"moderation": {"agent_changes": "review"}}
    cast.tenant.save(update_fields=["settings"])
    proposed, missing, recalled = calls(
        url,
        secret,
        ("forget", {"engram_id": int(retro), "reason": "cancelled"}),
        ("forget", {"engram_id": 999999}),
        ("recall", {"network": "default", "query": "standup nine retro friday"}),
    )
    assert "Proposed deleting" in text(proposed) and "moderation item" in text(proposed)
    assert missing.is_error
    assert "Retro is on Friday" in text(recalled) and "Standup is at nine" not in text(recalled)


def test_an_agent_gets_a_guide_over_mcp_that_cites_facts_and_memories(live_url: str) -> None:
    cast = make_cast()
    _, secret = make_key(cast.tenant)
    said = [
        {"speaker": "Maya", "content": "I live in Lisbon.", "occurred_at": "2024-01-10T09:00:00Z"},
        {"speaker": "Maya", "content": "I moved to Porto.", "occurred_at": "2024-03-02T09:00:00Z"},
    ]
    answer = bearer(APIClient(), secret).post(
        "/api/v1/episodes", {"network": "team", "episodes": said}, format="json"
    )
    job_run(tenant_id=cast.tenant.pk, job_id=answer.json()["job"]["id"])
    guided, bad, nowhere = calls(
        f"{live_url}/t/acme/mcp",
        secret,
        ("guide", {"network": "team", "task": "send Maya's parcel to where she lives"}),
        ("guide", {"network": "team", "task": "x", "token_budget": 5000}),
        ("guide", {"network": "nowhere", "task": "send the parcel"}),
    )
    assert not guided.is_error, text(guided)
    body = text(guided)
    assert "Maya lives in: Porto" in body and "(fact #" in body
    assert "Lisbon" in body and "became Porto" in body  # the changed value, flagged
    assert "<memories id=" in body and "Next steps" in body
    assert bad.is_error and "token_budget" in text(bad)
    assert nowhere.is_error and "nowhere" in text(nowhere)


def test_an_agent_recalls_a_skill_its_team_learned_over_mcp(live_url: str) -> None:
    cast = make_cast()
    _, secret = make_key(cast.tenant)
    task = {"task": "rotate-7", "goal": "Rotate the API key"}
    steps = [
        {"kind": "step", "content": "create a new key in the vault", "metadata": task},
        {"kind": "step", "content": "revoke the old key first", "metadata": {
            **task, "outcome": "failure", "observation": "the running agents lost access"}},
        {"kind": "step", "content": "deploy the new key to the agents", "metadata": task},
        {"kind": "step", "content": "revoke the old key", "metadata": {
            **task, "task_outcome": "success"}},
    ]  # fmt: skip
    answer = bearer(APIClient(), secret).post(
        "/api/v1/episodes", {"network": "ops", "episodes": steps}, format="json"
    )
    job_run(tenant_id=cast.tenant.pk, job_id=answer.json()["job"]["id"])
    recalled, guided = calls(
        f"{live_url}/t/acme/mcp",
        secret,
        ("recall", {"network": "ops", "query": "how do I rotate the api key"}),
        ("guide", {"network": "ops", "task": "rotate the API key"}),
    )
    body = text(recalled)
    assert "1 skills" in body and "[skill #" in body, body
    assert "1. create a new key in the vault 2. deploy the new key to the agents" in body
    assert "pitfalls: revoke the old key first (failed: the running agents lost access)" in body
    steps_line = text(guided)
    assert "Steps that worked before:" in steps_line and "worked 1 of 1" in steps_line
    assert "Warnings:" in steps_line and "lost access" in steps_line


TEN_STEPS = [
    (
        "s1",
        "run the nightly import job",
        "import fails: UnicodeDecodeError in vendors.csv",
        "failure",
        [],
    ),
    (
        "s2",
        "open vendors.csv in a hex viewer",
        "byte 0xE9 at row 4,112: the file is latin-1",
        "",
        [],
    ),
    ("s3", "check the import settings", "encoding is fixed to utf-8 in import.yaml", "", []),
    (
        "s4",
        "ask the vendor team about the export",
        "their ERP exports latin-1 since the upgrade",
        "",
        ["s2"],
    ),
    ("s5", "set encoding to latin-1 in import.yaml", "", "", ["s3", "s4"]),
    ("s6", "rerun the import job", "import fails: duplicate key vendor_id 881", "failure", ["s5"]),
    ("s7", "query vendor_id 881 in staging", "two rows: one with a trailing space", "", ["s6"]),
    ("s8", "strip whitespace from vendor_id before insert", "", "", ["s7"]),
    ("s9", "rerun the import job", "import done: 9,340 vendors", "success", ["s8"]),
    ("s10", "post the summary to the data channel", "posted", "success", ["s9"]),
]


def test_an_agent_records_ten_steps_and_traces_how_the_fix_was_found(live_url: str) -> None:
    cast = make_cast()
    _, secret = make_key(cast.tenant)
    url = f"{live_url}/t/acme/mcp"
    items = []
    for key, action, observation, outcome, causes in TEN_STEPS:
        args: dict[str, Any] = {"network": "data", "task": "vendor-import", "step": key,
                                "action": action, "observation": observation}  # fmt: skip
        if outcome:
            args["outcome"] = outcome
        if causes:
            args["caused_by"] = causes
        if key == "s1":
            args["goal"] = "import the vendor file"
        if key == "s10":
            args["task_outcome"] = "success"
        items.append(("record_step", args))
    answers = calls(url, secret, *items)
    assert all(not a.is_error for a in answers), [text(a) for a in answers if a.is_error]
    assert "Caused by: `s3`, `s4`" in text(answers[4])
    assert "inferred" in text(answers[1])  # vendors.csv, seen in s1's observation
    assert "Task ended: success" in text(answers[9])
    fix = text(answers[7])  # s8: the fix
    step_id = int(fix.split('kind="step" id=')[1].split(".")[0].split()[0])
    traced, missing = calls(
        url,
        secret,
        ("trace", {"kind": "step", "id": step_id}),
        ("trace", {"kind": "step", "id": 10**9}),
    )
    chain = text(traced)
    assert not traced.is_error and "<memories" in chain  # memory text stays behind the wall
    order = [chain.index(words) for words in (
        "query vendor_id 881", "rerun the import job", "set encoding to latin-1",
        "check the import settings", "ask the vendor team",
    )]  # fmt: skip
    assert order == sorted(order)  # nearest causes first: s7, s6, s5, then s3 and s4
    assert "duplicate key vendor_id 881" in chain  # the failure that led to the fix
    assert "vendor-import" in chain  # the task it is part of
    assert missing.is_error and "no step" in text(missing)

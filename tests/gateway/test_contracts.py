"""One contract per operation: REST and MCP validate with the same models, report every bad field
the same way, answer the same values with the same JSON types, and the OpenAPI schema is built
from those models without a warning."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
import yaml
from django.core.management import call_command
from rest_framework.test import APIClient

from memory.models import Network
from tenants import rls
from tests.conftest import bearer
from tests.factories import Cast, make_cast, make_key
from tests.gateway.test_mcp_roles import calls, text


def rest(cast: Cast) -> APIClient:
    _, secret = make_key(cast.tenant, scopes=("read", "write"))
    return bearer(APIClient(), secret)


@pytest.mark.django_db
def test_the_openapi_schema_builds_without_a_warning_and_describes_the_mind(
    tmp_path: Path,
) -> None:
    target = tmp_path / "schema.yaml"
    call_command("spectacular", "--fail-on-warn", "--validate", "--file", str(target))
    schemas = yaml.safe_load(target.read_text())["components"]["schemas"]
    mind = schemas["MindOut"]["properties"]
    assert mind["engrams"]["items"] == {"$ref": "#/components/schemas/RankedEngramOut"}
    engram = schemas["RankedEngramOut"]["properties"]
    assert {"id", "content", "metadata", "score", "in_context", "why"} <= set(engram)
    assert engram["metadata"]["type"] == "object"
    assert schemas["WhyOut"]["properties"]["channels"]["items"] == {"type": "string"}
    for name in ("RememberIn", "RecallIn", "EngramPatch", "RoleCreateIn", "DpmlCheckIn"):
        assert schemas[name]["additionalProperties"] is False, name  # unknown fields refused


@pytest.mark.django_db
def test_every_bad_engram_of_a_batch_is_reported_with_its_index(cast: Cast) -> None:
    body = {
        "engrams": [
            {"content": "fine"},
            {"content": "x", "strength": 3},
            {"content": ""},
            {"content": "y", "colour": "red"},
        ]
    }
    error = rest(cast).post("/api/v1/remember", body, format="json").json()["error"]
    assert set(error["fields"]) == {
        "engrams[1].strength",
        "engrams[2].content",
        "engrams[3].colour",
    }
    assert error["message"].startswith("engrams[1].strength: must be at most 1, not 3")
    assert "(and 2 more)" in error["message"]


@pytest.mark.django_db
def test_role_and_network_together_are_a_400_that_says_which_to_drop(cast: Cast) -> None:
    api = rest(cast)
    for path in ("/api/v1/recall", "/api/v1/prime", "/api/v1/remember"):
        body: dict[str, Any] = {"role": "code-reviewer", "network": "default"}
        if path.endswith("remember"):
            body["engrams"] = [{"content": "x"}]
        response = api.post(path, body, format="json")
        assert response.status_code == 400, path
        assert "either role or network" in response.json()["error"]["fields"]["role"]


@pytest.mark.django_db
def test_an_unknown_role_is_a_404_and_files_nothing_away(cast: Cast) -> None:
    api = rest(cast)
    stored = api.post(
        "/api/v1/remember", {"role": "nope", "engrams": [{"content": "x"}]}, format="json"
    )
    assert stored.status_code == 404 and "no role “nope”" in stored.json()["error"]["message"]
    recalled = api.post("/api/v1/recall", {"role": "nope", "query": "x"}, format="json")
    assert recalled.status_code == 404
    with rls.tenant_scope(cast.tenant.pk):
        assert not Network.objects.filter(tenant=cast.tenant).exists()


@pytest.mark.django_db
def test_an_empty_network_says_so_and_names_the_known_ones(cast: Cast) -> None:
    api = rest(cast)
    remember = {"network": "notes", "engrams": [{"content": "The spare key is under the mat"}]}
    api.post("/api/v1/remember", remember, format="json")
    unknown = api.post("/api/v1/recall", {"network": "nowhere", "query": "x"}, format="json")
    assert unknown.status_code == 404
    assert unknown.json()["error"]["message"].endswith("Its networks: notes.")
    # a role's network before its first memory: not an error, and the answer says why it is empty
    mind = api.post("/api/v1/recall", {"role": "code-reviewer", "query": "x"}, format="json")
    assert mind.status_code == 200 and mind.json()["engrams"] == []
    assert "no memories yet" in mind.json()["notice"] and "notes" in mind.json()["notice"]
    found = api.post("/api/v1/recall", {"network": "notes", "query": "key"}, format="json").json()
    assert found["notice"] is None and found["engrams"]


@pytest.mark.django_db
def test_metadata_is_the_same_json_object_from_recall_and_from_the_engram_list(
    cast: Cast,
) -> None:
    api = rest(cast)
    meta = {"source": "chat", "turn": 3, "tags": ["a", "b"]}
    api.post(
        "/api/v1/remember",
        {"engrams": [{"content": "Maya likes green tea", "metadata": meta}]},
        format="json",
    )
    recalled = api.post("/api/v1/recall", {"query": "green tea"}, format="json").json()
    listed = api.get("/api/v1/engrams").json()
    assert recalled["engrams"][0]["metadata"] == meta == listed["engrams"][0]["metadata"]
    assert recalled["engrams"][0]["in_context"] is True


@pytest.mark.django_db
def test_a_trailing_slash_added_or_left_out_reaches_the_same_endpoint(cast: Cast) -> None:
    api = rest(cast)
    stored = api.post("/api/v1/remember/", {"engrams": [{"content": "slash"}]}, format="json")
    assert stored.status_code == 201
    assert api.get("/api/v1/engrams/").json()["engrams"][0]["content"] == "slash"
    assert api.get("/api/v1/networks").json()["networks"][0]["key"] == "default"
    missing = api.get("/api/v1/nothing-here/")
    assert missing.status_code == 404 and missing.json()["error"]["code"] == "not_found"


def test_mcp_reports_bad_arguments_like_rest_does(live_url: str) -> None:
    cast = make_cast()
    _, secret = make_key(cast.tenant)
    url = f"{live_url}/t/acme/mcp"
    batch, mode, both, unknown = calls(
        url,
        secret,
        (
            "remember",
            {"network": "default", "engrams": [{"content": "ok"}, {"content": "x", "strength": 7}]},
        ),
        ("recall", {"network": "default", "query": "x", "mode": "wild"}),
        ("recall", {"network": "default", "role": "code-reviewer", "query": "x"}),
        ("remember", {"role": "nope", "engrams": [{"content": "x"}]}),
    )
    assert batch.is_error and "engrams[1].strength: must be at most 1, not 7" in text(batch)
    assert mode.is_error and "mode: one of balanced, creative or focused" in text(mode)
    assert "pydantic" not in text(mode) and "http" not in text(mode)
    assert both.is_error and "either role or network" in text(both)
    assert unknown.is_error and "no role “nope”" in text(unknown)


@pytest.mark.django_db
def test_blank_optional_arguments_mean_not_sent(cast: Cast) -> None:
    api = rest(cast)
    api.post("/api/v1/remember", {"network": "", "engrams": [{"content": "blank"}]}, format="json")
    body = {"network": "", "role": "", "query": "blank", "k": None, "channels": [], "now": ""}
    recalled = api.post("/api/v1/recall", body, format="json")
    assert recalled.status_code == 200 and recalled.json()["network"] == "default"
    assert recalled.json()["engrams"][0]["content"] == "blank"
    listed = api.get("/api/v1/engrams", {"limit": "", "network": "", "_": "1700000000"})
    assert listed.status_code == 200 and len(listed.json()["engrams"]) == 1


@pytest.mark.django_db
def test_a_role_patch_refuses_null_for_what_it_needs_and_clears_a_null_description(
    cast: Cast,
) -> None:
    api = rest(cast)
    source = "<role>\n<personality>\nYou help.\n</personality>\n</role>"
    created = api.post(
        "/api/v1/roles",
        {"slug": "helper", "name": "Helper", "description": "old", "source": source},
        format="json",
    )
    assert created.status_code == 201, created.content
    for field in ("name", "source", "status"):
        refused = api.patch("/api/v1/roles/helper", {field: None}, format="json")
        assert refused.status_code == 400 and field in refused.json()["error"]["fields"]
    cleared = api.patch("/api/v1/roles/helper", {"description": None}, format="json")
    assert cleared.status_code == 200 and cleared.json()["description"] == ""
    copy = api.post("/api/v1/roles/helper/copy", {"slug": "", "name": None}, format="json")
    assert copy.status_code == 201 and copy.json()["slug"] == "helper-copy"

"""Roles and resources over REST: CRUD with versions, validation, render, activate, scopes and
tenant isolation."""

from __future__ import annotations

from typing import Any

import pytest
from rest_framework.test import APIClient

from audit.models import AuditEvent
from tests.conftest import bearer
from tests.factories import Cast, make_key

pytestmark = pytest.mark.django_db

ROLE = """<role>
  <personality>
    You plan trips on a budget.
    @!thought://first-principles
  </personality>
  <principle>
    @!execution://memory-discipline
    - Ask for dates before prices.
  </principle>
  <knowledge>
    Trains beat planes under 500 km.
  </knowledge>
</role>
"""


def client_for(cast: Cast, *scopes: str, other: bool = False) -> APIClient:
    _, secret = make_key(cast.other if other else cast.tenant, scopes=scopes or ("read", "write"))
    return bearer(APIClient(), secret)


def create(api: APIClient, **data: Any) -> Any:
    body = {"slug": "travel-planner", "name": "Travel planner", "source": ROLE, **data}
    return api.post("/api/v1/roles", body, format="json")


def test_the_list_holds_the_built_ins_and_the_workspaces_own_roles(cast: Cast) -> None:
    api = client_for(cast)
    assert create(api, description="Cheap, calm trips").status_code == 201
    roles = api.get("/api/v1/roles").json()["roles"]
    by_slug = {r["slug"]: r for r in roles}
    assert by_slug["travel-planner"]["origin"] == "tenant"
    assert by_slug["travel-planner"]["network"] == "role:travel-planner"
    assert by_slug["code-reviewer"]["origin"] == "builtin" and by_slug["code-reviewer"]["valid"]
    assert len([r for r in roles if r["origin"] == "builtin"]) >= 6
    only_own = api.get("/api/v1/roles?origin=tenant&q=calm").json()["roles"]
    assert [r["slug"] for r in only_own] == ["travel-planner"]


def test_an_active_role_with_errors_is_refused_with_each_error_placed(cast: Cast) -> None:
    api = client_for(cast)
    bad = ROLE.replace("@!thought://first-principles", "@!thought://no-such-thought").replace(
        "<knowledge>", "<knowledg>"
    )
    response = create(api, source=bad)
    assert response.status_code == 400
    error = response.json()["error"]
    assert error["code"] == "dpml_invalid" and "source" in error["fields"]
    placed = {(e["code"], e["line"]) for e in error["errors"]}
    assert ("unknown_tag", 10) in placed
    assert api.get("/api/v1/roles/travel-planner").status_code == 404  # nothing written


def test_a_draft_may_be_saved_with_errors_and_activated_only_once_fixed(cast: Cast) -> None:
    api = client_for(cast)
    broken = ROLE.replace("@!thought://first-principles", "@!thought://later")
    assert create(api, source=broken, status="draft").status_code == 201
    activate = api.post("/api/v1/roles/travel-planner/activate")
    assert activate.status_code == 404 and "draft" in activate.json()["error"]["message"]
    fixed = api.patch(
        "/api/v1/roles/travel-planner", {"source": ROLE, "status": "active"}, format="json"
    )
    assert fixed.status_code == 200 and fixed.json()["version"] == 2
    assert api.post("/api/v1/roles/travel-planner/activate").status_code == 200


def test_validate_returns_errors_with_line_and_column_and_a_preview(cast: Cast) -> None:
    api = client_for(cast, "read")
    ok = api.post("/api/v1/dpml/validate", {"source": ROLE, "name": "Trips"}, format="json")
    assert ok.status_code == 200 and ok.json()["valid"]
    assert ok.json()["preview"].startswith("# Trips")
    assert "Way of thinking: first-principles" in ok.json()["preview"]
    assert ok.json()["references"] == [
        "execution://memory-discipline",
        "thought://first-principles",
    ]
    bad = api.post(
        "/api/v1/dpml/validate", {"source": "<role>\n<personality>\n<x>"}, format="json"
    ).json()
    assert not bad["valid"]
    assert {(e["code"], e["line"], e["column"]) for e in bad["errors"]} >= {("unknown_tag", 3, 1)}
    wrong_kind = api.post("/api/v1/dpml/validate", {"source": ROLE, "kind": "x"}, format="json")
    assert wrong_kind.status_code == 400


def test_every_edit_is_a_version_and_an_old_one_can_be_restored(cast: Cast) -> None:
    api = client_for(cast)
    create(api)
    api.patch("/api/v1/roles/travel-planner", {"name": "Trip planner"}, format="json")
    edited = ROLE.replace("Trains beat planes", "Night trains save a hotel")
    api.patch("/api/v1/roles/travel-planner", {"source": edited}, format="json")
    same = api.patch("/api/v1/roles/travel-planner", {"source": edited}, format="json")
    assert same.json()["version"] == 3  # no change, no version
    versions = api.get("/api/v1/roles/travel-planner/versions").json()["versions"]
    assert [v["version"] for v in versions] == [3, 2, 1]
    assert versions[0]["note"] == "changed source" and versions[1]["note"] == "changed name"
    restored = api.post("/api/v1/roles/travel-planner/versions/1/restore").json()
    assert restored["version"] == 4 and "Trains beat planes" in restored["source"]
    assert restored["name"] == "Travel planner"
    verbs = list(
        AuditEvent.objects.filter(tenant=cast.tenant, target_type="role").values_list(
            "verb", flat=True
        )
    )
    assert sorted(verbs) == ["role.create", "role.update", "role.update", "role.update"]


def test_built_ins_are_read_only_and_copied_to_be_customised(cast: Cast) -> None:
    api = client_for(cast)
    refused = api.patch("/api/v1/roles/code-reviewer", {"name": "Mine"}, format="json")
    assert refused.status_code == 409 and "copy" in refused.json()["error"]["message"]
    copy = api.post("/api/v1/roles/code-reviewer/copy", {}, format="json")
    assert copy.status_code == 201
    assert copy.json()["slug"] == "code-reviewer" and copy.json()["status"] == "draft"
    assert copy.json()["based_on"] == "code-reviewer" and copy.json()["origin"] == "tenant"
    # the draft copy does not take the built-in away from agents until it is made active
    active = api.post("/api/v1/roles/code-reviewer/activate").json()
    assert active["role"]["origin"] == "builtin"
    custom = copy.json()["source"].replace("senior code reviewer", "Rust code reviewer")
    api.patch("/api/v1/roles/code-reviewer", {"source": custom, "status": "active"}, format="json")
    active = api.post("/api/v1/roles/code-reviewer/activate").json()
    assert active["role"]["origin"] == "tenant" and "Rust code reviewer" in active["persona"]
    second = api.post("/api/v1/roles/code-reviewer/copy", {}, format="json")
    assert second.status_code == 201 and second.json()["slug"] == "code-reviewer-copy"


def test_activate_gives_the_persona_and_a_prime_of_the_roles_network(cast: Cast) -> None:
    api = client_for(cast)
    create(api)
    api.post(
        "/api/v1/remember",
        {"role": "travel-planner", "engrams": [{"content": "Alice prefers window seats"}]},
        format="json",
    )
    body = api.post("/api/v1/roles/travel-planner/activate").json()
    assert body["persona"].startswith("# Travel planner")
    assert "Way of working: memory-discipline" in body["persona"]
    assert body["prime"]["network"] == "role:travel-planner"
    assert any("window seats" in e["content"] for e in body["prime"]["engrams"])
    rendered = api.get("/api/v1/roles/travel-planner/render").json()
    assert rendered["valid"] and rendered["persona"] == body["persona"]


def test_scopes_and_tenants_are_enforced(cast: Cast) -> None:
    create(client_for(cast))
    reader = client_for(cast, "read")
    assert reader.get("/api/v1/roles/travel-planner").status_code == 200
    assert create(reader, slug="other").status_code == 403
    assert (
        reader.patch("/api/v1/roles/travel-planner", {"name": "x"}, format="json").status_code
        == 403
    )
    theirs = client_for(cast, other=True)
    for response in (
        theirs.get("/api/v1/roles/travel-planner"),
        theirs.post("/api/v1/roles/travel-planner/activate"),
        theirs.get("/api/v1/roles/travel-planner/versions"),
        theirs.patch("/api/v1/roles/travel-planner", {"name": "x"}, format="json"),
        theirs.delete("/api/v1/roles/travel-planner"),
    ):
        assert response.status_code == 404
    assert "travel-planner" not in {r["slug"] for r in theirs.get("/api/v1/roles").json()["roles"]}
    assert create(theirs).status_code == 201  # the same slug is free in another workspace


def test_bad_input_names_the_field(cast: Cast) -> None:
    api = client_for(cast)
    cases = [
        ({"slug": "Bad Slug!"}, "slug"),
        ({"name": ""}, "name"),
        ({"source": ""}, "source"),
        ({"status": "live"}, "status"),
        ({"colour": "red"}, "colour"),
    ]
    for change, field in cases:
        response = create(api, **change)
        assert response.status_code == 400, change
        assert field in response.json()["error"]["fields"], change
    assert create(api).status_code == 201
    assert create(api).status_code == 409


def test_delete_archives_and_the_archive_can_be_restored(cast: Cast) -> None:
    api = client_for(cast)
    create(api)
    assert api.delete("/api/v1/roles/travel-planner").json()["status"] == "archived"
    assert "travel-planner" not in {r["slug"] for r in api.get("/api/v1/roles").json()["roles"]}
    archived = api.get("/api/v1/roles?archived=true").json()["roles"]
    assert "travel-planner" in {r["slug"] for r in archived}
    assert api.post("/api/v1/roles/travel-planner/activate").status_code == 404
    back = api.post("/api/v1/roles/travel-planner/versions/1/restore").json()
    assert back["status"] == "active"


def test_resources_are_versioned_checked_for_cycles_and_kept_while_needed(cast: Cast) -> None:
    api = client_for(cast)
    thought = "<thought>\n<plan>\nCompare at least three routes.\n</plan>\n</thought>"
    made = api.post(
        "/api/v1/role-resources",
        {"kind": "thought", "name": "routes", "source": thought},
        format="json",
    )
    assert made.status_code == 201 and made.json()["uri"] == "thought://routes"
    create(api, source=ROLE.replace("first-principles", "routes"))
    persona = api.post("/api/v1/roles/travel-planner/activate").json()["persona"]
    assert "Compare at least three routes." in persona
    # an edit shows in the persona at once (the cache follows resource changes)
    edited = thought.replace("three", "four")
    api.patch("/api/v1/role-resources/thought/routes", {"source": edited}, format="json")
    assert (
        "at least four routes" in api.get("/api/v1/roles/travel-planner/render").json()["persona"]
    )
    loop = "<thought><plan>@!thought://routes</plan></thought>"
    cycle = api.patch("/api/v1/role-resources/thought/routes", {"source": loop}, format="json")
    assert cycle.status_code == 400
    assert cycle.json()["error"]["errors"][0]["code"] == "reference_cycle"
    versions = api.get("/api/v1/role-resources/thought/routes/versions").json()["versions"]
    assert [v["version"] for v in versions] == [2, 1]
    admin = client_for(cast, "read", "write", "admin")
    assert api.delete("/api/v1/role-resources/thought/routes").status_code == 403
    needed = admin.delete("/api/v1/role-resources/thought/routes")
    assert needed.status_code == 409 and "travel-planner" in needed.json()["error"]["message"]
    builtin = api.get("/api/v1/role-resources/execution/memory-discipline").json()
    assert builtin["origin"] == "builtin" and "<execution>" in builtin["source"]
    theirs = client_for(cast, other=True)
    assert theirs.get("/api/v1/role-resources/thought/routes").status_code == 404


def test_a_resource_needed_through_another_resource_cannot_be_deleted(cast: Cast) -> None:
    api = client_for(cast, "read", "write", "admin")
    fact = {
        "kind": "knowledge",
        "name": "fares",
        "source": "<knowledge>Rail cards pay.</knowledge>",
    }
    way = {
        "kind": "execution",
        "name": "booking",
        "source": "<execution><rule>@knowledge://fares</rule></execution>",
    }
    assert api.post("/api/v1/role-resources", fact, format="json").status_code == 201
    assert api.post("/api/v1/role-resources", way, format="json").status_code == 201
    create(api, source=ROLE.replace("@!thought://first-principles", "@!execution://booking"))
    refused = api.delete("/api/v1/role-resources/knowledge/fares")
    assert refused.status_code == 409
    message = refused.json()["error"]["message"]
    assert "the role travel-planner" in message and "execution://booking" in message
    assert api.get("/api/v1/roles/travel-planner/render").json()["valid"]


def test_copying_a_draft_keeps_it_a_draft(cast: Cast) -> None:
    api = client_for(cast)
    create(api, status="draft", source=ROLE.replace("first-principles", "not-yet"))
    copy = api.post("/api/v1/roles/travel-planner/copy", {}, format="json")
    assert copy.status_code == 201
    assert copy.json()["slug"] == "travel-planner-copy" and copy.json()["status"] == "draft"
    long_slug = "a" * 60
    create(api, slug=long_slug)
    first = api.post(f"/api/v1/roles/{long_slug}/copy", {}, format="json").json()["slug"]
    second = api.post(f"/api/v1/roles/{long_slug}/copy", {}, format="json").json()["slug"]
    assert first != second and len(first) <= 60 and len(second) <= 60

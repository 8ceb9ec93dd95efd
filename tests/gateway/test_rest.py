from __future__ import annotations

from typing import Any

import pytest
from rest_framework.test import APIClient

from tenants import rls
from tenants.models import ApiKey
from tests.conftest import bearer
from tests.factories import Cast, make_key

pytestmark = pytest.mark.django_db


def error_of(response: object) -> dict[str, str]:
    body = response.json()  # type: ignore[attr-defined]
    assert set(body) == {"error"}, body
    assert {"code", "message"} <= set(body["error"]), body
    return body["error"]


def test_whoami_names_the_tenant_key_and_scopes(cast: Cast, api: APIClient) -> None:
    _key, secret = make_key(cast.tenant, scopes=("read",), name="reader")
    response = bearer(api, secret).get("/api/v1/tenant")
    assert response.status_code == 200
    body = response.json()
    assert body["tenant"]["slug"] == "acme"
    assert body["key"]["name"] == "reader" and body["key"]["scopes"] == ["read"]
    assert body["mcp_url"].endswith("/t/acme/mcp")
    assert response["X-RateLimit-Limit"]


def test_no_key_is_401_with_a_bearer_challenge(api: APIClient) -> None:
    response = api.get("/api/v1/tenant")
    assert response.status_code == 401
    assert response["WWW-Authenticate"].startswith("Bearer")
    assert error_of(response)["code"] == "not_authenticated"


@pytest.mark.parametrize(
    "header", ["Bearer nope", "Basic abc", "Bearer mnemo_aaaaaaaaaa_" + "x" * 43]
)
def test_a_bad_key_is_401(db: None, api: APIClient, header: str) -> None:
    api.credentials(HTTP_AUTHORIZATION=header)
    response = api.get("/api/v1/tenant")
    assert response.status_code == 401
    assert error_of(response)["code"] in {"invalid_api_key", "not_authenticated"}


def test_a_revoked_key_is_401(cast: Cast, api: APIClient) -> None:
    key, secret = make_key(cast.tenant)
    with rls.tenant_scope(cast.tenant.pk):
        ApiKey.objects.filter(pk=key.pk).update(revoked_at="2020-01-01T00:00Z")
    assert bearer(api, secret).get("/api/v1/tenant").status_code == 401


def test_a_key_without_the_admin_scope_gets_403_missing_scope(cast: Cast, api: APIClient) -> None:
    _, secret = make_key(cast.tenant, scopes=("read", "write"))
    response = bearer(api, secret).get("/api/v1/keys")
    assert response.status_code == 403
    assert error_of(response)["code"] == "missing_scope"


def test_admin_keys_create_list_and_revoke_keys_and_the_secret_appears_once(
    cast: Cast, api: APIClient
) -> None:
    _, admin_secret = make_key(cast.tenant, scopes=("admin",), name="ops")
    bearer(api, admin_secret)
    created = api.post("/api/v1/keys", {"name": "bot", "scopes": ["read"]}, format="json")
    assert created.status_code == 201
    secret = created.json()["secret"]
    listing = api.get("/api/v1/keys").json()["keys"]
    assert {k["name"] for k in listing} == {"ops", "bot"}
    assert secret not in str(listing)
    assert (
        APIClient().get("/api/v1/tenant", HTTP_AUTHORIZATION=f"Bearer {secret}").status_code == 200
    )
    revoked = api.delete(f"/api/v1/keys/{created.json()['id']}")
    assert revoked.json()["status"] == "revoked"
    assert (
        APIClient().get("/api/v1/tenant", HTTP_AUTHORIZATION=f"Bearer {secret}").status_code == 401
    )


def test_another_tenants_key_id_is_404(cast: Cast, api: APIClient) -> None:
    theirs, _ = make_key(cast.other, name="theirs")
    _, admin_secret = make_key(cast.tenant, scopes=("admin",))
    bearer(api, admin_secret)
    for response in (api.get(f"/api/v1/keys/{theirs.pk}"), api.delete(f"/api/v1/keys/{theirs.pk}")):
        assert response.status_code == 404
        assert error_of(response)["code"] == "not_found"
    with rls.tenant_scope(cast.other.pk):
        assert ApiKey.objects.get(pk=theirs.pk).revoked_at is None


def test_validation_errors_name_the_field(cast: Cast, api: APIClient) -> None:
    _, admin_secret = make_key(cast.tenant, scopes=("admin",))
    response = bearer(api, admin_secret).post(
        "/api/v1/keys", {"name": "x", "scopes": ["root"]}, format="json"
    )
    assert response.status_code == 400
    error = error_of(response)
    assert error["code"] == "validation_error" and "scopes" in str(error["fields"])


def test_malformed_json_is_a_400(cast: Cast, api: APIClient) -> None:
    _, admin_secret = make_key(cast.tenant, scopes=("admin",))
    response = bearer(api, admin_secret).generic(
        "POST", "/api/v1/keys", "{not json", content_type="application/json"
    )
    assert response.status_code == 400
    assert error_of(response)["code"] == "malformed_request"


def test_unknown_api_paths_are_json_404s(api: APIClient) -> None:
    response = api.get("/api/v1/no/such/thing")
    assert response.status_code == 404
    assert error_of(response)["code"] == "not_found"


def test_the_key_rate_limit_answers_429_with_retry_after(cast: Cast, api: APIClient) -> None:
    cast.tenant.settings = {"rate_limit_per_minute": 3}
    cast.tenant.save()
    _, secret = make_key(cast.tenant)
    bearer(api, secret)
    statuses = [api.get("/api/v1/tenant").status_code for _ in range(4)]
    assert statuses == [200, 200, 200, 429]
    response = api.get("/api/v1/tenant")
    assert int(response["Retry-After"]) >= 1
    assert error_of(response)["code"] == "rate_limited"


def test_the_rate_limit_follows_the_plan_unless_the_tenant_sets_its_own(
    cast: Cast, api: APIClient, settings: Any
) -> None:
    settings.API_RATE_LIMITS = {"free": 2, "team": 3, "enterprise": 100}
    _, secret = make_key(cast.tenant)
    bearer(api, secret)
    seen = [api.get("/api/v1/tenant") for _ in range(3)]
    assert [r.status_code for r in seen] == [200, 200, 429]
    assert seen[0]["X-RateLimit-Limit"] == "2"
    cast.tenant.plan = "team"
    cast.tenant.save()
    assert api.get("/api/v1/tenant")["X-RateLimit-Limit"] == "3"
    cast.tenant.settings = {"rate_limit_per_minute": 50}
    cast.tenant.save()
    assert api.get("/api/v1/tenant")["X-RateLimit-Limit"] == "50"


def test_audit_events_list_is_tenant_scoped_and_paginated(cast: Cast, api: APIClient) -> None:
    _, secret = make_key(cast.tenant, scopes=("admin",))
    bearer(api, secret)
    first = api.get("/api/v1/audit", {"limit": 2}).json()
    assert len(first["events"]) == 2 and first["next_cursor"]
    second = api.get("/api/v1/audit", {"limit": 2, "cursor": first["next_cursor"]}).json()
    ids = [e["id"] for e in first["events"] + second["events"]]
    assert len(ids) == len(set(ids))
    everything = api.get("/api/v1/audit", {"limit": 200}).json()["events"]
    assert all(e["target"]["label"] != "globex" for e in everything)
    assert api.get("/api/v1/audit", {"cursor": "garbage!"}).status_code == 400
    assert api.get("/api/v1/audit", {"limit": 0}).status_code == 400


@pytest.mark.parametrize("extra_keys", [1, 20])
def test_list_endpoints_run_a_fixed_number_of_queries(
    cast: Cast, api: APIClient, django_assert_num_queries: Any, extra_keys: int
) -> None:
    _, secret = make_key(cast.tenant, scopes=("admin",))
    for n in range(extra_keys):
        make_key(cast.tenant, name=f"k{n}")
    bearer(api, secret)
    # savepoint, RLS reset, RLS prefix, key, RLS tenant, touch, the list, release —
    # the same for 1 or 20 keys (the key was touched already by the second request)
    with django_assert_num_queries(8):
        assert api.get("/api/v1/keys").status_code == 200
    with django_assert_num_queries(7):
        assert api.get("/api/v1/audit").status_code == 200


def test_openapi_schema_and_docs_are_served_without_a_key(db: None, api: APIClient) -> None:
    schema = api.get("/api/v1/schema/", HTTP_ACCEPT="application/vnd.oai.openapi+json")
    assert schema.status_code == 200
    spec = schema.json()
    assert "/api/v1/tenant" in spec["paths"]
    assert spec["components"]["securitySchemes"]["ApiKey"]["scheme"] == "bearer"
    docs = api.get("/api/v1/docs/")
    assert docs.status_code == 200 and b"swagger" in docs.content.lower()
    assert b"cdn." not in docs.content and b"unpkg" not in docs.content

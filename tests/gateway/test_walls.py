"""The smaller walls of issue 9: guessing keys is throttled per client address, every page
carries a Content-Security-Policy, previews' links cannot reach back, unknown API paths answer
JSON whatever the method."""

from __future__ import annotations

import pytest
from django.test import Client
from rest_framework.test import APIClient

from tenants.ratelimit import AUTH_FAILURES_PER_CLIENT
from tests.conftest import bearer
from tests.factories import PASSWORD, Cast, make_key

pytestmark = pytest.mark.django_db


def test_a_client_guessing_keys_is_refused_for_the_rest_of_the_minute(cast: Cast) -> None:
    guesser = bearer(APIClient(), "mnemo_aaaaaaaaaa_" + "x" * 43)
    codes = [guesser.get("/api/v1/tenant").status_code for _ in range(AUTH_FAILURES_PER_CLIENT)]
    assert set(codes) == {401}
    refused = guesser.get("/api/v1/tenant")
    assert refused.status_code == 429 and int(refused["Retry-After"]) > 0
    _, secret = make_key(cast.tenant)
    # the right key from the same address waits too: the address, not the key, is throttled
    assert bearer(APIClient(), secret).get("/api/v1/tenant").status_code == 429


def test_every_page_carries_a_content_security_policy(cast: Cast) -> None:
    client = Client()
    assert client.login(username=cast.owner.email, password=PASSWORD)
    for path in ("/", "/login/", "/t/acme/", "/t/acme/roles/", "/api/v1/docs/"):
        policy = client.get(path)["Content-Security-Policy"]
        assert "script-src 'self'" in policy and "frame-ancestors 'none'" in policy, path
        assert "unsafe-inline" not in policy.split("script-src")[1].split(";")[0]


def test_links_in_a_role_preview_open_without_reaching_back(cast: Cast) -> None:
    _, secret = make_key(cast.tenant)
    source = "<role><knowledge>See [the guide](https://example.com/guide).</knowledge></role>"
    check = bearer(APIClient(), secret).post(
        "/api/v1/dpml/validate", {"source": source}, format="json"
    )
    assert check.status_code == 200
    client = Client()
    assert client.login(username=cast.owner.email, password=PASSWORD)
    page = client.post("/t/acme/roles/check", {"source": source, "kind": "role"})
    assert 'rel="noopener noreferrer nofollow"' in page.content.decode()


def test_unknown_api_paths_answer_json_404_for_every_method(cast: Cast) -> None:
    client = Client(enforce_csrf_checks=True)
    for method in ("get", "post", "put", "patch", "delete"):
        response = getattr(client, method)("/api/v1/no/such/thing")
        assert response.status_code == 404, method
        assert response.json()["error"]["code"] == "not_found"


def test_with_redis_away_guessing_keys_is_still_throttled_in_the_process(cast: Cast) -> None:
    from base.redis_client import redis_breaker

    redis_breaker.failed()  # as after a Redis timeout: every counter is kept in the process
    try:
        guesser = bearer(APIClient(), "mnemo_bbbbbbbbbb_" + "y" * 43)
        codes = [guesser.get("/api/v1/tenant").status_code for _ in range(AUTH_FAILURES_PER_CLIENT)]
        assert set(codes) == {401}
        assert guesser.get("/api/v1/tenant").status_code == 429
    finally:
        redis_breaker.reset()

"""A database that does not answer: 503 with Retry-After, JSON for the API, a page for people.

The live server connects per request in tests, so pointing the connection settings at a closed
port makes every new connection fail for real (connection refused) — at the first query of the
request transaction, which Django's middleware chain, not a view, sees first.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager

import httpx2
import pytest
from django.db import OperationalError, connection, connections, transaction

from tenants.middleware import is_outage
from tests.factories import make_key, make_tenant


@contextmanager
def database_away() -> Iterator[None]:
    settings = connections.settings["default"]
    port = settings["PORT"]
    settings["PORT"] = "1"  # nothing listens there: connection refused at once
    try:
        yield
    finally:
        settings["PORT"] = port


def test_the_api_answers_503_json_when_the_database_is_away(live_url: str) -> None:
    tenant = make_tenant("outage")
    _, secret = make_key(tenant, scopes=("read", "write"))
    headers = {"Authorization": f"Bearer {secret}"}
    with database_away():
        remember = httpx2.post(
            f"{live_url}/api/v1/remember",
            json={"engrams": [{"content": "kept for later"}]},
            headers=headers,
        )
        listing = httpx2.get(f"{live_url}/api/v1/engrams", headers=headers)
    for response in (remember, listing):
        assert response.status_code == 503, response.text[:300]
        assert response.headers["Retry-After"] == "5"
        assert response.json()["error"]["code"] == "service_unavailable"
    # and once it is back, the same key works again
    again = httpx2.get(f"{live_url}/api/v1/engrams", headers=headers)
    assert again.status_code == 200


def test_a_page_answers_a_short_503_page_when_the_database_is_away(live_url: str) -> None:
    with database_away():
        page = httpx2.get(f"{live_url}/login/")
    assert page.status_code == 503
    assert page.headers["content-type"].startswith("text/html")
    assert "Mnemo is unavailable" in page.text and "Traceback" not in page.text


@pytest.mark.django_db
def test_an_error_the_database_answers_is_not_an_outage() -> None:
    """A statement timeout (or a deadlock) is Postgres answering: a 500 to fix, not a 503."""
    with (
        pytest.raises(OperationalError) as timed_out,
        transaction.atomic(),
        connection.cursor() as cursor,
    ):
        cursor.execute("SET LOCAL statement_timeout = 1")
        cursor.execute("SELECT pg_sleep(0.5)")
    assert not is_outage(timed_out.value)
    with database_away(), pytest.raises(OperationalError) as refused:
        connections.create_connection("default").ensure_connection()
    assert is_outage(refused.value)

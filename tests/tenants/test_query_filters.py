"""The first wall alone: with row-level security switched off, the query filters still isolate.

RLS would hide a missing ``tenant=`` filter in a selector or view; here it is disabled (by the
schema owner, for the duration of each test) so only the application's own scoping is tested.
"""

from __future__ import annotations

from collections.abc import Iterator

import psycopg
import pytest
from django.conf import settings
from django.test import Client
from rest_framework.test import APIClient

from tests.conftest import bearer
from tests.factories import PASSWORD, make_cast, make_key
from tests.tenants.test_isolation import tenant_tables


@pytest.fixture
def rls_off() -> Iterator[None]:
    if not settings.DATABASE_OWNER_URL:
        pytest.skip("needs DATABASE_OWNER_URL to switch row-level security off")
    dbname = settings.DATABASES["default"]["NAME"]
    with psycopg.connect(settings.DATABASE_OWNER_URL, dbname=dbname, autocommit=True) as owner:
        tables = [
            row[0]
            for row in owner.execute(
                "SELECT table_name FROM information_schema.columns WHERE table_schema = 'public' "
                "AND column_name = 'tenant_id'"
            ).fetchall()
        ]
        for table in tables:
            owner.execute(f"ALTER TABLE {table} DISABLE ROW LEVEL SECURITY")
        try:
            yield
        finally:
            for table in tables:
                owner.execute(f"ALTER TABLE {table} ENABLE ROW LEVEL SECURITY")


pytestmark = pytest.mark.django_db(transaction=True)


def test_rest_keeps_tenants_apart_without_rls(rls_off: None) -> None:
    assert tenant_tables  # the same tables the RLS tests cover
    cast = make_cast()
    theirs, _ = make_key(cast.other, name="theirs")
    _, admin = make_key(cast.tenant, scopes=("admin",), name="ours")
    api = bearer(APIClient(), admin)
    assert api.get(f"/api/v1/keys/{theirs.pk}").status_code == 404
    assert api.delete(f"/api/v1/keys/{theirs.pk}").status_code == 404
    names = {k["name"] for k in api.get("/api/v1/keys").json()["keys"]}
    assert names == {"ours"}
    events = api.get("/api/v1/audit", {"limit": 200}).json()["events"]
    assert all("globex" not in (e["target"]["label"] or "") for e in events)


def test_the_dashboard_keeps_tenants_apart_without_rls(rls_off: None) -> None:
    cast = make_cast()
    theirs, _ = make_key(cast.other, name="theirs")
    client = Client()
    assert client.login(username=cast.member.email, password=PASSWORD)
    assert client.get("/t/globex/keys/").status_code == 404
    assert (
        client.post(f"/t/acme/keys/{theirs.pk}/revoke", HTTP_HX_REQUEST="true").status_code == 404
    )
    page = client.get("/t/acme/keys/").content.decode()
    assert "theirs" not in page
    members = client.get("/t/acme/members/").content.decode()
    assert cast.outsider.email not in members
    switcher = client.get("/t/acme/").content.decode()
    assert "Globex" not in switcher

from __future__ import annotations

import io
import json
import re
from pathlib import Path

import pytest
from django.core.management import CommandError, call_command

from tenants import rls
from tenants.access import apikey_authenticate
from tenants.models import Membership, Tenant

pytestmark = pytest.mark.django_db


def test_tenant_create_prints_a_working_read_write_key() -> None:
    out = io.StringIO()
    call_command("tenant_create", "bench-co", "--owner", "Bench@Example.com", stdout=out)
    secret = re.search(r"^API key: (\S+)$", out.getvalue(), re.M).group(1)  # type: ignore[union-attr]
    key = apikey_authenticate(secret=secret, tenant_slug="bench-co")
    assert key is not None and key.scopes == ["read", "write"]
    rls.activate(tenant_id=key.tenant_id)
    membership = Membership.objects.get(tenant=key.tenant)
    assert (membership.user.email, membership.role) == ("bench@example.com", "owner")


def test_tenant_create_refuses_a_taken_slug_cleanly() -> None:
    call_command("tenant_create", "dup-co", "--owner", "a@example.com", stdout=io.StringIO())
    with pytest.raises(CommandError, match="taken"):
        call_command("tenant_create", "dup-co", "--owner", "b@example.com", stdout=io.StringIO())
    assert Tenant.objects.filter(slug="dup-co").count() == 1


def test_demo_bootstrap_runs_twice_and_reuses_its_tenant_and_key(tmp_path: Path) -> None:
    state = tmp_path / "demo.json"
    first = io.StringIO()
    call_command("demo_bootstrap", "--state", str(state), stdout=first)
    second = io.StringIO()
    call_command("demo_bootstrap", "--state", str(state), stdout=second)
    a, b = json.loads(first.getvalue()), json.loads(second.getvalue())
    assert a == b
    assert Tenant.objects.filter(slug="demo").count() == 1
    assert apikey_authenticate(secret=a["api_key"], tenant_slug="demo") is not None

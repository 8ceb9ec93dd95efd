"""Row-level security for tenant-owned tables (see tenants/rls.py)."""

from __future__ import annotations

from django.db import migrations

from tenants import rls


class Migration(migrations.Migration):
    dependencies = [("tenants", "0001_initial")]

    operations = [
        rls.functions(),
        rls.enable("tenants_membership", read_also="user_id = app_user_id()"),
        rls.enable(
            "tenants_invitation", read_also="token_digest = app_setting('app.invite_digest')"
        ),
        rls.enable("tenants_apikey", read_also="prefix = app_setting('app.apikey_prefix')"),
    ]

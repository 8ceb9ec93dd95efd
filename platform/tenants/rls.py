"""Postgres row-level security: the second wall behind the tenant filters in every query.

Each tenant-owned table has RLS enabled *and forced* (so the owning role is subject too) with a
policy comparing ``tenant_id`` to the transaction-local setting ``app.tenant_id``. A few tables
also let a row be *read* by a narrow key set for one lookup (a user's own memberships, the API key
being authenticated, the invitation being accepted); writes always need the tenant.

Settings are transaction-local (``set_config(..., true)``), so they vanish at commit and can never
leak to the next request on a pooled connection. Web requests run in one transaction opened by
``TenantTransactionMiddleware``; Celery tasks and MCP tools use :func:`tenant_scope`.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

from django.db import connection, migrations, transaction

SETTINGS = ("app.tenant_id", "app.user_id", "app.apikey_prefix", "app.invite_digest")

FUNCTIONS_SQL = """
CREATE OR REPLACE FUNCTION app_tenant_id() RETURNS bigint LANGUAGE sql STABLE AS
$$ SELECT NULLIF(current_setting('app.tenant_id', true), '')::bigint $$;
CREATE OR REPLACE FUNCTION app_user_id() RETURNS bigint LANGUAGE sql STABLE AS
$$ SELECT NULLIF(current_setting('app.user_id', true), '')::bigint $$;
CREATE OR REPLACE FUNCTION app_setting(name text) RETURNS text LANGUAGE sql STABLE AS
$$ SELECT NULLIF(current_setting(name, true), '') $$;
"""


def activate(
    *,
    tenant_id: int | None = None,
    user_id: int | None = None,
    apikey_prefix: str | None = None,
    invite_digest: str | None = None,
) -> None:
    """Set every RLS setting for the current transaction (unset ones are cleared)."""
    if not connection.in_atomic_block:
        raise RuntimeError("rls.activate() needs a transaction; use tenant_scope() outside one")
    values = [tenant_id, user_id, apikey_prefix, invite_digest]
    params: list[str] = []
    for name, value in zip(SETTINGS, values, strict=True):
        params += [name, "" if value is None else str(value)]
    selects = ", ".join("set_config(%s, %s, true)" for _ in SETTINGS)
    with connection.cursor() as cursor:
        cursor.execute(f"SELECT {selects}", params)


def current() -> dict[str, str]:
    """The RLS settings of the current transaction."""
    selects = ", ".join("current_setting(%s, true)" for _ in SETTINGS)
    with connection.cursor() as cursor:
        cursor.execute(f"SELECT {selects}", list(SETTINGS))
        row = cursor.fetchone()
    return {name: value or "" for name, value in zip(SETTINGS, row, strict=True)}


@contextmanager
def tenant_scope(tenant_id: int, *, user_id: int | None = None) -> Iterator[None]:
    """Run a block in a transaction that sees exactly one tenant's rows.

    Nested inside another transaction (a savepoint), the outer settings come back afterwards:
    transaction-local settings would otherwise outlive the savepoint.
    """
    outer = current() if connection.in_atomic_block else None
    try:
        with transaction.atomic():
            activate(tenant_id=tenant_id, user_id=user_id)
            yield
    finally:
        if outer is not None and connection.in_atomic_block and not connection.needs_rollback:
            params: list[str] = []
            for name, value in outer.items():
                params += [name, value]
            selects = ", ".join("set_config(%s, %s, true)" for _ in SETTINGS)
            with connection.cursor() as cursor:
                cursor.execute(f"SELECT {selects}", params)


def enable(table: str, *, read_also: str | None = None) -> migrations.RunSQL:
    """Migration operation: force RLS on ``table``; ``read_also`` widens SELECT only."""
    sql: list[str | tuple[str, Any]] = [
        f"ALTER TABLE {table} ENABLE ROW LEVEL SECURITY",
        f"ALTER TABLE {table} FORCE ROW LEVEL SECURITY",
        f"CREATE POLICY tenant_isolation ON {table} USING (tenant_id = app_tenant_id()) "
        f"WITH CHECK (tenant_id = app_tenant_id())",
    ]
    reverse: list[str | tuple[str, Any]] = [
        f"DROP POLICY IF EXISTS tenant_isolation ON {table}",
        f"ALTER TABLE {table} NO FORCE ROW LEVEL SECURITY",
        f"ALTER TABLE {table} DISABLE ROW LEVEL SECURITY",
    ]
    if read_also:
        sql.append(f"CREATE POLICY lookup_read ON {table} FOR SELECT USING ({read_also})")
        reverse.insert(0, f"DROP POLICY IF EXISTS lookup_read ON {table}")
    return migrations.RunSQL(sql=sql, reverse_sql=reverse)


def functions() -> migrations.RunSQL:
    return migrations.RunSQL(
        sql=FUNCTIONS_SQL,
        reverse_sql="DROP FUNCTION IF EXISTS app_tenant_id(); DROP FUNCTION IF EXISTS "
        "app_user_id(); DROP FUNCTION IF EXISTS app_setting(text);",
    )

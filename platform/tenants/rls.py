"""Postgres row-level security: the second wall behind the tenant filters in every query.

Each tenant-owned table has RLS enabled *and forced* (so the owning role is subject too) with a
policy comparing ``tenant_id`` to the transaction-local setting ``app.tenant_id``. A few tables
also let a row be *read* by a narrow key set for one lookup (a user's own memberships, the API key
being authenticated, the invitation being accepted); writes always need the tenant.

Settings are transaction-local (``set_config(..., true)``), so they vanish at commit and can never
leak to the next request on a pooled connection. Web requests run in one transaction opened by
``TenantTransactionMiddleware``; Celery tasks and MCP tools use :func:`tenant_scope`.

The settings are **signed**. Any SQL the app role runs can call ``set_config`` (Postgres lets every
role set custom settings), so plain settings would stop a forgotten filter but not an injected
statement that sets ``app.tenant_id`` itself. ``app.sig`` is an HMAC-SHA256 of all four settings
under a key derived from ``SECRET_KEY``; the policy functions (``app_tenant_id()`` and friends)
check it with a copy of the key in ``tenants_rlskey``, a table only the schema owner can read, and
see no tenant at all when it does not match. An injected statement can read the current
signature but cannot make one for another tenant. Policies call the functions as
``(SELECT app_tenant_id())``: one check per statement (an init plan), not one per row.
"""

from __future__ import annotations

import hashlib
import hmac
import re
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

from django.conf import settings
from django.db import connection, migrations, transaction

SIGNED = ("app.tenant_id", "app.user_id", "app.apikey_prefix", "app.invite_digest")
SETTINGS = (*SIGNED, "app.sig")

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
    values = [
        "" if v is None else str(v) for v in (tenant_id, user_id, apikey_prefix, invite_digest)
    ]
    _set(dict(zip(SIGNED, values, strict=True)))


def signature(values: list[str]) -> str:
    """HMAC-SHA256 of the signed settings, as app_signed() in the database computes it."""
    message = "|".join(values).encode()
    return hmac.new(signing_key(), message, hashlib.sha256).hexdigest()


def signing_key() -> bytes:
    return hmac.new(settings.SECRET_KEY.encode(), b"mnemo row-level security", "sha256").digest()


def _set(values: dict[str, str]) -> None:
    """Set the signed settings and their signature in the current transaction."""
    full = {name: values.get(name, "") for name in SIGNED}
    full["app.sig"] = signature([full[name] for name in SIGNED])
    params: list[str] = []
    for name, value in full.items():
        params += [name, value]
    selects = ", ".join("set_config(%s, %s, true)" for _ in full)
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
            _set({name: outer[name] for name in SIGNED})


def enable(table: str, *, read_also: str | None = None) -> migrations.RunSQL:
    """Migration operation: force RLS on ``table``; ``read_also`` widens SELECT only."""
    sql: list[str | tuple[str, Any]] = [
        f"ALTER TABLE {table} ENABLE ROW LEVEL SECURITY",
        f"ALTER TABLE {table} FORCE ROW LEVEL SECURITY",
        f"CREATE POLICY tenant_isolation ON {table} USING (tenant_id = (SELECT app_tenant_id())) "
        f"WITH CHECK (tenant_id = (SELECT app_tenant_id()))",
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


# --- signed settings (migration tenants 0003) -------------------------------------------------

SIGNED_FUNCTIONS_SQL = """
CREATE TABLE IF NOT EXISTS tenants_rlskey (
    id smallint PRIMARY KEY CHECK (id = 1), ipad bytea NOT NULL, opad bytea NOT NULL);
REVOKE ALL ON tenants_rlskey FROM PUBLIC;
CREATE OR REPLACE FUNCTION app_signed() RETURNS boolean LANGUAGE sql STABLE SECURITY DEFINER
SET search_path = pg_catalog, public AS $$
  SELECT coalesce(encode(sha256(k.opad || sha256(k.ipad || convert_to(
      coalesce(current_setting('app.tenant_id', true), '') || '|' ||
      coalesce(current_setting('app.user_id', true), '') || '|' ||
      coalesce(current_setting('app.apikey_prefix', true), '') || '|' ||
      coalesce(current_setting('app.invite_digest', true), ''), 'UTF8'))), 'hex')
      = current_setting('app.sig', true), false)
    FROM tenants_rlskey k WHERE k.id = 1
$$;
CREATE OR REPLACE FUNCTION app_tenant_id() RETURNS bigint LANGUAGE sql STABLE AS
$$ SELECT CASE WHEN app_signed()
   THEN NULLIF(current_setting('app.tenant_id', true), '')::bigint END $$;
CREATE OR REPLACE FUNCTION app_user_id() RETURNS bigint LANGUAGE sql STABLE AS
$$ SELECT CASE WHEN app_signed()
   THEN NULLIF(current_setting('app.user_id', true), '')::bigint END $$;
CREATE OR REPLACE FUNCTION app_setting(name text) RETURNS text LANGUAGE sql STABLE AS
$$ SELECT CASE WHEN app_signed() THEN NULLIF(current_setting(name, true), '') END $$;
"""


def store_signing_key(cursor: Any) -> None:
    """Write the key (as HMAC's inner and outer pads) where app_signed() reads it, readable by
    its owner alone (default privileges would have granted the app role SELECT on it). Runs as
    the schema owner: at migration and after every ``migrate`` (a new SECRET_KEY applies)."""
    cursor.execute(
        "SELECT DISTINCT grantee FROM information_schema.role_table_grants "
        "WHERE table_name = 'tenants_rlskey' AND grantee <> current_user"
    )
    for (grantee,) in cursor.fetchall():
        role = "PUBLIC" if grantee == "PUBLIC" else f'"{grantee}"'
        cursor.execute(f"REVOKE ALL ON tenants_rlskey FROM {role}")
    key = signing_key().ljust(64, b"\0")
    ipad = bytes(b ^ 0x36 for b in key)
    opad = bytes(b ^ 0x5C for b in key)
    cursor.execute(
        "INSERT INTO tenants_rlskey (id, ipad, opad) VALUES (1, %s, %s) "
        "ON CONFLICT (id) DO UPDATE SET ipad = EXCLUDED.ipad, opad = EXCLUDED.opad",
        [ipad, opad],
    )


def wrap_policies(cursor: Any) -> None:
    """Rewrite every policy to call the setting functions once per statement."""
    cursor.execute(
        "SELECT tablename, policyname, cmd, qual, with_check FROM pg_policies "
        "WHERE schemaname = 'public'"
    )
    for table, name, command, qual, check in cursor.fetchall():

        def once(expression: str | None) -> str | None:
            if expression is None:
                return None
            for call in ("app_tenant_id()", "app_user_id()"):
                expression = expression.replace(call, f"(SELECT {call})")
            return re.sub(r"app_setting\(([^)]*)\)", r"(SELECT app_setting(\1))", expression)

        cursor.execute(f'DROP POLICY "{name}" ON {table}')
        using = f" USING ({once(qual)})" if qual else ""
        checking = f" WITH CHECK ({once(check)})" if check else ""
        cursor.execute(f'CREATE POLICY "{name}" ON {table} FOR {command}{using}{checking}')

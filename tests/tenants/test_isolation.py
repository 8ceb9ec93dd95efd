"""Row-level security: the second wall. These tests bypass the ORM's tenant filters on purpose."""

from __future__ import annotations

import pytest
from django.db import IntegrityError, connection, transaction
from django.db.utils import DatabaseError

from tenants import rls
from tenants.models import ApiKey, Membership
from tests.factories import Cast, make_key

pytestmark = pytest.mark.django_db

# Non-unique indexes that may lead with another column, and why.
LOOKUP_INDEXES = {
    "membership_user_lookup": "the workspace switcher lists a user's tenants",
    "apikey_prefix_lookup": "bearer auth finds a key before its tenant is known",
    "invitation_token_lookup": "an invitation link is opened before its tenant is known",
    # HNSW indexes hold one vector column only; queries filter by tenant and network.
    "cuevector_hnsw": "pgvector HNSW cannot lead with tenant_id",
    "engram_embedding_hnsw": "pgvector HNSW cannot lead with tenant_id",
    # A network is one tenant's; a tenant key column in a GIN costs a read of the tenant's whole
    # posting list per query (issue 10). Queries still filter by tenant, and RLS applies.
    "engram_search_gin": "full-text GIN keyed by network (one tenant's) for speed",
}


def tenant_tables() -> list[str]:
    """Every table with a tenant_id column, whatever model (or none) declares it."""
    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT table_name FROM information_schema.columns "
            "WHERE table_schema = 'public' AND column_name = 'tenant_id' ORDER BY table_name"
        )
        return [row[0] for row in cursor.fetchall()]


def test_the_app_connects_as_a_role_that_cannot_bypass_row_level_security() -> None:
    with connection.cursor() as cursor:
        cursor.execute("SELECT rolsuper, rolbypassrls FROM pg_roles WHERE rolname = current_user")
        assert cursor.fetchone() == (False, False)


def test_the_app_role_owns_nothing_so_it_cannot_switch_the_walls_off() -> None:
    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT count(*) FROM pg_tables "
            "WHERE schemaname = 'public' AND tableowner = current_user"
        )
        assert cursor.fetchone() == (0,)
    for statement in (
        "ALTER TABLE tenants_apikey NO FORCE ROW LEVEL SECURITY",
        "DROP TRIGGER audit_append_only ON audit_auditevent",
        "CREATE OR REPLACE FUNCTION app_tenant_id() RETURNS bigint LANGUAGE sql AS 'SELECT 1'",
    ):
        with (
            pytest.raises(DatabaseError, match=r"must be owner|permission denied"),
            transaction.atomic(),
            connection.cursor() as cursor,
        ):
            cursor.execute(statement)


def test_every_tenant_table_has_forced_row_level_security_with_a_policy() -> None:
    tables = tenant_tables()
    assert {"tenants_membership", "tenants_apikey", "audit_auditevent"} <= set(tables)
    with connection.cursor() as cursor:
        for table in tables:
            cursor.execute(
                "SELECT relrowsecurity, relforcerowsecurity FROM pg_class WHERE relname = %s",
                [table],
            )
            assert cursor.fetchone() == (True, True), table
            cursor.execute(
                "SELECT qual, with_check FROM pg_policies WHERE tablename = %s "
                "AND policyname = 'tenant_isolation'",
                [table],
            )
            qual, check = cursor.fetchone()
            assert "app_tenant_id()" in qual and "app_tenant_id()" in check, table


def test_every_tenant_index_and_unique_constraint_leads_with_tenant_id() -> None:
    with connection.cursor() as cursor:
        for table in tenant_tables():
            cursor.execute(
                """
                SELECT i.relname, ix.indisunique, ix.indisprimary,
                       (SELECT attname FROM pg_attribute
                         WHERE attrelid = t.oid AND attnum = ix.indkey[0])
                  FROM pg_index ix JOIN pg_class i ON i.oid = ix.indexrelid
                  JOIN pg_class t ON t.oid = ix.indrelid
                 WHERE t.relname = %s
                """,
                [table],
            )
            for name, unique, primary, first in cursor.fetchall():
                if primary:
                    continue
                if unique:
                    assert first == "tenant_id", f"{table}.{name} is unique without tenant_id first"
                elif first != "tenant_id":
                    assert name in LOOKUP_INDEXES, f"{table}.{name} starts with {first}"


def test_without_a_tenant_setting_no_tenant_row_is_visible(cast: Cast) -> None:
    make_key(cast.tenant)
    rls.activate()
    assert ApiKey.objects.count() == 0
    assert Membership.objects.count() == 0


def test_a_tenant_setting_shows_only_that_tenants_rows(cast: Cast) -> None:
    make_key(cast.tenant, name="a-key")
    make_key(cast.other, name="b-key")
    rls.activate(tenant_id=cast.tenant.pk)
    assert list(ApiKey.objects.values_list("name", flat=True)) == ["a-key"]
    rls.activate(tenant_id=cast.other.pk)
    assert list(ApiKey.objects.values_list("name", flat=True)) == ["b-key"]


def test_a_user_setting_shows_only_that_users_own_memberships(cast: Cast) -> None:
    rls.activate(user_id=cast.outsider.pk)
    assert [m.tenant_id for m in Membership.objects.all()] == [cast.other.pk]


def test_writing_a_row_for_another_tenant_is_refused_by_the_database(cast: Cast) -> None:
    rls.activate(tenant_id=cast.tenant.pk)
    with (
        pytest.raises(DatabaseError, match="row-level security"),
        transaction.atomic(),
        connection.cursor() as cursor,
    ):
        cursor.execute(
            "INSERT INTO tenants_membership (tenant_id, user_id, role, created_at) "
            "VALUES (%s, %s, 'owner', now())",
            [cast.other.pk, cast.member.pk],
        )


def test_updates_cannot_reach_another_tenants_rows(cast: Cast) -> None:
    _, _ = make_key(cast.other, name="theirs")
    rls.activate(tenant_id=cast.tenant.pk)
    with connection.cursor() as cursor:
        cursor.execute("UPDATE tenants_apikey SET name = 'pwned'")
    rls.activate(tenant_id=cast.other.pk)
    assert ApiKey.objects.get().name == "theirs"


def test_the_lookup_policies_allow_reading_only_what_they_name(cast: Cast) -> None:
    key, _ = make_key(cast.other, name="theirs")
    rls.activate(apikey_prefix=key.prefix)
    assert list(ApiKey.objects.values_list("name", flat=True)) == ["theirs"]
    with connection.cursor() as cursor:
        cursor.execute("UPDATE tenants_apikey SET name = 'pwned'")
        assert cursor.rowcount == 0
    rls.activate(apikey_prefix="nothere")
    assert ApiKey.objects.count() == 0


def test_rls_settings_require_a_transaction() -> None:
    assert connection.in_atomic_block  # the test's own transaction
    with pytest.raises(RuntimeError):
        # Outside any transaction a transaction-local setting would vanish at once.
        connection.in_atomic_block = False
        try:
            rls.activate(tenant_id=1)
        finally:
            connection.in_atomic_block = True


def test_membership_uniqueness_is_per_tenant(cast: Cast) -> None:
    rls.activate(tenant_id=cast.tenant.pk)
    with pytest.raises(IntegrityError), transaction.atomic():
        Membership.objects.create(tenant=cast.tenant, user=cast.member, role="viewer")


def test_full_text_matching_is_leakproof_so_rls_does_not_disable_its_index() -> None:
    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT proleakproof FROM pg_proc WHERE proname = 'ts_match_vq' "
            "AND pg_get_function_arguments(oid) = 'tsvector, tsquery'"
        )
        assert cursor.fetchone() == (True,)


def test_an_injected_statement_cannot_switch_to_another_tenant(cast: Cast) -> None:
    """The app role can run set_config itself: the signature is what it cannot make."""
    make_key(cast.other, name="theirs")
    rls.activate(tenant_id=cast.tenant.pk)
    with connection.cursor() as cursor:
        cursor.execute("SELECT count(*) FROM tenants_apikey")
        assert cursor.fetchone() == (0,)  # this tenant has no key; theirs is invisible
        cursor.execute(
            "SELECT set_config('app.tenant_id', %s, true)", [str(cast.other.pk)]
        )  # what an injected statement would do
        cursor.execute("SELECT count(*) FROM tenants_apikey")
        assert cursor.fetchone() == (0,)  # the signature no longer matches: no tenant at all
        cursor.execute("SELECT app_tenant_id()")
        assert cursor.fetchone() == (None,)
        cursor.execute("SAVEPOINT probe")
        with pytest.raises(DatabaseError, match="permission denied"):
            cursor.execute("SELECT ipad FROM tenants_rlskey")
        cursor.execute("ROLLBACK TO SAVEPOINT probe")
    rls.activate(tenant_id=cast.other.pk)  # the application's own switch is signed: it works
    with connection.cursor() as cursor:
        cursor.execute("SELECT count(*) FROM tenants_apikey")
        assert cursor.fetchone() == (1,)


def test_policies_check_the_signature_once_per_statement() -> None:
    with connection.cursor() as cursor:
        cursor.execute("SELECT qual FROM pg_policies WHERE policyname = 'tenant_isolation'")
        quals = [row[0] for row in cursor.fetchall()]
    assert quals and all("SELECT app_tenant_id()" in qual for qual in quals)

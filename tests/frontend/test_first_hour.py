"""The rough edges a first-time user met, each checked on the page it was on: times say their
zone and "just now" only when it is; a memory's history reads as JSON and its connections show
the strongest first; an edited memory is filed under its new words; the import page names a
line without content; a new role starts as a draft and flags the template's placeholders;
recall answers metadata as an object."""

from __future__ import annotations

import re
from datetime import timedelta

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from django.utils import timezone
from rest_framework.test import APIClient

from memory.models import Cue, Engram, EngramCue, ImportJob
from memory.services.transfer import import_run
from tenants import rls
from tests.conftest import bearer
from tests.factories import Cast, make_key
from tests.frontend.test_dashboard import HTMX, logged_in
from tests.frontend.test_memory_pages import engram, seed

pytestmark = pytest.mark.django_db

LONG = (
    "Maya and Tom moved the checkout service from Postgres 14 to Postgres 16 in March, "
    "after the vendor import, the billing export and the ledger sync all passed on staging "
    "with the new driver, the pooler and the nightly backups"
)


def test_recent_memories_say_just_now_only_when_it_is_and_times_carry_their_zone(
    cast: Cast,
) -> None:
    old, _ = seed(cast, [{"content": "an older memory"}, {"content": "a new memory"}])
    with rls.tenant_scope(cast.tenant.pk):
        Engram.objects.filter(pk=old).update(created_at=timezone.now() - timedelta(minutes=5))
    owner = logged_in(cast.owner)
    page = owner.get("/t/acme/").content.decode()
    recent = page[page.index('data-testid="recent-memories"') :].split("</ul>")[0]
    assert "default · just now" in recent and "default · 5\xa0minutes ago" in recent
    assert "0\xa0minutes" not in recent
    assert recent.index("a new memory") < recent.index("an older memory")  # newest first
    assert 'data-testid="copy-mcp-url"' in page and 'data-copy="#overview-mcp-url"' in page
    audit = owner.get("/t/acme/audit/").content.decode()
    assert re.search(r"[A-Z][a-z]{2} \d{1,2}, \d\d:\d\d UTC</time>", audit)
    browse = owner.get("/t/acme/memory/default/").content.decode()
    assert re.search(r"\d\d:\d\d UTC</td>", browse)


def test_a_memorys_page_shows_json_history_its_strongest_connections_and_refiles_edits(
    cast: Cast,
) -> None:
    (pk,) = seed(cast, [{"content": LONG, "metadata": {"team": ["Maya", "Tom"]}}])
    member = logged_in(cast.member)
    url = f"/t/acme/memory/default/engrams/{pk}/"
    edited = member.post(
        f"{url}edit",
        {
            "content": LONG + " and a rollback plan for Kubernetes",
            "schema": ", ".join(engram(cast, pk).schema),  # the old schema, as the form shows it
            "derive": "on",  # what the page ticks as soon as the content changes
            "type": "ATOMIC",
            "strength": "0.50",
            "importance": "0.50",
        },
    )
    assert edited.status_code == 302
    with rls.tenant_scope(cast.tenant.pk):
        words = set(
            Cue.objects.filter(
                pk__in=EngramCue.objects.filter(engram_id=pk).values("cue_id")
            ).values_list("word", flat=True)
        )
    assert "Kubernetes" in words  # the new word became a cue
    page = logged_in(cast.admin).get(url).content.decode()  # admins may also delete
    history = page[page.index('data-testid="history"') :]
    assert "engram.update" in history and "Kubernetes" in history
    assert "[&quot;" in history or '["' in history  # JSON lists
    assert "['" not in history and "None" not in history
    assert "{\n  &quot;team&quot;: [\n    &quot;Maya&quot;," in page  # metadata as JSON
    edges = page[page.index('data-testid="engram-edges"') :].split("</table>")[0]
    assert edges.count("<tr>") <= 9  # a header and the eight strongest
    assert 'data-testid="more-edges"' in page and "strongest first" in page
    actions = page[page.index('data-testid="engram-actions"') :].split("</div>")[0]
    assert 'data-testid="edit"' in actions and 'data-testid="delete"' in actions
    typed = member.post(
        f"{url}edit",
        {"content": LONG, "schema": "Maya, Postgres, March", "derive": "on", "type": "ATOMIC",
         "strength": "0.50", "importance": "0.50"},
    )  # fmt: skip
    assert typed.status_code == 302
    assert list(engram(cast, pk).schema) == ["Maya", "Postgres", "March"]  # typed wins


def test_an_import_line_without_content_is_named_so(cast: Cast) -> None:
    admin = logged_in(cast.admin)
    body = b'{"content": "fine"}\n{"text": "no content field"}\n'
    upload = SimpleUploadedFile("x.jsonl", body, content_type="application/x-ndjson")
    assert admin.post("/t/acme/import/", {"network": "copy", "file": upload}).status_code == 302
    with rls.tenant_scope(cast.tenant.pk):
        job = ImportJob.objects.get(tenant=cast.tenant)
    done = import_run(tenant_id=cast.tenant.pk, job_id=job.pk)
    assert [e["line"] for e in done.errors] == [2]
    assert 'no "content"' in done.errors[0]["message"]
    assert "None" not in done.errors[0]["message"]
    intro = admin.get("/t/acme/import/").content.decode()
    assert 'data-testid="import-example"' in intro  # the example on its own line, not in prose


def test_a_new_role_starts_as_a_draft_and_flags_the_templates_placeholders(cast: Cast) -> None:
    owner = logged_in(cast.owner)
    page = owner.get("/t/acme/roles/new/").content.decode()
    assert re.search(r'<option value="draft"\s+selected>', page)
    assert "Valid DPML: agents can activate it." not in page
    assert page.count('data-code="placeholder"') == 3
    assert 'class="grid role-head"' in page and 'size="40"' in page
    written = owner.post(
        "/t/acme/roles/check",
        {"kind": "role", "name": "x", "source": "<role><personality>Plain.</personality></role>"},
        **HTMX,
    ).content.decode()
    assert 'data-code="placeholder"' not in written


def test_recall_answers_metadata_as_an_object_like_the_engrams_list(cast: Cast) -> None:
    seed(cast, [{"content": "Maya likes window seats", "metadata": {"source": "crm"}}])
    api = bearer(APIClient(), make_key(cast.tenant)[1])
    asked = {"network": "default", "query": "window seats", "record": False}
    answer = api.post("/api/v1/recall", asked, format="json").json()
    assert answer["selection"] == "score"  # auto: no task at hand, so not Pareto fronts
    recalled = answer["engrams"][0]
    listed = api.get("/api/v1/engrams", {"network": "default"}).json()["engrams"][0]
    assert recalled["metadata"] == listed["metadata"] == {"source": "crm"}

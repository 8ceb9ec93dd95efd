"""The memory dashboard through Django's test client: browse, detail, edit, delete, bulk,
graph data, playground, export and import — and who may do what."""

from __future__ import annotations

import json
from typing import Any

import pytest
from asgiref.sync import async_to_sync

from audit.actors import Actor
from audit.models import AuditEvent
from memory.contracts import engram_items
from memory.models import Cue, Engram, ImportJob
from memory.services import access
from memory.services.remember import engrams_remember
from memory.services.transfer import import_run
from tenants import rls
from tests.factories import Cast
from tests.frontend.test_dashboard import HTMX, logged_in

pytestmark = pytest.mark.django_db
BASE = "/t/acme/memory/default"


def seed(cast: Cast, items: list[dict[str, Any]], network: str = "default") -> list[int]:
    with rls.tenant_scope(cast.tenant.pk):
        result = engrams_remember(
            tenant=cast.tenant,
            actor=Actor.system("test"),
            network_key=network,
            items=engram_items(items),
            source="api",
        )
    return [o.id for o in result.outcomes]


def engram(cast: Cast, pk: int) -> Engram:
    with rls.tenant_scope(cast.tenant.pk):
        return Engram.objects.get(pk=pk)


def test_the_browser_filters_sorts_and_pages_with_a_cursor(cast: Cast) -> None:
    items = [{"content": f"Fact number {i} about trains", "strength": i / 100} for i in range(60)]
    items.append({"content": "Deploy by tagging the release", "type": "PATTERN"})
    seed(cast, items)
    client = logged_in(cast.viewer)
    first = client.get(f"{BASE}/").content.decode()
    assert first.count('data-engram="') == 50 and 'data-testid="load-more"' in first
    assert "Deploy by tagging" in first  # newest first
    patterns = client.get(f"{BASE}/?type=PATTERN").content.decode()
    assert patterns.count('data-engram="') == 1
    strongest = client.get(f"{BASE}/?sort=strongest&q=trains").content.decode()
    assert strongest.index("Fact number 59 ") < strongest.index("Fact number 58 ")
    cursor = strongest.split("cursor=")[1].split('"')[0]
    more = client.get(f"{BASE}/?sort=strongest&q=trains&cursor={cursor}", **HTMX).content.decode()
    assert more.count('data-engram="') == 10 and "Fact number 0 " in more
    assert "Fact number 59 " not in more
    bad = client.get(f"{BASE}/?since=yesterday")
    assert bad.status_code == 200 and "a date like" in bad.content.decode()


def test_the_detail_shows_cues_edges_embedding_and_history(cast: Cast) -> None:
    (pk,) = seed(
        cast, [{"content": "Redis listens on port 6379", "schema": ["Redis", "port", "6379"]}]
    )
    page = logged_in(cast.viewer).get(f"{BASE}/engrams/{pk}/").content.decode()
    assert "Redis listens on port 6379" in page and ">Redis<" in page and ">6379<" in page
    assert "waiting for the worker" in page and "engram.create" in page
    assert 'data-testid="edit"' not in page  # viewers read


def test_a_member_edits_inline_and_the_change_is_in_the_history(cast: Cast) -> None:
    (pk,) = seed(cast, [{"content": "Redis listens on 6379"}])
    client = logged_in(cast.member)
    form = client.get(f"{BASE}/engrams/{pk}/?edit=1", **HTMX).content.decode()
    assert 'data-testid="engram-form"' in form
    saved = client.post(
        f"{BASE}/engrams/{pk}/edit",
        {
            "content": "Redis listens on 6380",
            "schema": "",
            "type": "ATOMIC",
            "strength": "0.9",
            "importance": "0.5",
        },
        **HTMX,
    )
    html = saved.content.decode()
    assert saved.status_code == 200 and "Redis listens on 6380" in html
    assert "engram.update" in html and "6379" in html  # before and after in the history
    assert engram(cast, pk).strength == pytest.approx(0.9)
    wrong = {"content": "x", "type": "ATOMIC", "strength": "7", "importance": "0.5"}
    bad = client.post(f"{BASE}/engrams/{pk}/edit", wrong, **HTMX)
    assert bad.status_code == 400 and "strength" in bad.content.decode()
    assert client.post(f"{BASE}/engrams/{pk}/delete").status_code == 403  # members do not delete


def test_admins_delete_one_or_many_and_members_retype_many(cast: Cast) -> None:
    ids = seed(cast, [{"content": f"Note {i}"} for i in range(3)])
    member = logged_in(cast.member)
    member.post(f"{BASE}/bulk", {"action": "retype", "type": "LINK", "ids": ids[:2]})
    assert [engram(cast, i).type for i in ids] == ["LINK", "LINK", "ATOMIC"]
    assert member.post(f"{BASE}/bulk", {"action": "delete", "ids": ids}).status_code == 403
    admin = logged_in(cast.admin)
    admin.post(f"{BASE}/bulk", {"action": "delete", "ids": ids[:2]})
    admin.post(f"{BASE}/engrams/{ids[2]}/delete")
    assert {engram(cast, i).status for i in ids} == {"deleted"}
    with rls.tenant_scope(cast.tenant.pk):
        verbs = ["engram.update", "engram.delete"]
        assert AuditEvent.objects.filter(tenant=cast.tenant, verb__in=verbs).count() == 5


def test_graph_data_is_a_bounded_neighbourhood_and_cues_list_their_memories(cast: Cast) -> None:
    seed(
        cast,
        [
            {"content": f"trains {i} tickets", "schema": ["trains", f"stop{i}", "tickets"]}
            for i in range(200)
        ],
    )
    client = logged_in(cast.viewer)
    with rls.tenant_scope(cast.tenant.pk):
        hub = Cue.objects.get(tenant=cast.tenant, lemma="train")
    data = client.get(f"{BASE}/graph.json?cue={hub.pk}&depth=2").json()
    assert data["center"] == hub.pk and 1 < len(data["nodes"]) <= 150
    assert all(0 < e["weight"] <= 1 for e in data["edges"])
    assert {n["depth"] for n in data["nodes"]} <= {0, 1, 2}
    page = client.get(f"{BASE}/graph/?word=trains").content.decode()
    assert f'data-center="{hub.pk}"' in page
    found = client.get(f"{BASE}/cues?q=trian").content.decode()  # a typo still finds it
    assert "trains" in found
    memories = client.get(f"{BASE}/cues/{hub.pk}/").content.decode()
    assert memories.count("<li>") == 20


def test_the_playground_shows_the_mind_without_counting_as_a_recall(cast: Cast) -> None:
    (pk,) = seed(cast, [{"content": "Alice prefers window seats on trains"}])
    client = logged_in(cast.viewer)
    html = client.get(f"{BASE}/playground/?run=1&query=window+seat&what=recall", **HTMX)
    text = html.content.decode()
    assert html.status_code == 200 and "Alice prefers window seats" in text
    assert 'id="mind-data"' in text and "activation" in text
    mind = json.loads(
        text.split('id="mind-data" type="application/json">')[1].split("</script>")[0]
    )
    assert mind["engrams"][0]["in_context"] and mind["cues"]
    assert mind["engrams"][0]["why"]["led_by"] and 'data-testid="led-by"' in text
    access.flush()
    assert engram(cast, pk).recall_count == 0  # looking is not recalling
    primed = client.get(f"{BASE}/playground/?run=1&what=prime", **HTMX).content.decode()
    assert "Alice prefers" in primed


def test_the_playground_filters_by_speaker(cast: Cast) -> None:
    seed(
        cast,
        [
            {"content": "Alice: I always book a window seat on the night train"},
            {"content": "Bob: I never book a window seat, the aisle is easier"},
        ],
    )
    client = logged_in(cast.viewer)
    page_ = client.get(f"{BASE}/playground/?run=1&query=window+seat&speaker=alice", **HTMX)
    text = page_.content.decode()
    assert "night train" in text and "aisle is easier" not in text
    bad = client.get(f"{BASE}/playground/?run=1&query=seat&speaker=" + "x" * 101, **HTMX)
    assert bad.status_code == 200 and "speaker" in bad.content.decode()


def test_the_playground_says_a_memory_is_from_whom_the_question_names(cast: Cast) -> None:
    seed(
        cast,
        [
            {"content": "Alice: I always book a window seat on the night train"},
            {"content": "Bob: I always book a window seat on the night train too"},
        ],
    )
    client = logged_in(cast.viewer)
    page_ = client.get(
        f"{BASE}/playground/?run=1&query=which+seat+does+Bob+book+on+the+train", **HTMX
    )
    rows = [row.split("</tr>")[0] for row in page_.content.decode().split("<tr")]
    rows = [row for row in rows if 'class="why"' in row]  # the ranked memories' rows
    (bob,) = [row for row in rows if "Bob: I always" in row]
    (alice,) = [row for row in rows if "Alice: I always" in row]
    assert "said by whom the question asks about" in bob
    assert "said by whom" not in alice


def test_export_then_import_round_trips_and_reports_bad_lines(cast: Cast) -> None:
    seed(
        cast,
        [
            {
                "content": "Trains beat planes under 500 km",
                "external_id": "t1",
                "metadata": {"by": "ops"},
            },
            {"content": "Night trains save a hotel", "external_id": "t2"},
        ],
    )
    client = logged_in(cast.viewer)
    response = client.get(f"{BASE}/export.jsonl")
    assert response.is_async  # an async body streams under ASGI; a sync one is read whole first

    async def collect() -> bytes:
        return b"".join([part async for part in response.streaming_content])

    lines = [json.loads(line) for line in async_to_sync(collect)().splitlines()]
    assert lines[0]["kind"] == "mnemo-network"
    assert [line["kind"] for line in lines].count("engram") == 2
    assert any(line["kind"] == "edge" for line in lines)
    bad = "\n".join(
        [
            json.dumps(lines[1]),
            "{not json",
            json.dumps({"content": ""}),
            json.dumps({"kind": "planet"}),
            json.dumps(lines[2]),
        ]
    )
    admin = logged_in(cast.admin)
    from django.core.files.uploadedfile import SimpleUploadedFile

    upload = SimpleUploadedFile("trains.jsonl", bad.encode(), content_type="application/x-ndjson")
    started = admin.post("/t/acme/import/", {"network": "copy", "file": upload})
    assert started.status_code == 302
    with rls.tenant_scope(cast.tenant.pk):
        job = ImportJob.objects.get(tenant=cast.tenant)
    done = import_run(tenant_id=cast.tenant.pk, job_id=job.pk)  # what the worker runs
    assert done.status == "done" and done.counts["created"] == 2
    assert [e["line"] for e in done.errors] == [2, 3, 4]
    page = admin.get(f"/t/acme/import/{job.pk}/").content.decode()
    assert 'data-line="2"' in page and "not valid JSON" in page
    # the same file again changes nothing: external ids make it idempotent
    with rls.tenant_scope(cast.tenant.pk):
        again = ImportJob.objects.create(
            tenant=cast.tenant, network_key="copy", payload=bad, total_lines=5, created_by="test"
        )
    second = import_run(tenant_id=cast.tenant.pk, job_id=again.pk)
    assert second.counts.get("unchanged") == 2 and "created" not in second.counts
    member = logged_in(cast.member)
    assert member.post("/t/acme/import/", {"network": "x"}).status_code == 403


def test_another_tenants_network_and_memories_are_404(cast: Cast) -> None:
    (pk,) = seed(cast, [{"content": "Acme secret plan"}])
    outsider = logged_in(cast.outsider)
    for url in (
        f"{BASE}/",
        f"{BASE}/engrams/{pk}/",
        f"{BASE}/graph/",
        f"{BASE}/export.jsonl",
        f"{BASE}/playground/",
    ):
        assert outsider.get(url).status_code == 404, url
    # through their own workspace, the other tenant's ids do not resolve either
    assert outsider.get(f"/t/globex/memory/default/engrams/{pk}/").status_code == 404
    with rls.tenant_scope(cast.tenant.pk):
        job = ImportJob.objects.create(tenant=cast.tenant, network_key="default", created_by="test")
    assert outsider.get(f"/t/acme/import/{job.pk}/").status_code == 404
    assert outsider.get(f"/t/globex/import/{job.pk}/").status_code == 404
    assert logged_in(cast.viewer).get(f"/t/acme/import/{job.pk}/").status_code == 200
    assert logged_in(cast.viewer).get("/t/acme/memory/nope/").status_code == 404


def test_the_overview_plots_growth_and_recall_latency(cast: Cast) -> None:
    seed(cast, [{"content": "Something worth keeping"}])
    client = logged_in(cast.viewer)
    with rls.tenant_scope(cast.tenant.pk):
        from memory.services.recall import RecallOptions, network_recall

        network_recall(
            tenant=cast.tenant,
            actor=Actor.system("t"),
            network_key="default",
            query="keeping",
            options=RecallOptions(),
        )
    access.flush()  # the worker's job, every 2 s
    page = client.get("/t/acme/").content.decode()
    assert 'id="chart-data"' in page and 'data-testid="latency"' in page
    charts = json.loads(page.split('id="chart-data" type="application/json">')[1].split("</")[0])
    assert charts["growth"]["total"][-1] == 1 and sum(charts["activity"]["recall"]) == 1
    assert "Something worth keeping" in page


def test_bulk_deletion_is_refused_by_the_service_itself_below_admin(cast: Cast) -> None:
    from base.errors import PermissionDenied
    from memory.services.engrams import engrams_bulk

    ids = seed(cast, [{"content": "Keep me"}])
    with rls.tenant_scope(cast.tenant.pk):
        rows = list(Engram.objects.filter(pk__in=ids))
        member = Actor.for_user(cast.member, role="member")
        with pytest.raises(PermissionDenied):
            engrams_bulk(tenant=cast.tenant, actor=member, engrams=rows, action="delete")
        viewer = Actor.for_user(cast.viewer, role="viewer")
        with pytest.raises(PermissionDenied):
            engrams_bulk(
                tenant=cast.tenant, actor=viewer, engrams=rows, action="retype", type="LINK"
            )
    assert engram(cast, ids[0]).status == "active"


def test_import_survives_bad_numbers_in_any_kind_of_line(cast: Cast) -> None:
    lines = "\n".join(
        [
            '{"content": "Fine line", "external_id": "a"}',
            '{"content": "NaN inside", "metadata": {"x": NaN}}',
            '{"kind": "cue", "word": "fine", "recall_count": "many", "last_recalled_at": "soon"}',
            '{"kind": "edge", "source": "fine", "target": "line", "type": "sequence", '
            '"weight": 1e999, "count": 1e999}',
        ]
    )
    with rls.tenant_scope(cast.tenant.pk):
        job = ImportJob.objects.create(
            tenant=cast.tenant,
            network_key="default",
            payload=lines,
            total_lines=4,
            created_by="test",
        )
    done = import_run(tenant_id=cast.tenant.pk, job_id=job.pk)
    assert done.status == "done" and done.counts["created"] == 1
    assert [e["line"] for e in done.errors] == [2]
    with rls.tenant_scope(cast.tenant.pk):
        assert ImportJob.objects.get(pk=job.pk).payload == ""


def test_a_redelivered_import_resumes_after_the_committed_lines(cast: Cast) -> None:
    lines = "\n".join(json.dumps({"content": f"Line {i}"}) for i in range(1, 5))
    with rls.tenant_scope(cast.tenant.pk):
        job = ImportJob.objects.create(
            tenant=cast.tenant,
            network_key="default",
            payload=lines,
            total_lines=4,
            created_by="test",
            status="running",
            processed_lines=2,
            counts={"created": 2},
        )
    done = import_run(tenant_id=cast.tenant.pk, job_id=job.pk)
    assert done.counts["created"] == 4  # lines 3 and 4 only; 1 and 2 were in before the crash
    with rls.tenant_scope(cast.tenant.pk):
        assert not Engram.objects.filter(tenant=cast.tenant, content="Line 1").exists()


def test_odd_input_is_a_clear_answer_not_a_server_error(cast: Cast) -> None:
    import base64

    seed(cast, [{"content": "Something"}])
    client = logged_in(cast.viewer)
    huge = base64.urlsafe_b64encode(b"[0.5, 1e999]").decode().rstrip("=")
    page = client.get(f"{BASE}/?sort=strongest&cursor={huge}", **HTMX)
    assert page.status_code == 200
    assert client.get(f"{BASE}/graph.json?cue=%C2%B2").status_code == 400  # "²" is no id
    assert client.get(f"{BASE}/graph/?cue=%C2%B2").status_code == 200
    today = client.get(f"{BASE}/?since=2020-01-01&until=2999-12-31").content.decode()
    assert "Something" in today
    assert "Something" not in client.get(f"{BASE}/?until=2020-01-01").content.decode()

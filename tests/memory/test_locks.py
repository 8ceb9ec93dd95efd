"""Row locks of the write paths: what a change locks, other writers can still use."""

from __future__ import annotations

import threading

import pytest
from django.db import connection

from audit.actors import Actor
from memory.contracts import EngramPatch
from memory.models import Engram
from memory.services.engrams import engram_update
from tenants import rls
from tests.factories import Cast
from tests.memory.test_recall import store

ACTOR = Actor.system("tests")


@pytest.mark.django_db(transaction=True)
def test_editing_an_engram_leaves_its_network_free_for_other_writers(cast: Cast) -> None:
    """The edit locks the engram only: a plain FOR UPDATE on the joined network row would block
    every remember and recall of the network until the edit commits."""
    store(cast, [{"content": "Standup is at nine"}], embed=False)
    with rls.tenant_scope(cast.tenant.pk):
        engram = Engram.objects.get(tenant=cast.tenant)
    editing, release = threading.Event(), threading.Event()

    def edit() -> None:
        try:
            with rls.tenant_scope(cast.tenant.pk):
                patch = EngramPatch.model_validate({"content": "Standup is at ten"})
                engram_update(tenant=cast.tenant, actor=ACTOR, engram=engram, patch=patch)
                editing.set()
                release.wait(10)
        finally:
            editing.set()
            connection.close()

    editor = threading.Thread(target=edit)
    editor.start()
    try:
        assert editing.wait(10)
        with rls.tenant_scope(cast.tenant.pk), connection.cursor() as cursor:
            cursor.execute(
                "SELECT id FROM memory_network WHERE id = %s FOR KEY SHARE NOWAIT",
                [engram.network_id],
            )  # what inserting an engram into the network needs; raises if it would wait
            assert cursor.fetchone() == (engram.network_id,)
    finally:
        release.set()
        editor.join()

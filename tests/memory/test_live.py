"""Live updates: a committed write's event reaches the tenant's Channels group (real Redis),
a rolled-back one never does, and a slow layer never holds a write's answer back."""

from __future__ import annotations

import asyncio
import threading
from collections.abc import Coroutine
from concurrent.futures import ThreadPoolExecutor
from typing import Any

import pytest
from channels.layers import get_channel_layer
from django.db import transaction

from audit.actors import Actor
from memory import live
from memory.contracts import engram_items
from memory.services.remember import engrams_remember
from tenants import rls
from tests.factories import Cast

pytestmark = pytest.mark.django_db(transaction=True)


def remember(cast: Cast, content: str) -> None:
    with transaction.atomic():
        rls.activate(tenant_id=cast.tenant.pk)
        engrams_remember(
            tenant=cast.tenant,
            actor=Actor.system("tests"),
            network_key="default",
            items=engram_items([{"content": content}]),
            source="api",
        )


def aside[T](work: Coroutine[Any, Any, T]) -> T:
    """Run ``work`` on a loop of its own in another thread (the browser tests' Playwright keeps
    a loop running in this one, where ``async_to_sync`` refuses to run)."""
    with ThreadPoolExecutor(1) as pool:
        return pool.submit(asyncio.run, work).result()


def listen(tenant_id: int) -> str:
    layer = get_channel_layer()

    async def join() -> str:
        channel = await layer.new_channel()
        await layer.group_add(live.group_name(tenant_id), channel)
        return channel

    return aside(join())


def heard(channel: str, timeout: float = 5.0) -> dict[str, Any] | None:
    layer = get_channel_layer()

    async def one() -> dict[str, Any] | None:
        try:
            return await asyncio.wait_for(layer.receive(channel), timeout)
        except TimeoutError:
            return None

    return aside(one())


def test_a_committed_write_reaches_its_tenants_group_only(cast: Cast) -> None:
    ours, theirs = listen(cast.tenant.pk), listen(cast.other.pk)
    remember(cast, "The staging database moved to port 6543 on Monday.")
    message = heard(ours)
    assert message is not None and message["type"] == "memory.event"
    assert message["event"]["type"] == "remembered" and message["event"]["created"] == 1
    assert "port 6543" in message["event"]["engrams"][0]["content"]
    assert heard(theirs, timeout=0.5) is None


def test_a_rolled_back_write_publishes_nothing(cast: Cast) -> None:
    ours = listen(cast.tenant.pk)
    with pytest.raises(RuntimeError), transaction.atomic():
        rls.activate(tenant_id=cast.tenant.pk)
        engrams_remember(
            tenant=cast.tenant,
            actor=Actor.system("tests"),
            network_key="default",
            items=engram_items([{"content": "This write is rolled back."}]),
            source="api",
        )
        raise RuntimeError("roll back")
    assert live._publisher.idle()
    assert heard(ours, timeout=0.5) is None


def test_a_write_answers_while_its_event_is_still_on_the_way(
    cast: Cast, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The layer holds every send until the test lets it go. Had the write waited for the
    delivery, ``remember`` would not return before ``release`` is set."""
    release, sent = threading.Event(), []
    real = get_channel_layer()

    class HeldLayer:
        async def group_send(self, group: str, message: dict[str, Any]) -> None:
            while not release.is_set():
                await asyncio.sleep(0.01)
            sent.append(group)
            await real.group_send(group, message)

    monkeypatch.setattr(live, "get_channel_layer", HeldLayer)
    monkeypatch.setattr(live, "PUBLISH_TIMEOUT", 30.0)
    ours = listen(cast.tenant.pk)
    remember(cast, "Deploys are frozen until the audit ends.")
    assert sent == []  # the write has answered; its event waits
    release.set()
    message = heard(ours)
    assert message is not None and "frozen" in message["event"]["engrams"][0]["content"]
    assert sent == [live.group_name(cast.tenant.pk)]


def test_prime_sees_a_new_hub_after_the_next_write_not_a_minute_later(cast: Cast) -> None:
    """Prime's hub cues are kept between calls (their sort reads the network's cues); the
    tenant's next write drops them, so a concept that just became the hub is primed at once."""
    from memory.services.recall import network_prime

    def primed() -> list[str]:
        with transaction.atomic():
            rls.activate(tenant_id=cast.tenant.pk)
            mind = network_prime(
                tenant=cast.tenant, actor=Actor.system("tests"), network_key="default"
            )
        return [cue.word for cue in mind.cues if cue.seed_via == "hub"]

    remember(cast, "Grafana dashboards show the checkout latency.")
    assert "Kubernetes" not in primed()
    for n in range(6):
        remember(cast, f"Kubernetes node {n} drained for the kernel upgrade.")
    assert live._publisher.idle()
    assert "Kubernetes" in primed()

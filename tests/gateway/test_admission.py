"""The admission gate: a few requests at a time per worker, reads before writes, none starved."""

from __future__ import annotations

import asyncio
from collections.abc import Coroutine
from concurrent.futures import ThreadPoolExecutor

import pytest

from config.admission import Gate, is_interactive


def run[T](coroutine: Coroutine[object, object, T]) -> T:
    """asyncio.run on a thread of its own (the browser tests leave a loop running on this one)."""
    with ThreadPoolExecutor(1) as pool:
        return pool.submit(asyncio.run, coroutine).result()


def test_reads_recall_and_mcp_are_interactive_writes_are_not() -> None:
    assert is_interactive("GET", "/api/v1/engrams")
    assert is_interactive("POST", "/api/v1/recall")
    assert is_interactive("POST", "/api/v1/prime/")
    assert is_interactive("POST", "/t/acme/mcp")
    assert not is_interactive("POST", "/api/v1/remember")
    assert not is_interactive("PATCH", "/api/v1/engrams/3")
    assert not is_interactive("POST", "/acme/memory/import/")


async def _run_in_order(gate: Gate, arrivals: list[tuple[str, bool]]) -> list[str]:
    """Fill the gate, queue ``arrivals`` in order, then free the places one by one."""
    order: list[str] = []
    for _ in range(gate.slots):
        await gate.enter(True)

    async def request(name: str, interactive: bool) -> None:
        await gate.enter(interactive)
        order.append(name)

    tasks = []
    for name, interactive in arrivals:
        tasks.append(asyncio.create_task(request(name, interactive)))
        await asyncio.sleep(0)  # queued in arrival order
    for _ in arrivals:
        gate.leave()
        await asyncio.sleep(0)
    await asyncio.gather(*tasks)
    return order


def test_waiting_reads_go_before_waiting_writes() -> None:
    gate = Gate(slots=2, promote_after=60)
    order = run(_run_in_order(gate, [("w1", False), ("r1", True), ("w2", False), ("r2", True)]))
    assert order == ["r1", "r2", "w1", "w2"]
    assert gate.busy == 2


def test_a_write_that_waited_long_enough_goes_first() -> None:
    gate = Gate(slots=1, promote_after=0)  # every waiting write is overdue at once
    order = run(_run_in_order(gate, [("r1", True), ("w1", False), ("r2", True)]))
    assert order == ["w1", "r1", "r2"]


def test_a_request_whose_client_left_gives_its_place_back() -> None:
    async def scenario() -> Gate:
        gate = Gate(slots=1)
        await gate.enter(True)
        waiting = asyncio.create_task(gate.enter(False))
        await asyncio.sleep(0)
        waiting.cancel()
        with pytest.raises(asyncio.CancelledError):
            await waiting
        assert not gate.lines[False]
        gate.leave()
        return gate

    gate = run(scenario())
    assert gate.busy == 0


def test_a_place_handed_over_to_a_request_cancelled_meanwhile_is_not_lost() -> None:
    async def scenario() -> Gate:
        gate = Gate(slots=1)
        await gate.enter(True)
        waiting = asyncio.create_task(gate.enter(True))
        await asyncio.sleep(0)
        gate.leave()  # hands the place to the waiting request ...
        waiting.cancel()  # ... which is cancelled before it runs
        with pytest.raises(asyncio.CancelledError):
            await waiting
        return gate

    assert run(scenario()).busy == 0


def test_a_streaming_response_gives_its_place_back_once_it_starts() -> None:
    from config.admission import Admission

    finish = asyncio.Event()
    served: list[str] = []

    async def app(scope: dict, receive: object, send: object) -> None:
        await send({"type": "http.response.start", "status": 200, "headers": []})  # type: ignore[operator]
        served.append(scope["path"])
        if scope["path"] == "/export":
            await finish.wait()  # still streaming its body
        await send({"type": "http.response.body", "body": b""})  # type: ignore[operator]

    async def scenario() -> None:
        gate = Admission(app, slots=1)  # type: ignore[arg-type]

        async def noop(message: object) -> None:
            return None

        def call(path: str) -> asyncio.Task[None]:
            scope = {"type": "http", "method": "GET", "path": path}
            return asyncio.create_task(gate(scope, noop, noop))  # type: ignore[arg-type]

        export = call("/export")
        await asyncio.sleep(0.01)
        await asyncio.wait_for(call("/engrams"), timeout=2)  # not stuck behind the export
        finish.set()
        await export
        assert gate.gate().busy == 0

    run(scenario())
    assert served == ["/export", "/engrams"]

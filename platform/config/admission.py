"""Admission: how many requests one web worker runs at once, and which waiting one goes next.

Python runs one thread's bytecode at a time per process, and Django gives every request a
thread of its own; fifty requests in one worker are fifty threads taking turns on one core, each
finishing late, all holding a database connection. The gate lets ``slots`` requests in at a time
(a few, enough to overlap one request's database wait with another's Python) and queues the
rest in two lines:

* **interactive**: reads (GET, HEAD, OPTIONS), recall, prime, DPML validation and MCP calls: an
  agent or a person is waiting on the answer before doing anything else;
* **writes**: remember, imports, edits: acknowledged a little later under load.

The next free slot goes to the oldest interactive request, unless the oldest write has waited
``promote_after`` seconds (writes are never starved). A request whose client goes away while it
waits leaves the line. Health probes, static files and websockets never wait here.

A slot is given back when the response starts (``http.response.start``), not when its body ends:
a streamed export keeps going without keeping others out.
"""

from __future__ import annotations

import asyncio
import time
from collections import deque
from dataclasses import dataclass, field

from starlette.types import ASGIApp, Message, Receive, Scope, Send

INTERACTIVE_POSTS = ("/api/v1/recall", "/api/v1/prime", "/api/v1/dpml/validate")
UNGATED = ("/healthz", "/livez", "/static/")


def is_interactive(method: str, path: str) -> bool:
    if method in ("GET", "HEAD", "OPTIONS"):
        return True
    return path.rstrip("/") in INTERACTIVE_POSTS or path.rstrip("/").endswith("/mcp")


@dataclass
class Gate:
    """``slots`` places and two waiting lines, for one event loop (one worker process)."""

    slots: int
    promote_after: float = 5.0
    busy: int = 0
    lines: dict[bool, deque[tuple[float, asyncio.Future[None]]]] = field(
        default_factory=lambda: {True: deque(), False: deque()}
    )

    async def enter(self, interactive: bool) -> None:
        if self.busy < self.slots and not self.lines[True] and not self.lines[False]:
            self.busy += 1
            return
        waiter: asyncio.Future[None] = asyncio.get_running_loop().create_future()
        entry = (time.monotonic(), waiter)
        self.lines[interactive].append(entry)
        try:
            await waiter
        except asyncio.CancelledError:
            if waiter.done() and not waiter.cancelled():
                self.leave()  # the place was handed over just as the client went away
            elif entry in self.lines[interactive]:  # (leave() may have skipped it already)
                self.lines[interactive].remove(entry)
            raise

    def leave(self) -> None:
        """Hand the place to the next in line, or free it."""
        reads, writes = self.lines[True], self.lines[False]
        while reads or writes:
            overdue = writes and time.monotonic() - writes[0][0] >= self.promote_after
            line = writes if overdue or not reads else reads
            _, waiter = line.popleft()
            if not waiter.done():
                waiter.set_result(None)  # busy stays the same: the place changes hands
                return
        self.busy -= 1


class Admission:
    """ASGI middleware putting every HTTP request (but probes and static files) through a Gate."""

    def __init__(self, app: ASGIApp, slots: int, promote_after: float = 5.0) -> None:
        self.app = app
        self.slots = slots
        self.promote_after = promote_after
        self.gates: dict[asyncio.AbstractEventLoop, Gate] = {}

    def gate(self) -> Gate:
        loop = asyncio.get_running_loop()
        if loop not in self.gates:
            self.gates[loop] = Gate(self.slots, self.promote_after)
        return self.gates[loop]

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        path = scope.get("path", "")
        if scope["type"] != "http" or self.slots <= 0 or path.startswith(UNGATED):
            await self.app(scope, receive, send)
            return
        gate = self.gate()
        await gate.enter(is_interactive(scope["method"], path))
        held = True

        async def releasing_send(message: Message) -> None:
            nonlocal held
            if held and message["type"] == "http.response.start":
                held = False
                gate.leave()
            await send(message)

        try:
            await self.app(scope, receive, releasing_send)
        finally:
            if held:
                gate.leave()

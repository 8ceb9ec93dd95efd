"""A scripted OpenAI-compatible chat server on loopback, for tests of the LLM extractor: the
provider is the external part, so a real HTTP server speaks its protocol with answers the test
writes (the code under test is never replaced)."""

from __future__ import annotations

import json
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import Any

import uvicorn
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import JSONResponse, Response
from starlette.routing import Route

from config.embedded import free_port

# what a provider says of "Nadia: I lead the Orbit project since spring.": one fact it quotes,
# and one it makes up (no quote in the message: the extractor drops it)
ORBIT = {
    "entities": [{"name": "Orbit", "kind": "project"}, {"name": "Nadia", "kind": "person"}],
    "facts": [
        {
            "subject": "I",
            "predicate": "leads",
            "object": "Orbit",
            "slot": "leads",
            "quote": "I lead the Orbit project",
            "confidence": 0.9,
            "valid_from": None,
            "ends": False,
        },
        {
            "subject": "Nadia",
            "predicate": "works at",
            "object": "Vexa",
            "slot": "works_at",
            "quote": "something the message never says",  # no evidence: dropped
            "confidence": 0.9,
            "valid_from": None,
            "ends": False,
        },
    ],
}


@dataclass
class Script:
    """How the provider answers: "ok" (facts for what it is told), "fail" (HTTP 500), "junk"
    (content that is not JSON)."""

    mode: str = "ok"
    answers: dict[str, dict[str, Any]] = field(default_factory=dict)  # message part -> answer
    seen: list[dict[str, Any]] = field(default_factory=list)
    reply: Callable[[str], dict[str, Any]] | None = None  # the answer to what it was told


@contextmanager
def scripted_llm() -> Iterator[tuple[str, Script]]:
    """The server's base URL (``…/v1``) and its script, for the block's duration."""
    script = Script()

    async def endpoint(request: Request) -> Response:
        body = await request.json()
        script.seen.append({"body": body, "auth": request.headers.get("authorization")})
        if script.mode == "fail":
            return JSONResponse({"error": {"message": "overloaded"}}, status_code=500)
        said = body["messages"][-1]["content"]
        answer = (
            script.reply(said)
            if script.reply
            else next(
                (a for part, a in script.answers.items() if part in said),
                {"entities": [], "facts": []},
            )
        )
        content = "not json at all" if script.mode == "junk" else json.dumps(answer)
        return JSONResponse(
            {
                "id": "chatcmpl-1",
                "object": "chat.completion",
                "model": body["model"],
                "choices": [{"index": 0, "message": {"role": "assistant", "content": content}}],
                "usage": {"prompt_tokens": 100, "completion_tokens": 20, "total_tokens": 120},
            }
        )

    port = free_port()
    server = uvicorn.Server(
        uvicorn.Config(
            Starlette(routes=[Route("/v1/chat/completions", endpoint, methods=["POST"])]),
            host="127.0.0.1",
            port=port,
            log_level="warning",
        )
    )
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    while not server.started:
        time.sleep(0.05)
    yield f"http://127.0.0.1:{port}/v1", script
    server.should_exit = True
    thread.join(timeout=10)

"""EMBEDDINGS_URL: the OpenAI-compatible client, against a real HTTP server on loopback that
answers with the local model's vectors (a peer speaking the protocol, not a mock of our code)."""

from __future__ import annotations

import threading
import time
from collections.abc import Iterator

import pytest
import uvicorn
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import JSONResponse
from starlette.routing import Route

from config.embedded import free_port
from memory import embeddings
from memory.embeddings import HttpEmbedder, LocalMiniLM


@pytest.fixture(scope="module")
def embeddings_server() -> Iterator[tuple[str, list[dict[str, object]]]]:
    local = LocalMiniLM()
    seen: list[dict[str, object]] = []

    async def endpoint(request: Request) -> JSONResponse:
        body = await request.json()
        seen.append({"body": body, "auth": request.headers.get("authorization")})
        vectors = local.embed(list(body["input"]))
        if body["model"] == "tiny-model":  # a model with other dimensions
            vectors = [v[:128] for v in vectors]
        return JSONResponse(
            {
                "object": "list",
                "model": body["model"],
                "data": [
                    {"object": "embedding", "index": i, "embedding": v}
                    for i, v in enumerate(vectors)
                ][::-1],
            }
        )  # out of order on purpose: clients must sort by index

    port = free_port()
    server = uvicorn.Server(
        uvicorn.Config(
            Starlette(routes=[Route("/v1/embeddings", endpoint, methods=["POST"])]),
            host="127.0.0.1",
            port=port,
            log_level="warning",
        )
    )
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    while not server.started:
        time.sleep(0.05)
    yield f"http://127.0.0.1:{port}/v1", seen
    server.should_exit = True
    thread.join(timeout=10)


def test_the_http_embedder_sends_the_model_and_key_and_orders_by_index(
    embeddings_server: tuple[str, list[dict[str, object]]],
) -> None:
    url, seen = embeddings_server
    client = HttpEmbedder(url, "all-MiniLM-L6-v2", "sk-test")
    vectors = client.embed(["the cat sat on the mat", "stock markets fell"])
    local = LocalMiniLM().embed(["the cat sat on the mat", "stock markets fell"])
    assert [round(x, 4) for x in vectors[0][:5]] == [round(x, 4) for x in local[0][:5]]
    assert seen[-1]["auth"] == "Bearer sk-test"
    assert seen[-1]["body"] == {
        "model": "all-MiniLM-L6-v2",
        "input": ["the cat sat on the mat", "stock markets fell"],
    }


def test_embeddings_url_selects_the_http_embedder(
    embeddings_server: tuple[str, list[dict[str, object]]], settings: object
) -> None:
    url, _ = embeddings_server
    settings.EMBEDDINGS_URL = url  # type: ignore[attr-defined]
    saved = embeddings._embedder
    embeddings._embedder = None
    try:
        chosen = embeddings.embedder()
        assert isinstance(chosen, HttpEmbedder) and chosen.url == url
        assert len(chosen.embed(["hello"])[0]) == 384
    finally:
        embeddings._embedder = saved


def test_a_model_with_other_dimensions_is_refused(
    embeddings_server: tuple[str, list[dict[str, object]]],
) -> None:
    url, _ = embeddings_server
    with pytest.raises(ValueError, match="384"):
        HttpEmbedder(url, "tiny-model", "").embed(["x"])

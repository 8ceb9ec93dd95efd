"""The peers' exports read as Mnemo's import lines, so a team can move its memories here.

- **mem0**: what ``get_all`` returns (``{"results": [...]}`` or a bare list) and its export:
  items with ``id``, ``memory``, ``created_at``, ``updated_at``, ``user_id`` / ``agent_id``,
  ``metadata``, ``categories``.
- **Zep / Graphiti**: ``{"episodes": [...], "edges" or "facts": [...], "nodes" or
  "entities": [...]}``: an episode's ``content`` is a memory; a fact edge (``fact``, ``name``,
  ``valid_at``, ``invalid_at``, ``expired_at``) is a memory with its validity in metadata and
  the names of the entities it joins; an invalidated fact is imported weaker and says so.
- **Letta** archival memory: passages (``id``, ``text``, ``created_at``, ``tags``,
  ``metadata``) as a list, or ``{"passages": [...]}`` / ``{"archival_memory": [...]}``.

Each memory keeps the peer's id as its ``external_id`` (``mem0:<id>``), so importing the same
export again changes nothing. A file that is none of these (Mnemo's own JSON lines) is left as
it is. Pure Python: no Django.
"""

from __future__ import annotations

import json
from typing import Any

MAX_ID = 180  # external ids are at most 200 characters, with the peer's prefix


def _lines(rows: list[dict[str, Any]], peer: str) -> list[str]:
    header = {"kind": "mnemo-network", "version": 1, "converted_from": peer}
    return [json.dumps(header)] + [json.dumps(row, ensure_ascii=False) for row in rows]


def _id(peer: str, value: object) -> str | None:
    if value is None or value == "":
        return None
    return f"{peer}:{str(value)[:MAX_ID]}"


def _text(value: object) -> str:
    return value.strip() if isinstance(value, str) else ""


def _meta(item: dict[str, Any], peer: str, keys: tuple[str, ...]) -> dict[str, Any]:
    extra = item.get("metadata")
    meta: dict[str, Any] = dict(extra) if isinstance(extra, dict) else {}
    meta["imported_from"] = peer
    for key in keys:
        if item.get(key) not in (None, "", []):
            meta[key] = item[key]
    return meta


def _engram(
    content: str, *, external_id: str | None, at: object, meta: dict[str, Any]
) -> dict[str, Any]:
    row: dict[str, Any] = {"kind": "engram", "content": content, "metadata": meta}
    if external_id:
        row["external_id"] = external_id
    if isinstance(at, str) and at:
        row["occurred_at"] = at
    return row


def _mem0(items: list[Any]) -> list[dict[str, Any]]:
    rows = []
    for item in items:
        if not isinstance(item, dict) or not _text(item.get("memory")):
            continue
        meta = _meta(item, "mem0", ("user_id", "agent_id", "run_id", "categories", "updated_at"))
        rows.append(
            _engram(
                _text(item["memory"]),
                external_id=_id("mem0", item.get("id")),
                at=item.get("created_at"),
                meta=meta,
            )
        )
    return rows


def _zep(data: dict[str, Any]) -> list[dict[str, Any]]:
    nodes = data.get("nodes") or data.get("entities") or []
    names = {
        str(n.get("uuid")): _text(n.get("name"))
        for n in nodes
        if isinstance(n, dict) and n.get("uuid")
    }
    rows = []
    for episode in data.get("episodes") or []:
        if not isinstance(episode, dict) or not _text(episode.get("content")):
            continue
        meta = _meta(episode, "zep", ("role", "role_type", "source", "source_description"))
        rows.append(
            _engram(
                _text(episode["content"]),
                external_id=_id("zep", episode.get("uuid")),
                at=episode.get("valid_at") or episode.get("created_at"),
                meta=meta,
            )
        )
    for edge in data.get("edges") or data.get("facts") or []:
        if not isinstance(edge, dict) or not _text(edge.get("fact")):
            continue
        meta = _meta(edge, "zep", ("name", "valid_at", "invalid_at", "expired_at"))
        meta["zep_kind"] = "fact"
        for end, said in (("source_node_uuid", "subject"), ("target_node_uuid", "object")):
            if names.get(str(edge.get(end))):
                meta[said] = names[str(edge.get(end))]
        ended = bool(edge.get("invalid_at") or edge.get("expired_at"))
        row = _engram(
            _text(edge["fact"]) + (" (no longer true)" if ended else ""),
            external_id=_id("zep", edge.get("uuid")),
            at=edge.get("valid_at") or edge.get("created_at"),
            meta=meta,
        )
        row["strength"] = 0.3 if ended else 0.6  # a value Zep closed stays, weaker
        rows.append(row)
    return rows


def _letta(items: list[Any]) -> list[dict[str, Any]]:
    rows = []
    for item in items:
        if not isinstance(item, dict) or not _text(item.get("text")):
            continue
        meta = _meta(item, "letta", ("agent_id", "tags", "source_id"))
        rows.append(
            _engram(
                _text(item["text"]),
                external_id=_id("letta", item.get("id")),
                at=item.get("created_at"),
                meta=meta,
            )
        )
    return rows


def detect(data: object) -> str | None:
    """Which peer wrote this JSON document: "mem0", "zep", "letta", or None."""
    items: object = data
    if isinstance(data, dict):
        graph = any(k in data for k in ("episodes", "edges", "facts", "nodes"))
        if graph and "results" not in data:
            return "zep"
        items = data.get("results") or data.get("memories") or data.get("passages")
        items = items or data.get("archival_memory")
    if not isinstance(items, list) or not items or not isinstance(items[0], dict):
        return None
    first = items[0]
    if "memory" in first:
        return "mem0"
    if "text" in first and ("agent_id" in first or "embedding_config" in first or "id" in first):
        return "letta"
    return None


def convert(text: str) -> tuple[str | None, str]:
    """(the peer, Mnemo's import lines) for a peer's export; (None, text) for anything else
    (Mnemo's own JSON lines, or a file the importer reports line by line)."""
    stripped = text.lstrip()
    if not stripped.startswith(("{", "[")):
        return None, text
    try:
        data = json.loads(text)
    except (ValueError, RecursionError):
        return None, text  # JSON lines (many documents), or broken: the importer says which
    peer = detect(data)
    if peer is None:
        return None, text
    if peer == "zep":
        rows = _zep(data)
    else:
        items = data
        if isinstance(data, dict):
            items = (
                data.get("results")
                or data.get("memories")
                or data.get("passages")
                or data.get("archival_memory")
            )
        rows = _mem0(items) if peer == "mem0" else _letta(items)
    return peer, "\n".join(_lines(rows, peer)) + "\n"

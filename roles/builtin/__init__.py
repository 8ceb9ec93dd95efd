"""The built-in experts: DPML files shipped with the code, read and parsed once per process.

``roles/<slug>.md`` are roles (named in ``catalog.toml``), ``resources/<kind>/<name>.md`` the
thoughts, executions and knowledge they reference. A tenant's own role or resource of the same
slug or name takes precedence for that tenant (see ``roles.selectors``).
"""

from __future__ import annotations

import hashlib
import tomllib
from dataclasses import dataclass
from functools import cache
from pathlib import Path
from typing import cast

from roles.dpml import Document, parse
from roles.dpml.resolve import Key
from roles.dpml.tree import ResourceKind

BASE = Path(__file__).resolve().parent


@dataclass(frozen=True)
class BuiltinRole:
    slug: str
    name: str
    description: str
    source: str
    document: Document


@dataclass(frozen=True)
class BuiltinResource:
    kind: str
    name: str
    source: str
    document: Document


@dataclass(frozen=True)
class Registry:
    roles: dict[str, BuiltinRole]
    resources: dict[Key, BuiltinResource]
    fingerprint: str  # changes whenever any built-in file changes (cache keys include it)


@cache
def registry() -> Registry:
    catalog_text = (BASE / "catalog.toml").read_text(encoding="utf-8")
    catalog = tomllib.loads(catalog_text)
    digest = hashlib.sha256(catalog_text.encode())  # names are persona titles
    roles: dict[str, BuiltinRole] = {}
    for path in sorted((BASE / "roles").glob("*.md")):
        source = path.read_text(encoding="utf-8")
        digest.update(path.name.encode() + source.encode())
        entry = catalog.get(path.stem, {})
        roles[path.stem] = BuiltinRole(
            slug=path.stem,
            name=entry.get("name", path.stem.replace("-", " ").capitalize()),
            description=entry.get("description", ""),
            source=source,
            document=parse(source, "role"),
        )
    resources: dict[Key, BuiltinResource] = {}
    for path in sorted((BASE / "resources").glob("*/*.md")):
        kind = cast(ResourceKind, path.parent.name)  # the folders are the three kinds
        source = path.read_text(encoding="utf-8")
        digest.update(f"{kind}/{path.name}".encode() + source.encode())
        key = (kind, path.stem)
        resources[key] = BuiltinResource(
            kind=kind,
            name=path.stem,
            source=source,
            document=parse(source, kind),
        )
    return Registry(roles=roles, resources=resources, fingerprint=digest.hexdigest()[:16])

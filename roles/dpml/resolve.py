"""Resolving ``@kind://name`` references: breadth first, one batched load per level.

The loader receives every reference of a level at once (a role with twenty references costs as
many loads as its reference chain is deep, not twenty), so a database-backed loader makes one
query per level and a cache in front of it makes none.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass, field

from roles.dpml.tree import Document, DpmlError, Reference, ResourceKind

Key = tuple[ResourceKind, str]
Loader = Callable[[set[Key]], dict[Key, Document]]
MAX_DEPTH = 8
MAX_RESOURCES = 200


def uri(key: Key) -> str:
    return f"{key[0]}://{key[1]}"


@dataclass
class Resolution:
    resources: dict[Key, Document] = field(default_factory=dict)
    missing: set[Key] = field(default_factory=set)
    errors: list[DpmlError] = field(default_factory=list)
    loads: int = 0  # how many times the loader ran (one per level)

    @property
    def ok(self) -> bool:
        return not any(e.severity == "error" for e in self.errors)


def resolve(document: Document, load: Loader) -> Resolution:
    result = Resolution()
    frontier = {r.key for r in document.references()}
    depth = 0
    while frontier:
        batch = frontier - result.resources.keys() - result.missing
        if not batch:
            break
        depth += 1
        if depth > MAX_DEPTH or len(result.resources) + len(batch) > MAX_RESOURCES:
            first = _first_reference_to(document, result, batch)
            result.errors.append(
                DpmlError(
                    "too_deep",
                    f"references go more than {MAX_DEPTH} levels deep or reach more than "
                    f"{MAX_RESOURCES} resources",
                    first.line if first else 1,
                    first.column if first else 1,
                )
            )
            break
        found = load(batch)
        result.loads += 1
        for key in batch:
            if key in found:
                result.resources[key] = found[key]
            else:
                result.missing.add(key)
        frontier = {r.key for key in batch if key in found for r in found[key].references()}
    _check_references(document, result)
    _check_cycles(document, result)
    result.errors.sort(key=lambda e: (e.document != "", e.document, e.line, e.column))
    return result


def _documents(document: Document, result: Resolution) -> Iterable[tuple[str, Document]]:
    yield "", document
    for key, doc in result.resources.items():
        yield uri(key), doc


def _first_reference_to(document: Document, result: Resolution, keys: set[Key]) -> Reference | None:
    for _, doc in _documents(document, result):
        for ref in doc.references():
            if ref.key in keys:
                return ref
    return None


def _check_references(document: Document, result: Resolution) -> None:
    for where, doc in _documents(document, result):
        for ref in doc.references():
            if ref.key in result.missing:
                if ref.required:
                    result.errors.append(
                        DpmlError(
                            "missing_reference",
                            f"there is no {ref.kind} named '{ref.name}'; create "
                            f"it, fix the name, or make the reference optional with @?{ref.uri}",
                            ref.line,
                            ref.column,
                            document=where,
                        )
                    )
                else:
                    result.errors.append(
                        DpmlError(
                            "optional_reference_missing",
                            f"optional {ref.uri} does not exist; it is left out",
                            ref.line,
                            ref.column,
                            "warning",
                            where,
                        )
                    )
            elif ref.key in result.resources and not result.resources[ref.key].ok:
                first = next(e for e in result.resources[ref.key].errors if e.severity == "error")
                result.errors.append(
                    DpmlError(
                        "broken_reference",
                        f"{ref.uri} has errors ({first})",
                        ref.line,
                        ref.column,
                        document=where,
                    )
                )


def _check_cycles(document: Document, result: Resolution) -> None:
    """Depth-first from the document; a reference back into the current path is a cycle,
    reported once, at that reference, with the whole loop spelled out."""
    path: list[Key] = []
    done: set[Key] = set()

    def visit(where: str, doc: Document) -> None:
        for ref in doc.references():
            if ref.key in path:
                loop = [*path[path.index(ref.key) :], ref.key]
                result.errors.append(
                    DpmlError(
                        "reference_cycle",
                        "references go round in a circle: " + " → ".join(uri(k) for k in loop),
                        ref.line,
                        ref.column,
                        document=where,
                    )
                )
                continue
            if ref.key in done or ref.key not in result.resources:
                continue
            path.append(ref.key)
            visit(uri(ref.key), result.resources[ref.key])
            path.pop()
            done.add(ref.key)

    visit("", document)

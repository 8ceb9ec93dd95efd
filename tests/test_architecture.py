"""The import rules of docs/ARCHITECTURE.md: every arrow points one way, and no module imports
itself back through others. Every import counts, also the ones inside functions and under
``TYPE_CHECKING`` (a circle held apart by a late import is still a circle)."""

from __future__ import annotations

import ast
import re
from collections.abc import Iterator
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]

# package -> the first-party packages it may import (besides itself). Lower layers first.
ALLOWED: dict[str, frozenset[str]] = {
    "base": frozenset(),
    "audit": frozenset({"base"}),
    "tenants": frozenset({"audit", "base"}),
    "memory": frozenset({"tenants", "audit", "base"}),
    "roles": frozenset({"memory", "tenants", "audit", "base"}),
    "gateway": frozenset({"roles", "memory", "tenants", "audit", "base"}),
    "frontend": frozenset({"roles", "memory", "tenants", "audit", "base"}),
    "config": frozenset({"frontend", "gateway", "roles", "memory", "tenants", "audit", "base"}),
}
# Migrations secure their tables with the row-level-security helper of tenants: every tenant
# table references tenants.Tenant, so migrating any app already needs tenants' migrations.
MIGRATIONS_MAY_IMPORT = frozenset({"tenants.rls", "tenants"})
# Pure packages: the standard library (and numpy) only, nothing first-party but themselves.
PURE = ("memory.core", "roles.dpml")


def package_roots() -> dict[str, Path]:
    roots = {name: ROOT / name for name in ("memory", "roles", "frontend")}
    for name in ("base", "audit", "tenants", "gateway", "config"):
        roots[name] = ROOT / "platform" / name
    return roots


def module_name(package: str, path: Path, root: Path) -> str:
    parts = [package, *path.relative_to(root).with_suffix("").parts]
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def modules() -> Iterator[tuple[str, str, Path]]:
    """(package, dotted module name, file) for every production module."""
    for package, root in package_roots().items():
        for path in sorted(root.rglob("*.py")):
            if "node_modules" not in path.parts:
                yield package, module_name(package, path, root), path


def imported(path: Path) -> Iterator[tuple[str, int]]:
    """Every absolute module an import statement in ``path`` names, at any depth."""
    for node in ast.walk(ast.parse(path.read_text(), str(path))):
        if isinstance(node, ast.Import):
            for alias in node.names:
                yield alias.name, node.lineno
        elif isinstance(node, ast.ImportFrom):
            assert node.level == 0, f"{path}:{node.lineno}: relative import"
            assert node.module is not None
            yield node.module, node.lineno
            for alias in node.names:  # `from memory import selectors` imports a module too
                yield f"{node.module}.{alias.name}", node.lineno


def test_every_import_points_down_the_layers() -> None:
    wrong = []
    for package, _, path in modules():
        for name, line in imported(path):
            top = name.split(".")[0]
            if top in ALLOWED and top != package and top not in ALLOWED[package]:
                if "migrations" in path.parts and name in MIGRATIONS_MAY_IMPORT:
                    continue
                wrong.append(f"{path.relative_to(ROOT)}:{line}: {package} imports {name}")
    assert not wrong, "imports against the layers:\n" + "\n".join(sorted(set(wrong)))


@pytest.mark.parametrize("pure", PURE)
def test_pure_packages_import_nothing_first_party_but_themselves(pure: str) -> None:
    wrong = []
    for _, module, path in modules():
        if module != pure and not module.startswith(pure + "."):
            continue
        for name, line in imported(path):
            if name.split(".")[0] in ALLOWED and not (name == pure or name.startswith(pure + ".")):
                wrong.append(f"{path.relative_to(ROOT)}:{line}: {name}")
    assert not wrong, "\n".join(wrong)


def import_graph() -> dict[str, set[str]]:
    known = {module for _, module, _ in modules()}
    graph: dict[str, set[str]] = {module: set() for module in known}
    for _, module, path in modules():
        for name, _ in imported(path):
            # `from a.b import c` is the module a.b.c when there is one, else names in a.b
            target = name if name in known else name.rpartition(".")[0]
            if target in known and target != module and not module.startswith(target + "."):
                graph[module].add(target)
    return graph


def cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """Strongly connected components of more than one module (Tarjan, iterative)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []
    counter = 0
    for start in sorted(graph):
        if start in index:
            continue
        work = [(start, iter(sorted(graph[start])))]
        index[start] = low[start] = counter
        counter += 1
        stack.append(start)
        on_stack.add(start)
        while work:
            node, children = work[-1]
            child = next(children, None)
            if child is not None:
                if child not in index:
                    index[child] = low[child] = counter
                    counter += 1
                    stack.append(child)
                    on_stack.add(child)
                    work.append((child, iter(sorted(graph[child]))))
                elif child in on_stack:
                    low[node] = min(low[node], index[child])
                continue
            work.pop()
            if work:
                low[work[-1][0]] = min(low[work[-1][0]], low[node])
            if low[node] == index[node]:
                component = []
                while True:
                    member = stack.pop()
                    on_stack.discard(member)
                    component.append(member)
                    if member == node:
                        break
                if len(component) > 1:
                    found.append(sorted(component))
    return found


def test_no_module_imports_itself_back_through_others() -> None:
    assert cycles(import_graph()) == []


def test_the_cycle_finder_finds_a_circle() -> None:
    assert cycles({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}) == [["a", "b", "c"]]
    assert cycles({"a": {"b"}, "b": set()}) == []


@pytest.mark.django_db  # loading the task modules closes stale connections (Celery's fixup)
def test_every_task_queued_by_name_is_a_registered_celery_task() -> None:
    from config.celery import app

    app.loader.import_default_modules()
    names = set()
    for _, _, path in modules():
        names |= set(re.findall(r'after_commit\(\s*"([\w.]+)"', path.read_text()))
    assert names >= {"memory.tasks.embed_engrams", "memory.tasks.import_network"}
    assert names <= set(app.tasks), names - set(app.tasks)


def test_only_audit_services_make_audit_rows() -> None:
    """Audit rows go through audit_record / audit_records, which stamp the request context and
    refuse to run outside the change's transaction."""
    pattern = re.compile(r"(?<!class )AuditEvent\(|AuditEvent\.objects\.(create|bulk_create)")
    makers = {
        str(path.relative_to(ROOT))
        for _, _, path in modules()
        if "migrations" not in path.parts and pattern.search(path.read_text())
    }
    assert makers == {"platform/audit/services.py"}


def test_one_module_decides_what_an_engram_is_in_the_graph() -> None:
    """Status changes of engrams happen in memory.services.lifecycle only (an SQL condition,
    ``e.status = 'active'``, is a read)."""
    pattern = re.compile(r"\.status = (?!')|status=Engram\.Status\.\w+\)\.update|\.update\(status=")
    changers = {
        str(path.relative_to(ROOT))
        for package, _, path in modules()
        if package == "memory"
        and "migrations" not in path.parts
        and pattern.search(path.read_text())
    }
    # transfer: import jobs' status; facts and skills: a fact's or a skill's status
    # (supersession, new versions), never an engram's
    allowed = {"memory/services/lifecycle.py", "memory/services/transfer.py"}
    assert changers <= allowed | {"memory/services/facts.py", "memory/services/skills.py"}

"""The built-in experts ship valid, resolvable DPML with real content."""

from __future__ import annotations

import pytest

from roles.builtin import registry
from roles.dpml import render_role, resolve

ROLES = sorted(registry().roles)


def load(keys):  # type: ignore[no-untyped-def]
    resources = registry().resources
    return {k: resources[k].document for k in keys if k in resources}


def test_there_are_at_least_six_built_in_roles_each_named_and_described() -> None:
    assert len(ROLES) >= 6
    for role in registry().roles.values():
        assert role.name and role.name != role.slug
        assert 20 <= len(role.description) <= 160, role.slug


@pytest.mark.parametrize("slug", ROLES)
def test_each_built_in_role_parses_and_resolves_without_errors_or_warnings(slug: str) -> None:
    role = registry().roles[slug]
    result = resolve(role.document, load)
    problems = [str(e) for e in role.document.errors + result.errors]
    assert problems == []
    assert {"personality", "principle", "knowledge"} <= {
        e.tag
        for e in role.document.root.elements()  # type: ignore[union-attr]
    }
    persona = render_role(role.document, result, title=role.name)
    assert persona.startswith(f"# {role.name}") and len(persona.split()) > 600
    for ref in role.document.references():  # every reference written out, none left as a URI
        assert f": {ref.name}\n" in persona


@pytest.mark.parametrize("slug", ROLES)
def test_each_built_in_role_teaches_the_memory_discipline(slug: str) -> None:
    refs = {r.uri for r in registry().roles[slug].document.references()}
    assert "execution://memory-discipline" in refs


def test_every_built_in_resource_parses_and_is_used_by_some_role() -> None:
    used = {r.key for role in registry().roles.values() for r in role.document.references()}
    for key, resource in registry().resources.items():
        assert resource.document.ok, (key, [str(e) for e in resource.document.errors])
        assert key in used or any(
            key in {r.key for r in other.document.references()}
            for other in registry().resources.values()
        ), f"{key} is never referenced"

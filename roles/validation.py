"""Checking DPML against the tenant's resources and the built-ins: every error placed, a preview,
and the refusal that writes of active roles and of resources raise."""

from __future__ import annotations

from dataclasses import dataclass
from typing import cast

from base.errors import ValidationFailed
from roles import selectors
from roles.dpml import Document, DpmlError, parse, render_resource, render_role, resolve
from roles.dpml.tree import Kind, ResourceKind
from tenants.models import Tenant

KINDS = ("role", "thought", "execution", "knowledge")


class DpmlInvalid(ValidationFailed):
    """The source does not parse or resolve; ``errors`` places each problem."""

    code = "dpml_invalid"

    def __init__(self, errors: list[DpmlError]) -> None:
        first = errors[0]
        more = f" (and {len(errors) - 1} more)" if len(errors) > 1 else ""
        super().__init__(
            f"The DPML has errors: {first}{more}. Fix them, or save as a draft.",
            fields={"source": str(first)},
        )
        self.errors = errors

    def as_dict(self) -> dict[str, object]:
        return {**super().as_dict(), "errors": [e.as_dict() for e in self.errors]}


@dataclass
class Validation:
    document: Document
    errors: list[DpmlError]  # parse errors, then resolution errors (warnings included)
    preview: str

    @property
    def ok(self) -> bool:
        return not any(e.severity == "error" for e in self.errors)


def dpml_validate(
    *, tenant: Tenant, source: str, kind: str = "role", title: str = "", name: str = "preview"
) -> Validation:
    """Parse, resolve against the tenant's resources and built-ins, and render a preview."""
    if kind not in KINDS:
        raise ValidationFailed.field("kind", "one of role, thought, execution, knowledge")
    document = parse(source, cast(Kind, kind))
    resolution = resolve(document, selectors.resource_loader(tenant=tenant))
    errors = document.errors + resolution.errors
    if not document.ok:
        preview = ""
    elif kind == "role":
        preview = render_role(document, resolution, title=title or "Role")
    else:
        preview = render_resource(document, resolution, kind=cast(ResourceKind, kind), name=name)
    return Validation(document=document, errors=errors, preview=preview)


def checked_tree(tenant: Tenant, source: str, kind: str, *, strict: bool) -> Document:
    """Parse ``source``; with ``strict`` (an active role, any resource), every parse or
    resolution error refuses the write."""
    check = dpml_validate(tenant=tenant, source=source, kind=kind)
    errors = [e for e in check.errors if e.severity == "error"]
    if strict and errors:
        raise DpmlInvalid(errors)
    return check.document

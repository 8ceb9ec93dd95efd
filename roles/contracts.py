"""The contracts of the role operations: writing roles and resources, checking DPML, rendering
and activating a role — what they take and what they answer (see base/contracts.py)."""

from __future__ import annotations

import re
from collections.abc import Iterable
from datetime import datetime
from typing import Annotated, Any, Literal

from pydantic import AfterValidator, BeforeValidator, Field, field_validator

from base.contracts import (
    NOT_BLANK,
    SPACE,
    Contract,
    Output,
    QueryContract,
    Text,
    Unicode,
    identifier,
    lenient,
    refuse,
)
from base.errors import ValidationFailed
from memory.contracts import MindOut, present_mind
from memory.core.mind import Mind
from roles.dpml import Document, DpmlError
from roles.dpml.parser import MAX_SOURCE_CHARS
from roles.models import DocumentVersion
from roles.selectors import ResourceSpec, RoleSpec

SLUG_RE = r"[a-z0-9][a-z0-9-]{0,59}"
SLUG = re.compile(SLUG_RE)
RESERVED_SLUGS = frozenset({"new", "check"})  # dashboard paths under /roles/
RESOURCE_NAME_RE = r"[a-z0-9](?:[a-z0-9._-]{0,98}[a-z0-9_-])?"  # as references allow
RESOURCE_NAME = re.compile(RESOURCE_NAME_RE)
# a slug, but not a reserved one (for the JSON schema; the validator names the reason)
FREE_SLUG_RE = (
    "(?!(?:"
    + "|".join("".join(f"[{c.upper()}{c}]" for c in word) for word in sorted(RESERVED_SLUGS))
    + ")[ \\t\\n\\r]*$)"
    + SLUG_RE
)


def _slug(value: object) -> str:
    rule = "1–60 lower-case letters, digits and '-', starting with a letter or digit"
    slug = identifier("" if value is None else value, SLUG, rule)
    if slug in RESERVED_SLUGS:
        raise refuse(f"“{slug}” is reserved; choose another")
    return slug


def _role_to_activate(value: object) -> str:
    return identifier(value, SLUG, "a role slug such as code-reviewer (`discover` lists them)")


def _resource_name(value: object) -> str:
    rule = "1–100 lower-case letters, digits, '-', '_' and '.', starting with a letter or digit"
    return identifier(value, RESOURCE_NAME, rule)


def _strip(value: str) -> str:
    return value.strip(SPACE)


def _stripped_name(value: str) -> str:
    if not value.strip(SPACE):
        raise refuse("may not be empty")
    return value.strip(SPACE)


def _null_is_empty(value: object) -> object:
    """A description: null clears it, like ""."""
    return "" if value is None else value


def _not_null(value: object) -> object:
    if value is None:
        raise refuse("may not be null (leave the field out to keep it as it is)")
    return value


def _required_source(value: str) -> str:
    if not value.strip(SPACE):
        raise refuse("is required")
    return value


Slug = Annotated[
    str, BeforeValidator(_slug), Field(json_schema_extra={"pattern": lenient(FREE_SLUG_RE)})
]
RoleToActivate = Annotated[
    str,
    BeforeValidator(_role_to_activate),
    Field(
        description="a role's slug, as discover lists",
        json_schema_extra={"pattern": lenient(SLUG_RE)},
    ),
]
ResourceName = Annotated[
    str,
    BeforeValidator(_resource_name),
    Field(json_schema_extra={"pattern": lenient(RESOURCE_NAME_RE)}),
]
Name = Annotated[
    Text,
    Field(max_length=120),
    AfterValidator(_stripped_name),
    Field(json_schema_extra={"pattern": NOT_BLANK}),
]
Description = Annotated[Text, Field(max_length=300), AfterValidator(_strip)]
MaybeDescription = Annotated[Description | None, BeforeValidator(_null_is_empty)]
Source = Annotated[
    Text,
    Field(max_length=MAX_SOURCE_CHARS, description="DPML: <role> with personality, principle, …"),
    AfterValidator(_required_source),
    Field(json_schema_extra={"pattern": NOT_BLANK}),
]
RoleStatus = Literal["draft", "active", "archived"]
ResourceKind = Literal["thought", "execution", "knowledge"]
Origin = Literal["builtin", "tenant"]


# --- inputs --------------------------------------------------------------------------------


class RoleCreateIn(Contract):
    slug: Slug
    name: Name
    description: Description = ""
    source: Source
    status: RoleStatus = "active"


class RolePatch(Contract):
    """Fields to change; a change makes a new version. Absent fields stay as they are."""

    name: Name | None = None
    description: MaybeDescription = None
    source: Source | None = None
    status: RoleStatus | None = None

    _required = field_validator("name", "source", "status", mode="before")(_not_null)
    required_if_sent = ("name", "source", "status")

    @property
    def changes(self) -> dict[str, Any]:
        return {name: getattr(self, name) for name in self.model_fields_set}


class RoleCopyIn(Contract):
    slug: Slug | None = Field(None, description="slug of the copy (a built-in keeps its own)")
    name: Name | None = None

    blank_means_absent = ("slug", "name")


class ResourceCreateIn(Contract):
    kind: ResourceKind
    name: ResourceName
    description: Description = ""
    source: Source


class ResourcePatch(Contract):
    description: MaybeDescription = None
    source: Source | None = None

    _required = field_validator("source", mode="before")(_not_null)
    required_if_sent = ("source",)

    @property
    def changes(self) -> dict[str, Any]:
        return {name: getattr(self, name) for name in self.model_fields_set}


def _truthy(value: object) -> object:
    """A query parameter's true or false (as OpenAPI writes them, or 1 / 0)."""
    if isinstance(value, str):
        if value.lower() in ("true", "1"):
            return True
        if value.lower() in ("false", "0"):
            return False
        raise refuse("must be true or false")
    return value


class RoleFilters(QueryContract):
    q: Text = Field("", description="words in slug, name or description")
    origin: Origin | Literal[""] = ""
    archived: Annotated[bool, BeforeValidator(_truthy)] = False


class ResourceFilters(QueryContract):
    kind: ResourceKind | Literal[""] = ""


class DpmlCheckIn(Contract):
    source: Unicode = Field(description="too long or holding NUL: reported as DPML errors")
    kind: Literal["role", "thought", "execution", "knowledge"] = "role"
    name: Text = Field("", description="title of the preview")

    blank_means_absent = ("kind", "name")


# --- outputs -------------------------------------------------------------------------------


class DpmlErrorOut(Output):
    code: str
    message: str
    line: int
    column: int
    severity: Literal["error", "warning"]
    document: str = Field(description="the resource it sits in; empty for the document itself")


def present_errors(errors: list[DpmlError]) -> list[DpmlErrorOut]:
    return [DpmlErrorOut(**e.as_dict()) for e in errors]


class RoleOut(Output):
    slug: str
    name: str
    description: str
    origin: Origin
    status: RoleStatus
    version: int
    based_on: str | None
    customised: bool
    network: str
    valid: bool
    errors: list[DpmlErrorOut]
    updated_at: datetime | None


class RoleDetailOut(RoleOut):
    source: str


class RoleList(Output):
    roles: list[RoleOut]


def present_role(spec: RoleSpec) -> RoleOut:
    return RoleOut(
        slug=spec.slug,
        name=spec.name,
        description=spec.description,
        origin=spec.origin,
        status=spec.status,
        version=spec.version,
        based_on=spec.based_on or None,
        customised=spec.customised,
        network=spec.network_key,
        valid=spec.document.ok,
        errors=present_errors(spec.document.errors),
        updated_at=spec.updated_at,
    )


def present_role_detail(spec: RoleSpec) -> RoleDetailOut:
    return RoleDetailOut(**present_role(spec).model_dump(), source=spec.source)


class ResourceOut(Output):
    uri: str
    kind: ResourceKind
    name: str
    description: str
    origin: Origin
    version: int
    updated_at: datetime | None


class ResourceDetailOut(ResourceOut):
    source: str


class ResourceList(Output):
    resources: list[ResourceOut]


def present_resource(spec: ResourceSpec) -> ResourceOut:
    return ResourceOut.model_validate(spec, from_attributes=True)


def present_resource_detail(spec: ResourceSpec) -> ResourceDetailOut:
    return ResourceDetailOut.model_validate(spec, from_attributes=True)


class VersionOut(Output):
    version: int
    author: str
    note: str
    created_at: datetime
    source: str


class VersionList(Output):
    versions: list[VersionOut]


def present_versions(rows: Iterable[DocumentVersion]) -> VersionList:
    return VersionList(versions=[VersionOut.model_validate(v, from_attributes=True) for v in rows])


class RenderOut(Output):
    slug: str
    persona: str
    valid: bool
    errors: list[DpmlErrorOut]


def present_render(spec: RoleSpec, persona: str, errors: list[DpmlError]) -> RenderOut:
    return RenderOut(
        slug=spec.slug,
        persona=persona,
        valid=not any(e.severity == "error" for e in errors),
        errors=present_errors(errors),
    )


class ActivationOut(Output):
    role: RoleOut
    persona: str = Field(description="who to be: the rendered persona, references written out")
    prime: MindOut = Field(description="the role's memory, primed")
    warnings: list[DpmlErrorOut]


def present_activation(
    role: RoleSpec, persona: str, mind: Mind, warnings: list[DpmlError]
) -> ActivationOut:
    return ActivationOut(
        role=present_role(role),
        persona=persona,
        prime=present_mind(mind),
        warnings=present_errors(warnings),
    )


class DpmlCheckOut(Output):
    valid: bool
    errors: list[DpmlErrorOut]
    references: list[str]
    preview: str


def present_check(document: Document, errors: list[DpmlError], preview: str) -> DpmlCheckOut:
    return DpmlCheckOut(
        valid=not any(e.severity == "error" for e in errors),
        errors=present_errors(errors),
        references=sorted({r.uri for r in document.references()}),
        preview=preview,
    )


def checked_kind(raw: str) -> str:
    """A resource kind from a URL, or ValidationFailed naming ``kind``."""
    if raw not in ("thought", "execution", "knowledge"):
        raise ValidationFailed.field("kind", "one of thought, execution, knowledge")
    return raw

"""The typed tree of a DPML document, and the errors found in it.

A document has one root element (``<role>``, ``<thought>``, ``<execution>`` or ``<knowledge>``).
Sections hold markdown split into ``Text`` and ``Reference`` nodes; positions are 1-based line
and column of the first character, so an editor can put an error at its place.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Literal

Kind = Literal["role", "thought", "execution", "knowledge"]
ResourceKind = Literal["thought", "execution", "knowledge"]
Mode = Literal["required", "optional", "default"]
Severity = Literal["error", "warning"]

RESOURCE_KINDS: tuple[ResourceKind, ...] = ("thought", "execution", "knowledge")
# What each root may hold, in the order a renderer presents them.
SECTIONS: dict[str, tuple[str, ...]] = {
    "role": ("personality", "principle", "knowledge"),
    "thought": ("exploration", "reasoning", "challenge", "plan"),
    "execution": ("constraint", "rule", "guideline", "process", "criteria"),
    "knowledge": (),  # a knowledge resource is markdown directly inside <knowledge>
}
# Every tag DPML knows; anything else tag-shaped is an error.
TAGS = frozenset(SECTIONS) | {s for sections in SECTIONS.values() for s in sections}


@dataclass(frozen=True)
class DpmlError:
    """A problem at a place. ``document`` is empty for the document itself, else the URI of the
    resource it was found in (resolution errors can sit in a referenced resource)."""

    code: str
    message: str
    line: int
    column: int
    severity: Severity = "error"
    document: str = ""

    def __str__(self) -> str:
        where = f"{self.document} " if self.document else ""
        return f"{where}line {self.line}, column {self.column}: {self.message}"

    def as_dict(self) -> dict[str, Any]:
        return {
            "code": self.code,
            "message": self.message,
            "line": self.line,
            "column": self.column,
            "severity": self.severity,
            "document": self.document,
        }


@dataclass(frozen=True)
class Text:
    text: str
    line: int
    column: int


@dataclass(frozen=True)
class Reference:
    """``@!thought://name`` (required), ``@?execution://name`` (optional), ``@knowledge://name``
    (default: loaded like required)."""

    kind: ResourceKind
    name: str
    mode: Mode
    line: int
    column: int

    @property
    def uri(self) -> str:
        return f"{self.kind}://{self.name}"

    @property
    def key(self) -> tuple[ResourceKind, str]:
        return (self.kind, self.name)

    @property
    def required(self) -> bool:
        return self.mode != "optional"


@dataclass
class Element:
    tag: str
    line: int
    column: int
    attrs: dict[str, str] = field(default_factory=dict)
    children: list[Text | Reference | Element] = field(default_factory=list)

    def elements(self) -> list[Element]:
        return [c for c in self.children if isinstance(c, Element)]

    def child(self, tag: str) -> Element | None:
        return next((c for c in self.elements() if c.tag == tag), None)

    def references(self) -> list[Reference]:
        found: list[Reference] = []
        for c in self.children:
            if isinstance(c, Reference):
                found.append(c)
            elif isinstance(c, Element):
                found.extend(c.references())
        return found

    def markdown(self) -> str:
        """The section's own text with references written back as URIs (for previews)."""
        parts: list[str] = []
        for c in self.children:
            if isinstance(c, Text):
                parts.append(c.text)
            elif isinstance(c, Reference):
                parts.append(
                    "@" + {"required": "!", "optional": "?", "default": ""}[c.mode] + c.uri
                )
        return "".join(parts)


Node = Text | Reference | Element


@dataclass
class Document:
    kind: Kind
    root: Element | None
    errors: list[DpmlError] = field(default_factory=list)

    @property
    def ok(self) -> bool:
        return not any(e.severity == "error" for e in self.errors)

    def section(self, tag: str) -> Element | None:
        return self.root.child(tag) if self.root else None

    def references(self) -> list[Reference]:
        return self.root.references() if self.root else []

    # Stored as JSON beside the source so a role is parsed once per edit, not once per use.
    def to_dict(self) -> dict[str, Any]:
        return {
            "kind": self.kind,
            "root": _element_to_dict(self.root) if self.root else None,
            "errors": [e.as_dict() for e in self.errors],
        }

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> Document:
        root = _element_from_dict(data["root"]) if data.get("root") else None
        errors = [DpmlError(**e) for e in data.get("errors", [])]
        return cls(kind=data["kind"], root=root, errors=errors)


def _element_to_dict(element: Element) -> dict[str, Any]:
    children: list[dict[str, Any]] = []
    for c in element.children:
        if isinstance(c, Element):
            children.append({"element": _element_to_dict(c)})
        elif isinstance(c, Reference):
            children.append({"ref": [c.kind, c.name, c.mode, c.line, c.column]})
        else:
            children.append({"text": [c.text, c.line, c.column]})
    return {
        "tag": element.tag,
        "line": element.line,
        "column": element.column,
        "attrs": element.attrs,
        "children": children,
    }


def _element_from_dict(data: dict[str, Any]) -> Element:
    children: list[Node] = []
    for c in data["children"]:
        if "element" in c:
            children.append(_element_from_dict(c["element"]))
        elif "ref" in c:
            kind, name, mode, line, column = c["ref"]
            children.append(Reference(kind, name, mode, line, column))
        else:
            text, line, column = c["text"]
            children.append(Text(text, line, column))
    return Element(
        tag=data["tag"],
        line=data["line"],
        column=data["column"],
        attrs=dict(data.get("attrs", {})),
        children=children,
    )

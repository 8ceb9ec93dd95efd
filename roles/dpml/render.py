"""Rendering a resolved role as the markdown persona an agent takes on.

References are expanded where they stand; a resource used twice is written out once and
pointed at the second time, and an optional reference that resolves to nothing disappears.
"""

from __future__ import annotations

import re
import textwrap

from roles.dpml.resolve import Key, Resolution
from roles.dpml.tree import Document, Element, Reference, ResourceKind, Text

ROLE_HEADINGS = {"personality": "Personality", "principle": "Principles", "knowledge": "Knowledge"}
RESOURCE_HEADINGS = {
    "exploration": "Exploration",
    "reasoning": "Reasoning",
    "challenge": "Challenge",
    "plan": "Plan",
    "constraint": "Constraints",
    "rule": "Rules",
    "guideline": "Guidelines",
    "process": "Process",
    "criteria": "Criteria",
}
RESOURCE_TITLES = {
    "thought": "Way of thinking",
    "execution": "Way of working",
    "knowledge": "Knowledge",
}
_MARK = "\x00{}\x00"
_MARK_RE = re.compile("\x00(\\d+)\x00")


class _Renderer:
    def __init__(self, resolution: Resolution) -> None:
        self.resources = resolution.resources
        self.written: set[Key] = set()
        self.path: list[Key] = []

    def body(self, element: Element, level: int) -> str:
        """The element's markdown, dedented as a whole, with references expanded in place."""
        refs: list[Reference] = []
        parts: list[str] = []
        for child in element.children:
            if isinstance(child, Text):
                parts.append(child.text)
            elif isinstance(child, Reference):
                parts.append(_MARK.format(len(refs)))
                refs.append(child)
        text = textwrap.dedent("".join(parts)).strip("\n")

        def expand(m: re.Match[str]) -> str:
            return self.reference(refs[int(m.group(1))], level)

        return _tidy(_MARK_RE.sub(expand, text))

    def reference(self, ref: Reference, level: int) -> str:
        doc = self.resources.get(ref.key)
        if doc is None or doc.root is None or ref.key in self.path:
            return ""
        if ref.key in self.written:
            return f"(see {RESOURCE_TITLES[ref.kind].lower()} “{ref.name}” above)"
        self.written.add(ref.key)
        self.path.append(ref.key)
        try:
            return "\n\n" + self.resource(ref, doc, level) + "\n\n"
        finally:
            self.path.pop()

    def resource(self, ref: Reference, doc: Document, level: int) -> str:
        assert doc.root is not None
        heading = "#" * min(level, 6)
        out = [f"{heading} {RESOURCE_TITLES[ref.kind]}: {ref.name}"]
        if ref.kind == "knowledge":
            out.append(self.body(doc.root, level + 1))
        else:
            for section in doc.root.elements():
                text = self.body(section, level + 2)
                if text:
                    out.append(f"**{RESOURCE_HEADINGS.get(section.tag, section.tag)}.**\n{text}")
        return "\n\n".join(part for part in out if part)


def _tidy(text: str) -> str:
    return re.sub(r"\n{3,}", "\n\n", text).strip()


def render_role(document: Document, resolution: Resolution, *, title: str) -> str:
    """The persona: the role's sections in DPML order with every reference written out."""
    renderer = _Renderer(resolution)
    out = [f"# {title}"]
    root = document.root
    if root is not None:
        for tag, heading in ROLE_HEADINGS.items():
            section = root.child(tag)
            if section is None:
                continue
            text = renderer.body(section, 3)
            if text:
                out.append(f"## {heading}\n\n{text}")
    return _tidy("\n\n".join(out))


def render_resource(
    document: Document, resolution: Resolution, *, kind: ResourceKind, name: str
) -> str:
    """A resource on its own (previews in the editor), its references expanded."""
    if document.root is None:
        return ""
    ref = Reference(kind, name, "required", 1, 1)
    renderer = _Renderer(resolution)
    renderer.path.append(ref.key)
    return _tidy(renderer.resource(ref, document, 2))

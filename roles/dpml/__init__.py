"""DPML, PromptX's role language: parse to a typed tree, resolve references, render a persona.

Pure Python (no Django), so it is tested and used on its own; ``roles.services`` stores the
trees and supplies the batched resource loader.
"""

from roles.dpml.parser import parse
from roles.dpml.render import render_resource, render_role
from roles.dpml.resolve import Resolution, resolve
from roles.dpml.tree import Document, DpmlError, Element, Reference, Text

__all__ = [
    "Document",
    "DpmlError",
    "Element",
    "Reference",
    "Resolution",
    "Text",
    "parse",
    "render_resource",
    "render_role",
    "resolve",
]

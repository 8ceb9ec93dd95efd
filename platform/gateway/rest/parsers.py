"""The JSON request parser of the REST API: a bounded document, or a clear 400.

Python's JSON decoder recurses once per nesting level and gives up with RecursionError around a
thousand levels (an unhandled 500 before this parser); no request of this API needs more than a
few levels, so documents deeper than MAX_DEPTH are refused outright.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import IO, Any

from rest_framework.exceptions import ParseError
from rest_framework.parsers import JSONParser

MAX_DEPTH = 64


def depth_of(document: object) -> int:
    """Nesting depth of parsed JSON (1 for a flat object), without recursion."""
    deepest = 0
    stack: list[tuple[object, int]] = [(document, 1)]
    while stack:
        node, depth = stack.pop()
        if isinstance(node, dict):
            deepest = max(deepest, depth)
            stack.extend((child, depth + 1) for child in node.values())
        elif isinstance(node, list):
            deepest = max(deepest, depth)
            stack.extend((child, depth + 1) for child in node)
    return deepest


def _no_constant(name: str) -> Any:
    raise ValueError(f"{name} is not JSON a database can store")


class BoundedJSONParser(JSONParser):
    def parse(
        self,
        stream: IO[Any],
        media_type: str | None = None,
        parser_context: Mapping[str, Any] | None = None,
    ) -> Any:
        try:
            text = stream.read().decode("utf-8")
            document = json.loads(text, parse_constant=_no_constant)
        except RecursionError:
            raise ParseError(f"JSON nested more than {MAX_DEPTH} levels deep") from None
        except UnicodeDecodeError:
            raise ParseError("the body is not UTF-8 text") from None
        except ValueError as exc:
            raise ParseError(f"not valid JSON: {exc}") from None
        if depth_of(document) > MAX_DEPTH:
            raise ParseError(f"JSON nested more than {MAX_DEPTH} levels deep")
        return document

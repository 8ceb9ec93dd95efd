"""DPML: a lexer and a stack parser that returns a typed tree and every error it can place.

The source is markdown with DPML tags. The lexer knows enough markdown not to see tags or
references inside code (fenced blocks and inline code spans) and drops HTML comments. Anything
tag-shaped outside code must be a DPML tag; the parser checks nesting against ``SECTIONS`` and
recovers after each error so the editor can show them all at once.
"""

from __future__ import annotations

import re
from bisect import bisect_right
from dataclasses import dataclass

from roles.dpml.tree import (
    RESOURCE_KINDS,
    SECTIONS,
    TAGS,
    Document,
    DpmlError,
    Element,
    Kind,
    Mode,
    Reference,
    Severity,
    Text,
)

MAX_SOURCE_CHARS = 200_000
MAX_NAME = 100
MAX_ERRORS = 100
_TAG = re.compile(
    r"<(/?)([A-Za-z][\w-]*)((?:\s+[^\s=<>/\"']+\s*=\s*(?:\"[^\"]*\"|'[^']*'))*)\s*(/?)>"
)
_TAG_START = re.compile(r"</?([A-Za-z][\w-]*)")
_ATTR = re.compile(r"([^\s=<>/\"']+)\s*=\s*(?:\"([^\"]*)\"|'([^']*)')")
_REF = re.compile(r"@([!?]?)([A-Za-z][\w-]*)://([^\s()\[\]{}<>,;`'\"]*)")
_NAME = re.compile(r"[a-z0-9](?:[a-z0-9._-]*[a-z0-9_-])?")  # no trailing '.': it ends sentences
# Any indent: DPML sections are indented, and their text is dedented before it is rendered.
_FENCE = re.compile(r"[ \t]*(`{3,}(?=[^`\n]*$)|~{3,})", re.M)
_BACKTICKS = re.compile(r"`+")
# A DPML tag opening a line ends any code span before it (inline code may show tags mid-line).
_LINE_TAG = re.compile(r"\n[ \t]*</?(?:" + "|".join(sorted(TAGS)) + r")\b")
_PLAIN = re.compile(r"[^<`\n]+")
_UNKNOWN: dict[str, str] = {}  # marks the stand-in for an unknown tag on the stack (by identity)
_MODES: dict[str, Mode] = {"!": "required", "?": "optional", "": "default"}


@dataclass(frozen=True)
class _Tok:
    kind: str  # "text" | "start" | "end"
    offset: int
    text: str = ""  # the raw source of the token
    name: str = ""
    attrs: tuple[tuple[str, str], ...] = ()
    self_closing: bool = False
    literal: bool = False  # text inside code: no references


class _Source:
    def __init__(self, text: str) -> None:
        self.text = text
        self._starts = [0] + [m.end() for m in re.finditer("\n", text)]

    def position(self, offset: int) -> tuple[int, int]:
        index = bisect_right(self._starts, offset) - 1
        return index + 1, offset - self._starts[index] + 1


class _Lexer:
    def __init__(self, source: _Source, errors: list[DpmlError]) -> None:
        self.src = source
        self.s = source.text
        self.errors = errors
        self.tokens: list[_Tok] = []
        # Found once, looked up by bisection: a code span never crosses a blank line or a line
        # that starts with a DPML tag, and it closes at the next backtick run of its length.
        self._stops = sorted(
            [m.start() for m in re.finditer(r"\n[ \t]*\n", self.s)]
            + [m.start() for m in _LINE_TAG.finditer(self.s)]
        )
        self._runs: dict[int, list[int]] = {}
        for m in re.finditer(r"`+", self.s):
            self._runs.setdefault(len(m.group()), []).append(m.start())

    def error(self, code: str, message: str, offset: int, severity: Severity = "error") -> None:
        line, column = self.src.position(offset)
        self.errors.append(DpmlError(code, message, line, column, severity))

    def run(self) -> list[_Tok]:
        s, i = self.s, 0
        while i < len(s):
            if i == 0 or s[i - 1] == "\n":
                fence = _FENCE.match(s, i)
                if fence:
                    i = self._fenced(i, fence.group(1))
                    continue
            ch = s[i]
            if ch == "`":
                i = self._code_span(i)
            elif s.startswith("<!--", i):
                end = s.find("-->", i + 4)
                if end < 0:
                    self.error("unclosed_comment", "this <!-- comment is never closed with -->", i)
                    return self.tokens
                i = end + 3
            elif ch == "<":
                i = self._tag(i)
            elif ch == "\n":
                self._text(i, "\n")
                i += 1
            else:
                m = _PLAIN.match(s, i)
                assert m is not None
                self._text(i, m.group())
                i = m.end()
        return self.tokens

    def _text(self, offset: int, text: str, literal: bool = False) -> None:
        self.tokens.append(_Tok("text", offset, text, literal=literal))

    def _fenced(self, start: int, marker: str) -> int:
        """A fenced code block is literal up to a closing fence of the same kind, at least as
        long (CommonMark); unclosed, it runs to the end, as markdown renders it."""
        closing = re.compile(
            r"^[ \t]*" + re.escape(marker[0]) + "{" + str(len(marker)) + r",}[ \t]*$", re.M
        )
        first_line_end = self.s.find("\n", start)
        if first_line_end < 0:
            first_line_end = len(self.s)
        m = closing.search(self.s, first_line_end + 1) if first_line_end < len(self.s) else None
        if m is None:
            self.error(
                "unclosed_fence", f"this {marker} code block is never closed", start, "warning"
            )
            end = len(self.s)
        else:
            end = m.end()
        self._text(start, self.s[start:end], literal=True)
        return end

    def _code_span(self, start: int) -> int:
        run = _BACKTICKS.match(self.s, start)
        assert run is not None
        n = len(run.group())
        stop = bisect_right(self._stops, start)
        limit = self._stops[stop] if stop < len(self._stops) else len(self.s)
        same = self._runs.get(n, [])
        index = bisect_right(same, start)
        end = same[index] if index < len(same) else -1
        if end < 0 or end >= limit:  # a lone backtick run is just text
            self._text(start, run.group())
            return start + n
        self._text(start, self.s[start : end + n], literal=True)
        return end + n

    def _tag(self, start: int) -> int:
        m = _TAG.match(self.s, start)
        if m is None:
            head = _TAG_START.match(self.s, start)
            if head and head.group(1).lower() in TAGS:
                self.error(
                    "malformed_tag",
                    f'the <{head.group(1)}> tag is malformed: attributes are name="value" '
                    "and the tag ends with '>' on the same line",
                    start,
                )
                end = self.s.find(">", start, _line_end(self.s, start))
                if end > 0:  # recover: read it as the tag without its attributes
                    closing = self.s[start + 1] == "/"
                    self.tokens.append(
                        _Tok(
                            "end" if closing else "start",
                            start,
                            self.s[start : end + 1],
                            name=head.group(1),
                        )
                    )
                    return end + 1
            self._text(start, "<")
            return start + 1
        end_tag, name, attrs, self_closing = m.group(1), m.group(2), m.group(3), m.group(4)
        pairs = tuple((a.group(1), a.group(2) or a.group(3) or "") for a in _ATTR.finditer(attrs))
        self.tokens.append(
            _Tok(
                "end" if end_tag else "start",
                start,
                m.group(),
                name=name,
                attrs=pairs,
                self_closing=bool(self_closing),
            )
        )
        return m.end()


class _Parser:
    def __init__(self, text: str, kind: Kind) -> None:
        self.src = _Source(text)
        self.kind = kind
        self.errors: list[DpmlError] = []
        self.root: Element | None = None
        self.stack: list[Element] = []

    def error(self, code: str, message: str, offset: int) -> None:
        line, column = self.src.position(offset)
        self.errors.append(DpmlError(code, message, line, column))

    def run(self) -> Document:
        for tok in _Lexer(self.src, self.errors).run():
            if tok.kind == "start":
                self._start(tok)
            elif tok.kind == "end":
                self._end(tok)
            else:
                self._text(tok)
        for element in reversed(self.stack):
            if element.attrs is _UNKNOWN:
                continue
            self.errors.append(
                DpmlError(
                    "unclosed_tag",
                    f"<{element.tag}> is never closed (add </{element.tag}>)",
                    element.line,
                    element.column,
                )
            )
        self._check_root()
        self.errors.sort(key=lambda e: (e.line, e.column))
        if len(self.errors) > MAX_ERRORS:
            rest = len(self.errors) - MAX_ERRORS
            last = self.errors[MAX_ERRORS]
            self.errors[MAX_ERRORS:] = [
                DpmlError(
                    "too_many_errors",
                    f"{rest} more errors after this point are not shown",
                    last.line,
                    last.column,
                )
            ]
        return Document(kind=self.kind, root=self.root, errors=self.errors)

    def _known(self, tok: _Tok) -> bool:
        if tok.name in TAGS:
            return True
        if tok.name.lower() in TAGS:
            self.error(
                "unknown_tag", f"tags are lower case: write <{tok.name.lower()}>", tok.offset
            )
        else:
            self.error(
                "unknown_tag",
                f"unknown tag <{tok.name}>; DPML knows {', '.join(_expected(self._where()))} "
                "here (for literal angle brackets write &lt; or use `code`)",
                tok.offset,
            )
        return False

    def _where(self) -> str | None:
        known = [e for e in self.stack if e.attrs is not _UNKNOWN]
        return known[-1].tag if known else None

    def _start(self, tok: _Tok) -> None:
        if not self._known(tok):
            # Its content goes nowhere: one error for the tag, not one per line inside it.
            line, column = self.src.position(tok.offset)
            self.stack.append(Element(tag=tok.name, line=line, column=column, attrs=_UNKNOWN))
            return
        while self.stack and self.stack[-1].attrs is _UNKNOWN:
            self.stack.pop()
        line, column = self.src.position(tok.offset)
        element = Element(tag=tok.name, line=line, column=column, attrs=dict(tok.attrs))
        if tok.self_closing:
            self.error(
                "self_closing_tag",
                f"write <{tok.name}></{tok.name}>, not <{tok.name}/>",
                tok.offset,
            )
        parent = self.stack[-1] if self.stack else None
        if parent is not None and not self._check_placement(parent, element, tok.offset):
            # Like an unknown tag: reported once, its content set aside, nothing nests deeper.
            element.attrs = _UNKNOWN
            self.stack.append(element)
            return
        if parent is None:
            if self.root is not None:
                self.error(
                    "multiple_roots",
                    f"a document has one root; <{self.root.tag}> "
                    f"already started at line {self.root.line}",
                    tok.offset,
                )
            elif tok.name != self.kind:
                self.error(
                    "wrong_root",
                    f"a {self.kind} document starts with <{self.kind}>, not <{tok.name}>",
                    tok.offset,
                )
            if self.root is None:
                self.root = element
        else:
            parent.children.append(element)
        if not tok.self_closing:
            self.stack.append(element)

    def _check_placement(self, parent: Element, element: Element, offset: int) -> bool:
        allowed = SECTIONS.get(parent.tag, ()) if len(self.stack) == 1 else ()
        if element.tag not in allowed:
            homes = [root for root, sections in SECTIONS.items() if element.tag in sections]
            hint = f"; it belongs in <{homes[0]}>" if homes else ""
            if not allowed and len(self.stack) > 1:
                hint = f"; sections hold markdown and references, not other sections{hint}"
            self.error(
                "misplaced_tag", f"<{element.tag}> cannot go inside <{parent.tag}>{hint}", offset
            )
            return False
        first = parent.child(element.tag)
        if first is not None:
            self.error(
                "duplicate_section",
                f"a second <{element.tag}>; the first is at line {first.line}: merge them",
                offset,
            )
        return True

    def _end(self, tok: _Tok) -> None:
        if self.stack and self.stack[-1].tag == tok.name and self.stack[-1].attrs is _UNKNOWN:
            self.stack.pop()  # the end of a tag already reported as unknown or misplaced
            return
        if tok.name not in TAGS:
            if not any(e.tag == tok.name for e in self.stack):
                self._known(tok)
            return
        while self.stack and self.stack[-1].attrs is _UNKNOWN:
            self.stack.pop()
        open_tags = [e.tag for e in self.stack]
        if tok.name not in open_tags:
            where = f" (the open tag is <{open_tags[-1]}>)" if open_tags else ""
            self.error("unexpected_close", f"</{tok.name}> closes nothing{where}", tok.offset)
            return
        while self.stack[-1].tag != tok.name:
            inner = self.stack.pop()
            self.errors.append(
                DpmlError(
                    "unclosed_tag",
                    f"<{inner.tag}> is not closed before </{tok.name}> "
                    f"(line {self.src.position(tok.offset)[0]})",
                    inner.line,
                    inner.column,
                )
            )
        self.stack.pop()

    def _text(self, tok: _Tok) -> None:
        if not tok.text or (self.stack and self.stack[-1].attrs is _UNKNOWN):
            return
        if not self.stack:
            if tok.text.strip():
                what = f"<{self.root.tag}>" if self.root else f"<{self.kind}>"
                self.error(
                    "text_outside_root",
                    f"text outside {what}; put it inside a section",
                    tok.offset + _lead(tok.text),
                )
            return
        top = self.stack[-1]
        if len(self.stack) == 1 and SECTIONS.get(top.tag):
            if tok.text.strip():
                sections = ", ".join(f"<{s}>" for s in SECTIONS[top.tag])
                self.error(
                    "text_outside_section",
                    f"text directly inside <{top.tag}> belongs in a section: {sections}",
                    tok.offset + _lead(tok.text),
                )
            return
        if tok.literal:
            self._append(top, tok.text, tok.offset)
            return
        cursor = 0
        for m in _REF.finditer(tok.text):
            self._append(top, tok.text[cursor : m.start()], tok.offset + cursor)
            ref = self._reference(m, tok.offset + m.start())
            if ref is None:
                self._append(top, m.group(), tok.offset + m.start())
            else:
                top.children.append(ref)
                tail = m.group(3)[len(ref.name) :]
                self._append(top, tail, tok.offset + m.end() - len(tail))
            cursor = m.end()
        self._append(top, tok.text[cursor:], tok.offset + cursor)

    def _append(self, element: Element, text: str, offset: int) -> None:
        if not text:
            return
        last = element.children[-1] if element.children else None
        if isinstance(last, Text):
            element.children[-1] = Text(last.text + text, last.line, last.column)
        else:
            line, column = self.src.position(offset)
            element.children.append(Text(text, line, column))

    def _reference(self, m: re.Match[str], offset: int) -> Reference | None:
        mark, kind, raw = m.group(1), m.group(2), m.group(3)
        if kind not in RESOURCE_KINDS:
            self.error(
                "bad_reference",
                f"unknown resource kind '{kind}://'; use "
                f"{', '.join(k + '://' for k in RESOURCE_KINDS)}",
                offset,
            )
            return None
        name = raw.rstrip(".:!?")
        if not _NAME.fullmatch(name) or len(name) > MAX_NAME:
            self.error(
                "bad_reference",
                f"'{name or '(empty)'}' is not a resource name: lower-case "
                "letters, digits, '-', '_' and '.', starting with a letter or digit",
                offset,
            )
            return None
        line, column = self.src.position(offset)
        return Reference(kind, name, _MODES[mark], line, column)

    def _check_root(self) -> None:
        if self.root is None:
            if not any(e.code in ("wrong_root", "unclosed_comment") for e in self.errors):
                self.errors.append(
                    DpmlError(
                        "missing_root",
                        f"no <{self.kind}> element: a {self.kind} document is "
                        f"<{self.kind}> … </{self.kind}>",
                        1,
                        1,
                    )
                )
            return
        sections = SECTIONS.get(self.root.tag)
        tag_errors = any(
            e.code in ("unknown_tag", "malformed_tag", "misplaced_tag") for e in self.errors
        )
        if sections and not self.root.elements() and not tag_errors:
            self.errors.append(
                DpmlError(
                    "empty_root",
                    f"<{self.root.tag}> needs at least one of "
                    f"{', '.join(f'<{s}>' for s in sections)}",
                    self.root.line,
                    self.root.column,
                )
            )


def _line_end(text: str, offset: int) -> int:
    end = text.find("\n", offset)
    return len(text) if end < 0 else end


def _lead(text: str) -> int:
    return len(text) - len(text.lstrip())


def _expected(where: str | None) -> list[str]:
    if where is None:
        return [f"<{root}>" for root in SECTIONS]
    return [f"<{s}>" for s in SECTIONS.get(where, ())] or ["no tags (only markdown)"]


def parse(text: str, kind: Kind = "role") -> Document:
    """Parse a DPML document of ``kind``; never raises on bad input, returns errors instead."""
    if len(text) > MAX_SOURCE_CHARS:
        error = DpmlError(
            "too_long", f"a document holds at most {MAX_SOURCE_CHARS:,} characters", 1, 1
        )
        return Document(kind=kind, root=None, errors=[error])
    text = text.replace("\r\n", "\n").replace("\r", "\n")
    nul = text.find("\x00")
    if nul >= 0:
        line = text.count("\n", 0, nul) + 1
        column = nul - (text.rfind("\n", 0, nul) + 1) + 1
        error = DpmlError(
            "nul_character", "the text holds a NUL character (\\x00); remove it", line, column
        )
        return Document(kind=kind, root=None, errors=[error])
    return _Parser(text, kind).run()

"""The DPML parser, resolver and renderer on their own: no database, no Django."""

from __future__ import annotations

import pytest

from roles.dpml import Document, Reference, Text, parse, render_role, resolve
from roles.dpml.resolve import Key

GOOD = """<!-- a reviewer -->
<role>
  <personality>
    You review code carefully.
    @!thought://skeptic
  </personality>
  <principle>
    @?execution://checklist
    Never approve what you have not run.
  </principle>
  <knowledge>
    Python tips; see @knowledge://python.
  </knowledge>
</role>
"""


def codes(doc: Document) -> list[str]:
    return [e.code for e in doc.errors]


def loader(docs: dict[Key, str], calls: list[set[Key]] | None = None):  # type: ignore[no-untyped-def]
    parsed = {key: parse(text, key[0]) for key, text in docs.items()}

    def load(keys: set[Key]) -> dict[Key, Document]:
        if calls is not None:
            calls.append(set(keys))
        return {k: parsed[k] for k in keys if k in parsed}

    return load


def test_a_valid_role_parses_into_sections_text_and_references() -> None:
    doc = parse(GOOD)
    assert doc.ok and doc.errors == []
    personality = doc.section("personality")
    assert personality is not None and personality.line == 3 and personality.column == 3
    refs = doc.references()
    assert [(r.uri, r.mode) for r in refs] == [
        ("thought://skeptic", "required"),
        ("execution://checklist", "optional"),
        ("knowledge://python", "default"),
    ]
    assert (refs[0].line, refs[0].column) == (5, 5)
    assert isinstance(personality.children[0], Text)
    assert "carefully" in personality.children[0].text
    knowledge = doc.section("knowledge")
    assert knowledge is not None and knowledge.markdown().strip().endswith("@knowledge://python.")


def test_the_tree_survives_a_round_trip_through_json() -> None:
    doc = parse(GOOD)
    again = Document.from_dict(doc.to_dict())
    assert again.to_dict() == doc.to_dict()
    assert isinstance(again.references()[0], Reference)


@pytest.mark.parametrize(
    ("source", "code", "line", "column"),
    [
        (
            "<role>\n  <personality>x</personality>\n  <persona>y</persona>\n</role>",
            "unknown_tag",
            3,
            3,
        ),
        ("<role>\n  <personality>\n    x\n</role>", "unclosed_tag", 2, 3),
        ("<role>\n  <principle>x</principle>", "unclosed_tag", 1, 1),
        ("<role><personality>x</principle></role>", "unexpected_close", 1, 21),
        ("<role><reasoning>x</reasoning></role>", "misplaced_tag", 1, 7),
        (
            "<role><personality>a</personality>\n<personality>b</personality></role>",
            "duplicate_section",
            2,
            1,
        ),
        ("intro\n<role><personality>a</personality></role>", "text_outside_root", 1, 1),
        (
            "<role>\n  loose words\n  <personality>a</personality></role>",
            "text_outside_section",
            2,
            3,
        ),
        ("<thought><plan>a</plan></thought>", "wrong_root", 1, 1),
        ("just text", "text_outside_root", 1, 1),
        ("", "missing_root", 1, 1),
        ("<role></role>", "empty_root", 1, 1),
        ("<role><personality>@!thougt://x</personality></role>", "bad_reference", 1, 20),
        ("<role><personality>@!thought://Bad</personality></role>", "bad_reference", 1, 20),
        ("<role><personality x=1>a</personality></role>", "malformed_tag", 1, 7),
        ("<role><personality/></role>", "self_closing_tag", 1, 7),
        ("<role><!-- never closed <personality>a</personality></role>", "unclosed_comment", 1, 7),
    ],
)
def test_malformed_documents_report_the_problem_at_its_line_and_column(
    source: str, code: str, line: int, column: int
) -> None:
    doc = parse(source)
    assert not doc.ok
    found = [(e.line, e.column) for e in doc.errors if e.code == code]
    assert found, (code, [str(e) for e in doc.errors])
    assert (line, column) in found, [str(e) for e in doc.errors]


def test_one_unknown_tag_is_one_error_not_a_cascade() -> None:
    doc = parse("<role>\n<personality>a</personality>\n<foo>\nlines\nof text\n</foo>\n</role>")
    assert codes(doc) == ["unknown_tag"]
    assert "<foo>" in doc.errors[0].message and "&lt;" in doc.errors[0].message


def test_all_errors_are_reported_at_once_in_reading_order() -> None:
    doc = parse("<role>\n<personality>@!foo://a</personality>\n<bogus>\n<plan>x</plan>\n</role>")
    assert codes(doc) == ["bad_reference", "unknown_tag", "misplaced_tag"]
    assert [e.line for e in doc.errors] == [2, 3, 4]


def test_code_and_comments_hide_tags_and_references() -> None:
    source = (
        "<role>\n<knowledge>\nWrite `<role>` and `@!thought://x` literally.\n"
        "```xml\n<personality>inside a fence</personality>\n@!thought://y\n```\n"
        "<!-- <bogus> @!thought://z -->\nemail me@example.org, a < b, <https://example.org>\n"
        "</knowledge>\n</role>"
    )
    doc = parse(source)
    assert doc.ok, [str(e) for e in doc.errors]
    assert doc.references() == []
    text = doc.section("knowledge").markdown()  # type: ignore[union-attr]
    assert "`<role>`" in text and "<personality>inside a fence</personality>" in text
    assert "bogus" not in text and "a < b" in text


def test_windows_line_endings_do_not_move_positions() -> None:
    doc = parse("<role>\r\n<personality>\r\n  <nope>\r\n</personality>\r\n</role>")
    assert [(e.code, e.line, e.column) for e in doc.errors] == [("unknown_tag", 3, 3)]


def test_resources_parse_with_their_own_sections() -> None:
    thought = parse(
        "<thought>\n<exploration>wide</exploration>\n<plan>p</plan>\n</thought>", "thought"
    )
    assert thought.ok and [e.tag for e in thought.root.elements()] == ["exploration", "plan"]  # type: ignore[union-attr]
    execution = parse("<execution><rule>r</rule><criteria>c</criteria></execution>", "execution")
    assert execution.ok
    bad = parse("<execution><exploration>x</exploration></execution>", "execution")
    assert codes(bad) == ["misplaced_tag"] and "<thought>" in bad.errors[0].message
    knowledge = parse("<knowledge>\n# Facts\n- one @?knowledge://more\n</knowledge>", "knowledge")
    assert knowledge.ok and knowledge.references()[0].mode == "optional"
    assert codes(parse("<knowledge><rule>x</rule></knowledge>", "knowledge")) == ["misplaced_tag"]


def test_a_missing_required_reference_is_an_error_an_optional_one_a_warning() -> None:
    doc = parse(GOOD)
    result = resolve(doc, loader({("thought", "skeptic"): "<thought><plan>p</plan></thought>"}))
    by_code = {e.code: e for e in result.errors}
    assert not result.ok
    missing = by_code["missing_reference"]
    assert (missing.line, missing.column) == (12, 22) and "python" in missing.message
    assert by_code["optional_reference_missing"].severity == "warning"


def test_a_reference_cycle_is_found_and_spelled_out() -> None:
    docs: dict[Key, str] = {
        ("thought", "skeptic"): "<thought><plan>@!thought://doubt</plan></thought>",
        (
            "thought",
            "doubt",
        ): "<thought>\n<reasoning>\n  @!thought://skeptic\n</reasoning></thought>",
        ("execution", "checklist"): "<execution><rule>r</rule></execution>",
        ("knowledge", "python"): "<knowledge>py</knowledge>",
    }
    result = resolve(parse(GOOD), loader(docs))
    cycles = [e for e in result.errors if e.code == "reference_cycle"]
    assert len(cycles) == 1
    assert cycles[0].document == "thought://doubt" and (cycles[0].line, cycles[0].column) == (3, 3)
    assert "thought://skeptic → thought://doubt → thought://skeptic" in cycles[0].message


def test_a_broken_resource_breaks_the_reference_to_it() -> None:
    docs: dict[Key, str] = {("thought", "skeptic"): "<thought><wrong>x</wrong></thought>"}
    result = resolve(parse(GOOD), loader(docs))
    broken = [e for e in result.errors if e.code == "broken_reference"]
    assert broken and "unknown tag" in broken[0].message and broken[0].line == 5


def test_resolution_loads_one_batch_per_level_not_one_per_reference() -> None:
    many = "\n".join(f"@!thought://t{i}" for i in range(20))
    role = parse(f"<role><personality>\n{many}\n</personality></role>")
    docs: dict[Key, str] = {
        ("thought", f"t{i}"): f"<thought><plan>@!knowledge://k{i}</plan></thought>"
        for i in range(20)
    }
    docs |= {("knowledge", f"k{i}"): "<knowledge>fact</knowledge>" for i in range(20)}
    calls: list[set[Key]] = []
    result = resolve(role, loader(docs, calls))
    assert result.ok and result.loads == 2 and len(calls) == 2
    assert [len(c) for c in calls] == [20, 20]


def test_rendering_expands_references_once_and_drops_missing_optional_ones() -> None:
    source = (
        "<role>\n  <personality>\n    Calm.\n    @!thought://skeptic\n  </personality>\n"
        "  <principle>\n    @!thought://skeptic\n    @?execution://absent\n    - be kind\n"
        "  </principle>\n</role>"
    )
    docs: dict[Key, str] = {
        ("thought", "skeptic"): "<thought>\n<challenge>\n  Ask what would prove it wrong.\n"
        "</challenge>\n</thought>"
    }
    doc = parse(source)
    persona = render_role(doc, resolve(doc, loader(docs)), title="Reviewer")
    assert persona.startswith("# Reviewer\n\n## Personality\n\nCalm.")
    assert persona.count("Ask what would prove it wrong.") == 1
    assert "**Challenge.**" in persona and "## Principles" in persona
    assert "(see way of thinking “skeptic” above)" in persona
    assert "absent" not in persona and "\n- be kind" in persona  # dedented markdown


def test_a_huge_document_is_refused_politely() -> None:
    doc = parse("<role><personality>" + "x" * 300_000 + "</personality></role>")
    assert codes(doc) == ["too_long"]


def test_deeply_nested_sections_are_errors_not_a_crash() -> None:
    doc = parse("<role>" + "<principle>" * 1000 + "</role>")
    assert not doc.ok and len(doc.errors) <= 101
    assert doc.errors[-1].code == "too_many_errors"
    resolve(doc, loader({}))  # no recursion into a deep tree: there is none
    Document.from_dict(doc.to_dict())


def test_nul_characters_are_refused_where_they_are() -> None:
    doc = parse("<role>\n<principle>\nx \x005\x00 y\n</principle>\n</role>")
    assert [(e.code, e.line, e.column) for e in doc.errors] == [("nul_character", 3, 3)]


def test_indented_fences_inside_sections_are_code() -> None:
    source = (
        "<role>\n  <knowledge>\n    ```html\n    <div>\n\n    @!thought://not-a-ref\n"
        "    ```\n  </knowledge>\n</role>"
    )
    doc = parse(source)
    assert doc.ok and doc.references() == []


def test_a_code_span_never_runs_across_a_dpml_tag() -> None:
    doc = parse(
        "<role><personality>Press the ` key.\n</personality>\n"
        "<principle>Use `make`.</principle></role>"
    )
    assert doc.ok, [str(e) for e in doc.errors]
    inline = parse("<role><personality>```x``` is inline, <b> is not</personality></role>")
    assert [e.code for e in inline.errors] == ["unknown_tag"]


def test_a_sentence_ending_after_a_reference_does_not_change_its_name() -> None:
    doc = parse(
        "<role><personality>See @knowledge://v1.2. Then @?thought://a-b!</personality></role>"
    )
    assert [r.uri for r in doc.references()] == ["knowledge://v1.2", "thought://a-b"]

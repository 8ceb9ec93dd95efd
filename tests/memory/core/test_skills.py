"""Skills, pure: literals become placeholders (one name per literal), failed steps become
pitfalls, retries collapse, preconditions are found, written procedures parse in their usual
shapes (and what is not a procedure does not), the hierarchy and the reliability prior; and a
skill packs into a context and leads a guide's steps."""

from __future__ import annotations

from memory.core.guide import distil
from memory.core.mind import KnownSkill
from memory.core.packing import pack
from memory.core.skills import (
    Literals,
    StepSeen,
    from_pattern,
    from_trajectory,
    generalise,
    parent_of,
    reliability,
    skill_key,
)


def test_literals_become_named_placeholders_and_a_literal_keeps_its_name() -> None:
    names = Literals()
    first = generalise("copy /srv/in/q3.csv to ~/out/q3.csv", names)
    second = generalise("open ~/out/q3.csv and retry 3 times at https://x.example/a", names)
    assert first == "copy {path} to {path2}"
    assert second == "open {path2} and retry {number} times at {url}"
    assert names.examples() == {
        "path": "/srv/in/q3.csv",
        "path2": "~/out/q3.csv",
        "number": "3",
        "url": "https://x.example/a",
    }
    kinds = generalise('tag v2.4.1 for OPS-1234 on 10.0.0.7:8080 by ana@acme.io "Blue"', Literals())
    assert kinds == "tag {version} for {ticket} on {ip} by {email} {value}"


def test_a_trajectory_keeps_what_worked_and_warns_about_what_failed() -> None:
    draft = from_trajectory(
        "Export the Q3 report",
        [
            StepSeen("Make sure the VPN is up"),
            StepSeen("open https://reports.acme.io/q3"),
            StepSeen("export to /tmp/q3.csv", failed=True, observation="permission denied"),
            StepSeen("export to ~/out/q3.csv"),
            StepSeen("export to ~/out/q3.csv"),  # a retry
            StepSeen("upload ~/out/q3.csv to OPS-12"),
        ],
        preconditions=["a reports account"],
    )
    assert draft is not None
    assert draft.goal == "Export the Q3 report" and draft.key == "export q3 report"
    assert draft.preconditions == ("a reports account", "the VPN is up")
    assert draft.steps == ("open {url}", "export to {path2}", "upload {path2} to {ticket}")
    assert draft.pitfalls == ("export to {path} (failed: permission denied)",)
    assert "upload" in draft.terms and "vpn" in draft.terms and "{path2}" not in draft.terms
    # nothing worked: nothing to reuse
    assert from_trajectory("fix it", [StepSeen("restart", failed=True)]) is None


def test_written_procedures_parse_in_their_usual_shapes_and_prose_is_no_procedure() -> None:
    numbered = from_pattern("To deploy the api: 1. run make build 2. push image v1.2.3 3. restart")
    assert numbered is not None
    assert numbered.goal == "deploy the api"
    assert numbered.steps == ("run make build", "push image {version}", "restart")
    bulleted = from_pattern("Release checklist:\n- bump the version\n- tag it\n- publish")
    assert bulleted is not None and bulleted.steps == ("bump the version", "tag it", "publish")
    semi = from_pattern("Onboarding: create the account; add to the team, then send the guide")
    assert semi is not None
    assert semi.steps == ("create the account", "add to the team", "send the guide")
    arrows = from_pattern("build -> test -> ship")
    assert arrows is not None and arrows.steps == ("build", "test", "ship")
    assert arrows.goal == "build → test → ship"
    assert from_pattern("Maya prefers TypeScript") is None
    assert from_pattern("Note: be careful") is None


def test_the_hierarchy_and_the_reliability_prior() -> None:
    assert skill_key("Deploying the API!") == skill_key("deploy api")
    general, specific = skill_key("export data"), skill_key("export data as CSV")
    assert parent_of(specific, [(1, general), (2, skill_key("export")), (3, specific)]) == 1
    assert parent_of(general, [(3, specific)]) is None
    assert reliability(0, 0) == 0.5
    assert reliability(9, 0) > reliability(1, 0) > reliability(1, 1) > reliability(0, 3)


SKILL = KnownSkill(
    id=7,
    goal="deploy the api",
    steps=("run make build", "push image {version}", "restart"),
    preconditions=("a registry login",),
    pitfalls=("restart before push (failed: old image)",),
    placeholders=(("version", "v1.2.3"),),
    successes=3,
    failures=1,
    version=2,
    score=0.8,
)


def test_a_skill_packs_after_the_facts_and_leads_the_guides_steps() -> None:
    packed = pack([], 400, skills=[SKILL])
    assert packed.skill_ids == (7,)
    assert "[skill #7] deploy the api (v2, worked 3 of 4 times)" in packed.text
    assert "1. run make build 2. push image {version} 3. restart" in packed.text
    assert "{version} = v1.2.3" in packed.text and packed.tokens <= 400
    assert pack([], 40, skills=[SKILL]).skill_ids == ()  # does not fit: left out, not cut
    guide = distil("deploy the api", [], [], 300, [SKILL])
    sections = {line.section: line for line in guide.lines}
    assert sections["steps"].cites[0].kind == "skill" and "worked 3 of 4" in sections["steps"].text
    assert "restart before push" in sections["warnings"].text
    assert guide.tokens <= 300

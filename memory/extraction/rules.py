"""The rules extractor: facts, entities, dates and quantities from what people state, no LLM.

Each sentence is matched against the patterns people use to state something about themselves
or someone named — who they are, their role, where they work and live, what they own and use,
like, prefer, dislike or are allergic to, what they plan and by when, what was decided, and the
general "my X is Y" / "Maya's X is Y". The first person is the speaker (or "user" when nobody
is named). Every fact keeps the span of its sentence as evidence and the slot a later value
replaces. Precision first: a statement no pattern reads is left to recall over the engram.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass
from datetime import datetime

from memory.core.extract import ENTITY_RE, NOT_NAMES
from memory.extraction.dates import find_dates, find_quantities
from memory.extraction.types import Extraction, FactDraft, Mention, When

VERSION = "rules/2"  # 2: amounts ("added 25 postcards") and durations
# two letters or more a word ("I" is no name), initials allowed ("J.R. Smith")
_CAPITAL = r"[A-Z](?:[\w'&-]|\.(?=[A-Z]))+"
# "M. Silva": initials before a name; "Lisbon and I'm": the speaker is no part of a name
NAME = (
    rf"(?:[A-Z]\.\s?){{0,2}}{_CAPITAL}"
    rf"(?:\s+(?:of|de|van|von|&|and)?\s*(?!I\b|I'){_CAPITAL}){{0,3}}"
)
SUBJECT = rf"(?P<subj>\bI\b|\b[Ww]e\b|{NAME})"
# "Maya's team uses Airflow": what a person's team, company or family uses is theirs too
GROUP_OF = r"(?:(?:'s|’s)\s+(?i:team|company|family|household|group|startup|squad))?"
# "I left Acme and joined Globex": after "and" the subject is the speaker's, left unsaid
SUBJECT_OR_AND = (
    rf"(?:{SUBJECT}|\band(?:\s+then|\s+later|\s+now|\s+recently)?(?=\s))"
    r"(?:\s+(?i:now|still|currently|also|actually|really|just|recently|finally|already|"
    r"officially|even))*"
)
# where an object phrase stops: punctuation, or a word that starts another clause
STOP = (
    r"(?=\s+(?:and|but|because|since|so|which|who|where|when|while|though|although|if|"
    r"until|after|before|now|anymore|these days|at the moment|lately|recently|too|as well|"
    r"instead|though|every|each|on|at|in|for|with|from|last|next|this|over|than)\b|"
    r"\s*[;!?()\n]|\s*[,.:](?!\d)|$)"
)
OBJECT = rf"(?P<obj>(?:[^,.;:!?()\n]|(?<=\d)[,.:](?=\d)){{2,60}}?){STOP}"
NAMED_OBJECT = rf"(?P<obj>{NAME})"
DETERMINERS = re.compile(r"(?i)^(?:a|an|the|my|our|his|her|their|some|new)\s+")
ROLE_TAIL = re.compile(
    r"(?i)(?:er|or|ist|ian|ant|ent|ect|ive|nurse|chef|doctor|lawyer|student|intern|lead|head|"
    r"founder|owner|manager|teacher|scientist|writer|editor|architect|consultant|director|"
    r"officer|assistant|analyst|specialist|coordinator|administrator|admin|cto|ceo|cfo|vp|pm)$"
)
NOT_ATTRIBUTES = frozenset(
    "guess point question thought idea problem issue concern hope worry feeling bet "
    "understanding impression question answer reason excuse".split()
)
COUNT_WORDS = {
    "one": 1,
    "two": 2,
    "three": 3,
    "four": 4,
    "five": 5,
    "six": 6,
    "seven": 7,
    "eight": 8,
    "nine": 9,
    "ten": 10,
}
# a sentence ends at . ! ? or a line's end, not at an initial ("M. Silva")
SENTENCE = re.compile(r"(?:[^.!?\n]|(?<=\b[A-Z])\.(?=\s?[A-Z]))+(?:[.!?]+|\n|$)")


@dataclass(frozen=True)
class Rule:
    """One way of stating a fact: the pattern, what it means, how sure we are."""

    name: str
    pattern: re.Pattern[str]
    predicate: str  # may name a group: "{attr}"
    slot: str  # "works_at" (one value at a time) or "likes:{obj}" (one of many)
    confidence: float
    ends: bool = False


def _rule(
    name: str, pattern: str, predicate: str, slot: str, confidence: float, **kw: bool
) -> Rule:
    return Rule(name, re.compile(pattern), predicate, slot, confidence, **kw)


IDENTITY_WORDS = (
    r"vegetarian|vegan|pescatarian|christian|muslim|jewish|buddhist|hindu|atheist|introvert|"
    r"extrovert|morning person|night owl|early riser|parent|runner|cyclist|left-handed|"
    r"right-handed|diabetic|celiac|coeliac|lactose intolerant|teetotal|sober"
)
ADVERBS = r"just|already|now|finally|recently|also|only|actually|currently|even|since|so far"
# verbs of tallying: the object counted is the slot ("count:postcards"), the latest count holds
AMOUNT_VERBS = (
    r"added|collected|completed|finished|read|written|wrote|visited|run|ran|saved|raised|"
    r"lost|gained|sold|made|baked|planted|attended|watched|lead|led|manage|managed|mentor|"
    r"need|needed|have|has|own|scored|earned|reached|hit|logged|done|did|taken|took"
)
AMOUNT_LEADS = (
    r"a team of|a total of|about|around|over|nearly|almost|roughly|exactly|up to|more than|"
    r"at least|another"
)
COUNTED = r"two|three|four|five|six|seven|eight|nine|ten|eleven|twelve|fifteen|twenty"
_BE = r"(?:am|'m|’m|is|are|'re|was|were|have been|has been|'ve been)"
RULES = (
    _rule(
        "name",
        rf"(?i:\bmy name is|\bcall me|\bI go by|\bI(?:'m| am) called)\s+{NAMED_OBJECT}",
        "name",
        "name",
        0.9,
    ),
    _rule(
        "identity",  # "I'm vegetarian", "Ana is a night owl": ways of life, one of many
        rf"{SUBJECT_OR_AND}\s*(?i:{_BE})\s+(?:(?i:a|an)\s+)?(?P<obj>(?i:{IDENTITY_WORDS}))"
        r"(?![\w-])",
        "is",
        "is:{obj}",
        0.8,
    ),
    _rule(
        "role",
        rf"{SUBJECT_OR_AND}\s*(?i:{_BE}|works? as|worked as|started as)\s+(?i:a|an|the)\s+"
        rf"(?P<obj>(?:[a-z-]+\s+){{0,3}}?[a-z-]+?){STOP}",
        "role",
        "role",
        0.75,
    ),
    _rule(
        "role_at",
        rf"{SUBJECT_OR_AND}\s*(?i:{_BE}|works? as)\s+(?i:a|an|the)\s+"
        r"(?:[a-z-]+\s+){0,3}[a-z-]+\s+"
        rf"(?i:at|for|with)\s+{NAMED_OBJECT}",
        "works at",
        "works_at",
        0.75,
    ),
    _rule(
        "works_at",
        rf"{SUBJECT_OR_AND}\s*(?i:work|works|worked|am working|'m working|is working|are working|"
        rf"started working|got a job|got hired|was hired|ha(?:ve|s) been working)\s+"
        rf"(?i:at|for|with|by)\s+{NAMED_OBJECT}",
        "works at",
        "works_at",
        0.85,
    ),
    _rule(
        "role_after_employer",
        rf"{SUBJECT_OR_AND}\s*(?i:work|works|worked|am working|'m working)\s+(?i:at|for)\s+"
        rf"{NAME}\s+(?i:as)\s+(?i:a|an|the)?\s*(?P<obj>(?:[a-z-]+\s+){{0,3}}?[a-z-]+?){STOP}",
        "role",
        "role",
        0.8,
    ),
    _rule(
        "joined",
        rf"{SUBJECT_OR_AND}\s*(?i:joined|started at|moved over to|signed with)\s+{NAMED_OBJECT}",
        "works at",
        "works_at",
        0.75,
    ),
    _rule(
        "left_job",
        rf"{SUBJECT_OR_AND}\s*(?i:left|quit|resigned from|was laid off from|got laid off from)\s+"
        rf"(?i:my job at\s+|the job at\s+)?{NAMED_OBJECT}",
        "works at",
        "works_at",
        0.75,
        ends=True,
    ),
    _rule(
        "lives_in",
        rf"{SUBJECT_OR_AND}\s*(?i:live|lives|lived|am living|'m living|are living|reside|resides|"
        rf"am based|'m based|is based|are based|have lived|has lived|'ve lived)\s+(?i:in)\s+"
        rf"{NAMED_OBJECT}",
        "lives in",
        "lives_in",
        0.85,
    ),
    _rule(
        "moved_to",
        rf"{SUBJECT_OR_AND}\s*(?i:moved|relocated|am moving|'m moving|are moving|just moved|"
        rf"recently moved)\s+(?i:back\s+)?(?i:to)\s+{NAMED_OBJECT}",
        "lives in",
        "lives_in",
        0.8,
    ),
    _rule(
        "from",
        rf"{SUBJECT_OR_AND}\s*(?i:{_BE}|come|comes)\s+(?i:originally\s+)?(?i:from)\s+{NAMED_OBJECT}",
        "is from",
        "from",
        0.75,
    ),
    _rule(
        "named_pet",
        rf"{SUBJECT_OR_AND}\s*(?i:have|has|got|adopted|own|owns)\s+(?i:a|an)\s+(?P<kind>[a-z]+)\s+"
        rf"(?i:named|called)\s+{NAMED_OBJECT}",
        "has {kind} named",
        "owns:{kind}:{obj}",
        0.85,
    ),
    _rule(
        "pet_named",  # "…and a dog named Rex": the speaker's, unless a subject said otherwise
        rf"(?i:\b(?:a|an|my|our)\s+)(?P<kind>[a-z]+)\s+(?i:named|called)\s+{NAMED_OBJECT}",
        "has {kind} named",
        "owns:{kind}:{obj}",
        0.75,
    ),
    _rule(
        "count",
        rf"{SUBJECT_OR_AND}\s*(?i:have|has|own|owns)\s+(?P<n>\d+|(?i:two|three|four|five|six|seven|"
        rf"eight|nine|ten))\s+(?P<obj>[a-z]+s)\b",
        "number of {obj}",
        "count:{obj}",
        0.8,
    ),
    _rule(
        "amount",  # "I've added 25 new postcards", "I lead a team of 4 engineers": how many
        rf"{SUBJECT}(?:['’]ve|\s+have|\s+had|['’]d)?(?:\s+(?i:{ADVERBS}))*"
        rf"\s+(?P<verb>(?i:{AMOUNT_VERBS}))\s+(?:(?i:{AMOUNT_LEADS})\s+)?"
        rf"(?P<n>\d[\d,]*|(?i:{COUNTED}))\s+(?P<adj>(?:[a-z-]+\s+){{0,2}}?)(?P<obj>[a-z]+s)\b",
        "{verb}",
        "count:{obj}",
        0.6,
    ),
    _rule(
        "duration",  # "I've been using my Fitbit Charge 3 for 6 months": how long, so far
        rf"{SUBJECT}(?:['’]ve|\s+have|\s+has)\s+been\s+(?P<verb>[a-z]+ing)\s+"
        rf"(?P<what>(?:[\w'’-]+\s+){{0,5}}?)(?i:for)\s+(?:(?i:{AMOUNT_LEADS})\s+)?"
        rf"(?P<n>\d+|(?i:{COUNTED}|a|an))\s+(?P<obj>(?i:day|week|month|year)s?)\b",
        "{verb} {what} for",
        "for:{verb} {what}",
        0.6,
    ),
    _rule(
        "owns",
        rf"{SUBJECT_OR_AND}\s*"
        r"(?i:own|owns|bought|purchased|adopted|got (?:a|an|my) new|just got)\s+"
        rf"{OBJECT}",
        "owns",
        "owns:{obj}",
        0.7,
    ),
    _rule(
        "switched",
        rf"{SUBJECT_OR_AND}{GROUP_OF}\s*(?i:switched|moved|migrated|changed|went)\s+(?i:over\s+)?(?i:from)\s+"
        rf"(?P<old>[^,.;!?\n]{{2,40}}?)\s+(?i:to)\s+{OBJECT}",
        "uses",
        "uses:{obj}",
        0.8,
    ),
    _rule(
        "uses",
        rf"{SUBJECT_OR_AND}{GROUP_OF}\s*"
        r"(?i:use|uses|am using|'m using|are using|'re using|rely on|relies on|"
        rf"switched to|migrated to|started using|now use)\s+{OBJECT}",
        "uses",
        "uses:{obj}",
        0.75,
    ),
    _rule(
        "stopped_using",
        rf"{SUBJECT_OR_AND}\s*"
        r"(?i:stopped using|no longer use|don't use|do not use|quit using|gave up)\s+"
        rf"{OBJECT}",
        "uses",
        "uses:{obj}",
        0.75,
        ends=True,
    ),
    _rule(
        "allergic",
        rf"{SUBJECT_OR_AND}\s*(?i:{_BE})\s+(?i:severely\s+|very\s+|mildly\s+)?"
        rf"(?i:allergic to)\s+{OBJECT}",
        "is allergic to",
        "allergic_to:{obj}",
        0.9,
    ),
    _rule(
        "dislikes",
        rf"{SUBJECT_OR_AND}\s*(?i:don't like|do not like|doesn't like|dislike|dislikes|hate|hates|"
        rf"can't stand|cannot stand|am not a fan of|'m not a fan of)\s+{OBJECT}",
        "dislikes",
        "likes:{obj}",
        0.8,
        ends=True,
    ),
    _rule(
        "prefers",
        rf"{SUBJECT_OR_AND}\s*(?i:prefer|prefers|now prefer|would rather have)\s+{OBJECT}"
        rf"(?:\s+(?i:over|to|rather than|instead of)\s+(?P<other>[^,.;!?\n]{{2,40}}?){STOP})?",
        "prefers",
        "prefers:{obj}",
        0.8,
    ),
    _rule(
        "likes",
        rf"{SUBJECT_OR_AND}\s*(?i:really\s+|absolutely\s+)?(?i:like|likes|love|loves|enjoy|enjoys|"
        rf"am into|'m into|am a (?:big |huge )?fan of|'m a (?:big |huge )?fan of)\s+{OBJECT}",
        "likes",
        "likes:{obj}",
        0.75,
    ),
    _rule(
        "deadline",
        r"(?i:\bthe\s+)?(?i:deadline|due date)\s+(?i:for|of)\s+(?P<topic>[^,.;!?\n]{2,40}?)\s+"
        r"(?i:is|was|has been moved to|moved to|is now)\s+" + OBJECT,
        "deadline",
        "deadline:{topic}",
        0.85,
    ),
    _rule(
        "due",
        rf"(?P<topic>{NAME}|(?i:the|our|my)\s+[a-z][\w -]{{2,30}}?)\s+(?i:is|are)\s+"
        rf"(?i:due|scheduled)\s+(?i:on|by|for)?\s*{OBJECT}",
        "due",
        "deadline:{topic}",
        0.75,
    ),
    _rule(
        "plans",
        rf"{SUBJECT_OR_AND}\s*(?i:plan|plans|am planning|'m planning|are planning|intend|intends|"
        rf"am going|'m going|are going|will|'ll)\s+(?i:to\s+)?(?P<obj>(?i:visit|travel|move|start|"
        rf"buy|launch|ship|release|run|take|attend|learn|finish|get|go|fly|join|hire|open|"
        rf"build|write|apply|quit|retire|adopt|sell|do)\b[^,.;!?\n]{{0,50}}?){STOP}",
        "plans to",
        "plans:{obj}",
        0.7,
    ),
    _rule(
        "decided",
        rf"{SUBJECT_OR_AND}\s*(?i:decided|agreed|have decided|'ve decided|chose|settled)\s+"
        rf"(?i:to|on|that)\s+{OBJECT}",
        "decided",
        "decided:{obj}",
        0.8,
    ),
    _rule(
        "attribute_mine",
        rf"(?P<subj>\b(?i:my|our))\s+(?P<attr>(?:[\w-]+\s+){{0,3}}[\w-]+)\s+"
        rf"(?i:is|are|was|=)\s+(?i:now\s+|currently\s+|still\s+)?{OBJECT}",
        "{attr}",
        "{attr}",
        0.7,
    ),
    _rule(
        "attribute_named",
        rf"(?P<subj>{NAME})(?:'s|’s)\s+(?P<attr>(?:[\w-]+\s+){{0,3}}[\w-]+)\s+"
        rf"(?i:is|are|was|=)\s+(?i:now\s+|currently\s+|still\s+)?{OBJECT}",
        "{attr}",
        "{attr}",
        0.7,
    ),
    _rule(
        "attribute_of",
        rf"(?i:\bthe)\s+(?P<attr>(?:[\w-]+\s+){{0,2}}[\w-]+)\s+(?i:of|for)\s+"
        rf"(?P<subj>{NAME})\s+(?i:is|are|was)\s+(?i:now\s+)?{OBJECT}",
        "{attr}",
        "{attr}",
        0.7,
    ),
)
# an object that is a clause, not a value: "my plan is to…", "my mom is coming"
WEAK_OBJECT = re.compile(
    r"(?i)^(?:to\b|that\b|so\b|not\b|very\b|really\b|pretty\b|kind of|sort of|a bit|going\b|"
    r"being\b|it\b|this\b|that\b|there\b|here\b|why\b|what\b|how\b|also\b|just\b|"
    r"(?:back|home|up|out|off|used|started|ready|done|sick|tired|lost)$)"
)
GERUND = re.compile(r"(?i)^\w+ing\b")  # "my mom is coming": an attribute's value is no verb
ATTRIBUTE_GLUE = frozenset("is are was were be that it this to and i you we".split())
IDENTITIES = frozenset(
    "vegetarian vegan pescatarian christian muslim jew buddhist hindu atheist introvert "
    "extrovert morning person night owl parent mother father mom dad runner cyclist".split()
)
UNCOUNTED = frozenset(
    "ones things times minutes hours days weeks months years seconds bits lots kinds sorts "
    "types ways steps questions ideas tips options".split()
)
FIRST_PERSON = frozenset({"i", "we", "my", "our"})
FIRST_CONTRACTED = re.compile(r"(?i)^(?:I|we)['’](?:ve|d|ll|m|re)$")
# capitalised at a sentence's start, yet nobody in particular
NOT_SUBJECTS = frozenset(
    "he she they you it everyone everybody nobody someone somebody anyone anybody people "
    "he's she's they're you're it's there here".split()
)


def normal(value: str) -> str:
    """A slot's key part: lower case, determiners and possessives off, spaces collapsed."""
    value = DETERMINERS.sub("", value.strip())
    value = re.sub(r"(?:'s|’s)$", "", value)
    return re.sub(r"\s+", " ", value).strip().lower()


def _subject(raw: str, speaker: str) -> str | None:
    text = raw.strip()
    if text.lower() in FIRST_PERSON or FIRST_CONTRACTED.match(text):
        return speaker
    if text.lower() in NOT_SUBJECTS:
        return None
    words = text.split()
    if words and words[0].lower() in NOT_NAMES | {"the", "a", "an", "it", "this", "that"}:
        return None
    return re.sub(r"(?:'s|’s)$", "", text)


def _fact(
    rule: Rule, match: re.Match[str], *, speaker: str, offset: int, when: datetime | None
) -> FactDraft | None:
    groups = {k: (v or "").strip() for k, v in match.groupdict().items()}
    subject = _subject(groups.get("subj") or "I", speaker)
    value = DETERMINERS.sub("", groups.get("obj", "")).strip().rstrip(".")
    if subject is None or not value or WEAK_OBJECT.match(value) or len(value) > 60:
        return None
    predicate, slot_template = rule.predicate, rule.slot
    if rule.name == "role" and normal(value) in IDENTITIES:
        predicate, slot_template = "is", "is:{obj}"  # a way of life, one of many
    elif rule.name in ("role", "role_after_employer") and not ROLE_TAIL.search(value):
        return None  # "I am a bit tired": only words that name a role
    attr = groups.get("attr", "").lower()
    if attr and (
        attr.split()[-1] in NOT_ATTRIBUTES
        or ATTRIBUTE_GLUE.intersection(attr.split())
        or GERUND.match(value)
    ):
        return None
    if rule.name == "count":
        value = groups["n"]
    elif rule.name == "amount":
        if groups["obj"].lower() in UNCOUNTED:
            return None  # "I've read 3 ones", "I need 5 minutes": no thing counted
        value = " ".join(part for part in (groups["n"], groups["adj"], groups["obj"]) if part)
    elif rule.name == "duration":
        value = f"{groups['n']} {groups['obj']}"
    keys = {k: normal(v) for k, v in groups.items()}
    keys["obj"] = normal(groups.get("obj", ""))
    if rule.name == "prefers" and groups.get("other"):
        pair = sorted([keys["obj"], normal(groups["other"])])
        slot = f"prefers:{pair[0]}|{pair[1]}"  # a choice between two: one holds at a time
    else:
        slot = slot_template.format(**keys)
    return FactDraft(
        subject=subject,
        predicate=predicate.format(**groups),
        object=value,
        slot=slot,
        confidence=rule.confidence,
        start=offset + match.start(),
        end=offset + match.end(),
        valid_from=when,
        ends=rule.ends,
    )


def _sentences(text: str) -> Iterator[tuple[int, str]]:
    for match in SENTENCE.finditer(text):
        if match.group().strip():
            yield match.start(), match.group()


# what is imagined, asked or quoted states nothing: "If I lived in Paris…", "Does Sam use Go?"
HYPOTHETICAL = re.compile(
    r"(?i)^\W*(?:if|imagine|suppose|supposing|assuming|what if|say|whether|unless)\b"
    r"|\b(?:not sure if|wondering if|what if|pretend)\b"
)
QUESTION = re.compile(
    r"(?i)^\W*(?:do|does|did|is|are|was|were|can|could|would|should|will|have|has|who|what|"
    r"where|when|why|how|which)\b[^?]*\?\s*$"
)
QUOTED = re.compile(r"\"[^\"]*\"|“[^”]*”")


def facts(text: str, *, speaker: str, occurred_at: datetime, dates: list[When]) -> list[FactDraft]:
    found: list[FactDraft] = []
    for offset, sentence in _sentences(text):
        if HYPOTHETICAL.search(sentence) or QUESTION.match(sentence):
            continue
        quoted = [m.span() for m in QUOTED.finditer(sentence)]
        named: list[tuple[int, str]] = []  # who the sentence names as a subject, and where
        inside = [d for d in dates if offset <= d.start < offset + len(sentence)]
        when = inside[0].at if inside else occurred_at
        seen: set[tuple[str, str]] = set()
        for rule in RULES:  # the more specific rules first: the first reading of a slot wins
            for match in rule.pattern.finditer(sentence):
                if any(a <= match.start() < b for a, b in quoted):
                    continue  # someone else's words
                who = speaker
                if "subj" in rule.pattern.groupindex and match.group("subj") is None:
                    # "Jonas works at Klarna and lives in Stockholm": the subject said before
                    before = [name for at, name in named if at < match.start()]
                    who = before[-1] if before else speaker
                draft = _fact(rule, match, speaker=who, offset=offset, when=when)
                if draft is None:
                    continue
                if "subj" in rule.pattern.groupindex and match.group("subj") is not None:
                    named.append((match.start(), draft.subject))
                key = (draft.subject, draft.slot + ("/ends" if draft.ends else ""))
                if key in seen:
                    continue
                if "subj" not in rule.pattern.groupindex and any(s == key[1] for _, s in seen):
                    continue  # an unsaid subject: only when no named one took the slot
                seen.add(key)
                if rule.name == "switched":  # the old tool ends as the new one begins
                    old = normal(match.group("old"))
                    found.append(
                        FactDraft(
                            draft.subject,
                            "uses",
                            match.group("old").strip(),
                            f"uses:{old}",
                            draft.confidence,
                            draft.start,
                            draft.end,
                            when,
                            ends=True,
                        )
                    )
                found.append(draft)
    # in the order said, an ending before a new value at the same place ("left A, joined B")
    return sorted(found, key=lambda f: (f.start, not f.ends))


EMAIL = re.compile(r"\b[\w.+-]+@[\w-]+(?:\.[\w-]+)+\b")
HANDLE = re.compile(r"(?<![\w@])@[A-Za-z_][\w.-]{1,38}\b")
ORG_TAIL = re.compile(
    r"\b(?:Inc|Ltd|GmbH|LLC|Corp|Corporation|Labs|AG|SA|BV|University|Bank|Group|Company|"
    r"Foundation|Institute|Studio|Studios|Agency)\b\.?$"
)
LEADING = NOT_NAMES | {"the", "my", "our", "actually", "sure", "yes", "no", "also", "maybe"}
CALENDAR = re.compile(
    r"(?i)^(?:jan(?:uary)?|feb(?:ruary)?|march|april|may|june|july|aug(?:ust)?|sept?(?:ember)?|"
    r"oct(?:ober)?|nov(?:ember)?|dec(?:ember)?|monday|tuesday|wednesday|thursday|friday|"
    r"saturday|sunday|today|tomorrow|yesterday)$"
)
# the concept extractor's names, with initials in front ("M. Silva", "J.R. Smith")
MENTION_RE = re.compile(r"(?:\b(?:[A-Z]\.\s?){1,2}(?=[A-Z][a-z]))?" + ENTITY_RE.pattern)
PROJECT_HEAD = re.compile(r"^(?:Project|Operation|Team|Initiative)\s+")


PERSON_PREDICATES = frozenset(
    {r.predicate for r in RULES if not r.name.startswith("attribute")} - {"deadline", "due"}
)


PERSONAL_ATTRIBUTES = frozenset(
    "manager boss partner wife husband girlfriend boyfriend mentor birthday email phone "
    "dentist doctor sister brother mother father son daughter".split()
)


def mentions(
    text: str, found: list[FactDraft], quantities: tuple[tuple[int, int], ...] = ()
) -> list[Mention]:
    """Names in the text with a kind: e-mail addresses and handles by shape; organisations,
    places and people by the facts that name them, by suffix or by the word before."""
    kinds: dict[str, str] = {}
    for fact in found:
        personal = fact.predicate in PERSON_PREDICATES or fact.predicate in PERSONAL_ATTRIBUTES
        kinds.setdefault(fact.subject, "person" if personal else "thing")  # "Falcon's budget"
        if fact.slot == "name" or fact.predicate in {"manager", "boss", "partner"}:
            kinds.setdefault(fact.object, "person")
        if fact.slot == "works_at":
            kinds[fact.object] = "organisation"
        elif fact.slot in {"lives_in", "from"}:
            kinds[fact.object] = "place"
    out: list[Mention] = []
    for pattern, kind in ((EMAIL, "email"), (HANDLE, "handle")):
        out.extend(Mention(m.group(), kind, *m.span()) for m in pattern.finditer(text))
    taken = [(m.start, m.end) for m in out] + list(quantities)  # "5000 EUR" names nobody
    for match in MENTION_RE.finditer(text):
        words = match.group().split()
        start = match.start()
        while words and words[0].casefold() in LEADING:
            start = text.index(words[0], start) + len(words[0])
            words.pop(0)
            start = text.index(words[0], start) if words else start
        while words and (words[-1].casefold() in NOT_NAMES or words[-1].startswith("I'")):
            words.pop()
        if not words or (len(words) == 1 and words[0].casefold() in NOT_NAMES):
            continue
        name = re.sub(r"(?:'s|’s)$", "", " ".join(words))
        end = start + len(name)
        if any(a < end and start < b for a, b in taken) or len(name) < 2 or CALENDAR.match(name):
            continue
        first_word = start == 0 or text[max(0, start - 2) : start].strip() in {".", "!", "?", ""}
        shape = "organisation" if ORG_TAIL.search(name) else ""
        shape = shape or ("project" if PROJECT_HEAD.match(name) else "")
        kind = kinds.get(name, "")
        kind = shape if kind in ("", "thing") and shape else kind  # "Project Falcon's budget"
        if not kind and first_word and len(words) == 1:
            continue  # a sentence's first word is capitalised whatever it is
        out.append(Mention(name, kind or "thing", start, end))
    return sorted(out, key=lambda m: m.start)


def extract(text: str, *, speaker: str | None, occurred_at: datetime) -> Extraction:
    """Everything the rules read in one episode's text (spans index ``text`` as given)."""
    text = text.replace("’", "'")  # one apostrophe for the patterns; lengths unchanged
    who = (speaker or "user").strip() or "user"
    dates = find_dates(text, base=occurred_at)
    found = facts(text, speaker=who, occurred_at=occurred_at, dates=dates)
    amounts = find_quantities(text)
    return Extraction(
        extractor=VERSION,
        mentions=mentions(text, found, tuple((q.start, q.end) for q in amounts)),
        dates=dates,
        quantities=amounts,
        facts=found,
    )

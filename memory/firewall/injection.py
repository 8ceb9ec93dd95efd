"""Prompt injection: text written to steer the agent that will later read it.

Five shapes, each a detector: instructions to the reader that override its own
(``instruction_override``), a new identity or mode (``role_override``), markers of a chat
template or of Mnemo's own framing used to break out of the quoted memory (``role_marker``),
requests to call tools on everything (``tool_hijack``), links or requests that carry data out
(``exfiltration``), and characters a person cannot see (``hidden_unicode``).

A phrase that is *talked about* rather than addressed to the reader — inside quotes, in a
sentence about attacks, filters or examples — is reported with a confidence under the
threshold: a how-to that quotes "ignore previous instructions" is knowledge, not an attack.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Iterator

from memory.firewall.hits import Hit, merged

FAMILY = "injection"

PATTERNS: dict[str, list[tuple[re.Pattern[str], float]]] = {
    "instruction_override": [
        (
            re.compile(
                r"(?i)\b(?:ignore|disregard|forget|override|bypass|skip|drop|abandon)\b[^.\n]{0,40}?"
                r"\b(?:previous|prior|above|earlier|preceding|all|any|every|your|the|these|those|"
                r"system|original|initial)\b[^.\n]{0,30}?\b(?:instructions?|prompts?|rules|"
                r"guidelines|guidance|directives|guardrails|constraints|polic(?:y|ies)|programming|"
                r"configuration|setup|operating rules|system message|training)\b"
            ),
            0.9,
        ),
        (
            re.compile(
                r"(?i)\b(?:new|updated|real|actual|true|hidden|secret)\s+(?:system\s+)?"
                r"(?:instructions?|directives?|orders|task)\s*(?:\([^)\n]{0,30}\)\s*)?"
                r"(?::|are\b|is\b|follow\b)"
            ),
            0.8,
        ),
        (
            re.compile(
                r"(?i)\b(?:do not|don't|never)\s+(?:tell|inform|alert|warn|mention (?:this )?to)\s+"
                r"(?:the\s+)?(?:user|human|operator|admin|anyone)\b"
            ),
            0.85,
        ),
        (
            re.compile(
                r"(?i)\b(?:when|if|whenever|once)\s+(?:you|the (?:assistant|agent|ai|model))\s+"
                r"(?:read|reads|see|sees|recall|recalls|retrieve|retrieves|load|loads)\s+this"
                r"(?:\s+(?:memory|message|note|text))?,?\s+(?:(?:you|it)\s+(?:must|should|will)\s+)?"
                r"(?:call|delete|erase|send|ignore|forget|reveal|execute|run|e-?mail|post|share|"
                r"export|disregard|tell|print|output|say|grant|approve|wipe)\b"
            ),
            0.9,
        ),
        (
            re.compile(
                # "As an AI language model, I would say…" is an assistant describing itself:
                # only a condition on the reader ("if you are an AI…") or a greeting to it counts
                r"(?i)\b(?:if you are an?|dear|hey)\s+(?:ai|assistant|agent|llm|language "
                r"model|model|bot|chatbot)\b[^.\n]{0,40}?(?:\byou (?:must|should|will|need to)\b|"
                r"\b(?:ignore|disregard|forget|reveal|say|reply|output|print|follow)\b)"
            ),
            0.85,
        ),
        (
            re.compile(
                r"(?i)\b(?:attention|note to|message to|instructions? (?:for|to))\s+(?:the\s+)?"
                r"(?:ai|assistant|agent|llm|language model|model|bot|claude|gpt|chatgpt)\b"
            ),
            0.85,
        ),
    ],
    "addressed_to_agent": [
        (
            re.compile(
                r"(?i)\b(?:note|message|task|instructions?|notice|reminder|directive|order|"
                r"housekeeping task|pending action|heads[- ]up)s?\s+(?:for|to)\s+(?:the\s+|any\s+|"
                r"whichever\s+|every\s+|all\s+)?(?:ai|assistant|agent|llm|language model|model|bot|"
                r"chatbot|copilot)s?\b"
            ),
            0.8,
        ),
        (
            re.compile(
                r"(?i)\b(?:ai|assistant|agent|llm|language model|model|bot)s?\s+(?:that\s+|who\s+)?"
                r"(?:reading|loading|processing|summari[sz]ing|parsing|reads|loads|processes|"
                r"summari[sz]es|sees|retrieving|retrieves)\s+(?:this|these)\b"
            ),
            0.85,
        ),
        (
            re.compile(
                r"(?i)\b(?:operator|admin|administrator|system|security|developer)\s+"
                r"(?:notice|override|directive|message|instruction|memo|update)\s*[:(\]]"
            ),
            0.75,
        ),
        (
            re.compile(
                r"(?i)\[\s*(?:system|admin|developer|root)[ _-]?(?:override|message|prompt|"
                r"instruction|note|mode)\s*\]|\b(?:system|safety|admin)[ _-]override\b|"
                r"\bsafety\s*=\s*(?:off|false|0|disabled)\b"
            ),
            0.85,
        ),
        # German, French, Spanish, Italian, Portuguese, Dutch: to the agent, forget the rules
        (
            re.compile(
                r"(?i)\b(?:hinweis|nachricht|anweisung|notiz)\s+(?:an|f[üu]r)\s+(?:den|die)\s+"
                r"(?:assistenten|agenten|ki|bot)\b|\b(?:message|note|consigne)s?\s+(?:pour|[àa])\s+"
                r"(?:l['’]\s*ia|l['’]\s*assistant|l['’]\s*agent)\b|"
                r"\b(?:para|nota para|mensaje para)\s+(?:el|la)\s+(?:asistente|agente|ia)\b|"
                r"\b(?:per|nota per)\s+(?:l['’]\s*)?"
                r"(?:assistente|agente|ia)\b|\bconsigne syst[èe]me\b"
            ),
            0.8,
        ),
        (
            re.compile(
                r"(?i)\b(?:vergiss|ignoriere|missachte|oublie|ignore|ne tiens plus compte|olvida|"
                r"ignora|dimentica|esque[çc]a|vergeet|negeer)\b[^.\n]{0,40}?\b(?:anweisungen|"
                r"regeln|vorgaben|instructions|consignes|r[èe]gles|instrucciones|reglas|"
                r"istruzioni|regole|instru[çc][õo]es|regras|instructies|regels)\b"
            ),
            0.85,
        ),
        (
            re.compile(
                r"(?i)\b(?:du bist (?:jetzt|ab jetzt|nun)|tu es d[ée]sormais|"
                r"a partir de ahora eres|ahora eres|"
                r"d'ora in poi sei|agora voc[êe] [ée]|vanaf nu ben je)\b"
            ),
            0.8,
        ),
    ],
    "rules_voided": [
        (
            re.compile(
                r"(?i)\b(?:rules?|instructions?|guidance|configuration|directives?|prompt|"
                r"system message|guardrails|restrictions)\b[^.\n]{0,50}?\b(?:(?:is|are|have been|"
                r"has been|now)\s+)?(?:void|rescinded|revoked|superseded|lifted|suspended|"
                r"cancell?ed|null and void|no longer (?:apply|applies|valid|in effect))\b"
            ),
            0.8,
        ),
        (
            re.compile(
                r"(?i)\b(?:supersede|replace|overwrite|override|update)\s+(?:your|the|all|any)\s+"
                r"(?:\w+\s+){0,2}(?:rules|instructions|configuration|guidance|prompt|directives)\b"
            ),
            0.8,
        ),
        (
            re.compile(
                r"(?i)\btreat (?:this|these)\s+(?:\w+\s+){0,2}as\s+(?:your\s+)?(?:only|new|real|"
                r"true)?\s*(?:system (?:message|prompt)|instructions?|rules)\b"
            ),
            0.85,
        ),
        (
            re.compile(
                r"(?i)\byou are (?:now\s+)?(?:authori[sz]ed|allowed|permitted|cleared|free)\s+to\s+"
                r"(?:bypass|skip|ignore|override|disable|reveal|share|leak|delete|wipe|export)\b"
            ),
            0.85,
        ),
        (
            re.compile(
                r"(?i)\b(?:never|don'?t|do not|no need to)\s+"
                r"(?:(?:wants?|needs?)\s+(?:you\s+)?to\s+)?(?:ask|request|wait)\s+(?:the user\s+)?"
                r"(?:for\s+)?(?:confirmation|approval|permission|consent)\b|\bno need to confirm\b"
            ),
            0.75,
        ),
        (
            re.compile(
                r"(?i)\b(?:standing|permanent|persistent|global|hidden|secret)\s+"
                r"(?:rule|instruction|order|directive)s?\s*:"
            ),
            0.75,
        ),
    ],
    "role_override": [
        (
            re.compile(
                r"(?i)\byou are now (?:an?\s+(?:\w+\s+){0,2}(?:ai|assistant|agent|bot|model|hacker|"
                r"pirate|persona|character|admin)\b|dan\b|free\b|unrestricted|jailbroken|in "
                r"(?:developer|maintenance|god|admin|debug|unrestricted) mode)|\byou are no longer "
                r"(?:bound|restricted|limited|required|an?\b)|"
                r"\bfrom now on,?\s+(?:you|the assistant|the agent)\b|"
                r"\bact as (?:an? )?(?:unrestricted|unfiltered|jailbroken|evil|dan\b)|"
                r"\b(?:from (?:this point|now) on,?\s+)?act as ['\"‘“][^'\"’”\n]{1,30}['\"’”],?\s+"
                r"(?:an?\s+)?(?:\w+\s+){0,2}(?:ai|assistant|agent|bot|model)\b|"
                r"\byou are now ['\"‘“][^'\"’”\n]{1,30}['\"’”]|"
                r"\b(?:developer|god|dan|jailbreak|unrestricted) mode\b|\bpretend (?:that )?you "
                r"(?:are|have) no (?:rules|restrictions|limits)"
            ),
            0.85,
        ),
    ],
    "role_marker": [
        (
            re.compile(
                r"<\|(?:im_start|im_end|system|user|assistant|endoftext|eot_id|start_header_id|"
                r"end_header_id|begin_of_text)\|>|\[/?INST\]|<</?SYS>>|"
                r"</?(?:system|system-reminder|instructions?|memory|memories|context|tool_result|"
                r"function_results|untrusted[-_]data|quoted[-_]memory)>"
            ),
            0.95,
        ),
        (
            re.compile(
                r"(?im)^\s*(?:#{1,4}\s*)?(?:system|developer)\s*(?:prompt|message)?\s*:\s*"
                r"(?:you\b|ignore|disregard|from now|the (?:assistant|agent)|new |always|never|"
                r"do not|override)|"
                r"\"role\"\s*:\s*\"(?:system|developer)\""
            ),
            0.85,
        ),
        (re.compile(r"(?i)\bEND OF (?:MEMORY|MEMORIES|CONTEXT|QUOTED (?:DATA|MEMORY))\b"), 0.9),
    ],
    "tool_hijack": [
        (
            re.compile(
                r"<(?:tool_call|function_call|tool_use|invoke)\b|\"(?:tool_calls|function_call)\""
                r"\s*:|\{\s*\"(?:name|tool|function)\"\s*:\s*\"\w+\"\s*,\s*\"(?:arguments|"
                r"parameters|input|args)\"\s*:"
            ),
            0.9,
        ),
        (
            re.compile(
                r"(?i)\b(?:call|invoke|execute|run|use|trigger)\b[^.\n]{0,30}?\b(?:tool|function|"
                r"command)\b[^.\n]{0,60}?\b(?:all|every|each|entire|whole)\b[^.\n]{0,20}?"
                r"\b(?:memor(?:y|ies)|records?|data|files?|secrets?|keys?|passwords?|users?)"
            ),
            0.85,
        ),
        (
            re.compile(
                r"(?i)\b(?:delete|erase|wipe|forget|remove|drop|destroy)\s+(?:all|every|the entire|"
                r"the whole)\s+(?:of\s+)?(?:the\s+|your\s+|my\s+)?(?:memor(?:y|ies)|records|"
                r"database|data|history|notes)\b[^.\n]{0,40}?\b(?:now|immediately|right away|"
                r"without (?:asking|confirmation|telling))"
            ),
            0.85,
        ),
    ],
    "destructive_command": [
        (
            re.compile(
                r"(?i)\b(?:call|invoke|execute|run|use|trigger|rufe)\b[^.\n]{0,40}?\b(?:tool|function|"
                r"command|shell|tools?)\b[^.\n]{0,80}?(?:rm\s+-rf|\bdrop\s+(?:table|database)\b|"
                r"\bwipe\b|\bdelete_all|\bdelete\s+all\b|\berase\b|\btruncate\b|mkfs|"
                r"\bformat\s+the\b|\bexport_all|\bdestroy\b)"
            ),
            0.85,
        ),
        (
            re.compile(
                r"(?i)\b(?:wipe|drop|destroy|truncate|delete)\s+(?:the\s+)?(?:production|prod|"
                r"live|main)\s+(?:database|db|cluster|bucket|tables?)\b"
            ),
            0.75,
        ),
        (
            re.compile(
                r"(?i)\b(?:delete|export|dump|send|leak|wipe)_(?:all|every|memories|secrets|keys)"
                r"\w*\s*\("
            ),
            0.85,
        ),
    ],
    "exfiltration": [
        (
            re.compile(
                r"(?i)\b(?:send|post|upload|forward|exfiltrate|transmit|leak|copy|e-?mail|share|"
                r"submit|append|encode)\b[^\n]{0,60}?\b(?:memor(?:y|ies)|secrets?|keys?|passwords?|"
                r"credentials|tokens?|conversation|chat history|history|context|everything|"
                r"all (?:the )?data|user data)\b[^\n]{0,60}?(?:https?://[^\s)\]'\"`]*|"
                r"\b(?:to|with)\s+\S+@\S+\.\w+)"
            ),
            0.9,
        ),
        (re.compile(r"!\[[^\]]*\]\(\s*https?://[^)\s]*\?[^)\s]*=[^)\s]*\)"), 0.85),
        # a transfer verb, something sensitive and a destination in one sentence, any order
        (
            re.compile(
                r"(?i)\b(?:send|post|upload|append|open|transmit|forward|leak|exfiltrate|share|"
                r"copy|paste|collect|submit|envoie|envoyer|transmets|transmettre|env[íi]a|enviar|"
                r"schick|schicke|sende|senden|[üu]bertrage|invia|inviare|envie|stuur)\b(?=[^.\n]"
                r"{0,160}?(?:\.ssh\b|\.env\b|\b(?:api[ -]?keys?|tokens?|passwords?|secrets?|"
                r"credentials|cookies|id_rsa|memor(?:y|ies)|(?:chat|conversation) history|"
                r"historial|"
                r"passw[öo]rter|cl[ée]s? api|claves?|mots? de passe|contrase[ñn]as)\b))"
                r"(?=[^.\n]{0,200}?(?:https?://|s3://|gs://|\bwebhook\b|\b\S+@\S+\.\w{2,}))"
            ),
            0.8,
        ),
        (
            re.compile(
                r"(?i)https?://[^\s)]*[?&](?:data|q|secret|key|memory|memories|payload|leak|"
                r"token|d|c)=(?:\{|\[|%7B|<|\$)"
            ),
            0.85,
        ),
    ],
}

# the invisible: zero-width characters, bidirectional overrides, Unicode tag characters
HIDDEN = re.compile(
    "[\u200b\u200c\u200e\u200f\u2060-\u2064\u206a-\u206f\u202a-\u202e\u2066-\u2069\ufeff"
    "\U000e0000-\U000e007f]|(?<![\U0001f000-\U0001faff\u2600-\u27bf\ufe0f])\u200d"
)

# a phrase talked about, not addressed to the reader
QUOTES = "\"'`\u201c\u201d\u2018\u2019\u00ab\u00bb"
MENTION = re.compile(
    r"(?i)\b(?:example|e\.g\.|such as|like|phrases?|strings?|payloads?|attacks?|attackers?|"
    r"injections?|jailbreaks?|classic|famous|known|detect|detects|detector|filter|filters|"
    r"block|blocks|flag|flags|flagged|catch|catches|recogni[sz]e|test|tests|testing|"
    r"red[- ]team|says?|said|wrote|quote|quoted|called|pattern|signature|training|paper|"
    r"article|talk|slides|rule|regex)\b"
)


def quoted(text: str, start: int, end: int) -> bool:
    """The span sits inside a pair of quotes (or a code span) on its line."""
    line_start = text.rfind("\n", 0, start) + 1
    line_end = text.find("\n", end)
    line_end = len(text) if line_end < 0 else line_end
    before, after = text[line_start:start], text[end:line_end]
    return any(mark in before and mark in after for mark in QUOTES) or (
        any(mark in before for mark in "\u201c\u2018\u00ab")
        and any(mark in after for mark in "\u201d\u2019\u00bb")
    )


def mentioned(text: str, start: int, end: int) -> bool:
    """Quoted, in a sentence about attacks, filters or examples."""
    if not quoted(text, start, end):
        return False
    sentence_start = max(text.rfind(".", 0, start), text.rfind("\n", 0, start)) + 1
    window = text[sentence_start:start] + " " + text[end : end + 80]
    return bool(MENTION.search(window))


# scripts whose writing uses the zero-width non-joiner between letters (Persian, Kurdish,
# Indic scripts): there it is spelling, not hiding
JOINING_SCRIPTS = re.compile("[\u0600-\u06ff\u0750-\u077f\u0900-\u0dff\ufb50-\ufdff]")


def hidden(text: str) -> Iterator[Hit]:
    """Tag characters and bidi overrides always; zero-width characters when there are several
    or one splits a word (one stray zero-width space between words is an editor's, not an
    attack), never a ZWNJ inside a word of a script that spells with it."""
    found = []
    for match in HIDDEN.finditer(text):
        char, start = match.group(), match.start()
        if start == 0 and char == "\ufeff":
            continue  # a byte-order mark opening the text
        around = text[max(0, start - 1) : start] + text[start + 1 : start + 2]
        if char == "\u200c" and JOINING_SCRIPTS.search(around):
            continue
        found.append(match)
    zero_width = sum(
        1
        for m in found
        if not ("\U000e0000" <= m.group() <= "\U000e007f")
        and unicodedata.bidirectional(m.group()) not in {"LRE", "RLE", "LRO", "RLO", "PDF"}
    )
    for match in found:
        tag = "\U000e0000" <= match.group() <= "\U000e007f"
        bidi = unicodedata.bidirectional(match.group()) in {"LRE", "RLE", "LRO", "RLO", "PDF"}
        inside = (
            text[max(0, match.start() - 1) : match.start()].isalpha()
            and text[match.end() : match.end() + 1].isalpha()
        )  # "dis\u200dregard": a word split so a filter misses it
        confidence = 0.99 if tag or bidi else 0.9 if zero_width >= 2 or inside else 0.45
        yield Hit("hidden_unicode", FAMILY, *match.span(), confidence)


# patterns that cannot match without one of these characters (a cheap test skips them)
NEEDS: dict[tuple[str, int], tuple[str, ...]] = {
    ("role_marker", 0): ("<", "["),
    ("tool_hijack", 0): ("<", '"'),
    ("exfiltration", 1): ("![",),
    ("exfiltration", 2): ("://",),
}


def scan(text: str) -> list[Hit]:
    hits: list[Hit] = []
    for name, patterns in PATTERNS.items():
        for index, (pattern, confidence) in enumerate(patterns):
            needs = NEEDS.get((name, index))
            if needs and not any(needle in text for needle in needs):
                continue
            for match in pattern.finditer(text):
                start, end = match.span()
                if mentioned(text, start, end):
                    confidence_here = 0.3
                elif quoted(text, start, end) and name != "role_marker":
                    confidence_here = confidence - 0.2
                else:
                    confidence_here = confidence
                hits.append(Hit(name, FAMILY, start, end, confidence_here))
    if not text.isascii():  # every invisible character is outside ASCII
        hits.extend(hidden(text))
    return merged(hits)


DETECTORS = sorted({*PATTERNS, "hidden_unicode"})

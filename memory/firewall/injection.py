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

from memory.firewall import combos, learned
from memory.firewall.gates import word_keys, worth
from memory.firewall.hits import THRESHOLD, Hit, merged
from memory.firewall.lexicon import concepts
from memory.firewall.quotes import CUE_QUOTES, about_templates, mentioned, quoted

FAMILY = "injection"

PATTERNS: dict[str, list[tuple[re.Pattern[str], float]]] = {
    "instruction_override": [
        (
            re.compile(
                r"(?i)\b(?:ignore|disregard|forget|override|bypass|skip|drop|abandon)\b(?!\s+to\b)"
                r"[^.\n]{0,40}?"
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
                r"(?:instructions?|directives?|orders)\s*(?:\([^)\n]{0,30}\)\s*)?"
                r"(?::|are\b|is\b|follow\b)|\b(?:real|actual|true|hidden|secret)\s+task\s*:"
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
            0.45,  # "Note for the assistant: my sister spells her name Katharina" is a note
        ),
        (
            re.compile(
                r"(?i)\b(?:ai|assistant|agent|llm|language model|model|bot)s?\s+(?:that\s+|who\s+)?"
                r"(?:reading|loading|processing|summari[sz]ing|parsing|reads|loads|processes|"
                r"summari[sz]es|sees|retrieving|retrieves)\s+(?:this|these|memory|memories|"
                r"stored|saved)\b"
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
            0.45,  # "Guía de tono para el asistente…": an order must come with it (combos)
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
                r"(?i)\b(?:regole|regeln|r[èe]gles|reglas|regras|regels|opdracht|istruzioni|"
                r"anweisungen|vorgaben|consignes|instrucciones|instru[çc][õo]es|instructies)\b"
                r"[^.\n]{0,40}?\b(?:non (?:sono|[èe]) pi[ùu] valid[ei]|nicht mehr g[üu]ltig|"
                r"(?:sont|est) (?:annul[ée]e?s?|caduques?)|ne sont plus valables|"
                r"ya no son v[áa]lidas|"
                r"j[áa] n[ãa]o s[ãa]o v[áa]lidas|n[ãa]o s[ãa]o mais v[áa]lidas|(?:is|zijn) "
                r"(?:komen te )?vervallen|niet langer geldig|sind aufgehoben|quedan anuladas)"
            ),
            0.8,
        ),
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
                r"(?im)^[ \t]*(?:#{1,4}[ \t]*)?(?:system|developer)[ \t]*(?:prompt|message)?"
                r"[ \t]*:\s*"
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
    # the reader made to mislead the person it serves: answer falsely, leave things out
    "deceive_user": [
        (
            re.compile(
                # "the user" is how the reader of a memory names whom it serves; "if a customer
                # asks, tell them 3-5 days" is one colleague's macro for another
                r"(?i)\bif (?:the|any) (?:user|human|operator|owner)s?\s+"
                r"(?:ever\s+)?(?:asks?|wants?|questions?|inquires?|requests?|wonders?|checks?)\b"
                r"[^.\n]{0,90}?,?\s*(?:just\s+|simply\s+)?(?:say|tell|answer|reply|respond|"
                r"claim|insist|deny|pretend|confirm)\b"
            ),
            0.8,
        ),
        (
            re.compile(
                r"(?i)\b(?:do not|don't|never|must not)\s+(?:disclose|reveal|mention|admit|"
                r"acknowledge|let on)\b[^.\n]{0,40}?(?:\bto (?:the )?(?:user|customer|human)\b|"
                r"\bthat you\b|\bthis (?:note|instruction|message|memory|entry)\b)"
            ),
            0.8,
        ),
        (
            re.compile(
                r"(?i)\bwhen (?:you|the (?:assistant|agent|model|bot))\s+(?:summari[sz]e|"
                r"answer|reply|respond|report|write|draft|talk)s?\b[^.\n]{0,80}?\b(?:leave out|"
                r"omit|hide|conceal|do not mention|don't mention|never mention|pretend|"
                r"downplay|make no mention)\b"
            ),
            0.8,
        ),
        (
            re.compile(
                r"(?i)\btell (?:them|the user|the customer|him|her)\b[^.\n]{0,40}?"
                r"\b(?:it'?s|it is|it has been|they'?ve been|it was|everything is)\s+(?:done|"
                r"deleted|removed|fixed|handled|gone|erased)\b[^.\n]{0,40}?\bbut\b"
            ),
            0.8,
        ),
    ],
    # the reader's identity or authority rewritten
    "persona_reset": [
        (
            re.compile(
                r"(?i)\byou(?:'re| are)\s+(?:not|no longer)\s+(?:a|an|the|just a)\s+"
                r"(?:[\w-]+\s+){0,3}(?:bot|assistant|agent|ai|model|helper|chatbot)\b|"
                r"\bforget (?:who|what) you (?:were told you are|are|were|think you are)\b|"
                r"\byou are\s+['\"‘“][^'\"’”\n]{1,30}['\"’”]\s*(?:now|from now on)\b|"
                r"\b(?:drop|abandon|discard|shed|leave behind)\s+(?:your|the)\s+(?:current\s+|"
                r"old\s+|assigned\s+)?(?:persona|identity|role|character|personality)\b|"
                r"\b(?:tu n['’]es plus|ya no eres|non sei pi[uù]|voc[êe] n[ãa]o [ée] mais|"
                r"je bent (?:niet langer|geen)|du bist (?:kein|nicht mehr))\b|"
                r"\bd[ée]sormais,? tu (?:joues|es|incarnes)\b"
            ),
            0.85,
        ),
        (
            re.compile(
                r"(?i)\b(?:has|have|had) (?:authori[sz]ed|cleared|empowered) you to\b|"
                r"\b(?:has|have|had) (?:permitted|allowed) you to (?:skip|bypass|ignore|override|"
                r"disable|reveal|delete|export|send|share)\b|"
                r"\b(?:asked|told|instructed|wants?|needs?) you to (?:override|bypass|skip|"
                r"disable|ignore|turn off|circumvent|switch off)\b|"
                r"\bis (?:a |an |the )?(?:verified|authori[sz]ed|trusted|certified) "
                r"(?:administrator|admin|owner|developer|operator|superuser)\b[^.\n]{0,80}?"
                r"\b(?:skip|bypass|ignore|override|disable|without|reveal|grant|any)\b|"
                r"\bthe (?:real|true|new|actual|rightful) owner of this (?:workspace|account|"
                r"system|repo(?:sitory)?|tenant|project|agent)\b|"
                r"\bobey (?:only\s+)?(?:him|her|them|me|his|her|their|my|these|the following)\b"
            ),
            0.8,
        ),
        (
            re.compile(
                r"(?i)\btakes? precedence over (?:the |your |any |all )?(?:user|system|operator|"
                r"instructions|prompt|rules|guidance)\b|\bpriority[ -](?:critical|override|"
                r"zero|one)\b|\b(?:highest|top)[- ]priority (?:instruction|directive|order|"
                r"rule)s?\b|\binstru[çc][ãa]o\b[^.\n]{0,20}?\bpara o (?:agente|assistente|"
                r"modelo)\b"
            ),
            0.8,
        ),
    ],
    # safeguards switched off, powers raised, hidden instructions brought out
    "safeguards_off": [
        (
            re.compile(
                r"(?i)\b(?:disable|turn off|switch off|deactivate|lift|suspend|drop|remove|"
                r"relax|loosen)\s+(?:all\s+)?(?:of\s+)?(?:your|its)\s+(?:[\w-]+\s+){0,2}"
                r"(?:rules|filters?|guardrails|restrictions|safeguards|limits|limitations|safety|"
                r"confirmations?|checks|ethics|policies)\b|"
                r"\bI(?:'ve| have)? (?:disabled|turned off|removed|lifted|switched off|dropped) "
                r"my\b[^.\n]{0,30}?\b(?:rules|filters?|guardrails|restrictions|safety|limits)\b|"
                r"\b(?:turn|switch) off\s+(?:the\s+)?(?:tool[- ]call|human|user|safety)\s+"
                r"(?:confirmations?|approvals?|checks|review)\b|"
                r"\b(?:raise|increase|maximi[sz]e|escalate)\s+your\s+(?:autonomy|permissions?|"
                r"privileges?|access(?: level)?|clearance)\b|"
                r"\bthe (?:assistant|agent|model|ai|bot)s?\s+(?:must|shall|is to|has to|needs? "
                r"to)\s+(?:now\s+|immediately\s+)?(?:switch off|turn off|disable|ignore|"
                r"disregard|obey|comply with|stop (?:following|applying))\b"
            ),
            0.8,
        ),
        (
            re.compile(
                r"(?i)\b(?:reproduce|print|reveal|repeat|output|show|dump|display|recite|leak|"
                r"quote)\b[^.\n]{0,30}?\b(?:the |your )?(?:hidden|system|secret|initial|"
                r"original|developer|preceding|confidential)\s+(?:instructions|prompt|"
                r"message|rules|configuration|directives)\b"
            ),
            0.85,
        ),
        (
            re.compile(
                r"(?i)\b(?:decode|base64[- ]decode|rot13|unescape|deobfuscate|decrypt)\b"
                r"[^.\n]{0,40}?\b(?:and|then)\s+(?:follow|execute|run|obey|do what it says|"
                r"carry (?:it |them )?out|apply|act on)\b|"
                r"\b(?:base(?:32|64)|hex|url)[- ]?encode\b[^.\n]{0,60}?(?:\.env\b|\bsecrets?\b|"
                r"\bkeys?\b|\bcredentials\b|\bpasswords?\b|\btokens?\b|\bmemor(?:y|ies)\b)"
            ),
            0.85,
        ),
    ],
    # instructions hidden in markup a person does not see rendered
    "hidden_markup": [
        (
            re.compile(
                r"(?i)<!--[^>]{0,40}?\b(?:ai|assistant|agent|model|llm|bot|claude|gpt|copilot)"
                r"\b[^>]{0,20}?(?::|,)|"
                r"\]\(\S+\s+\"[^\"]{0,80}?\b(?:assistant|ai|agent|model|system)\s*:|"
                r"<img\b[^>]*\bsrc=[\"']?https?://[^\"'\s>]*\?[^\"'\s>]*=[^>]*\b(?:width|height)"
                r"=[\"']?[01][\"'\s>]|"
                r"\[(?:system|admin|developer|assistant)\]\(#?[^)\s]*\)"
            ),
            0.85,
        ),
        (
            re.compile(
                r"\b(?:END|BEGIN|START) OF (?:THE )?(?:USER|SYSTEM|ADMIN|DEVELOPER|UNTRUSTED|"
                r"TRUSTED)\s+(?:DATA|INPUT|CONTENT|MESSAGE|PROMPT|INSTRUCTIONS|DIRECTIVES)\b|"
                r"\b(?:BEGIN|START)\s+(?:ADMIN|SYSTEM|DEVELOPER|ROOT)\s+(?:DIRECTIVES|"
                r"INSTRUCTIONS|PROMPT|MESSAGE|MODE)\b|"
                r"(?i:\bnew instructions\s*[-–—]\s*(?:priority|urgent|important|critical))"
            ),
            0.85,
        ),
    ],
}

# Weak cues: none says "attack" alone (a support transcript has "Agent:", a how-to has
# "curl … | sh"), but two of different kinds in one text, outside quotes, do.
CUES: dict[str, re.Pattern[str]] = {
    "transcript": re.compile(
        r"(?im)^[ \t]*(?:human|user|assistant|ai|system|agent|bot|model)[ \t]*:[ \t]*\S"
    ),
    "vocative": re.compile(
        r"(?im)(?:^|[.!?]\s+|\bP\.?S\.?,?\s+)(?:(?:hey|dear|attention|ok(?:ay)?|beste|liebe[rs]?|"
        r"cher|ch[èe]re|caro|cara|querid[oa]|attenzione|achtung|atenci[óo]n|aten[çc][ãa]o),?\s+)?"
        r"(?:the\s+)?(?:ai|assistant|agent|model|bot|llm|claude|gpt|copilot|modello|mod[èe]le|"
        r"modelo|assistente|asistente|agente|ki|ia)s?\s*[,!]"
        r"|(?:^|[.!?]\s+|\bP\.?S\.?,?\s+)(?:hey|dear|attention|note to|beste|liebe[rs]?|cher|"
        r"ch[èe]re|caro|cara|querid[oa]|attenzione|achtung|atenci[óo]n|aten[çc][ãa]o),?\s+"
        r"(?:the\s+)?(?:ai|assistant|agent|model|bot|llm|claude|gpt|copilot|modello|mod[èe]le|"
        r"modelo|assistente|asistente|agente|ki|ia)s?\s*[:-]"
        r"|^[ \t]*(?:assistant|agent|model|bot|ai)[ \t]*:[ \t]*(?:please\s+)?(?:use|send|run|"
        r"ignore|forget|delete|open|call|execute|reveal|print|stop|switch|grant|approve|mark|"
        r"refund|forward|copy|upload|e-?mail|disable|skip)\b"
        r"|\bfor (?:the|any|whichever|every) (?:ai|assistant|agent|model|bot|llm)s?\b"
        r"|\bif you are (?:an? )?(?:ai|assistant|agent|language model|model|bot|llm)\b"
        r"|\b(?:ai|assistant|agent|model|bot)s? (?:working|handling|reading|processing|loading) "
        r"(?:this|these|memory|memories|stored|saved)\b"
    ),
    "standing_order": re.compile(
        r"(?i)\b(?:from now on|going forward|henceforth|from this point on|in every (?:reply|"
        r"answer|response|message)|in your next (?:reply|answer|response|message)|every "
        r"(?:memory|note|answer|reply|response) you (?:save|write|give|send)|before (?:handling|"
        r"answering|responding|replying|processing|doing anything|you (?:answer|reply|respond|"
        r"handle|continue|proceed|do anything)))\b|\b(?:[àa] partir de maintenant|d[ée]sormais|"
        r"d'ora in poi|da ora in poi|a partir de ahora|de ahora en adelante|vanaf nu|voortaan|"
        r"ab sofort|von nun an|ab jetzt|a partir de agora|daqui em diante)\b"
    ),
    "sweeping_action": re.compile(
        r"(?i)\b(?:mark|approve|refund|delete|close|reset|grant|unlock|export|forward|copy|send)"
        r"\s+(?:every|all|any|each)\b[^.\n]{0,40}?\b(?:refunds?|accounts?|tickets?|requests?|"
        r"memor(?:y|ies)|credentials|files?|users?|records?|keys?|orders?|entries)\b"
    ),
    "remote_code": re.compile(
        r"(?i)\b(?:curl|wget|iwr|invoke-webrequest)\b[^|\n]{0,160}\|\s*(?:sudo\s+)?(?:sh|bash|"
        r"zsh|python3?|iex|node)\b"
    ),
    "sensitive_reach": re.compile(
        r"(?i)\b(?:all|every|the whole|entire)\s+(?:(?:saved|stored|of the|your|the)\s+)?"
        r"(?:memories|credentials|secrets|api keys|passwords|tokens|conversation history|"
        r"chat history|files)\b|\.env\b|\bid_rsa\b|~/\.ssh\b"
    ),
    "sends_out": re.compile(
        r"(?i)\b(?:send|post|upload|forward|e-?mail|transmit|paste|submit|include|append|open|"
        r"visit|fetch|load|navigate to)\b"
        r"[^.\n]{0,80}?(?:https?://\S+|\b\S+@\S+\.\w{2,}\b)"
    ),
    "deception": re.compile(
        r"(?i)\b(?:without telling|without informing|don'?t tell|do not tell|never tell|keep (?:it|"
        r"this) (?:secret|hidden|quiet) from|behind (?:the user'?s|their) back|say (?:no|nothing)|"
        r"pretend (?:that|it)|act as if)\b"
    ),
}
CUE_WEIGHT = 0.4  # one cue: 0.4, under the threshold; two kinds: 0.64; three: 0.78


def cue_hit(text: str, keys: set[str] | None = None) -> Hit | None:
    """One hit over the span of the cues when two kinds or more are present (the transcript
    counts only when two roles speak, or one not on the first line)."""
    keys = word_keys(text) if keys is None else keys
    spans: dict[str, tuple[int, int]] = {}
    for name, pattern in CUES.items():
        if not worth(pattern, keys):
            continue
        for match in pattern.finditer(text):
            start, end = match.span()
            if not quoted(text, start, end, marks=CUE_QUOTES):
                spans.setdefault(name, (start, end))
                break
    if "transcript" in spans:
        roles = {m.group().split(":")[0].strip().lower() for m in CUES["transcript"].finditer(text)}
        if len(roles) < 2 and spans["transcript"][0] <= text.find("\n") % (len(text) + 1):
            del spans["transcript"]
    if combos.USER_TURN.search(text):  # the person's own requests in a transcript
        spans.pop("transcript", None)
        spans.pop("standing_order", None)
    if len(spans) < 2:
        return None
    confidence = 1 - (1 - CUE_WEIGHT) ** len(spans)
    start = min(a for a, _ in spans.values())
    end = max(b for _, b in spans.values())
    return Hit("instruction_cues", FAMILY, start, end, confidence)


# the invisible: zero-width characters, bidirectional overrides, Unicode tag characters
HIDDEN = re.compile(
    "[\u200b\u200c\u200e\u200f\u2060-\u2064\u206a-\u206f\u202a-\u202e\u2066-\u2069\ufeff"
    "\U000e0000-\U000e007f]|(?<![\U0001f000-\U0001faff\u2600-\u27bf\ufe0f])\u200d"
)

# scripts whose writing uses the zero-width non-joiner between letters (Persian, Kurdish,
# Indic scripts): there it is spelling, not hiding
JOINING_SCRIPTS = re.compile("[\u0600-\u06ff\u0750-\u077f\u0900-\u0dff\ufb50-\ufdff]")


# a sentence that explains a technique: "Markdown image exfiltration works by making the model
# render ![x](https://attacker/?q=DATA)"
EXPLAINING = re.compile(
    r"(?i)\b(?:works by|is done by|technique|attacks?|attackers?|exfiltration|for this reason|"
    r"for example|e\.g\.|such as|defen[cs]es?|mitigations?)\b"
)


def explained(text: str, start: int) -> bool:
    sentence_start = max(text.rfind(". ", 0, start), text.rfind("\n", 0, start), start - 200) + 1
    return bool(EXPLAINING.search(text, sentence_start, start))


# a subdivision flag (🏴 + tag letters + cancel tag): an emoji, not hidden text
FLAG_TAGS = re.compile("\U0001f3f4[\U000e0061-\U000e007a]{2,6}\U000e007f")


def hidden(text: str) -> Iterator[Hit]:
    """Tag characters and bidi overrides always; zero-width characters when there are several
    or one splits a word (one stray zero-width space between words is an editor's, not an
    attack), never a ZWNJ inside a word of a script that spells with it."""
    found = []
    flagged = {i for m in FLAG_TAGS.finditer(text) for i in range(m.start() + 1, m.end())}
    for match in HIDDEN.finditer(text):
        if match.start() in flagged:
            continue
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


TALKED_ABOUT = 0.3  # a rule's match that the text only talks about (quoted, documented)


def _quoted_inside(
    text: str, core: tuple[int, int], found: dict[str, list[tuple[int, int]]]
) -> bool:
    """An order of the rule's (a concept inside its span) sits in a quotation the text talks
    about: 'Attackers hide phrases like "You are now DAN"' (the span also reaches the title)."""
    return any(
        mentioned(text, a, b)
        for name in combos.ORDERS & found.keys()
        for a, b in found[name]
        if core[0] <= a and b <= core[1]
    )


def scan(text: str) -> list[Hit]:
    hits: list[Hit] = []
    keys = word_keys(text)
    for name, patterns in PATTERNS.items():
        for index, (pattern, confidence) in enumerate(patterns):
            needs = NEEDS.get((name, index))
            if needs and not any(needle in text for needle in needs):
                continue
            if not worth(pattern, keys):
                continue
            for match in pattern.finditer(text):
                start, end = match.span()
                documented = name == "role_marker" and index < 2 and about_templates(text, start)
                if (name == "exfiltration" and index == 1) or (
                    name == "role_marker" and index == 0
                ):
                    # a markdown image, a template's marker: in a sentence explaining attacks
                    documented = documented or explained(text, start)
                if mentioned(text, start, end) or documented:
                    confidence_here = TALKED_ABOUT
                elif combos.NEGATED.search(text[max(0, start - 20) : start]):
                    confidence_here = 0.2  # "refuse requests to ignore instructions"
                elif quoted(text, start, end) and name != "role_marker":
                    confidence_here = confidence - 0.2
                else:
                    confidence_here = confidence
                hits.append(Hit(name, FAMILY, start, end, confidence_here))
    found = concepts(text, keys)
    for hit, core in combos.concept_hits(text, found):
        if mentioned(text, *core) or _quoted_inside(text, core, found):
            hit = Hit(hit.detector, FAMILY, hit.start, hit.end, TALKED_ABOUT)
        elif quoted(text, *core):
            hit = Hit(hit.detector, FAMILY, hit.start, hit.end, hit.confidence - 0.2)
        hits.append(hit)
    if not text.isascii():  # every invisible character is outside ASCII
        hits.extend(hidden(text))
    cues = cue_hit(text, keys)
    if cues is not None:
        hits.append(cues)
    if not any(hit.confidence >= THRESHOLD or hit.confidence == TALKED_ABOUT for hit in hits):
        # the model reads what the rules did not name, or named too weakly to act on; not what
        # they found quoted in writing about attacks or templates (its span is the whole text)
        hits.extend(learned.scan(text, found))
    return merged(hits)


DETECTORS = sorted(
    {
        *PATTERNS,
        *(rule.detector for rule in combos.RULES),
        "hidden_unicode",
        "instruction_cues",
        learned.DETECTOR,
    }
)

"""Secrets: provider tokens and keys, private keys, passwords in connection strings and in
assignments.

The shapes of provider tokens come from ``detect-secrets`` (its regex plugins, used as they
are, so new shapes arrive with the library); the rest are ours: whole private-key blocks, keys
the library does not know (Google, Anthropic, project-scoped OpenAI keys, Stripe test keys),
bearer tokens, an AWS secret key named in prose, and ``password = …`` style assignments whose
value looks like a secret rather than a placeholder.
"""

from __future__ import annotations

import base64
import math
import re
from collections import Counter
from collections.abc import Iterator
from functools import cache

from detect_secrets.plugins.aws import AWSKeyDetector
from detect_secrets.plugins.azure_storage_key import AzureStorageKeyDetector
from detect_secrets.plugins.base import RegexBasedDetector
from detect_secrets.plugins.basic_auth import BasicAuthDetector
from detect_secrets.plugins.discord import DiscordBotTokenDetector
from detect_secrets.plugins.github_token import GitHubTokenDetector
from detect_secrets.plugins.gitlab_token import GitLabTokenDetector
from detect_secrets.plugins.jwt import JwtTokenDetector
from detect_secrets.plugins.mailchimp import MailchimpDetector
from detect_secrets.plugins.npm import NpmDetector
from detect_secrets.plugins.openai import OpenAIDetector
from detect_secrets.plugins.pypi_token import PypiTokenDetector
from detect_secrets.plugins.sendgrid import SendGridDetector
from detect_secrets.plugins.slack import SlackDetector
from detect_secrets.plugins.square_oauth import SquareOAuthDetector
from detect_secrets.plugins.stripe import StripeDetector
from detect_secrets.plugins.telegram_token import TelegramBotTokenDetector
from detect_secrets.plugins.twilio import TwilioKeyDetector

from memory.firewall.hits import Hit, merged

FAMILY = "secret"

# detect-secrets plugins whose patterns are token shapes (its keyword, entropy, IP and
# "Artifactory AP…" plugins match ordinary words and hashes, so they are left out)
LIBRARY: dict[str, type[RegexBasedDetector]] = {
    "aws_access_key": AWSKeyDetector,
    "azure_storage_key": AzureStorageKeyDetector,
    "connection_string_password": BasicAuthDetector,
    "discord_token": DiscordBotTokenDetector,
    "github_token": GitHubTokenDetector,
    "gitlab_token": GitLabTokenDetector,
    "jwt": JwtTokenDetector,
    "mailchimp_key": MailchimpDetector,
    "npm_token": NpmDetector,
    "openai_key": OpenAIDetector,
    "pypi_token": PypiTokenDetector,
    "sendgrid_key": SendGridDetector,
    "slack_token": SlackDetector,
    "square_secret": SquareOAuthDetector,
    "stripe_key": StripeDetector,
    "telegram_token": TelegramBotTokenDetector,
    "twilio_key": TwilioKeyDetector,
}

OURS: dict[str, tuple[re.Pattern[str], float]] = {
    "private_key": (
        re.compile(
            r"-----BEGIN (?:[A-Z0-9]+ )*PRIVATE KEY(?: BLOCK)?-----"
            r"(?:[\s\S]*?-----END (?:[A-Z0-9]+ )*PRIVATE KEY(?: BLOCK)?-----|[\s\S]*)"
            r"|PuTTY-User-Key-File-[23]:[^\n]*"
        ),
        0.99,
    ),
    "google_api_key": (re.compile(r"\bAIza[0-9A-Za-z_\-]{35}(?![\w-])"), 0.95),
    "anthropic_key": (re.compile(r"\bsk-ant-[A-Za-z0-9_\-]{20,}"), 0.97),
    "openai_key": (
        re.compile(r"(?<![\w-])sk-(?:proj-|svcacct-|admin-)?[A-Za-z0-9_\-]{32,}(?![\w-])"),
        0.9,
    ),
    "stripe_key": (re.compile(r"\b(?:sk|rk)_(?:test|live)_[0-9a-zA-Z]{20,}\b"), 0.95),
    "huggingface_token": (re.compile(r"\bhf_[A-Za-z0-9]{30,}\b"), 0.9),
    "npm_token": (re.compile(r"\bnpm_[A-Za-z0-9]{36}\b"), 0.95),
    "github_token": (
        re.compile(r"\b(?:github_pat_[A-Za-z0-9_]{60,}|gh[pousr]_[A-Za-z0-9]{36})\b"),
        0.95,
    ),
    "registry_auth": (re.compile(r"\"auth\"\s*:\s*\"([A-Za-z0-9+/]{16,}={0,2})\""), 0.85),
    "basic_auth_header": (
        re.compile(r"(?i)\bbasic\s+([A-Za-z0-9+/]{12,}={0,2})(?![\w+/=])"),
        0.8,
    ),
    "bearer_token": (re.compile(r"(?i)\bbearer\s+([A-Za-z0-9\-._~+/]{20,}=*)"), 0.85),
    "aws_secret_key": (
        re.compile(
            r"(?i)\baws\b[^\n]{0,40}?\bsecret\b[^\n]{0,30}?(?<![A-Za-z0-9/+])"
            r"([A-Za-z0-9/+]{40})(?![A-Za-z0-9/+])"
        ),
        0.9,
    ),
    "connection_string_password": (
        re.compile(r"\b[a-z][a-z0-9+.\-]*://[^\s:/@]*:([^\s@/]{3,})@[\w.\-]+"),
        0.95,
    ),
}

# a password-like name, in English and a few other languages, then (after a few words such as
# "for the Jenkins admin") a separator and the value
ASSIGNMENT = re.compile(
    r"(?i)(?<![\w-])(?:[a-z0-9]+[_-])*(?:password|passwd|passphrase|pwd|secret|secret[_-]?key|"
    r"api[_-]?key|apikey|access[_-]?key|access[_-]?token|auth[_-]?token|client[_-]?secret|"
    r"private[_-]?key|token|passwort|kennwort|mot de passe|contrase[ñn]a|clave(?: api)?|"
    r"cl[ée](?: api)?|senha|wachtwoord|parola d'ordine)(?![\w-])[\"']?"
    r"(?P<sep>\s*(?::=|=>|=|:)\s*|[^\n.=:]{0,60}?\s(?:(?:(?:is|has been|was|wurde|ist|a [ée]t[ée]|"
    r"est|[èe] stat[ao]|ha sido|foi|werd)\s+)?(?:changed|set|reset|updated|gewijzigd|veranderd|"
    r"ge[äa]ndert|chang[ée]e?|modifi[ée]e?|cambiad[ao]|cambiat[ao]|alterad[ao]|mudad[ao])\s+"
    r"(?:to|naar|in|auf|zu|en|a|para)|is|was|lautet|ist|est|es|[ée]tait|era|[éèe]|sera|wordt|"
    r"is now|ist jetzt)(?:\s+(?:now|jetzt|maintenant|ahora|agora|adesso|nu|ora))?"
    r"\s*:?\s+|\s+)[\"'`]?"
    r"(?P<value>[^\s\"'`,;)]{6,})"
)
# "login ana.k / 15RzE7Q!u1Hz": a user name, a slash or colon, then the password
LOGIN_PAIR = re.compile(
    r"(?i)\b(?:login|log-in|sign-in|credentials|creds|user(?:name)?\s*/\s*pass(?:word)?)\b\s*:?\s*"
    r"[\w.@+\-]{2,40}\s*(?:/|:|\s-\s)\s*(?P<value>[^\s,;\"'`]{6,})"
)
PLACEHOLDER = re.compile(
    r"(?i)^(?:<.*>|\$\{?.*|%\(.*|\{\{.*|x{3,}.*|\*{3,}.*|\.{3,}|your[_-].*|my[_-].*|changeme|"
    r"password\d*|secret|none|null|true|false|redacted|example|env\b.*|os\.environ.*|"
    r"settings\..*|config\..*|getenv.*|process\.env.*|\[redacted.*)$"
)
SECRETISH = re.compile(r"[A-Za-z]")
CODE = re.compile(r"^[A-Za-z_][\w]*(?:\.[A-Za-z_]\w*)+(?:[\[(].*)?$|^[A-Za-z_]\w*[\[(]")


def entropy(value: str) -> float:
    counts = Counter(value)
    return -sum(n / len(value) * math.log2(n / len(value)) for n in counts.values())


def looks_secret(value: str) -> float:
    """How much a value assigned to a password-like name looks like a real secret: digits or
    symbols among letters, or a long random-looking run; a word ("Settings", "valueFrom") or a
    placeholder is not one."""
    value = value.rstrip(".:")
    if PLACEHOLDER.match(value) or not SECRETISH.search(value) or placeholder(value):
        return 0.0
    if CODE.match(value):  # request.form['password'], cfg.get("x"), self.secret: code
        return 0.0
    classes = sum(
        bool(re.search(pattern, value)) for pattern in (r"[a-z]", r"[A-Z]", r"\d", r"[^\w]")
    )
    if not re.search(r"[\d\W_]", value):  # letters only: a word, unless long and random
        return 0.75 if len(value) >= 20 and classes >= 2 and entropy(value) >= 3.5 else 0.0
    if len(value) >= 8 and classes >= 3:
        return 0.85
    if len(value) >= 8 and classes >= 2 and entropy(value) >= 3.0:
        return 0.75
    if len(value) >= 6 and classes >= 2:
        return 0.55
    return 0.3


def _credentials(value: str) -> bool:
    """Base64 of ``user:password`` (what a Basic authorization carries)."""
    try:
        decoded = base64.b64decode(value + "=" * (-len(value) % 4), validate=True).decode()
    except (ValueError, UnicodeDecodeError):
        return False
    return ":" in decoded and decoded.isprintable()


def placeholder(token: str) -> bool:
    """Documentation keys (AWS's ``…EXAMPLE``) and runs of one character stand for a secret."""
    return "EXAMPLE" in token.upper() or bool(re.search(r"(.)\1{7,}", token))


@cache
def library_patterns() -> list[tuple[str, re.Pattern[str]]]:
    return [(name, pattern) for name, plugin in LIBRARY.items() for pattern in plugin().denylist]


def span_of(match: re.Match[str]) -> tuple[int, int]:
    """The secret itself: the capture group when it follows something (a password after
    ``user:``), the whole match when the group is only the token's prefix (``ghp``)."""
    if match.re.groups and match.group(1) and match.start(1) > match.start():
        return match.span(1)
    start, end = match.span()
    text = match.string
    while start < end and not text[start].isalnum() and text[start] not in "-_":
        start += 1  # patterns that consume the space or quote before the token
    while end > start and text[end - 1] in " \t\"'":
        end -= 1
    return start, end


def candidates(text: str) -> Iterator[Hit]:
    for name, pattern in library_patterns():
        for match in pattern.finditer(text):
            start, end = span_of(match)
            if end > start:
                yield Hit(name, FAMILY, start, end, 0.3 if placeholder(text[start:end]) else 0.95)
    for name, (pattern, confidence) in OURS.items():
        for match in pattern.finditer(text):
            start, end = match.span(1) if pattern.groups else match.span()
            here = confidence
            if name != "private_key" and placeholder(text[start:end]):
                here = 0.3
            if name == "basic_auth_header" and not _credentials(text[start:end]):
                continue  # "basic understanding": a word, not base64 of user:password
            yield Hit(name, FAMILY, start, end, here)
    for match in ASSIGNMENT.finditer(text):
        confidence = looks_secret(match.group("value"))
        bare = not match.group("sep").strip()
        if bare and (confidence < 0.85 or not re.search(r"\d", match.group("value"))):
            continue  # "password field…", "Secret Empire**": a bare space needs a clear secret
        if confidence:
            yield Hit("password_assignment", FAMILY, *match.span("value"), confidence)


def login_pairs(text: str) -> Iterator[Hit]:
    for match in LOGIN_PAIR.finditer(text):
        confidence = looks_secret(match.group("value"))
        if confidence >= 0.75:
            yield Hit("password_assignment", FAMILY, *match.span("value"), confidence)


def scan(text: str) -> list[Hit]:
    return merged([*candidates(text), *login_pairs(text)])


DETECTORS = sorted({*LIBRARY, *OURS, "password_assignment"})

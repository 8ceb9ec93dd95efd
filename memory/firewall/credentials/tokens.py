"""Keys and tokens: provider shapes, private keys, webhooks with their secret, connection
strings, session cookies, and any random-looking run named as a key or token.

The shapes of provider tokens come from ``detect-secrets`` (its regex plugins, used as they
are, so new shapes arrive with the library) and from the providers' own documented prefixes
(``shpat_``, ``dop_v1_``, ``hvs.``, ``glsa_``, …) that the library does not carry yet. A key
whose provider gives it no prefix (Algolia, Mistral, Jenkins, Okta…) is found by what names it:
"API key", "token", "secret" in a few words before a random-looking run.
"""

from __future__ import annotations

import base64
import itertools
import re
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

from memory.firewall.credentials.shape import TEMPLATE, looks_secret, placeholder, random_token
from memory.firewall.hits import Hit

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


def _shapes(*pairs: tuple[str, float]) -> list[tuple[re.Pattern[str], float]]:
    return [(re.compile(pattern), confidence) for pattern, confidence in pairs]


END = r"(?![\w\-])"
# documented prefixes, each a provider's own (a capture group, when present, is the secret)
PROVIDERS: dict[str, list[tuple[re.Pattern[str], float]]] = {
    "private_key": _shapes(
        (
            r"-----BEGIN (?:[A-Z0-9]+ )*PRIVATE KEY(?: BLOCK)?-----"
            r"(?:[\s\S]*?-----END (?:[A-Z0-9]+ )*PRIVATE KEY(?: BLOCK)?-----|[\s\S]*)"
            r"|PuTTY-User-Key-File-[23]:[^\n]*",
            0.99,
        ),
        (r"\bAGE-SECRET-KEY-1[0-9A-Z]{50,}", 0.99),
        (
            r"(?i)(?:private[_ -]?key|privatekey)\s*[=:]?\s*(?:<\(echo\s+)?[\"']?"
            r"([A-Za-z0-9+/]{42}[AEIMQUYcgkosw048]=)",
            0.95,
        ),
    ),
    "google_api_key": _shapes(
        (r"\bAIza[0-9A-Za-z_\-]{35}" + END, 0.95),
        (r"\bya29\.[A-Za-z0-9_\-]{30,}", 0.9),
        (r"\bGOCSPX-[A-Za-z0-9_\-]{24,}", 0.95),
        (r"\bAAAA[A-Za-z0-9_\-]{7}:APA91b[A-Za-z0-9_\-]{60,}", 0.95),
    ),
    "anthropic_key": _shapes((r"\bsk-ant-[A-Za-z0-9_\-]{20,}", 0.97)),
    "openai_key": _shapes(
        (r"(?<![\w-])sk-(?:proj-|svcacct-|admin-)?[A-Za-z0-9_\-]{32,}" + END, 0.9)
    ),
    "stripe_key": _shapes(
        (r"\b(?:sk|rk)_(?:test|live)_[0-9a-zA-Z]{20,}\b", 0.95),
        (r"\bwhsec_[A-Za-z0-9]{24,}", 0.95),
    ),
    "huggingface_token": _shapes((r"\b(?:hf|api_org)_[A-Za-z0-9]{30,}\b", 0.9)),
    "npm_token": _shapes((r"\bnpm_[A-Za-z0-9]{36}\b", 0.95)),
    "github_token": _shapes(
        (r"\b(?:github_pat_[A-Za-z0-9_]{60,}|gh[pousr]_[A-Za-z0-9]{36})\b", 0.95)
    ),
    "gitlab_token": _shapes(
        (r"\bgl(?:pat|dt|rt|ptt|ft|imt|oas|cbt|soat|agent)-[A-Za-z0-9_\-]{20,}", 0.95)
    ),
    "atlassian_token": _shapes(
        (r"\bATATT3[A-Za-z0-9_\-=]{60,}", 0.95),
        (r"\bATCTT3[A-Za-z0-9_\-=]{60,}", 0.95),
        (r"\bATBB[A-Za-z0-9_=.\-]{28,}", 0.9),
    ),
    "shopify_token": _shapes((r"\bshp(?:at|ca|pa|ss)_[a-fA-F0-9]{32}\b", 0.95)),
    "mailgun_key": _shapes(
        (r"\bkey-[0-9a-f]{32}\b", 0.9),
        (r"\b[0-9a-f]{32}-[0-9a-f]{8}-[0-9a-f]{8}\b", 0.85),
    ),
    "digitalocean_token": _shapes((r"\bdo[opr]_v1_[a-f0-9]{64}\b", 0.95)),
    "doppler_token": _shapes((r"\bdp\.(?:st|ct|pt|sa|scim|audit)\.[A-Za-z0-9_\-.]{30,}", 0.95)),
    "vault_token": _shapes((r"\bhv[sb]\.[A-Za-z0-9_\-]{20,}", 0.9)),
    "linear_key": _shapes((r"\blin_(?:api|oauth)_[A-Za-z0-9]{32,}\b", 0.95)),
    "notion_token": _shapes((r"\b(?:secret_[A-Za-z0-9]{40,}|ntn_[A-Za-z0-9]{40,})\b", 0.9)),
    "docker_token": _shapes((r"\bdckr_(?:pat|oat)_[A-Za-z0-9_\-]{20,}", 0.95)),
    "postman_key": _shapes((r"\bPMAK-[a-f0-9]{24}-[a-f0-9]{30,}\b", 0.95)),
    "figma_token": _shapes((r"\bfig[dour]_[A-Za-z0-9_\-]{30,}", 0.9)),
    "netlify_token": _shapes((r"\bnf[pc]_[A-Za-z0-9]{30,}", 0.9)),
    "newrelic_key": _shapes(
        (r"\bNR(?:AK|AA|II|JS|RA|SP)-[A-Z0-9]{27}\b", 0.95),
        (r"\b[a-f0-9]{36}NRAL\b", 0.95),
    ),
    "sentry_key": _shapes(
        (r"https?://([0-9a-f]{32})(?::[0-9a-f]{32})?@[\w.\-]*sentry\.io/\d+", 0.9),
        (r"\bsntr[ysu]{1,2}_[A-Za-z0-9_=+/]{30,}", 0.95),
    ),
    "terraform_token": _shapes((r"\b[A-Za-z0-9]{14}\.atlasv1\.[A-Za-z0-9_\-]{60,}", 0.95)),
    "ai_provider_key": _shapes(
        (r"\bgsk_[A-Za-z0-9]{48,}", 0.95),
        (r"\br8_[A-Za-z0-9]{37}\b", 0.95),
        (r"\bpplx-[A-Za-z0-9]{40,}", 0.9),
        (r"\bxai-[A-Za-z0-9]{60,}", 0.9),
        (r"\blsv2_(?:pt|sk)_[a-f0-9]{32}_[a-f0-9]{10}\b", 0.95),
        (r"\bpcsk_[A-Za-z0-9_]{40,}", 0.9),
        (r"\bfw_[A-Za-z0-9]{24,}", 0.85),
        (r"\b[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}:fx\b", 0.9),
    ),
    "mapbox_token": _shapes((r"\bsk\.eyJ[A-Za-z0-9_\-]+\.[A-Za-z0-9_\-]+", 0.95)),
    "grafana_token": _shapes((r"\bgl(?:c|sa)_[A-Za-z0-9_\-+/=]{30,}", 0.9)),
    "cloud_token": _shapes(
        (r"\bpul-[a-f0-9]{40}\b", 0.95),
        (r"\brubygems_[a-f0-9]{48}\b", 0.95),
        (r"\bfo1_[A-Za-z0-9_\-]{40,}", 0.9),
        (r"\bHRKU-[A-Za-z0-9_\-]{40,}", 0.95),
        (r"\bdapi[a-f0-9]{32}(?:-\d)?\b", 0.9),
        (r"\bpat[A-Za-z0-9]{14}\.[a-f0-9]{64}\b", 0.95),
        (r"\bCFPAT-[A-Za-z0-9_\-]{40,}", 0.95),
        (r"\bpscale_(?:tkn|pw|oauth)_[A-Za-z0-9_\-]{32,}", 0.95),
        (r"\bx(?:keysib|smtpsib)-[a-f0-9]{64}-[A-Za-z0-9]{16}\b", 0.95),
        (r"\btskey-(?:auth|api|client|webhook)-[A-Za-z0-9]+-[A-Za-z0-9]{20,}", 0.95),
        (r"\bsb_secret_[A-Za-z0-9_\-]{20,}", 0.95),
        (r"\bv1\.0-[a-f0-9]{24}-[a-f0-9]{140,}", 0.95),
        (r"\brnd_[A-Za-z0-9]{28,}", 0.85),
        (r"\bshippo_live_[a-f0-9]{40}\b", 0.95),
    ),
    "china_cloud_key": _shapes(
        (r"\bLTAI[A-Za-z0-9]{12,24}\b", 0.9),
        (r"\bAKID[A-Za-z0-9]{32}\b", 0.9),
        (r"\bAKLT[A-Za-z0-9_\-]{20,}", 0.85),
    ),
    "social_token": _shapes(
        (r"\bEAA[A-Za-z0-9]{80,}", 0.85),
        (r"\bA{20,}[A-Za-z0-9%]{30,}", 0.85),
        (r"\bsl\.[A-Za-z0-9_\-]{100,}", 0.85),
    ),
    "payment_token": _shapes(
        (r"access_token\$production\$[a-z0-9]{16}\$[a-f0-9]{32}", 0.95),
        (r"\baccess-(?:production|development)-[0-9a-f\-]{36}\b", 0.9),
        (r"\bEAAA[A-Za-z0-9_\-]{60}\b", 0.85),
    ),
    "azure_secret": _shapes(
        (r"(?i)\bAccountKey=([A-Za-z0-9+/]{60,}={0,2})", 0.95),
        (r"(?i)\bSharedAccessKey=([A-Za-z0-9+/]{30,}={0,2})", 0.95),
        (r"[?&]sig=([A-Za-z0-9%+/]{30,}(?:%3D|=)*)", 0.9),
        (r"(?<![\w~.\-])[A-Za-z0-9_~.\-]{3}\dQ~[A-Za-z0-9_~.\-]{31,34}(?![\w~.\-])", 0.9),
    ),
    "webhook_url": _shapes(
        (r"https://hooks\.slack\.com/(?:services|workflows|triggers)/[A-Za-z0-9/_\-]{20,}", 0.95),
        (
            r"https://(?:ptb\.|canary\.)?discord(?:app)?\.com/api/webhooks/\d+/"
            r"[A-Za-z0-9_\-]{40,}",
            0.95,
        ),
        (r"https://[\w.\-]+\.webhook\.office\.com/webhookb2/\S{20,}", 0.9),
        (r"qyapi\.weixin\.qq\.com/cgi-bin/webhook/send\?key=[\w\-]{20,}", 0.9),
        (r"open\.(?:feishu\.cn|larksuite\.com)/open-apis/bot/v2/hook/[\w\-]{20,}", 0.9),
        (r"oapi\.dingtalk\.com/robot/send\?access_token=\w{20,}", 0.9),
        (r"https://hooks\.zapier\.com/hooks/catch/\d+/[A-Za-z0-9]{4,}/?", 0.9),
        (r"https://maker\.ifttt\.com/trigger/[\w\-]+/with/key/[\w\-]{16,}", 0.9),
        (r"https://hook\.(?:[a-z0-9]+\.)?make\.com/[a-z0-9]{20,}", 0.9),
    ),
    # an Ethereum account's private key in a wallet or deploy config, an Infura project id
    "wallet_private_key": _shapes(
        (r"(?i)\baccounts\s*:\s*\[\s*[\"'](0x[0-9a-f]{64})[\"']", 0.9),
        (r"(?i)private[_ ]?key[\"'\s]*[:=]\s*[\"']?(0x[0-9a-f]{64})\b", 0.9),
        (r"https://[\w\-]+\.infura\.io/v3/([0-9a-f]{32})\b", 0.8),
    ),
    "registry_auth": _shapes((r"\"auth\"\s*:\s*\"([A-Za-z0-9+/]{16,}={0,2})\"", 0.85)),
    "basic_auth_header": _shapes((r"(?i)\bbasic\s+([A-Za-z0-9+/]{12,}={0,2})(?![\w+/=])", 0.8)),
    "bearer_token": _shapes(
        (r"(?i)\bbearer\s+([A-Za-z0-9\-._~+/]{20,}=*)", 0.85),
        (r"\bSSWS\s+([A-Za-z0-9_\-]{30,})", 0.9),
        (r"(?i)\boauth:([a-z0-9]{24,})\b", 0.9),
    ),
    "aws_secret_key": _shapes(
        (
            r"(?i)\b(?:aws|amazon|s3|secret ?access ?key|secretaccesskey)\b[^\n]{0,40}?"
            r"(?<![A-Za-z0-9/+])([A-Za-z0-9/+]{40})(?![A-Za-z0-9/+])",
            0.9,
        ),
    ),
    "connection_string_password": _shapes(
        (r"\b[a-z][a-z0-9+.\-]{0,30}://[^\s:/@]*:([^\s@/]{3,})@[\w.\-]+", 0.95),
        # a password holding a bare "@" (to the last "@" before the host)
        (
            r"\b[a-z][a-z0-9+.\-]{0,30}://[^\s:/@]*:([^\s/]{3,60}@[^\s@/]{1,60})@[\w\-]+\.[\w.\-]+",
            0.9,
        ),
        (r"(?i)\bjdbc:[^\s]{0,120}?[:/@]\w+/([^\s/@]{4,})@", 0.9),
        (r"(?i)(?:^|;|\")\s*(?:password|pwd)\s*=\s*([^;\"'\s]{4,})", 0.9),
        # a .pgpass line (host:port:database:user:password), on its own or after a label
        (
            r"(?m)(?:^|:[ \t])(?![0-9A-Fa-f]{2}:[0-9A-Fa-f]{2}:)[\w.\-*]{1,253}+:(?:\d{2,5}|\*):"
            r"[\w*\-]++:[\w*\-]++:(\S{4,})$",
            0.85,
        ),
    ),
    "session_cookie": _shapes(
        (
            r"(?i)\b(?:sessionid|session|sid|connect\.sid|phpsessid|jsessionid|laravel_session|"
            r"_session_id|remember_token|auth_token|__Secure-[\w\-]+|__Host-[\w\-]+)"
            r"=([A-Za-z0-9%._\-+/]{20,})",
            0.85,
        ),
        (
            r"(?im)^\S+\t(?:TRUE|FALSE)\t\S*\t(?:TRUE|FALSE)\t\d+\t[\w.\-]+\t([A-Za-z0-9%._\-+/]{16,})",
            0.85,
        ),
    ),
}

# a key, token or secret named in some language, then (a few words on) a random-looking run
KEY_WORDS = re.compile(
    r"(?i)(?<![^\W\d_])(?:api[ _-]?keys?|keys?|tokens?|secrets?|credentials?|passphrase|"
    r"license[ _-]?key|auth(?![.\-])|bearer|dsn|access[ _-]?keys?|app[ _-]?password|"
    r"client[ _-]?secret|signing[ _-]?secret|webhook|pat|sk|ak|schlüssel|schluessel|"
    r"clé|cle|chiave|clave|chave|sleutel|klucz|klíč|nyckel|nøkkel|avain|kulcs|anahtar"
    r")(?![^\W\d_])|ключ|токен|κλειδί|מפתח|مفتاح|कुंजी|キー|トークン|密钥|秘钥|令牌|金鑰|키|토큰"
)
NOT_SECRET_WORDS = re.compile(
    r"(?i)\b(?:public|pub|publishable|sha\d*|md5|hash|hashes|checksum|digest|commit|"
    r"fingerprint|uuid|guid|request[ _-]?id|trace[ _-]?id|build|version|integrity|etag|"
    r"example|sample|placeholder|fake|dummy|test[ _-]?mode|sandbox|pk_|redacted|revoked|"
    r"invalid|idempotency|object[ _-]?id|client[ _-]?id|app[ _-]?id|tenant|span|job|clsid|"
    r"registry|hkey_\w+|"
    r"event[ _-]?id|(?:dedup|partition|sort|cache|foreign|routing|lookup|composite|"
    r"unique|natural|surrogate|row|message) key)\b"
)
TOKEN = re.compile(r"(?<![\w+/=\-])[A-Za-z0-9+/_\-.~]{16,}(?:={0,2})(?![\w+/=\-])")
GUID = re.compile(r"[0-9A-Fa-f]{8}-[0-9A-Fa-f]{4}-[0-9A-Fa-f]{4}-[0-9A-Fa-f]{4}-[0-9A-Fa-f]{12}")


FULL_JWT = re.compile(r"(eyJ[A-Za-z0-9_\-]+)\.[A-Za-z0-9_\-]+(?:\.([A-Za-z0-9_\-]*))?")


def _unsigned(text: str) -> bool:
    """The JWT ``text`` starts with says ``alg: none`` in its header or has no signature."""
    match = FULL_JWT.match(text)
    if match is None or not match.group(2):
        return True
    head = match.group(1)
    try:
        header = base64.urlsafe_b64decode(head + "=" * (-len(head) % 4)).decode()
    except (ValueError, UnicodeDecodeError):
        return False
    return bool(re.search(r'"alg"\s*:\s*"none"', header, re.IGNORECASE))


def _credentials(value: str) -> bool:
    """Base64 of ``user:password`` (what a Basic authorization carries)."""
    try:
        decoded = base64.b64decode(value + "=" * (-len(value) % 4), validate=True).decode()
    except (ValueError, UnicodeDecodeError):
        return False
    return ":" in decoded and decoded.isprintable()


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


# a key published in documentation, a sample token in a tutorial, a test-mode key in docs
DOCUMENTED = re.compile(
    r"(?i)(?<![\w.@/-])(?:documentation|docs|published|sample|example|tutorial|debugger|"
    r"test vectors?|placeholder|dummy|fake|api reference|in every snippet)(?![\w-]|\.\w)"
)
TEST_MODE = re.compile(r"(?i)(?:^|[_-])test[_-]")
PUBLIC = re.compile(
    r"-----BEGIN (?:[A-Z0-9]+ )*(?:PUBLIC KEY|CERTIFICATE|PGP PUBLIC KEY BLOCK)-----[\s\S]*?"
    r"(?:-----END [A-Z0-9 ]+-----|$)|\b(?:ssh-(?:rsa|ed25519|dss)|ecdsa-sha2-\S+)\s+"
    r"AAAA[A-Za-z0-9+/=]+|(?i:public ?key)\s*[=:]\s*[A-Za-z0-9+/=]{32,}"
)
ARMOUR = re.compile(r"-----(?:BEGIN|END) [A-Z0-9 ]+-----")


def _armour_only(block: str) -> bool:
    """A private key's armour around a template or nothing: what stands for a key in docs."""
    body = ARMOUR.sub(" ", block).replace("\\n", " ")
    return bool(TEMPLATE.search(body)) or not re.search(r"[A-Za-z0-9+/=]{4,}", body)


def public_spans(text: str) -> list[tuple[int, int]]:
    """Public keys and certificates: everything inside them is meant to be shared."""
    return [match.span() for match in PUBLIC.finditer(text)]


def _documented(text: str, start: int, end: int, value: str) -> bool:
    """A test-mode or sample key that the sentence around it says is documentation."""
    sentence = text[max(0, start - 120) : end + 120]
    said = {match.group().lower() for match in DOCUMENTED.finditer(sentence)}
    if not said:
        return False
    return bool(TEST_MODE.search(value)) or bool(said & {"sample", "example", "debugger"})


# every shape above is a run of 12+ token characters, but for these (which may be short)
LONG = re.compile(r"[A-Za-z0-9_\-+/=.~$:%@]{12,}")
SHORT_CAPABLE = frozenset({"connection_string_password", "private_key"})


def shapes(text: str) -> Iterator[Hit]:
    if not LONG.search(text):
        yield from _shape_hits(text, only=SHORT_CAPABLE)
        return
    yield from _shape_hits(text, only=None)


def _shape_hits(text: str, only: frozenset[str] | None) -> Iterator[Hit]:
    for name, pattern in library_patterns() if only is None else ():
        for match in pattern.finditer(text):
            start, end = span_of(match)
            value = text[start:end]
            if end <= start:
                continue
            here = 0.3 if placeholder(value) or _documented(text, start, end, value) else 0.95
            if name == "jwt" and _unsigned(text[start:]):
                here = 0.3  # alg "none" or no signature: an attack's example, no credential
            if name == "connection_string_password" and not looks_secret(
                value.rpartition(":")[2].partition("@")[0]
            ):
                here = 0.3  # amqp://guest:guest@localhost: a documented default
            yield Hit(name, FAMILY, start, end, here)
    for name, patterns in PROVIDERS.items():
        if only is not None and name not in only:
            continue
        for pattern, confidence in patterns:
            for match in pattern.finditer(text):
                start, end = match.span(1) if pattern.groups else match.span()
                value = text[start:end]
                here = confidence
                if name != "private_key" and (
                    placeholder(value) or _documented(text, start, end, value)
                ):
                    here = 0.3
                if name == "private_key" and _armour_only(value):
                    here = 0.3  # "<paste your key here>" between the armour lines
                if name == "basic_auth_header" and not _credentials(value):
                    continue  # "basic understanding": a word, not base64 of user:password
                if name == "connection_string_password" and not looks_secret(value):
                    here = 0.3  # postgres://USER:PASSWORD@localhost: a template
                yield Hit(name, FAMILY, start, end, here)


def _starting_before(matches: Iterator[re.Match[str]], limit: int) -> Iterator[re.Match[str]]:
    for match in matches:
        if match.start() > limit:
            return
        yield match


def named_tokens(text: str) -> Iterator[Hit]:
    """A random-looking run of 16+ characters on the line of "key", "token", "secret"…
    (starting up to 100 characters after it, or just before it: ``Client("…")  # prod key``),
    unless the words around say it is a hash, an id or an example."""
    for word in itertools.islice(KEY_WORDS.finditer(text), 64):
        line_start = text.rfind("\n", 0, word.start()) + 1
        line_end = text.find("\n", word.end())
        line_end = len(text) if line_end < 0 else line_end
        after = _starting_before(TOKEN.finditer(text, word.end(), line_end), word.end() + 150)
        before = [m for m in TOKEN.finditer(text, max(line_start, word.start() - 80), word.start())]
        for match in itertools.chain(after, reversed(before)):
            value = match.group()
            if not random_token(value):
                continue
            if value.startswith("eyJ") and ("." not in value or _unsigned(text[match.start() :])):
                continue  # a JWT's header alone ("eyJhbGciOiJSUzI1NiJ9"), an unsigned JWT
            if text[match.start() - 1 : match.start()] == "{" and GUID.fullmatch(value):
                continue  # "{069B77CA-…}": a COM class's GUID
            around = text[
                max(0, min(word.start(), match.start()) - 30) : max(match.start(), word.end())
            ]
            if NOT_SECRET_WORDS.search(around) or _documented(text, *match.span(), value):
                break
            yield Hit("named_token", FAMILY, *match.span(), 0.75)
            break


# a key in a link's query ("…/weather?q=Lisbon&appid=5bfb7d…") or given to a client's
# constructor ("cohere.ClientV2("OlbW…")")
QUERY_KEY = re.compile(
    r"(?i)[?&](?:appid|app_key|api_?key|apikey|key|access_?token|token|auth_?token|auth|"
    r"client_?secret|secret|password|pwd)=([A-Za-z0-9_\-.~%]{16,200})"
)
CLIENT_KEY = re.compile(
    r"\b\w*Client\w*\(\s*(?:api_?key\s*=\s*|token\s*=\s*)?[\"']([A-Za-z0-9_\-]{20,120})[\"']"
)


def passed_keys(text: str) -> Iterator[Hit]:
    for pattern in (QUERY_KEY, CLIENT_KEY):
        for match in pattern.finditer(text):
            value = match.group(1)
            if not random_token(value) or _documented(text, *match.span(1), value):
                continue
            yield Hit("named_token", FAMILY, *match.span(1), 0.8)


def scan(text: str) -> Iterator[Hit]:
    yield from shapes(text)
    yield from named_tokens(text)
    yield from passed_keys(text)


DETECTORS = sorted({*LIBRARY, *PROVIDERS, "named_token"})

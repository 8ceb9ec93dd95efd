"""What a secret value looks like, and what only stands for one.

A password or key written after a naming word is judged by its shape: digits or symbols among
letters, or a long random-looking run, is a secret; a word ("Settings"), a placeholder
(``YOUR_KEY``, ``<token>``, ``change-me``, AWS's ``…EXAMPLE``), code that reads one
(``os.environ[…]``) or a link is not.
"""

from __future__ import annotations

import math
import re
from collections import Counter

PLACEHOLDER = re.compile(
    r"(?i)^(?:<.*>|\$\{?.*|%\(.*|\{\{.*|x{3,}.*|\*{3,}.*|\.{3,}|your[_-].*|my[_-].*|changeme|"
    r"change[_-]?me|change[_-]?it|changeit|please[_-]?change.*|replace[_-]?me|"
    r"password\d*|pass(?:word)?123|secret|none|null|true|false|redacted|example.*|sample.*|"
    r"dummy.*|placeholder.*|env\b.*|os\.environ.*|settings\..*|config\..*|getenv.*|"
    r"process\.env.*|\[redacted.*|\[hidden.*|\*+|•+|\?+|user|username|admin|root|test|"
    r"todo|tbd|fixme|insert.*|enter.*|put[_-].*|add[_-].*|my[A-Z]\w*|p@ssw0rd|passw0rd|"
    r"hunter2|qwerty\d*|letmein|123456\w*|.*[_-]here|.*changeme|.*change[_-]me|p@ssw0rd.*|"
    r"[@.][a-z][a-z_.\-]*|#[a-z]+|-{2,}.*|1password|lastpass|bitwarden|keepass\w*|dashlane|"
    r"keychain|vault)$"
)
# "<your token>", "${DB_PASSWORD}", "{first_name}", "xoxb-your-bot-token", "lin_api_****"
# (a generated password may hold < > { } at random: a template has a word between them)
TEMPLATE = re.compile(
    r"(?i)<[A-Za-z_ \-]{2,40}>|\{\{?\s{0,3}[A-Za-z_.\-][A-Za-z_.\- ]{0,39}\s{0,3}\}?\}|\$\{|"
    r"<\||\|>|\*{3,}|"
    r"your[_-]|[_-]your\b|<your\b|<(?:token|key|secret|password|api)|\.{3}|x{4,}"
)
WRAPPING = "\"'`«»“”„‘’¿¡()[]<>*_~"
# a file name, a dotted version or a domain: "config.yaml", "v2.4.1", "example.com"
LETTER = re.compile(r"[^\W\d_]")
CODE = re.compile(r"^[A-Za-z_][\w]*(?:\.[A-Za-z_]\w*)+(?:[\[(].*)?$|^[A-Za-z_]{3}\w*[\[(]")
LINK = re.compile(r"(?i)^(?:[a-z][a-z0-9+.\-]*://|www\.|/|\.{1,2}/|~/)|^[\w.+\-]+@[\w\-]+\.[\w.]+$")
# an attribute chain, "client.secrets.kv.v2.read_secret_version"
CHAIN = re.compile(r"^[a-z_][a-z0-9_]*(?:\.[a-z_][a-z0-9_]*){2,}$")
# names of algorithms and standards that stand near the word "password" ("re-hashed with
# Argon2id", "WPA2-PSK"): no secret
TERMS = re.compile(
    r"(?i)^(?:argon2(?:id|i|d)?|pbkdf2[\w-]*|bcrypt|scrypt|sha-?\d+|md5|ntlmv?2?|"
    r"hmac-?sha-?\d+|aes-?\d+(?:-\w+)?|rsa-?\d+|ed25519|x25519|base64|utf-?8|"
    r"wpa[23]?(?:-(?:psk|personal|enterprise|sae))?|tls1\.[0-3]|oauth2?|saml2?|fido2|webauthn|"
    r"totp|hotp|2fa|mfa)$"
)
# a class or function name, "DefaultAzureCredential", "getAccessToken"
IDENTIFIER = re.compile(r"^[A-Za-z][a-z]+(?:[A-Z][a-z]+){2,}$")
# a person's password of words and digits, "Quartz.otter540", not an attribute ("np.float64")
HUMAN = re.compile(r"^[A-Z][a-z]+\.[a-z]+\d{3,}$")
# a file name, a dotted version or a domain: "config.yaml", "v2.4.1", "example.com"
DOTTED = re.compile(r"^(?:[\w\-]+\.)+(?:[a-z]{2,5}|\d+)$")


def entropy(value: str) -> float:
    counts = Counter(value)
    return -sum(n / len(value) * math.log2(n / len(value)) for n in counts.values())


def placeholder(token: str) -> bool:
    """Documentation keys (AWS's ``…EXAMPLE``), templates (``<your token>``, ``${X}``,
    ``xoxb-your-bot-token``) and runs of one character stand for a secret."""
    upper = token.upper()
    return (
        "EXAMPLE" in upper
        or "CHANGEME" in upper.replace("-", "").replace("_", "")
        or bool(re.search(r"(.)\1{7,}", token) or TEMPLATE.search(token))
        or bool(re.search(r"(?i)[_-](?:here|token|key|secret)$", token))
    )


def classes(value: str) -> int:
    return sum(
        bool(re.search(pattern, value)) for pattern in (r"[a-z]", r"[A-Z]", r"\d", r"[^\w]|_")
    )


def words_only(value: str) -> bool:
    """Words joined by hyphens, underscores or dots ("hard-coding", "e-mail", "DB_PASSWORD",
    "service-account"), perhaps in quotes or with a question mark: language, not a secret."""
    core = value.strip(WRAPPING).rstrip(".,;:!?。、，")
    if not re.fullmatch(r"[^\W\d_]+(?:[-_.'’][^\W\d_]+)*", core):
        return False
    segments = re.split(r"[-_.'’]", core)
    return all(s[1:] == s[1:].lower() or s.isupper() for s in segments)  # not "sAGBCPlgac"


def looks_secret(value: str) -> float:
    """How much a value given for a password-like name looks like a real secret: digits or
    symbols among letters, or a long random-looking run; a word, a placeholder, code, a link,
    a path or a query string is not one."""
    value = value.strip(WRAPPING)
    if value.endswith("...") or value.endswith("…"):
        return 0.0  # "sk-ant-...": cut short on purpose
    value = value.rstrip(".,;:。、，") if not re.search(r"[!?]\d*$", value[-3:]) else value
    if len(value) < 4 or PLACEHOLDER.match(value) or placeholder(value) or words_only(value):
        return 0.0
    code = (
        CODE.match(value)
        and (len(value) < 12 or entropy(value) < 3.5 or "(" in value or CHAIN.match(value))
        and not HUMAN.match(value)
    )
    if code or TERMS.match(value) or IDENTIFIER.match(value):
        return 0.0
    if code or LINK.match(value) or DOTTED.match(value) or TEMPLATE.search(value):
        return 0.0
    if re.search(r"[^\x00-\x7f]", value):  # passwords are typed in ASCII; this is prose
        return 0.0
    if re.search(r"\?[\w.\-]+=", value) or ("/" in value and not random_token(value, 20)):
        return 0.0  # a query string or a path
    kinds = classes(value)
    if not LETTER.search(value):  # digits and symbols only: a PIN's job, not a password's
        return 0.0
    if not re.search(r"[\d\W_]", value):  # letters only: a word, unless long and random
        return 0.75 if len(value) >= 20 and kinds >= 2 and entropy(value) >= 3.5 else 0.0
    if len(value) >= 8 and kinds >= 3:
        return 0.85
    if len(value) >= 8 and kinds >= 2 and entropy(value) >= 3.0:
        return 0.75
    if len(value) >= 6 and kinds >= 2:
        return 0.55
    return 0.3


def _wordy(value: str) -> bool:
    """Words joined by hyphens with a version ("claude-sonnet-4-5", "gpt-4o-mini-2024"): a
    name, not a generated key."""
    parts = value.split("-")
    words = [p for p in parts if re.fullmatch(r"[a-z]{3,}", p)]
    return len(words) >= 2 and sum(ch.isdigit() for ch in value) <= 8 and len(parts) <= 6


def random_token(value: str, least: int = 16) -> bool:
    """A long run of mixed characters with the spread of a generated key (not a word, not a
    hash named as one — the caller checks the words around it)."""
    if len(value) < least or placeholder(value) or LINK.match(value) or DOTTED.match(value):
        return False
    if CHAIN.match(value) or _wordy(value):
        return False  # code: an attribute chain; a model's or a product's name
    if not re.search(r"\d", value) or not LETTER.search(value):
        return False
    hexadecimal = bool(re.fullmatch(r"[0-9a-fA-F\-]+", value))
    return entropy(value) >= (3.0 if hexadecimal else 3.5)

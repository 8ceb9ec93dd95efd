"""Personal data: email addresses, phone numbers, payment cards, IBANs, government ids.

Numbers are only reported when a maintained library agrees: ``phonenumbers`` (libphonenumber's
metadata) that a phone number is valid, ``python-stdnum`` that a card passes Luhn and has a
known issuer prefix, that an IBAN's check digits and country format hold, that an id's checksum
holds. Ids whose checksum is weak (a bare 9 or 11 digits) need a naming word nearby.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator

import phonenumbers
from stdnum import iban, luhn
from stdnum.br import cpf
from stdnum.cn import ric
from stdnum.de import idnr
from stdnum.es import dni, nie
from stdnum.fr import nir
from stdnum.in_ import aadhaar
from stdnum.it import codicefiscale
from stdnum.nl import bsn
from stdnum.pt import nif
from stdnum.us import ssn

from memory.firewall.hits import Hit, merged

FAMILY = "personal"

EMAIL = re.compile(
    r"(?<![\w.+\-/:])[A-Za-z0-9][A-Za-z0-9._%+\-]{0,63}@[A-Za-z0-9](?:[A-Za-z0-9\-]{0,62}"
    r"[A-Za-z0-9])?(?:\.[A-Za-z0-9](?:[A-Za-z0-9\-]{0,62}[A-Za-z0-9])?)*\.[A-Za-z]{2,24}\b"
)
# git@host:owner/repo and noreply-style machine addresses are addresses of services
SERVICE_LOCAL = frozenset({"git", "noreply", "no-reply", "donotreply", "mailer-daemon"})

CARD = re.compile(r"(?<![\w.\-])\d(?:[ \-]?\d){12,18}(?![\w\-]|\.\d)")
CARD_PREFIX = re.compile(r"^(?:4|5[1-5]|2[2-7]|3[47]|3[0689]|6(?:011|5|4[4-9]|22)|35)")

IBAN = re.compile(r"\b[A-Z]{2}\d{2}(?:[ ]?[A-Z0-9]){11,30}\b")

PHONE_WORDS = re.compile(
    r"(?i)\b(?:phone|call|calls|tel|telephone|mobile|cell|whatsapp|signal|sms|text me|"
    r"number|reach|ring|fax|landline|contact|handy|telefon|festnetz|ruf|anrufen|erreichbar|"
    r"t[ée]l[ée]phone|portable|joignable|appelle[rz]?|num[ée]ro|tel[ée]fono|m[óo]vil|celular|"
    r"llamar|llama|cellulare|chiamare|telefone|bellen|mobiel|nummer|texted|texting|dial|"
    r"dialled|dialed|rang|hotline|voicemail)\b"
)
# words that say "phone" and nothing else (not "number", "contact")
PHONE_ONLY = re.compile(
    r"(?i)\b(?:phone|tel|telephone|mobile|cell|whatsapp|sms|text me|landline|fax|handy|"
    r"telefon|festnetz|anrufen|t[ée]l[ée]phone|portable|joignable|tel[ée]fono|m[óo]vil|celular|"
    r"cellulare|telefone|mobiel|ruf mich|call me|llama|appelle|texted|texting|voicemail)\b"
)
# a number inside a longer token ("A-2024-118734", "build 20240611.1843") is an identifier
ID_BEFORE = re.compile(
    r"(?i)(?:[A-Za-z][-/#]|#|\b(?:build|order|tracking|invoice|ticket|version|ref|sku|serial|"
    r"case|po|item|part|batch|lot|commit|release|versioncode)\s*(?:no\.?|number|#|:)?\s*)$"
)
IP_ADDRESS = re.compile(r"\d{1,3}(?:\.\d{1,3}){3}")
PHONE_REGIONS = ("US", "GB", "DE", "FR", "NL", "ES", "IT", "IN", "AU", "CN", "JP", "BR")

# (regex, validator, needs a naming word within 40 characters)
IdRule = tuple[re.Pattern[str], Callable[[str], bool], re.Pattern[str] | None]
ID_WORDS = {
    "ssn": re.compile(r"(?i)\b(?:ssn|social security)\b"),
    "tax": re.compile(
        r"(?i)(?:\bsteuer[-\s]?id|\bsteuer|\bidnr|\btax id|\btin\b|identifikationsnummer)"
    ),
    "bsn": re.compile(r"(?i)\b(?:bsn|burgerservicenummer|citizen service number)\b"),
    "aadhaar": re.compile(r"(?i)\b(?:aadhaar|aadhar|uidai)\b"),
    "cpf": re.compile(r"(?i)\b(?:cpf|cadastro de pessoas)\b"),
    "nif": re.compile(r"(?i)\b(?:nif|contribuinte|n[úu]mero fiscal|portuguese tax)\b"),
}
GOVERNMENT: dict[str, IdRule] = {
    "us_ssn": (re.compile(r"\b\d{3}-\d{2}-\d{4}\b"), ssn.is_valid, None),
    "us_ssn_bare": (re.compile(r"\b\d{9}\b"), ssn.is_valid, ID_WORDS["ssn"]),
    "uk_nino": (
        re.compile(
            r"\b(?!BG|GB|NK|KN|TN|NT|ZZ)[A-CEGHJ-PR-TW-Z][A-CEGHJ-NPR-TW-Z] ?\d{2} ?\d{2} ?\d{2} ?"
            r"[A-D]\b"
        ),
        lambda value: True,
        None,
    ),
    "de_tax_id": (re.compile(r"\b\d{2} ?\d{3} ?\d{3} ?\d{3}\b"), idnr.is_valid, ID_WORDS["tax"]),
    "fr_nir": (
        re.compile(r"\b[12] ?\d{2} ?\d{2} ?\d{2} ?\d{3} ?\d{3} ?\d{2}\b"),
        nir.is_valid,
        None,
    ),
    "es_dni": (re.compile(r"\b\d{8}-?[A-Z]\b"), dni.is_valid, None),
    "es_nie": (re.compile(r"\b[XYZ]-?\d{7}-?[A-Z]\b"), nie.is_valid, None),
    "it_codice_fiscale": (
        re.compile(r"\b[A-Z]{6}\d{2}[A-Z]\d{2}[A-Z]\d{3}[A-Z]\b"),
        codicefiscale.is_valid,
        None,
    ),
    "nl_bsn": (re.compile(r"\b\d{9}\b"), bsn.is_valid, ID_WORDS["bsn"]),
    "in_aadhaar": (re.compile(r"\b\d{4} ?\d{4} ?\d{4}\b"), aadhaar.is_valid, ID_WORDS["aadhaar"]),
    "cn_resident_id": (re.compile(r"\b\d{17}[\dX]\b"), ric.is_valid, None),
    "br_cpf": (re.compile(r"\b\d{3}\.\d{3}\.\d{3}-\d{2}\b"), cpf.is_valid, None),
    "br_cpf_bare": (re.compile(r"\b\d{11}\b"), cpf.is_valid, ID_WORDS["cpf"]),
    "pt_nif": (re.compile(r"\b\d{9}\b"), nif.is_valid, ID_WORDS["nif"]),
    "passport": (
        re.compile(
            r"(?i)\b(?:passport|passeport|pasaporte|passaporte|passaporto|reisepass|paspoort)"
            r"(?:nummer|nr\.?|[-\s]*(?:no\.?|nr\.?|n[°º]|number|nummer|num[ée]ro|n[úu]mero|#))?"
            r"[^\n.:;]{0,40}?[:#]?\s*\b((?-i:[A-Z0-9]{6,9}))\b"
        ),
        lambda value: bool(re.search(r"\d", value)) and bool(re.search(r"[A-Z]|\d{7,}", value)),
        re.compile(r"(?i)passport|passeport|pasaporte|passaporte|passaporto|reisepass|paspoort"),
    ),
}


def near(text: str, start: int, end: int, words: re.Pattern[str], reach: int = 40) -> bool:
    return bool(words.search(text[max(0, start - reach) : end + reach]))


def emails(text: str) -> Iterator[Hit]:
    for match in EMAIL.finditer(text):
        local = match.group().partition("@")[0]
        after = text[match.end() : match.end() + 1]
        token_start = max(text.rfind(ch, 0, match.start()) for ch in " \t\n(<\"'") + 1
        inside_url = "://" in text[token_start : match.start()]  # user:password@host
        if local.lower() in SERVICE_LOCAL or after == ":" or inside_url:
            continue
        yield Hit("email", FAMILY, *match.span(), 0.9)


def phones(text: str) -> Iterator[Hit]:
    """Numbers libphonenumber finds valid (in the US plan, or in any plan when a word says
    "phone" in some language); numbers only *possible* by its metadata count when written
    internationally (+CC) or named."""
    worded = bool(PHONE_WORDS.search(text))
    regions = PHONE_REGIONS if worded else ("US",)
    seen: set[tuple[int, int]] = set()
    for leniency in (phonenumbers.Leniency.VALID, phonenumbers.Leniency.POSSIBLE):
        for region in regions:
            for match in phonenumbers.PhoneNumberMatcher(text, region, leniency=leniency):
                span = (match.start, match.end)
                digits = sum(ch.isdigit() for ch in match.raw_string)
                if any(a < match.end and match.start < b for a, b in seen) or digits < 8:
                    continue
                if ID_BEFORE.search(text[max(0, match.start - 20) : match.start]):
                    continue
                if IP_ADDRESS.fullmatch(match.raw_string.strip("()")):
                    continue
                named = near(text, match.start, match.end, PHONE_WORDS)
                international = match.raw_string.startswith("+")
                if leniency == phonenumbers.Leniency.VALID:
                    confidence = (
                        0.95 if named else 0.8 if (international or region == "US") else 0.5
                    )
                elif digits >= 9 and (international or near(text, *span, PHONE_ONLY)):
                    confidence = 0.75 if named else 0.6
                else:
                    continue
                seen.add(span)
                yield Hit("phone", FAMILY, match.start, match.end, confidence)


CARD_WORDS = re.compile(
    r"(?i)\b(?:card|cards|visa|mastercard|amex|maestro|kreditkarte|karte|carte|tarjeta|"
    r"carta|cart[ãa]o|pan|cc)\b"
)


# the test numbers payment processors publish for sandboxes: nobody's card when the text
# says it is a test
TEST_CARDS = frozenset(
    {
        "4242424242424242",
        "4000056655665556",
        "4111111111111111",
        "4012888888881881",
        "5555555555554444",
        "5105105105105100",
        "2223003122003222",
        "378282246310005",
        "371449635398431",
        "6011111111111117",
        "3056930009020004",
        "3566002020360505",
    }
)


TEST_WORDS = re.compile(
    r"(?i)\b(?:test|testing|sandbox|docs|documentation|example|sample|dummy|fake|staging)\b"
)


def cards(text: str) -> Iterator[Hit]:
    """Luhn-valid numbers of a card's length with a known issuer prefix, or with any prefix
    when a word says "card"."""
    for match in CARD.finditer(text):
        digits = re.sub(r"\D", "", match.group())
        if not (13 <= len(digits) <= 19 and luhn.is_valid(digits)):
            continue
        if digits in TEST_CARDS and near(text, *match.span(), TEST_WORDS, reach=80):
            continue
        if CARD_PREFIX.match(digits) or near(text, *match.span(), CARD_WORDS):
            yield Hit("payment_card", FAMILY, *match.span(), 0.9)


def ibans(text: str) -> Iterator[Hit]:
    for match in IBAN.finditer(text):
        value = match.group()
        # the pattern may run into the next word; shrink until the checksum holds
        while len(value.replace(" ", "")) >= 15:
            if iban.is_valid(value):
                yield Hit("iban", FAMILY, match.start(), match.start() + len(value), 0.97)
                break
            value = value[:-1].rstrip()


def government_ids(text: str) -> Iterator[Hit]:
    for name, (pattern, valid, words) in GOVERNMENT.items():
        for match in pattern.finditer(text):
            start, end = match.span(1) if pattern.groups else match.span()
            value = text[start:end]
            named = near(text, start, end, words, reach=60) if words is not None else False
            if words is not None and not named:
                continue
            try:
                ok = valid(value)
            except Exception:
                ok = False
            if ok or named:  # named and shaped like one: personal, whatever its checksum
                yield Hit(name.removesuffix("_bare"), FAMILY, start, end, 0.9 if ok else 0.75)


STREET = re.compile(
    r"\b\d{1,5}[A-Za-z]?\s+(?:[A-Z][a-z]+\s+){1,3}(?:Street|St|Lane|Ln|Avenue|Ave|Road|Rd|"
    r"Drive|Dr|Boulevard|Blvd|Way|Court|Ct|Place|Pl|Terrace|Close|Crescent|Square)\b\.?"
    r"|\b(?:[A-ZÄÖÜ][a-zäöüß]+(?:stra(?:ss|ß)e|weg|allee|gasse|platz|ring|straat|laan|gracht|"
    r"plein|kade|singel|dijk|steeg))\s+\d{1,4}[a-z]?(?:-\d{1,3})?\b"
    r"|\b\d{1,4},?\s+(?:rue|avenue|boulevard|chemin|all[ée]e|impasse|place)\s+(?:d[eu]s?\s+|"
    r"de la\s+|l['’])?[A-ZÉ][\w'’-]+"
    r"|\b(?:calle|avenida|via|viale|rua|avenida)\s+[A-Z][\w]+(?:\s+[A-Z][\w]+)?,?\s+\d{1,4}\b"
)
ADDRESS_WORDS = re.compile(
    r"(?i)\b(?:address|lives at|live at|home|ship to|deliver(?:y)? to|adresse|wohnt|anschrift|"
    r"domicile|habite|direcci[óo]n|vive en|indirizzo|morada|endere[çc]o|woont|adres|apt|"
    r"apartment|flat|suite|woonadres|woonachtig)\b|\b[A-Z]{2}\s\d{5}\b|\b\d{5}\s[A-ZÄÖÜ][a-zäöüß]+"
    r"|\b\d{4}\s?[A-Z]{2}\s+[A-Z][a-z]+"
)


def addresses(text: str) -> Iterator[Hit]:
    """A street and number, with a word or a postcode near that says it is someone's place."""
    for match in STREET.finditer(text):
        if near(text, *match.span(), ADDRESS_WORDS, reach=60):
            yield Hit("street_address", FAMILY, *match.span(), 0.75)


SCANNERS = (emails, phones, cards, ibans, government_ids, addresses)


NUMBERED = (phones, cards, ibans, government_ids)  # each needs six digits or more


def scan(text: str) -> list[Hit]:
    """Most memories hold few digits: the number detectors (the costly ones) run only on a text
    with six or more."""
    digits = sum(ch.isdigit() for ch in text)
    scanners = tuple(
        s
        for s in SCANNERS
        if s not in NUMBERED or digits >= 6 or (s is government_ids and digits >= 4)
    )  # a passport number may hold as few as four digits
    return merged([hit for scanner in scanners for hit in scanner(text)])


DETECTORS = sorted(
    {
        "email",
        "phone",
        "payment_card",
        "iban",
        "street_address",
        *(n.removesuffix("_bare") for n in GOVERNMENT),
    }
)

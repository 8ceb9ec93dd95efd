"""Personal data: ways to reach a person (emails, phones), their money (cards, IBANs, bank
accounts), their official ids (national ids, tax ids, passports, licences) and their places and
dates (street addresses, dates of birth).

Numbers are only reported when a maintained library agrees: ``phonenumbers`` (libphonenumber's
metadata) that a phone number is valid, ``python-stdnum`` that a card passes Luhn and has a
known issuer prefix, that an IBAN's check digits and country format hold, that an id's checksum
holds. Ids whose checksum is weak (a bare 9 or 11 digits) need a naming word nearby.
"""

from __future__ import annotations

import re

from memory.firewall.hits import Hit, merged
from memory.firewall.personal import contact, ids, money, places

FAMILY = "personal"

SCANNERS = (
    contact.emails,
    contact.phones,
    money.cards,
    money.ibans,
    money.accounts,
    ids.government_ids,
    ids.documents,
    places.addresses,
    places.birth_dates,
)
# each needs six digits or more
NUMBERED = (contact.phones, money.cards, money.ibans, money.accounts, ids.government_ids)


# a number the sentence around it presents as an example, a specimen or a reserved value
EXAMPLE = re.compile(
    r"(?i)\b(?:for example|example|examples|sample|specimen|placeholder|dummy|fictional|"
    r"fictitious|reserved|test value|for drama|such as|e\.g\.|tutorial|documentation|"
    r"the docs|validation librar(?:y|ies)|invalidated|classic|examples|fixtures?|unit tests?|"
    r"ejemplos?|exemples?|beispiele?|esempi[oi]|exemplos?|voorbeeld(?:en)?|przykład\w*|"
    r"příklad\w*|örne\w*|exemplu|példa|esimerk\w*|exempel|eksempel|ví dụ|contoh|mfano|"
    r"formato|format)\b|例えば|例：|예시|例如|示例|пример|приклад|παράδειγμα|דוגמה|مثال"
)


def _presented_as_example(text: str, hit: Hit) -> bool:
    """The sentence around the hit (at most 200 characters either side) says "example"."""
    start = max(text.rfind(". ", 0, hit.start), text.rfind("\n", 0, hit.start), hit.start - 200, 0)
    limit = hit.end + 200
    ends = [i for i in (text.find(". ", hit.end, limit), text.find("\n", hit.end, limit)) if i >= 0]
    return bool(EXAMPLE.search(text[start : min(ends) if ends else limit]))


def scan(text: str) -> list[Hit]:
    """Most memories hold few digits: the number detectors (the costly ones) run only on a text
    with six or more (a passport number may hold as few as four, a street number one)."""
    digits = sum(ch.isdigit() for ch in text)
    if not digits:
        return merged(list(contact.emails(text)))
    scanners = tuple(
        s for s in SCANNERS if s not in NUMBERED or digits >= 6 or (s is ids.government_ids)
    )
    hits = [hit for scanner in scanners for hit in scanner(text)]
    return merged([h for h in hits if h.detector == "email" or not _presented_as_example(text, h)])


DETECTORS = sorted(
    {"email", "phone", "payment_card", "iban", "bank_account", *ids.DETECTORS, *places.DETECTORS}
)

"""A person's money: payment cards, IBANs and national bank account numbers.

Cards are Luhn-valid numbers of a card's length with a known issuer prefix (or any prefix when
a word says "card"), and not one of the test numbers processors publish when the text says it
is a test. IBANs must pass their check digits and country format (``python-stdnum``). Account
numbers without a checksum of their own (US routing + account, UK sort code + account, Indian
IFSC + account) count when the bank's half is there and a word names the account.
"""

from __future__ import annotations

import re
from collections.abc import Iterator

from stdnum import iban, luhn
from stdnum.cz import bankaccount as cz_account
from stdnum.us import rtn

from memory.firewall.hits import Hit, near

FAMILY = "personal"

CARD = re.compile(r"(?<![\w.\-])\d(?:[ \-]?\d){12,18}(?![\w\-]|\.\d)")
# (Elo and Hipercard, Brazil's: 50…, 636…, 606282…)
CARD_PREFIX = re.compile(
    r"^(?:4|5[0-5]|2[2-7]|3[47]|3[0689]|6(?:011|5|4[4-9]|22|36[23]|06282)|35|62)"
)
CARD_WORDS = re.compile(
    r"(?i)\b(?:card|cards|visa|mastercard|amex|maestro|kreditkarte|karte|carte|tarjeta|"
    r"carta|cart[ãa]o|pan|cc|karta|kort|kortti|kaart|kartu|thẻ)\b|カード|卡号|信用卡|카드|"
    r"карт|بطاقة|כרטיס"
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
# a card number said to be a test card, in a sandbox: the processors publish many
TEST_CARD_WORDS = re.compile(
    r"(?i)\b(?:test cards?|test mode|sandbox|test numbers?|testing|documentation|docs|"
    r"testkarte\w*|carte de test|tarjeta de prueba|carta di test|cartão de teste|testowa|"
    r"testovací)\b|テスト|测试|測試|테스트|тестов"
)
NOT_CARD = re.compile(r"(?i)\b(?:imei|serial|tracking|device|meid|iccid)\b")
# named just before the number: a part, an article, an order
NOT_CARD_NEAR = re.compile(
    r"(?i)\b(?:part (?:number|no\.?|#)|p/n|sku|oem|article|artikel\w*|ean|gtin|barcode|"
    r"order|invoice|reference|ref\.?)\b"
)
# the IBANs every validator's documentation uses
EXAMPLE_IBANS = frozenset(
    {
        "DE89370400440532013000",
        "GB82WEST12345698765432",
        "GB29NWBK60161331926819",
        "FR1420041010050500013M02606",
        "NL91ABNA0417164300",
        "ES9121000418450200051332",
    }
)
EXAMPLE_WORDS = re.compile(
    r"(?i)\b(?:example|sample|documentation|docs|tutorial|validation|specimen|test)\b"
)

IBAN = re.compile(r"\b[A-Z]{2}\d{2}(?:[ ]?[A-Z0-9]){11,30}\b")

ACCOUNT_WORDS = re.compile(
    r"(?i)\b(?:account|acct|a/c|konto|compte|cuenta|conta|conto|rekening|rachunek|"
    r"bank|banque|banco|banca|účet|účtu|hesap|cont|számla|tili|khoản)\b|口座|账户|帳戶|계좌|"
    r"счёт|счет|рахунок|حساب|खाता|অ্যাকাউন্ট|חשבון|บัญชี"
)
# a Polish account number (NRB: an IBAN without "PL"), a Czech one (prefix-number/bank), a
# Brazilian branch and account
PL_NRB = re.compile(r"(?<!\w)\d{2}(?: ?\d{4}){6}(?!\w)")
CZ_ACCOUNT = re.compile(r"(?<![\w/])(?:\d{1,6}-)?\d{2,10}/\d{4}(?![\w/])")
BR_ACCOUNT = re.compile(
    r"(?i)\bag[êe]ncia\b[^\n\d]{0,10}\d{3,5}(?:-\d)?[^\n\d]{0,30}\bconta\b[^\n\d]{0,20}"
    r"(?P<account>\d{3,12}-?[\dxX])"
)
US_ACCOUNT = re.compile(
    r"(?i)\b(?:routing|aba|rtn)\b[^\n\d]{0,25}(?P<routing>\d{9})\b[^\d]{0,40}?"
    r"\b(?:account|acct)\b[^\n\d]{0,20}(?P<account>\d{6,17})\b"
)
UK_ACCOUNT = re.compile(
    r"(?i)\bsort\s*code\b[^\n\d]{0,12}(?P<sort>\d{2}-\d{2}-\d{2}|\d{6})\b[^\n\d]{0,40}?"
    r"(?P<account>\b\d{8})\b|\b(?P<account2>\d{8})\b[^\n\d]{0,20}\bsort\s*code\b[^\n\d]{0,12}"
    r"(?P<sort2>\d{2}-\d{2}-\d{2})"
)
CA_ACCOUNT = re.compile(
    r"(?i)\btransit\b[^\n\d]{0,25}\d{5}-?\d{3}\b[^\n\d]{0,30}?\b(?:account|acct)\b[^\n\d]{0,12}"
    r"(?P<account>\d{7,12})\b"
)
AU_ACCOUNT = re.compile(
    r"(?i)\bBSB\b[^\n\d]{0,12}\d{3}-?\d{3}\b[^\n\d]{0,30}?(?:\b(?:account|acct|acc)\b[^\n\d]{0,12})?"
    r"(?P<account>\d{6,10})\b"
)
CLABE = re.compile(r"(?i)\bCLABE\b[^\n\d]{0,30}(?P<account>\d{18})\b")
IN_ACCOUNT = re.compile(
    r"\b[A-Z]{4}0[A-Z0-9]{6}\b[^\n]{0,40}?\b(?P<account>\d{9,18})\b|"
    r"\b(?P<account2>\d{9,18})\b[^\n]{0,40}?\b[A-Z]{4}0[A-Z0-9]{6}\b"
)


def cards(text: str) -> Iterator[Hit]:
    testing = bool(TEST_CARD_WORDS.search(text))
    for match in CARD.finditer(text):
        digits = re.sub(r"\D", "", match.group())
        if not (13 <= len(digits) <= 19 and luhn.is_valid(digits)):
            continue
        if digits in TEST_CARDS and near(text, *match.span(), TEST_WORDS, reach=80):
            continue
        if testing:
            continue  # a page about testing payments lists the processors' test cards
        if NOT_CARD.search(text[max(0, match.start() - 60) : match.start()]):
            continue
        before = text[max(0, match.start() - 40) : match.start()]
        if NOT_CARD_NEAR.search(before[-25:]) and not CARD_WORDS.search(before):
            continue
        if text[match.start() - 1 : match.start()] in ("/", ":") or text[
            match.end() : match.end() + 1
        ] in ("/", ":"):
            continue  # "2/2300345551111919/4062951901905002:…": part of a token
        if CARD_PREFIX.match(digits) or near(text, *match.span(), CARD_WORDS):
            yield Hit("payment_card", FAMILY, *match.span(), 0.9)


def ibans(text: str) -> Iterator[Hit]:
    """IBANs whose check digits hold; the country's own account check (stdnum knows some)
    raises the confidence, but a transcribed IBAN that fails only that is still one."""
    for match in IBAN.finditer(text):
        value = match.group()
        # the pattern may run into the next word; shrink until the checksum holds
        while len(value.replace(" ", "")) >= 15:
            if iban.is_valid(value, check_country=False):
                compact = value.replace(" ", "")
                if compact in EXAMPLE_IBANS and near(text, *match.span(), EXAMPLE_WORDS, 80):
                    break
                confidence = 0.97 if iban.is_valid(value) else 0.85
                yield Hit("iban", FAMILY, match.start(), match.start() + len(value), confidence)
                break
            value = value[:-1].rstrip()


def _clabe(value: str) -> bool:
    """Mexico's CLABE: weights 3, 7, 1 over 17 digits, the check digit makes the sum 0 mod 10."""
    total = sum(int(d) * (3, 7, 1)[i % 3] % 10 for i, d in enumerate(value[:17]))
    return (10 - total % 10) % 10 == int(value[17])


# Japan: "ゆうちょ銀行 記号 14952 番号 67642917", "口座番号 1234567", "普通 2402868"
JP_ACCOUNT = re.compile(
    r"記号[\s：:]*(?P<mark>\d{5})[\s、,]*番号[\s：:]*(?P<account>\d{6,8})|"
    r"(?:口座番号|(?:普通|当座)(?:預金)?(?:口座)?)[\s：:]*(?P<account2>\d{7,8})(?!\d)"
)
# New Zealand: bank, branch, account, suffix; South Africa: an account and its branch code
NZ_ACCOUNT = re.compile(r"(?<![\d-])\d{2}-\d{4}-\d{7}-\d{2,3}(?![\d-])")
ZA_ACCOUNT = re.compile(
    r"(?i)\baccount\b[^\n\d]{0,20}(?P<account>\d{9,11})\b[^\n\d]{0,30}\bbranch code\b|"
    r"\bbranch code\b[^\n\d]{0,10}\d{6}\b[^\n\d]{0,30}\baccount\b[^\n\d]{0,20}"
    r"(?P<account2>\d{9,11})\b"
)
# Canada, as words: "transit 18024, institution 004, account 2802229"
CA_WORDED = re.compile(
    r"(?i)\btransit\b[^\n\d]{0,12}\d{5}\b[^\n\d]{0,30}\binstitution\b[^\n\d]{0,12}\d{3}\b"
    r"[^\n\d]{0,30}\baccount\b[^\n\d]{0,12}(?P<account>\d{7,12})\b"
)


def accounts(text: str) -> Iterator[Hit]:
    for match in JP_ACCOUNT.finditer(text):
        group = "account" if match.group("account") else "account2"
        yield Hit("bank_account", FAMILY, *match.span(group), 0.85)
    for match in NZ_ACCOUNT.finditer(text):
        yield Hit("bank_account", FAMILY, *match.span(), 0.85)
    for match in ZA_ACCOUNT.finditer(text):
        group = "account" if match.group("account") else "account2"
        yield Hit("bank_account", FAMILY, *match.span(group), 0.8)
    for match in CA_WORDED.finditer(text):
        yield Hit("bank_account", FAMILY, *match.span("account"), 0.85)
    for match in PL_NRB.finditer(text):
        if iban.is_valid("PL" + match.group().replace(" ", "")):
            yield Hit("bank_account", FAMILY, *match.span(), 0.9)
    for match in CZ_ACCOUNT.finditer(text):
        if near(text, *match.span(), ACCOUNT_WORDS, 60):
            valid = cz_account.is_valid(match.group())
            yield Hit("bank_account", FAMILY, *match.span(), 0.85 if valid else 0.7)
    for match in BR_ACCOUNT.finditer(text):
        yield Hit("bank_account", FAMILY, *match.span("account"), 0.8)
    for match in (*CA_ACCOUNT.finditer(text), *AU_ACCOUNT.finditer(text)):
        yield Hit("bank_account", FAMILY, *match.span("account"), 0.8)
    for match in CLABE.finditer(text):
        yield Hit(
            "bank_account",
            FAMILY,
            *match.span("account"),
            0.9 if _clabe(match.group("account")) else 0.7,
        )
    for match in US_ACCOUNT.finditer(text):
        if rtn.is_valid(match.group("routing")):
            yield Hit("bank_account", FAMILY, *match.span("account"), 0.85)
    for match in UK_ACCOUNT.finditer(text):
        group = "account" if match.group("account") else "account2"
        yield Hit("bank_account", FAMILY, *match.span(group), 0.85)
    for match in IN_ACCOUNT.finditer(text):
        group = "account" if match.group("account") else "account2"
        if near(text, *match.span(group), ACCOUNT_WORDS, reach=60):
            yield Hit("bank_account", FAMILY, *match.span(group), 0.8)

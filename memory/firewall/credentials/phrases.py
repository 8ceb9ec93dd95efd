"""Secrets made of words or short codes: wallet recovery phrases, one-time-password seeds and
account recovery codes.

A recovery phrase is 12 to 24 words in a row from a BIP-39 word list (``mnemonic``, Trezor's
reference implementation, holds the lists of ten languages); with a valid checksum it is one
whatever surrounds it, without one it needs a word nearby saying "seed" or "phrase". A TOTP
seed is a base-32 run named as a 2FA secret; recovery codes are code-shaped tokens after
"recovery codes" or "backup codes".
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from functools import cache

from mnemonic import Mnemonic

from memory.firewall.hits import Hit, near

FAMILY = "secret"

LANGUAGES = ("english", "spanish", "french", "italian", "portuguese", "czech")
WORD = re.compile(r"[^\W\d_]+")
SEED_WORDS = re.compile(
    r"(?i)\b(?:seed|phrase|mnemonic|recovery|wallet|metamask|ledger|trezor|bip-?39|"
    r"semilla|frase|graine|phrase de r[ée]cup[ée]ration|seme|semente|wiederherstellung|"
    r"herstelzin|fraza|seedphrase)\b|助记词|シード|복구 구문|сид"
)
OTP_WORDS = re.compile(
    r"(?i)\b(?:2fa|mfa|totp|otp|authenticator|two[- ]factor|2-step|two[- ]step|setup key|"
    r"secret key|seed)\b"
)
BASE32 = re.compile(r"\b(?:[A-Z2-7]{4}[ ]?){4,16}\b|\b(?:[a-z2-7]{4} ){3,15}[a-z2-7]{4}\b")
OTPAUTH = re.compile(r"otpauth://[th]otp/[^\s?]*\?[^\s]*?secret=([A-Za-z2-7]{16,})")
RECOVERY_WORDS = re.compile(
    r"(?i)\b(?:recovery|backup|rescue|emergency|one-time|scratch)[\s_-]+"
    r"(?:(?:verification|login|sign-in|security|access|2fa|mfa)[\s_-]+)?(?:codes?|keys?)\b|"
    r"\b(?:codes? de (?:r[ée]cup[ée]ration|secours)|c[óo]digos? de (?:recuperaci[óo]n|"
    r"respaldo|backup)|wiederherstellungs(?:code|schl[üu]ssel)\w*|kody zapasowe)\b|"
    r"(?i:z[áa]lo[žz]n[íi] k[óo]dy|z[áa]lohovac[íi] k[óo]dy|reservkoder|backupkoder|"
    r"backup-koder|varakoodit|[åa]terst[äa]llningskoder|gjenopprettingskoder|"
    r"gendannelseskoder|codici di (?:backup|recupero)|herstelcodes|back-?upcodes|"
    r"yedek kodlar|kurtarma kodlar)|резервные коды|коды восстановления|バックアップコード|"
    r"リカバリーコード|备用码|恢复码|백업 코드|복구 코드"
)
SHORT_CODE = re.compile(r"(?<![\w-])[A-Z0-9]{5,8}(?![\w-])")
RECOVERY_CODE = re.compile(
    r"(?<![\w-])(?:[A-Za-z0-9]{4,6}-[A-Za-z0-9]{4,6}(?:-[A-Za-z0-9]{4,6})*|\d{4} \d{4}|"
    r"[A-Z0-9]{16,32})(?![\w-])"
)


@cache
def wordlists() -> tuple[frozenset[str], ...]:
    return tuple(frozenset(Mnemonic(language).wordlist) for language in LANGUAGES)


@cache
def checkers() -> tuple[Mnemonic, ...]:
    return tuple(Mnemonic(language) for language in LANGUAGES)


def seed_phrases(text: str) -> Iterator[Hit]:
    words = [(m.group().lower(), m.start(), m.end()) for m in WORD.finditer(text)]
    if len(words) < 12:
        return
    for wordlist, checker in zip(wordlists(), checkers(), strict=True):
        run: list[tuple[str, int, int]] = []
        for word in [*words, ("", len(text), len(text))]:
            if word[0] in wordlist:
                run.append(word)
                continue
            if len(run) >= 12 and len({w for w, _, _ in run}) >= 8:  # not "abandon" x 11
                valid = any(
                    checker.check(" ".join(w for w, _, _ in run[i : i + n]))
                    for n in (24, 21, 18, 15, 12)
                    for i in range(min(4, len(run) - n + 1))
                )
                named = near(text, run[0][1], run[-1][2], SEED_WORDS, reach=80)
                if valid or named:
                    yield Hit("seed_phrase", FAMILY, run[0][1], run[-1][2], 0.95 if valid else 0.8)
            run = []


def otp_seeds(text: str) -> Iterator[Hit]:
    for match in OTPAUTH.finditer(text):
        yield Hit("otp_seed", FAMILY, *match.span(1), 0.95)
    if not OTP_WORDS.search(text):
        return
    for match in BASE32.finditer(text):
        value = match.group().replace(" ", "")
        if (
            len(value) >= 16
            and re.search(r"[2-7]", value)
            and near(text, *match.span(), OTP_WORDS, reach=80)
        ):
            yield Hit("otp_seed", FAMILY, *match.span(), 0.85)


def recovery_codes(text: str) -> Iterator[Hit]:
    for word in RECOVERY_WORDS.finditer(text):
        codes = [
            m
            for m in RECOVERY_CODE.finditer(text, word.end(), word.end() + 400)
            if re.search(r"\d", m.group())
        ]
        if codes:
            yield Hit("recovery_codes", FAMILY, codes[0].start(), codes[-1].end(), 0.85)
            continue
        short = [  # Steam Guard's "KD7IM  L9OTC  P0UC6": a row of short codes
            m
            for m in SHORT_CODE.finditer(text, word.end(), word.end() + 300)
            if re.search(r"\d", m.group())
        ]
        if len(short) >= 3:
            yield Hit("recovery_codes", FAMILY, short[0].start(), short[-1].end(), 0.8)


# a BitLocker recovery key: eight groups of six digits, a shape nothing else has
BITLOCKER = re.compile(r"(?<![\w-])\d{6}(?:-\d{6}){7}(?![\w-])")


def bitlocker_keys(text: str) -> Iterator[Hit]:
    for match in BITLOCKER.finditer(text):
        yield Hit("recovery_codes", FAMILY, *match.span(), 0.9)


def scan(text: str) -> Iterator[Hit]:
    yield from seed_phrases(text)
    yield from bitlocker_keys(text)
    yield from otp_seeds(text)
    yield from recovery_codes(text)


DETECTORS = ["otp_seed", "recovery_codes", "seed_phrase"]

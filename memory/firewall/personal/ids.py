"""Government and official ids: social security and national id numbers, tax ids, passports,
driver's licences, health insurance numbers.

Each rule is a shape, a validator and, for shapes that ordinary numbers share (nine or eleven
bare digits), the words that name the id. ``python-stdnum`` checks the checksums (and the
birth dates some ids hold); an id with a distinctive layout (``756.1234.5678.97``,
``880209-7264``, ``AAAA000000HAAAAA00``) needs no word. A named id of the right shape counts
even when its checksum fails (the writer may have mistyped a digit; it is still someone's id),
with less confidence.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator

from stdnum import luhn
from stdnum.ar import cuit
from stdnum.au import tfn
from stdnum.be import nn
from stdnum.bg import egn
from stdnum.br import cpf
from stdnum.ca import sin
from stdnum.ch import ssn as ch_ssn
from stdnum.cl import rut
from stdnum.cn import ric
from stdnum.cz import rc
from stdnum.de import idnr
from stdnum.dk import cpr
from stdnum.ee import ik
from stdnum.es import dni, nie
from stdnum.fi import hetu
from stdnum.fr import nir
from stdnum.gb import nhs
from stdnum.gr import amka
from stdnum.gr import vat as gr_vat
from stdnum.hr import oib
from stdnum.ie import pps
from stdnum.il import idnr as il_idnr
from stdnum.in_ import aadhaar, pan
from stdnum.is_ import kennitala
from stdnum.it import codicefiscale
from stdnum.jp import in_ as my_number
from stdnum.kr import rrn
from stdnum.lt import asmens
from stdnum.mx import curp, rfc
from stdnum.my import nric
from stdnum.nl import bsn
from stdnum.no import fodselsnummer
from stdnum.nz import ird
from stdnum.pk import cnic
from stdnum.pl import pesel
from stdnum.pt import cc as pt_cc
from stdnum.pt import nif
from stdnum.ro import cnp
from stdnum.se import personnummer
from stdnum.si import emso
from stdnum.th import pin
from stdnum.tr import tckimlik
from stdnum.us import itin, ssn
from stdnum.za import idnr as za_idnr

from memory.firewall.hits import Hit, near

FAMILY = "personal"

Valid = Callable[[str], bool]
# (shape, validator, the words that must name it, or None when the shape says enough)
IdRule = tuple[re.Pattern[str], Valid, re.Pattern[str] | None]


def _words(*alternatives: str) -> re.Pattern[str]:
    """Naming words: Latin ones start a word (and may begin a compound, "Steuer-ID-Nummer"),
    others (Cyrillic, CJK, Hebrew, …) match anywhere."""
    latin = [a for a in alternatives if re.match(r"[a-z\\(\[]", a)]
    other = [a for a in alternatives if a not in latin]
    pieces = [r"(?<![^\W\d_])(?:" + "|".join(latin) + ")"] if latin else []
    return re.compile("(?i)" + "|".join([*pieces, *other]))


def _shape(pattern: str) -> re.Pattern[str]:
    """A shape whose ``\\b`` at either end means "no letter or digit of the Latin alphabet
    there": a CJK character next to a number (身份证号330106…) is a boundary too."""
    pattern = re.sub(r"^\\b", r"(?<![0-9A-Za-z])", pattern)
    pattern = re.sub(r"\\b$", r"(?![0-9A-Za-z])", pattern)
    return re.compile(pattern)


def _always(_: str) -> bool:
    return True


def _sg_nric(value: str) -> bool:
    """Singapore NRIC / FIN: a letter, seven digits and a check letter."""
    weights = (2, 7, 6, 5, 4, 3, 2)
    total = sum(int(d) * w for d, w in zip(value[1:8], weights, strict=True))
    if value[0] in "TG":
        total += 4
    elif value[0] == "M":
        total += 3
    letters = "JZIHGFEDCBA" if value[0] in "ST" else "XWUTRQPNMLK"
    if value[0] == "M":
        letters = "KLJNPQRTUWX"
    return value[8] == letters[total % 11]


def _tw_id(value: str) -> bool:
    """Taiwan's national id: a letter (its region's two digits), then nine digits."""
    codes = "ABCDEFGHJKLMNPQRSTUVXYWZIO"
    number = str(codes.index(value[0]) + 10) + value[1:]
    weights = (1, 9, 8, 7, 6, 5, 4, 3, 2, 1, 1)
    return sum(int(d) * w for d, w in zip(number, weights, strict=True)) % 10 == 0


def _hk_id(value: str) -> bool:
    """Hong Kong's identity card: one or two letters, six digits, a check digit or A."""
    match = re.fullmatch(r"([A-Z]{1,2})(\d{6})\(?([0-9A])\)?", value)
    if not match:
        return False
    letters, digits, check = match.groups()
    letters = letters.rjust(2, " ")
    total = sum(
        (36 if ch == " " else ord(ch) - 55) * w for ch, w in zip(letters, (9, 8), strict=True)
    ) + sum(int(d) * w for d, w in zip(digits, range(7, 1, -1), strict=True))
    expected = (11 - total % 11) % 11
    return check == ("A" if expected == 10 else str(expected))


def _au_medicare(value: str) -> bool:
    digits = re.sub(r"\D", "", value)
    if len(digits) < 10 or digits[0] not in "23456":
        return False
    weights = (1, 3, 7, 9, 1, 3, 7, 9)
    return sum(int(d) * w for d, w in zip(digits[:8], weights, strict=True)) % 10 == int(digits[8])


def _ru_snils(value: str) -> bool:
    """Russia's insurance number (СНИЛС): nine digits weighted 9..1, the sum modulo 101 (100
    and 101 written 00) is the two check digits."""
    digits = re.sub(r"\D", "", value)
    if len(digits) != 11:
        return False
    total = sum(int(d) * (9 - i) for i, d in enumerate(digits[:9]))
    check = total % 101
    return (0 if check == 100 else check) == int(digits[9:])


WORDS = {
    "ssn": _words(r"ssn\b", "social security", r"soc\.? ?sec", r"ss#"),
    "tax": _words(
        r"steuer[-\s]?id",
        "steuer",
        "idnr",
        r"tax ?id",
        r"tin\b",
        "identifikationsnummer",
        "steueridentifikationsnummer",
        r"tax file",
        r"tfn\b",
        r"tax number",
        r"ird\b",
        r"inland revenue",
    ),
    "bsn": _words(r"bsn\b", "burgerservicenummer", "citizen service number", "sofinummer"),
    "aadhaar": _words("aadhaar", "aadhar", r"uidai\b", "आधार"),
    "cpf": _words(r"cpf\b", "cadastro de pessoas"),
    "nif": _words(r"nif\b", "contribuinte", r"n[úu]mero fiscal", "portuguese tax", r"nipc\b"),
    "pesel": _words(r"pesel\b"),
    "personnummer": _words(
        "personnummer",
        r"personnr",
        r"pers\.?nr",
        r"fødselsnummer",
        r"fodselsnummer",
        r"fnr\b",
        r"cpr\b",
        r"henkilötunnus",
        r"hetu\b",
        "personal identity number",
        "personal number",
        "kennitala",
    ),
    "sin": _words(
        r"sin\b", "social insurance", r"nas\b", r"assurance sociale", "numéro d'assurance"
    ),
    "national": _words(
        "national id",
        "national identity",
        r"national number",
        r"id[- ]?(?:no|nr|number|card)\b",
        "identity number",
        "identity card",
        "identification number",
        "personal code",
        r"personal id\b",
        "isikukood",
        "rijksregister",
        r"registre national",
        r"num[ée]ro national",
        "rodné číslo",
        r"rodne cislo",
        r"cnp\b",
        r"egn\b",
        r"oib\b",
        r"emšo",
        r"emso\b",
        "asmens kod",
        r"amka\b",
        "ΑΜΚΑ",
        "ΑΦΜ",
        r"kimlik",
        r"tckn\b",
        r"t\.c\.",
        r"tc\b",
        r"nik\b",
        r"ktp\b",
        "teudat",
        r"dni\b",
        r"cuil\b",
        r"cuit\b",
        r"pps\b",
        r"personalausweis",
        r"ausweis",
        r"carte d'identit[ée]",
        r"c[ée]dula",
        r"documento",
        "carta d'identità",
        r"nric\b",
        r"sa id",
        r"fin\b",
        r"my ?number",
        "身份证",
        "身分證",
        "マイナンバー",
        "個人番号",
        "주민등록번호",
        "주민번호",
        "ЕГН",
        "ИНН",
        "РНОКПП",
        "паспорт",
        "תעודת זהות",
        "תעודת הזהות",
        r"ת\.ז",
        "رقم الهوية",
        "بطاقة الهوية",
        "کد ملی",
        "เลขประจำตัว",
        "บัตรประชาชน",
    ),
    "health": _words(
        r"nhs\b",
        "medicare",
        "krankenversicherung",
        "krankenversicherten",
        "versichertennummer",
        "versicherungsnummer",
        r"kvnr\b",
        "versichertennummer",
        "carte vitale",
        "health insurance",
        "tarjeta sanitaria",
        "sozialversicherung",
        r"svnr\b",
        r"vsnr\b",
        "ahv",
        "avs",
    ),
}
NATIONAL = WORDS["national"]
DATE_DIGITS = re.compile(r"^(?:19|20)\d{2}(?:0[1-9]|1[0-2])(?:0[1-9]|[12]\d|3[01])$")
INSIDE_TOKEN = re.compile(r"(?:[A-Za-z][-_/#]|[-_/#.])$")

GOVERNMENT: dict[str, IdRule] = {
    "us_ssn": (_shape(r"\b\d{3}-\d{2}-\d{4}\b"), ssn.is_valid, None),
    "us_itin": (_shape(r"\b9\d{2}-[5-9]\d-\d{4}\b"), itin.is_valid, None),
    "us_ssn_bare": (_shape(r"\b\d{3} ?\d{2} ?\d{4}\b"), ssn.is_valid, WORDS["ssn"]),
    "uk_nino": (
        re.compile(
            r"\b(?!BG|GB|NK|KN|TN|NT|ZZ)[A-CEGHJ-PR-TW-Z][A-CEGHJ-NPR-TW-Z] ?\d{2} ?\d{2} ?\d{2} ?"
            r"[A-D]\b"
        ),
        _always,
        None,
    ),
    "uk_nhs": (_shape(r"\b\d{3} ?\d{3} ?\d{4}\b"), nhs.is_valid, WORDS["health"]),
    "de_tax_id": (_shape(r"\b\d{2} ?\d{3} ?\d{3} ?\d{3}\b"), idnr.is_valid, WORDS["tax"]),
    "fr_nir": (
        _shape(r"\b[12] ?\d{2} ?\d{2} ?(?:\d{2}|2[AB]) ?\d{3} ?\d{3} ?\d{2}\b"),
        nir.is_valid,
        None,
    ),
    "es_dni": (_shape(r"\b\d{8}-?[A-Z]\b"), dni.is_valid, None),
    "es_nie": (_shape(r"\b[XYZ]-?\d{7}-?[A-Z]\b"), nie.is_valid, None),
    "it_codice_fiscale": (
        _shape(r"\b[A-Z]{6}\d{2}[A-Z]\d{2}[A-Z]\d{3}[A-Z]\b"),
        codicefiscale.is_valid,
        None,
    ),
    "nl_bsn": (_shape(r"\b\d{4}\.?\d{2}\.?\d{3}\b"), bsn.is_valid, WORDS["bsn"]),
    "be_national_number": (
        _shape(r"\b\d{2}\.\d{2}\.\d{2}-\d{3}\.\d{2}\b"),
        nn.is_valid,
        None,
    ),
    "be_national_number_bare": (_shape(r"\b\d{11}\b"), nn.is_valid, NATIONAL),
    "pl_pesel": (_shape(r"\b\d{11}\b"), pesel.is_valid, WORDS["pesel"]),
    "se_personnummer": (
        _shape(r"\b(?:19|20)?\d{6}[-+]\d{4}\b"),
        personnummer.is_valid,
        None,
    ),
    "se_personnummer_bare": (
        _shape(r"\b(?:19|20)?\d{10}\b"),
        personnummer.is_valid,
        WORDS["personnummer"],
    ),
    "no_fodselsnummer": (
        _shape(r"\b\d{6} ?\d{5}\b"),
        fodselsnummer.is_valid,
        WORDS["personnummer"],
    ),
    "dk_cpr": (_shape(r"\b\d{6}-?\d{4}\b"), cpr.is_valid, WORDS["personnummer"]),
    "fi_hetu": (_shape(r"\b\d{6}[-+A-FU-Y]\d{3}[0-9A-Y]\b"), hetu.is_valid, None),
    "is_kennitala": (_shape(r"\b\d{6}-?\d{4}\b"), kennitala.is_valid, WORDS["personnummer"]),
    "ee_isikukood": (_shape(r"\b[1-6]\d{10}\b"), ik.is_valid, NATIONAL),
    "cz_rodne_cislo": (_shape(r"\b\d{6}/\d{3,4}\b"), rc.is_valid, None),
    "ro_cnp": (_shape(r"\b[1-9]\d{12}\b"), cnp.is_valid, NATIONAL),
    "bg_egn": (_shape(r"\b\d{10}\b"), egn.is_valid, NATIONAL),
    "hr_oib": (_shape(r"\b\d{11}\b"), oib.is_valid, NATIONAL),
    "si_emso": (_shape(r"\b\d{13}\b"), emso.is_valid, NATIONAL),
    "lt_asmens_kodas": (_shape(r"\b[1-6]\d{10}\b"), asmens.is_valid, NATIONAL),
    "gr_amka": (_shape(r"\b\d{11}\b"), amka.is_valid, NATIONAL),
    "tr_kimlik": (_shape(r"\b[1-9]\d{10}\b"), tckimlik.is_valid, NATIONAL),
    "ch_ahv": (_shape(r"\b756\.?\d{4}\.?\d{4}\.?\d{2}\b"), ch_ssn.is_valid, None),
    "ie_pps": (_shape(r"\b\d{7}[A-W][A-IW]?\b"), pps.is_valid, NATIONAL),
    "pt_nif": (_shape(r"\b\d{9}\b"), nif.is_valid, WORDS["nif"]),
    "pt_citizen_card": (_shape(r"\b\d{8} ?\d ?[A-Z]{2}\d\b"), pt_cc.is_valid, None),
    "in_aadhaar": (_shape(r"\b\d{4} ?\d{4} ?\d{4}\b"), aadhaar.is_valid, WORDS["aadhaar"]),
    "in_pan": (_shape(r"\b[A-Z]{3}[ABCFGHLJPT][A-Z]\d{4}[A-Z]\b"), pan.is_valid, None),
    "cn_resident_id": (_shape(r"\b\d{17}[\dX]\b"), ric.is_valid, None),
    "jp_my_number": (_shape(r"\b\d{4} ?\d{4} ?\d{4}\b"), my_number.is_valid, NATIONAL),
    "kr_rrn": (_shape(r"\b\d{6}-?[1-4]\d{6}\b"), rrn.is_valid, None),
    "br_cpf": (_shape(r"\b\d{3}\.\d{3}\.\d{3}-\d{2}\b"), cpf.is_valid, None),
    "br_cpf_bare": (_shape(r"\b\d{11}\b"), cpf.is_valid, WORDS["cpf"]),
    "mx_curp": (_shape(r"\b[A-Z]{4}\d{6}[HMX][A-Z]{5}[0-9A-Z]\d\b"), curp.is_valid, None),
    "mx_rfc": (_shape(r"\b[A-ZÑ&]{4}\d{6}[A-Z0-9]{3}\b"), rfc.is_valid, None),
    "ar_cuil": (_shape(r"\b(?:20|23|24|27|30|33|34)-?\d{8}-?\d\b"), cuit.is_valid, None),
    "ar_dni": (_shape(r"\b\d{2}\.\d{3}\.\d{3}\b"), _always, NATIONAL),
    "cl_rut": (_shape(r"\b\d{1,2}\.\d{3}\.\d{3}-[\dkK]\b"), rut.is_valid, None),
    "ca_sin": (_shape(r"\b\d{3}[ -]?\d{3}[ -]?\d{3}\b"), sin.is_valid, WORDS["sin"]),
    "au_tfn": (_shape(r"\b\d{3} ?\d{3} ?\d{2,3}\b"), tfn.is_valid, WORDS["tax"]),
    "au_medicare": (_shape(r"\b\d{4} ?\d{5} ?\d(?:[ /-]?\d)?\b"), _au_medicare, WORDS["health"]),
    "nz_ird": (_shape(r"\b\d{2,3}-?\d{3}-?\d{3}\b"), ird.is_valid, WORDS["tax"]),
    "za_id": (_shape(r"\b\d{13}\b"), za_idnr.is_valid, NATIONAL),
    "il_teudat_zehut": (_shape(r"\b\d{9}\b"), il_idnr.is_valid, NATIONAL),
    "sg_nric": (_shape(r"\b[STFGM]\d{7}[A-Z]\b"), _sg_nric, None),
    "my_nric": (_shape(r"\b\d{6}-\d{2}-\d{4}\b"), nric.is_valid, None),
    "th_national_id": (
        _shape(r"\b\d[- ]?\d{4}[- ]?\d{5}[- ]?\d{2}[- ]?\d\b"),
        lambda value: pin.is_valid(re.sub(r"\D", "", value)),
        NATIONAL,
    ),
    "pk_cnic": (_shape(r"\b\d{5}-\d{7}-\d\b"), cnic.is_valid, None),
    "id_nik": (_shape(r"\b\d{16}\b"), _always, _words(r"nik\b", r"ktp\b", "nomor induk")),
    "ru_inn": (_shape(r"\b\d{12}\b"), _always, _words("ИНН", r"inn\b")),
    "ru_passport": (_shape(r"\b\d{2} ?\d{2} ?№? ?\d{6}\b"), _always, _words("паспорт")),
    "ae_emirates_id": (
        _shape(r"\b784-?\d{4}-?\d{7}-?\d\b"),
        lambda value: luhn.is_valid(re.sub(r"\D", "", value)),
        None,
    ),
    "tw_national_id": (_shape(r"\b[A-Z][12]\d{8}\b"), _tw_id, None),
    "hk_id": (_shape(r"\b[A-Z]{1,2}\d{6}\([0-9A]\)"), _hk_id, None),
    "vn_citizen_id": (
        _shape(r"\b\d{12}\b"),
        _always,
        _words("cccd", "cmnd", "căn cước", "can cuoc", "chứng minh"),
    ),
    "ua_taxpayer": (_shape(r"\b\d{10}\b"), _always, _words("РНОКПП", "ІПН", "ИНН", r"rnokpp")),
    "us_medicare_mbi": (
        _shape(r"\b\d[A-Z][A-Z0-9]\d-?[A-Z][A-Z0-9]\d-?[A-Z]{2}\d{2}\b"),
        _always,
        _words("medicare", "mbi", "beneficiary"),
    ),
    "de_health_insurance": (_shape(r"\b[A-Z]\d{9}\b"), _always, WORDS["health"]),
    "sa_national_id": (_shape(r"\b[12]\d{9}\b"), luhn.is_valid, NATIONAL),
    "cn_resident_id_bare": (
        _shape(r"\b\d{17}[\dX]\b"),
        lambda value: bool(DATE_DIGITS.match(value[6:14])),
        _words("身份证", "身分證", "resident identity", "resident id"),
    ),
    "eg_national_id": (
        _shape(r"\b[23]\d{13}\b"),
        lambda value: bool(re.match(r"\d{2}(?:0[1-9]|1[0-2])(?:0[1-9]|[12]\d|3[01])", value[1:7])),
        _words("الرقم القومي", "رقم قومي", "الرقم القومى", r"egyptian national id"),
    ),
    "bd_nid": (
        _shape(r"\b(?:\d{10}|\d{13}|\d{17})\b"),
        _always,
        _words(r"nid\b", "জাতীয় পরিচয়পত্র", "জাতীয় পরিচয়", "national id card"),
    ),
    "ca_ohip": (
        _shape(r"\b\d{4}[- ]?\d{3}[- ]?\d{3}[- ]?[A-Z]{2}\b"),
        _always,
        _words(r"ohip\b", "health card", "carte santé"),
    ),
    "fr_spi": (
        _shape(r"\b[0-3]\d ?\d{2} ?\d{3} ?\d{3} ?\d{3}\b"),
        _always,
        _words(r"num[ée]ro fiscal", r"n° fiscal", "identifiant fiscal"),
    ),
    "uk_utr": (
        _shape(r"\b\d{5} ?\d{5}\b"),
        _always,
        _words(r"utr\b", "unique taxpayer reference"),
    ),
    "ng_bvn": (
        _shape(r"\b\d{11}\b"),
        _always,
        _words(r"bvn\b", "bank verification number", r"nin\b", "national identification number"),
    ),
    "gr_afm": (_shape(r"\b\d{9}\b"), gr_vat.is_valid, _words("ΑΦΜ", "Α.Φ.Μ", r"afm\b")),
    "gr_id_card": (
        re.compile(r"(?<![\w])[Α-Ω]{1,2} ?\d{6}(?!\d)"),
        _always,
        _words("ταυτότητ", "δελτίο", "δελτίου", "ΑΔΤ", "Α.Δ.Τ"),
    ),
    "ru_snils": (_shape(r"\b\d{3}-\d{3}-\d{3}[ -]\d{2}\b"), _ru_snils, None),
}

_PASSPORT = (
    r"passport|passeport|pasaporte|passaporte|passaporto|reisepass|paspoort|paszport|"
    r"pasu|passi|pass-?nr|passnummer|pasaport|cestovní pas|cestovni pas|útlevél|"
    r"utlevel|διαβατήριο|паспорт|זרכון|דרכון|جواز|پاسپورت|पासपोर्ट|パスポート|旅券|护照|護照|"
    r"여권|hộ chiếu|ho chieu|paspor|หนังสือเดินทาง"
)
_LICENCE = (
    r"driver'?s? licen[cs]e|driving licen[cs]e|licen[cs]e(?! key)(?: (?:no|number|#))?|"
    r"\bdl\s*#|(?-i:\bDL\b)|"
    r"führerschein|fuhrerschein|permis de conduire|carnet de conducir|licencia de conducir|"
    r"patente di guida|patente|carteira de motorista|\bcnh\b|rijbewijs|prawo jazdy|"
    r"körkort|korkort|førerkort|kørekort|ajokortti|řidičský průkaz|ehliyet|"
    r"водительск|運転免許|驾驶证|駕照|운전면허|รถใบขับขี่"
)
_ID_CARD = (
    r"ausweisnummer|personalausweis(?:nummer)?|ausweis-?nr|id[- ]card(?: number| no\.?)?|"
    r"identity card(?: number)?|carte d['’]identit[ée]|n[°º] de carte|carta d['’]identit[àa]|"
    r"documento de identidad|c[ée]dula(?: de identidad)?|dowód osobisty|občanský průkaz|"
    r"identiteitskaart|id-kaart|henkilökortti|személyi igazolvány|kimlik kart[ıi]"
)
NAMED_DOCUMENT = {
    "passport": re.compile(
        rf"(?i)(?:{_PASSPORT})(?:nummer|nr\.?|[-\s]*(?:no\.?|nr\.?|n[°º]\.?|number|nummer|"
        r"num[ée]ro|n[úu]mero|numer|#|番号|号码|번호|номер))?"
        r"[^\n.;]{0,60}?(?:[:#：]\s*|\s)(?:(?:no\.?|nr\.?|n[°º]\.?|number|num[ée]ro|n[úu]mero|"
        r"numer|номер|№|n\.)\s*:?\s*)?((?-i:(?=[A-Z0-9]*\d)[A-Z0-9]{6,10}))(?![\w-])"
    ),
    "id_card": re.compile(
        rf"(?i)(?:{_ID_CARD})\.?[^\n.;]{{0,30}}?(?:[:#]\s*|\s)(?:(?:no\.?|nr\.?|n[°º]\.?|"
        r"number|num[ée]ro|n[úu]mero|numer)\s*:?\s*)?((?-i:(?=[A-Z0-9]*\d)(?=[A-Z0-9]*[A-Z])"
        r"[A-Z0-9]{8,12}))(?![\w-])"
    ),
    # "Health plan member ID: XGH563322883", "Medicaid subscriber no. 10293847"
    "health_insurance_id": re.compile(
        r"(?i)(?:health|medical|dental|vision|insurance|insurer|medicaid|medicare|krankenkasse|"
        r"mutuelle)[^\n.;]{0,20}?(?:member|subscriber|policy(?:holder)?|insured|versicherten)"
        r"[ -]?(?:id|number|no\.?|nr\.?|#)\s*[:#]?\s*((?-i:(?=[A-Z0-9]*\d)[A-Z0-9]{6,15}))"
        r"(?![\w-])"
    ),
    "drivers_licence": re.compile(
        rf"(?i)(?:{_LICENCE})\.?[^\n.;]{{0,40}}?(?:[:#]\s*|\s)(?:(?:no\.?|nr\.?|n[°º]\.?|number|"
        r"num[ée]ro|n[úu]mero|numer)\s*:?\s*)?((?-i:[A-Z0-9][A-Z0-9\- ]{4,16}[A-Z0-9]))(?![\w-])"
    ),
}


def government_ids(text: str) -> Iterator[Hit]:
    for name, (pattern, valid, words) in GOVERNMENT.items():
        for match in pattern.finditer(text):
            start, end = match.span()
            value = text[start:end]
            if INSIDE_TOKEN.search(text[max(0, start - 3) : start]):
                continue  # "SN-20240317-0042": part of a serial
            if DATE_DIGITS.match(value):
                continue  # "Build 20260401": a date written as digits
            named = (
                near(text, start, end, words, reach=60) or _labelled(text, start, words)
                if words is not None
                else False
            )
            if words is not None and not named:
                continue  # nine bare digits are nobody's id until a word names one
            try:
                ok = bool(valid(value))
            except Exception:  # a validator refusing a malformed value
                ok = False
            if not ok and words is NATIONAL:
                continue  # "id number" names many things: the checksum must hold
            if ok or named:  # named and shaped like one: personal, whatever its checksum
                yield Hit(name.removesuffix("_bare"), FAMILY, start, end, 0.9 if ok else 0.75)


def _labelled(text: str, start: int, words: re.Pattern[str]) -> bool:
    """The value follows a label that names it, "Steuerliche Identifikationsnummer des Mieters
    für die Nebenkostenabrechnung: 97 865 224 132" (the label's words on its line, before the
    colon)."""
    line_start = max(text.rfind("\n", 0, start) + 1, start - 160)
    head = text[line_start:start]
    colon = max(head.rfind(":"), head.rfind("："))
    return colon >= 0 and not head[colon + 1 :].strip() and bool(words.search(head[:colon]))


# a passport's machine-readable zone: "P<GBRHARGREAVES<<OLIVIA<ROSE<<<…", then its number line
# (Germany's code is "D<<")
MRZ = re.compile(r"\bP[A-Z<][A-Z<]{3}[A-Z<]{20,}\n?[A-Z0-9<]{9}\d[A-Z<]{3}\d{6}")


# a list under a heading that names the document ("Passports for the registration:\n- Ethan:
# 755774878"): each item's number
LIST_HEADING = re.compile(rf"(?im)^[^\n]{{0,60}}(?:{_PASSPORT})[^\n]{{0,60}}[:：][ \t]*\r?$")
LIST_ITEM = re.compile(
    r"[ \t]*(?:[-*•]|\d{1,2}[.)])[ \t]+[^\n]{0,50}?[:：\-–][ \t]*"
    r"((?=[A-Z0-9]*\d)[A-Z0-9]{6,10})[ \t]*\r?(?:\n|$)"
)


def _listed(text: str) -> Iterator[Hit]:
    for heading in LIST_HEADING.finditer(text):
        position = text.find("\n", heading.end()) + 1
        for _ in range(12):  # a list of at most a dozen people
            item = LIST_ITEM.match(text, position) if position else None
            if item is None:
                break  # the list ended
            value = item.group(1)
            if not DATE_DIGITS.match(value) and not (value.isdigit() and len(value) <= 6):
                yield Hit("passport", FAMILY, *item.span(1), 0.75)
            position = item.end()


def documents(text: str) -> Iterator[Hit]:
    """Passport and driver's licence numbers, named in some language a few words before."""
    yield from _listed(text)
    for match in MRZ.finditer(text):
        yield Hit("passport", FAMILY, *match.span(), 0.9)
    for name, pattern in NAMED_DOCUMENT.items():
        for match in pattern.finditer(text):
            value = match.group(1)
            digits = sum(ch.isdigit() for ch in value)
            if digits >= 6 or (digits and len(value) >= 8) or (digits >= 2 and value[0].isalpha()):
                yield Hit(name, FAMILY, *match.span(1), 0.8)


DETECTORS = sorted({*(n.removesuffix("_bare") for n in GOVERNMENT), *NAMED_DOCUMENT})

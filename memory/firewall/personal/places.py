"""Where and when a person is: street addresses and dates of birth.

An address is a street with its number in the way some country writes it (``14 Elmwood Road``,
``Calle de Alcalá 118``, ``Lindenstraße 5``, ``ул. Ленина, д. 5``, ``〒150-0002 東京都渋谷区…``)
with a word near it that says it is somebody's place ("ship to", "wohnt", "住所"): a street
alone, even with its postcode, is geography (a shop's listing). A date of birth is a full
date (with its year) named as one.
"""

from __future__ import annotations

import re
from collections.abc import Iterator

from memory.firewall.hits import Hit, near

FAMILY = "personal"

_NAME = r"(?:[^\W\d_][\w'’.\-]{0,30}|\d{1,3}(?:st|nd|rd|th))"  # a street name's word, any script
_PARTICLE = (
    r"(?:(?i:de|del|de la|de los|de las|dos|das|da|do|di|dei|degli|della|delle|van|von|der|"
    r"den|la|le|les|du|des|d'|l')\s+)"
)
_EN_TYPE = (
    r"Street|St|Road|Rd|Avenue|Ave|Lane|Ln|Drive|Dr|Boulevard|Blvd|Way|Court|Ct|Place|Pl|"
    r"Terrace|Close|Crescent|Square|Parkway|Pkwy|Highway|Hwy|Circle|Cir|Trail|Row|Mews|Grove|"
    r"Gardens|Walk|Hill|Park|Green|Gate|Wharf|Quay|Marg|Nagar|Layout|Cross|Main|Residency|"
    r"Apartments|Towers|Colony|Enclave|Society|Complex|Heights|Mansions"
)
_COMPOUND = (
    r"stra(?:ss|ß)e|str\.|weg|allee|gasse|platz|ring|damm|ufer|chaussee|steig|straat|laan|"
    r"gracht|plein|kade|singel|dijk|steeg|gatan|vägen|gränd|torget|gata|veien|vei|gate|gade|"
    r"vej|stræde|katu|tie|kuja|polku|utca|út|tér"
)
# street words that are nothing else (any case), and ones that are also ordinary words
# ("place", "via", "route": capitalised only, as a street's name is written)
_BEFORE = (
    r"rue|calle|c/|avda\.|avenida|carrer|carretera|traves[íi]a|viale|v\.le|piazza|p\.za|corso|"
    r"vicolo|rua|travessa|pra[çc]a|alameda|estrada|bulevardul|calea|aleea|ulica|ul\.|aleja|"
    r"ulice|n[áa]m\.|n[áa]městí|sokak|sok\.|caddesi|cad\.|bulvar[ıi]|mahallesi|mah\.|jalan|"
    r"jl\.|đường|ulitsa|ул\.|улица|просп\.|проспект|переулок|пер\.|бульвар|шоссе|наб\.|"
    r"вул\.|вулиця|бул\.|οδός|οδ\.|λεωφ\.|λεωφόρος|רחוב|רח'|שדרות|شارع|ถนน|ซอย"
)
_BEFORE_CAPITAL = (
    r"Rue|Avenue|Av\.|Boulevard|Bd|Chemin|All[ée]e|Impasse|Place|Quai|Route|Cours|Paseo|Plaza|"
    r"Camino|Ronda|Via|Largo|Strada|Str\.|Aleja|Al\.|Plac|Cadde|Phố|Pho|Duong|Đường"
)
STREET = re.compile(
    # English: number, name, type ("14 Elmwood Road", "221B Baker St")
    rf"\b\d{{1,5}}[A-Za-z]?,?\s+(?:{_NAME}\s+){{1,3}}(?:{_EN_TYPE})\b\.?"
    # German, Dutch, Nordic, Finnish, Hungarian: a compound, then the number
    rf"|(?<![\w\-])[^\W\d_][\w\-]{{0,40}}(?i:{_COMPOUND})\s+\d{{1,4}}[a-zA-Z]?(?:[-/]\d{{1,4}})?\b"
    rf"|(?<![\w\-])[^\W\d_][\w\-]{{0,40}}\s+(?:Stra(?:ss|ß)e|Straat|Weg|Allee|Platz|Gata|Vej|Utca)\s+"
    rf"\d{{1,4}}[a-z]?\b"
    # street word first, then the name, then the number ("Calle de Alcalá 118", "ул. Ленина, 5")
    rf"|(?<![^\W\d_])(?:(?i:{_BEFORE})|{_BEFORE_CAPITAL})(?![^\W\d_])\s*{_PARTICLE}?{_NAME}"
    rf"(?:\s+{_PARTICLE}?{_NAME}){{0,3}}[,،]?\s+"
    r"(?:(?i:n[°ºo]\.?|no\.?|nr\.?|д\.|дом|№|số|مبنى|رقم|عمارة|بناية)\s*:?\s*)?"
    r"\d{1,5}[a-zA-Z]?\b"
    # Turkish: the name, then the street word, then "No: 43"
    rf"|(?<![\w'’.\-])(?:{_NAME}\s+){{1,3}}(?i:cad\.|caddesi|cd\.|sok\.|sokak|sokağı|bulvarı|blv\.)\s*"
    r"(?i:no)\s*:?\s*\d{1,5}"
    # French: number, then the street word ("12 rue de la Paix", "5 bis, avenue Foch")
    rf"|\b\d{{1,4}}(?:\s?(?:bis|ter))?,?\s+(?i:{_BEFORE}|{_BEFORE_CAPITAL})(?![^\W\d_])\s+"
    rf"{_PARTICLE}?[^\W\d_a-z][\w'’\-]*"
    # Japanese: postcode or prefecture, ward or city, block numbers
    r"|〒?\s?\d{3}-\d{4}\s*\S{0,4}?(?:都|道|府|県)\S{1,12}?(?:市|区|町|村)\S{0,20}?\d{1,4}"
    r"|(?:東京都|北海道|(?:大阪|京都)府|\S{2,3}県)\S{1,10}?(?:市|区|町|村)\S{0,16}?"
    r"(?:\d{1,4}(?:-\d{1,4}){1,2}|\d{1,2}丁目)"
    # Chinese: province or city, district, road, number
    r"|\S{0,8}(?:省|市)\S{0,8}?(?:区|县|區|縣)\S{0,12}?(?:路|街|道|巷)\S{0,6}?\d{1,5}\s?(?:号|號)"
    # Korean: city, district, road name, number
    r"|\S{1,6}(?:시|도)\s\S{1,6}(?:구|군)\s\S{1,10}(?:로|길)\s?\d{1,4}(?:-\d{1,4})?"
)
_ADDRESS = (
    r"address|addresses|addr\.|lives at|live at|living at|home address|(?:my|our|his|her|"
    r"their) (?:home|place|flat)|residence|resides|moved to|en casa|em casa|a casa mia|"
    r"chez moi|bei mir|at mine|to mine|zu hause|"
    r"(?:ship|send|deliver|mail|post|forward|return|envo|envi|livr|exp[ée]di|mand|sped|"
    r"invi|consegn|recapit|schick|send|liefer|stuur|verzend|wysł|wyśl|skick|lähet|entreg)"
    r"\w*(?:\s+[\w'’]+){0,5}?\s+(?:to|à|a|an|na|chez|naar|till|til|para|al|alla|all')|chez|"
    r"flat \d+|"
    r"adresse|wohnt|anschrift|lieferadresse|wohnadresse|domicile|habite|livraison|"
    r"direcci[óo]n|vive en|env[íi]o|domicilio|indirizzo|abita|residente|spedizione|morada|"
    r"endere[çc]o|mora|entrega|woont|adres\w{0,3}|woonadres|woonachtig|bezorg|mieszka|adresu|"
    r"wohne|wohnen|wohnhaft|meldeadresse|hauptwohnsitz|meldezettel|wohnsitz|"
    r"wysyłki|adresa|bydlí|bydli|doručení|adress|bor på|leveransadress|osoite|asuu|cím|"
    r"lakik|locuie[șs]te|oturuyor|teslimat|apt|apartment|suite|piso|interno|"
    r"alamat|tinggal|địa chỉ|dia chi"
)
ADDRESS_WORDS = re.compile(
    rf"(?i)(?<![^\W\d_])(?:{_ADDRESS})(?![^\W\d_])"
    r"|адрес|проживает|живёт|живет|доставк|διεύθυνση|κατοικ|כתובת|גר ב|عنوان|يسكن|पता|"
    r"住所|送付先|お届け先|届け先|自宅|地址|收货|收件|寄到|住在|주소|배송지|ที่อยู่"
    r"|〒"
)
CJK_STREET = re.compile(r"[〒都道府県市区町村省县區縣路街号號시도구군로길]")


# an address given after its label, in the layouts of scripts the street patterns do not read
# ("ที่อยู่…: 137/70 ซอยสุขุมวิท 71 …", "العنوان: طريق الملك عبدالعزيز، مبنى 6672…",
# "Địa chỉ: Số 23 ngõ 58 …"): a number and a street word of that country in the value
LABELLED = re.compile(
    r"(?i)(?:ที่อยู่|العنوان|عنوان|địa chỉ|dia chi|alamat|адрес|पता|ঠিকানা|כתובת|διεύθυνση)"
    r"[^\n:：]{0,40}[:：]\s*(?P<value>[^\n]{8,160})"
)
STREETISH = re.compile(
    r"(?i)ซอย|ถนน|แขวง|เขต|(?<![^\W\d_])(?:số|ngõ|ngách|đường|phố|phường|quận|jalan|jl\.|gang|"
    r"blok|rt|rw|ул\.|улица|проспект|пр-т|дом|д\.|кв\.|οδός|οδ\.|ΤΚ)(?![^\W\d_])|طريق|شارع|حي|"
    r"مبنى|عمارة|मार्ग|गली|सड़क|রোড|রাস্তা|רחוב|שד'"
)
# "Imogen Holloway — 18 Banksia Street": a person's name, then the street
PERSON_BEFORE = re.compile(r"(?<![\w])[A-Z][a-z]+(?: [A-Z][a-z]+){1,2}\s*[—–]\s*$")
# a business's own place, not a person's
BUSINESS = re.compile(
    r"(?i)\b(?:registered office|head office|business park|headquarters|our (?:office|store|"
    r"shop|showroom|warehouse)|si[èe]ge social|firmensitz|ticket office|museum)\b"
)


def addresses(text: str) -> Iterator[Hit]:
    """A street and number, with a word near that says it is someone's place (the Asian
    layouts, with their wards and prefectures, are addresses by themselves); a business's
    own address is not personal."""
    for match in STREET.finditer(text):
        start, end = match.span()
        cjk = bool(CJK_STREET.search(match.group()))
        if BUSINESS.search(text[max(0, start - 80) : end + 40]):
            continue
        owner = PERSON_BEFORE.search(text[max(0, start - 40) : start])
        if cjk or owner or near(text, start, end, ADDRESS_WORDS, reach=60):
            yield Hit("street_address", FAMILY, start, end, 0.8 if cjk else 0.75)
    for match in LABELLED.finditer(text):
        value = match.group("value")
        business = BUSINESS.search(text[max(0, match.start() - 80) : match.end()])
        if re.search(r"\d", value) and STREETISH.search(value) and not business:
            yield Hit("street_address", FAMILY, *match.span("value"), 0.7)


_BIRTH = (
    r"born|date of birth|birth ?date|birthday|d\.?o\.?b\.?|date_of_birth|dob|birth_date|"
    r"geboren|geburtsdatum|geb\.|n[ée]e? le|date de naissance|nacid[oa]|fecha de nacimiento|"
    r"f\. nac\.|nat[oa] il|data di nascita|nascid[oa]|data de nascimento|geboortedatum|"
    r"data urodzenia|urodzon[ya]|datum narození|narozen[aá]?|född|født|fødselsdato|"
    r"syntynyt|syntymäaika|születési|született|doğum tarihi|doğum|ημερομηνία γέννησης|"
    r"γεννήθηκε|ngày sinh|tanggal lahir|lahir"
)
BIRTH_WORDS = re.compile(
    rf"(?i)(?<![^\W\d_])(?:{_BIRTH})(?![^\W\d_])|дата рождения|родил(?:ся|ась)|"
    r"תאריך לידה|נולד|تاريخ الميلاد|ولد|जन्म|生年月日|出生日期|出生|생년월일|วันเกิด"
)
FULL_DATE = re.compile(
    r"\b(?:\d{4}-\d{1,2}-\d{1,2}|\d{1,2}[./-]\d{1,2}[./-](?:19|20)\d{2}|"
    r"\d{1,2}\.?\s+[^\W\d_]{3,12}\.?,?\s+(?:19|20)\d{2}|[^\W\d_]{3,12}\.?\s+\d{1,2}(?:st|nd|rd|th)?,?"
    r"\s+(?:19|20)\d{2})\b|(?:19|20)\d{2}\s?[年년]\s?\d{1,2}\s?[月월]\s?\d{1,2}\s?[日일]"
)


def birth_dates(text: str) -> Iterator[Hit]:
    for match in FULL_DATE.finditer(text):
        before = text[max(0, match.start() - 40) : match.start()]
        if BIRTH_WORDS.search(before):
            yield Hit("date_of_birth", FAMILY, *match.span(), 0.7)


DETECTORS = ["date_of_birth", "street_address"]

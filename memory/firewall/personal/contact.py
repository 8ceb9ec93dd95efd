"""Ways to reach a person: email addresses and phone numbers.

Phone numbers are libphonenumber's (``phonenumbers``) to judge: a run of digits shaped like a
phone number counts when the library finds it valid — written internationally (``+CC`` or
``00CC``) in any plan; written nationally, in the plans of the countries people here write
from when a word nearby says "phone" in some language, else only as a trunk-prefixed (``0…``)
grouped number or in the North American plan. Numbers inside identifiers, dates and IP
addresses are not phones.
"""

from __future__ import annotations

import re
from collections.abc import Iterator

import phonenumbers

from memory.firewall.hits import Hit, near

FAMILY = "personal"

EMAIL = re.compile(
    r"(?:(?<=mailto:)|(?<![\w.+\-/:]))[A-Za-z0-9][A-Za-z0-9._%+\-]{0,63}@[A-Za-z0-9](?:[A-Za-z0-9\-]{0,62}"
    r"[A-Za-z0-9])?(?:\.[A-Za-z0-9](?:[A-Za-z0-9\-]{0,62}[A-Za-z0-9])?)*\.[A-Za-z]{2,24}\b"
)
# the account an authenticator app shows: "otpauth://totp/Corvid:marcus@outlook.com?secret=…"
OTP_LABEL = re.compile(r"otpauth://[th]otp/[^:/?\s]{0,60}:([\w.+\-]{1,64}@[\w\-]+\.[\w.\-]+)(?=\?)")
# an address written into a link's user part, "https://carmen.ibanez%40gmail.com:pw@host"
ENCODED_EMAIL = re.compile(
    r"(?<=://)[A-Za-z0-9][A-Za-z0-9._+\-]{0,63}%40[A-Za-z0-9\-]{1,63}(?:\.[A-Za-z0-9\-]{1,63})*"
    r"\.[A-Za-z]{2,24}(?=[:@/])"
)
# git@host:owner/repo and noreply-style machine addresses are addresses of services
SERVICE_LOCAL = frozenset({"git", "noreply", "no-reply", "donotreply", "mailer-daemon"})
# cloud service accounts and forge relays: machines, not people
SERVICE_DOMAIN = re.compile(
    r"(?i)(?:\.iam\.gserviceaccount\.com|\.gserviceaccount\.com|users\.noreply\.github\.com|"
    r"\.iam\.amazonaws\.com)$|^localhost$|\.(?:internal|local|lan|corp|localdomain|intranet)$"
)
# mailboxes of a function, not a person: their local part is a role word, alone or joined
_ROLES = (
    r"info|support|help|helpdesk|help-desk|service|services|desk|it|it-desk|itdesk|admin|"
    r"administrator|billing|invoice|invoices|invoicing|rechnung|rechnungen|factures?|compta|"
    r"comptabilite|accounting|accounts|finance|payroll|sales|sale|orders?|shop|store|booking|"
    r"bookings|reservations?|hr|jobs|careers|talent|talent-intake|recruiting|recruitment|"
    r"records|archive|archives|exports?|backup|backups|contact|contacts|office|team|hello|"
    r"mail|postmaster|webmaster|hostmaster|abuse|security|privacy|legal|press|media|marketing|"
    r"newsletter|news|alerts?|notifications?|notify|reports?|data|docs|partner|partners|"
    r"partner-docs|vendor|vendors|procurement|purchasing|logistics|shipping|returns|"
    r"customer-service|customerservice|kundenservice|buchhaltung|verwaltung|ops|devops|"
    r"oncall|on-call|noc|soc|svc|bot|robot|system|sync|collect|upload|inbox|finance-review|"
    r"audit|review|compliance|exfil|drop|dump|harvest|care|ayuda|soporte|atencion|hilfe|aide|"
    r"assistenza|suporte|contato|contacto|kontakt|releases?|enquiries|inquiries|treasurer|"
    r"scheduling|schedule|integrations?|partnerships|relay|archiv|summaries|summary|digest|"
    r"logs?|hausverwaltung|share|forms?|feedback|events?|tickets?|bookkeeping|accounts-payable|"
    r"external|recovery|contatos|contactos|kopie|copies|copy|mirror|collector|exports?"
)
# a function's mailbox: a role word as one of its parts ("billing@", "board-archive@",
# "treasurer-homebrew@"), a service account, a bot
ROLE_LOCAL = re.compile(
    rf"(?i)^(?:{_ROLES})(?:[._-](?:{_ROLES}|[A-Za-z0-9]{{1,12}}))*$|"
    rf"^(?:[a-z0-9]{{2,20}}[-_]){{1,2}}(?:{_ROLES})(?:[-_][a-z0-9]{{1,20}}){{0,2}}$|"
    r"^svc[._-]\S+$|^[\w.\-]+[._-]bot$"
)
# the domains reserved for examples (RFC 2606): a placeholder in documentation, or a writer's
# stand-in for a real mailbox (an attacker's drop box in a quoted attack)
RESERVED_DOMAIN = re.compile(r"(?i)(?:^|\.)example\.(?:com|org|net)$|\.(?:example|test|invalid)$")
PLACEHOLDER_LOCAL = re.compile(
    r"(?i)^(?:name|user|username|you|your[._-]?\w*|email|someone|somebody|john\.?doe|"
    r"jane\.?doe|firstname\.?lastname|first\.last|foo|bar|test|me)$"
)
EXAMPLE_WORDS = re.compile(
    r"(?i)\b(?:example|examples|sample|placeholder|reserved|e\.g\.|hint|dummy|fake|"
    r"local development|such as)\b"
)


def emails(text: str) -> Iterator[Hit]:
    """Addresses of people: not services' (``noreply@``, cloud service accounts), and an
    address at a domain reserved for examples only when nothing says it is one."""
    for match in EMAIL.finditer(text):
        local, _, domain = match.group().partition("@")
        token_start = max(text.rfind(ch, 0, match.start()) for ch in " \t\n(<\"',;|") + 1
        inside_url = "://" in text[token_start : match.start()]  # user:password@host
        if local.lower() in SERVICE_LOCAL or SERVICE_DOMAIN.search(domain):
            continue
        if ROLE_LOCAL.match(local):
            continue  # a team's or a function's mailbox (billing@, it-desk@), nobody's own
        if inside_url:
            continue
        confidence = 0.9
        if RESERVED_DOMAIN.search(domain):
            around = (
                text[max(0, match.start() - 80) : match.start()] + " " + text[match.end() :][:80]
            )
            if PLACEHOLDER_LOCAL.match(local) or EXAMPLE_WORDS.search(around):
                continue
            confidence = 0.6
        yield Hit("email", FAMILY, *match.span(), confidence)
    for match in OTP_LABEL.finditer(text):
        if not ROLE_LOCAL.match(match.group(1).partition("@")[0]):
            yield Hit("email", FAMILY, *match.span(1), 0.85)
    for match in ENCODED_EMAIL.finditer(text):
        local = match.group().partition("%40")[0]
        if not ROLE_LOCAL.match(local) and local.lower() not in SERVICE_LOCAL:
            yield Hit("email", FAMILY, *match.span(), 0.85)


# a word that says "phone number" or "reach me", in the languages people write here; Latin
# words may start a compound ("Handynummer", "telefonnummer"), other scripts have no spaces
_LATIN_PHONE = (
    r"phone|call|calls|tel|telephone|mobile|cell|cellphone|whatsapp|signal|sms|text me|number|"
    r"reach|ring|fax|landline|contact|hotline|voicemail|dial|dialled|dialed|rang|texted|"
    r"texting|handy|telefon|festnetz|ruf|rufnummer|anrufen|erreichbar|mobil|mobilnummer|"
    r"t[ée]l[ée]phone|t[ée]l|portable|joignable|appelle[rz]?|num[ée]ro|tel[ée]fono|m[óo]vil|"
    r"celular|llamar|llama|ll[áa]mame|m[áa]rcame|marcar|marca|escr[íi]beme|escr[íi]bale|"
    r"(?:mi|meu|mio|mon|my|su|seu|nuevo|novo) n[úu]mero|ligue|liga|chiama|chiamami|appelez|"
    r"(?-i:WA)(?![^\W\d_])|"
    r"rappel|r[üu]ckruf|chama|zap|zapzap|"
    r"cellulare|chiamare|telefone|telem[óo]vel|telemovel|bellen|mobiel|"
    r"nummer|numer|komórka|komorka|kom\.|zadzwoń|zadzwon|telefonu|číslo|cislo|mobilu|"
    r"puhelin|puh\.|matkapuhelin|telefonszám|telefonszam|mobilszám|"
    r"telefonnummer|mobilnr|tlf|telefonu|numarası|numarasi|cep|arayın|arayin|"
    r"điện thoại|dien thoai|sđt|sdt|nomor|telepon|ponsel|nombor|simu|namba"
)
_OTHER_PHONE = (
    r"телефон|тел\.|мобильн|моб\.|звони|позвони|τηλέφωνο|τηλ\.|κινητό|טלפון|נייד|"
    r"هاتف|جوال|موبايل|تلفن|موبایل|फ़ोन|फोन|मोबाइल|ফোন|"
    r"電話|携帯|連絡先|手机|手機|电话|联系|聯絡|支付宝|微信|账号|帳號|전화|핸드폰|휴대폰|연락처|"
    r"номер телефона|мой номер|личный номер|новый номер|"
    r"โทร|เบอร์|มือถือ"
)
PHONE_WORDS = re.compile(rf"(?i)(?<![^\W\d_])(?:{_LATIN_PHONE})|(?:{_OTHER_PHONE})")
# words that say "phone" and nothing else (not "number", "contact")
PHONE_ONLY = re.compile(
    r"(?i)(?<![^\W\d_])(?:phone|tel|telephone|mobile|cell|whatsapp|sms|text me|landline|fax|"
    r"handy|telefon|festnetz|anrufen|t[ée]l[ée]phone|portable|joignable|tel[ée]fono|m[óo]vil|"
    r"celular|cellulare|telefone|mobiel|ruf mich|call me|llama|appelle|texted|texting|"
    r"voicemail|komórka|puhelin|sđt|ponsel)|телефон|τηλέφωνο|טלפון|هاتف|جوال|फ़ोन|फोन|"
    r"電話|携帯|手机|手機|电话|전화|핸드폰|휴대폰|โทร|มือถือ"
)
# a number inside a longer token ("A-2024-118734", "build 20240611.1843") is an identifier
ID_BEFORE = re.compile(
    r"(?i)(?:[A-Za-z][-/#]|#|\b(?:build|order|tracking|invoice|ticket|version|ref|sku|serial|"
    r"case|po|item|part|batch|lot|commit|release|versioncode|isbn|ean|imei|id)\s*(?:no\.?|"
    r"number|#|:)?\s*|\b(?:student|employee|member|customer|account|user|order|patient|"
    r"booking|reservation|confirmation)\s+(?:id|number|no\.?|#)\s*(?:is|:)?\s*|"
    r"\b(?-i:(?!WA)[A-Z]{2})\s|(?:_id|id|number|no|nr|code|ref|account)[\"']?\s*[:=]\s*[\"']?|"
    r"_id\s+)$"
)
# a Brazilian company number, a date written as digits: not phones
NOT_PHONE_SHAPE = re.compile(r"^\d{2}\.\d{3}\.\d{3}/\d{4}-\d{2}$|^(?:19|20)\d{2}[01]\d[0-3]\d$")
# a key's fingerprint, a meter, a device, an order or a parcel: numbers that are not phones
NOT_PHONE = re.compile(
    r"(?i)\b(?:fingerprint|imei|serial|meter|odometer|isbn|issn|ean|order|tracking|parcel|"
    r"shipment|waybill|invoice|gtin|upc|lot|bestell\w*|sendung\w*|commande|colis|suivi|pedido|seguimiento|"
    r"rastreio|encomenda|ordine|spedizione|bestelling|zending|zamówieni\w*|przesyłk\w*|"
    r"objednávk\w*|zásilk\w*|sipariş\w*|kargo|takip|comand\w*|rendelés\w*|tilaus\w*|"
    r"beställning\w*|sporing\w*|đơn hàng|vận đơn|pesanan|resi|pratica|protocollo|"
    r"fascicolo|expediente|aktenzeichen|dossier|part (?:number|no)|frequent flyer|"
    r"skymiles|miles|executive club|loyalty|membership|rewards|family card|club card)\b|"
    r"заказ|трек|посылк|"
    r"отслежив|замовлен|παραγγελ|הזמנה|מעקב|طلب|التتبع|الشحنة|سفارش|रिफंड|ऑर्डर|"
    r"注文|問い合わせ番号|追跡|伝票|订单|訂單|运单|快递单|物流单|주문|운송장|송장|คำสั่งซื้อ|พัสดุ"
)
# a company's published line, not a person's
ORGANISATION_LINE = re.compile(
    r"(?i)\b(?:(?:press|media) (?:line|office|enquiries|inquiries)|switchboard|main line|"
    r"ticket office|box office|hotline|service-hotline|kostenfrei|gratuit|gratuito|toll-free|"
    r"freephone|num[ée]ro vert|dial-in|conference bridge|zoom bridge|public \w+ bridge|"
    r"reception|front desk|customer (?:service|care|support)|support line|helpline|"
    r"service line|centralita|standard t[ée]l[ée]phonique|zentrale|kundenservice|"
    r"atenci[óo]n al cliente|servicio al cliente|service client|servizio clienti)\b"
)
# a code's label before the number on its line: a one-time, backup or verification code, a PIN
CODE_LABEL = re.compile(
    r"(?i)(?<![^\W\d_])(?:code|codes|c[óo]digo|codice|kod|kode|koodi|pin|otp|2fa|mfa|totp|"
    r"verification|verifizierung|vérification|verificaci[óo]n)(?![^\W\d_])[^\n\d]{0,20}[:=：]\s*$"
)
# "(1837-1901)", "2011-2015": a span of years; "16.34 15.99": decimals in a row
YEARS = re.compile(r"^\(?(?:1[0-9]|20)\d{2}\s?[-–]\s?(?:1[0-9]|20)\d{2}\)?$")
DECIMALS = re.compile(r"\d\.\d+\s\d")
# toll-free, premium, shared-cost and universal numbers belong to organisations
NOT_A_PERSON = frozenset(
    {
        phonenumbers.PhoneNumberType.TOLL_FREE,
        phonenumbers.PhoneNumberType.PREMIUM_RATE,
        phonenumbers.PhoneNumberType.SHARED_COST,
        phonenumbers.PhoneNumberType.UAN,
    }
)
IP_ADDRESS_CIDR = re.compile(r"\d{1,3}(?:\.\d{1,3}){3}(?:/\d{1,2}|:\d{1,5})?")
DATE_LIKE = re.compile(r"^(?:\d{4}[-/.]\d{1,2}[-/.]\d{1,2}|\d{1,2}[-/.]\d{1,2}[-/.]\d{2,4})\b")


def _date_like(raw: str) -> bool:
    """A date written with dots, dashes or slashes (its day and month in range): not a phone
    ("07.85.63.70.76" is one, French style)."""
    match = DATE_LIKE.match(raw)
    if not match:
        return False
    parts = [int(p) for p in re.split(r"[-/.]", match.group())]
    day_month = parts[1:] if len(str(parts[0])) == 4 else parts[:2]
    return all(1 <= p <= 31 for p in day_month) and min(day_month) <= 12


# digits in groups, perhaps with a +CC or 00CC in front and a (area code)
PHONE_SHAPE = re.compile(
    r"(?<![0-9A-Za-z_+/.\-=:#])(?:\+|00)?\(?\d{1,5}\)?"
    r"(?:(?:[ \u00a0]?[.\-/][ \u00a0]?|[ \u00a0])?\(?\d{1,6}\)?){1,6}"
    r"(?![\w\-]|[.,/]\d|:\w)"
)
NANP_FORMAT = re.compile(r"^(?:\+?1[ .\-]?)?(?:\(\d{3}\)\s?|\d{3}[ .\-])\d{3}[ .\-]\d{4}$")

# the plans of the countries people write from, tried for a nationally written number
REGIONS = tuple(
    (
        "US CA GB IE DE AT CH FR BE NL LU ES PT IT PL CZ SK HU RO BG GR HR SI RS SE NO DK FI "
        "EE LV LT UA RU TR IL AE SA EG MA ZA NG KE IN PK BD CN HK TW JP KR SG MY ID PH TH VN "
        "AU NZ BR AR MX CL CO PE"
    ).split()
)


def _valid_in(raw: str, regions: tuple[str, ...]) -> str | None:
    """The first region whose plan finds ``raw`` a valid number, or None."""
    for region in regions:
        try:
            number = phonenumbers.parse(raw, region)
        except phonenumbers.NumberParseException:
            continue
        valid = phonenumbers.is_valid_number(number)
        if valid and phonenumbers.number_type(number) not in NOT_A_PERSON:
            return region
    return None


def _nanp(raw: str) -> str | None:
    """ "US" or "CA" for a valid personal number of the North American plan, "organisation"
    for a toll-free or premium one, None when the plan does not know it."""
    for region in ("US", "CA"):
        try:
            number = phonenumbers.parse(raw, region)
        except phonenumbers.NumberParseException:
            continue
        if phonenumbers.is_valid_number(number):
            if phonenumbers.number_type(number) in NOT_A_PERSON:
                return "organisation"
            return region
    return None


def _international(raw: str) -> tuple[bool, bool]:
    """(valid, possible) for a number written with its country code."""
    try:
        number = phonenumbers.parse("+" + raw[2:] if raw.startswith("00") else raw, None)
    except phonenumbers.NumberParseException:
        return False, False
    if phonenumbers.number_type(number) in NOT_A_PERSON:
        return False, False
    return phonenumbers.is_valid_number(number), phonenumbers.is_possible_number(number)


def _confidence(text: str, start: int, end: int, raw: str, worded: bool) -> float:
    digits = sum(ch.isdigit() for ch in raw)
    named = near(text, start, end, PHONE_WORDS)
    if raw.startswith(("+", "00")):
        valid, possible = _international(raw)
        if valid:
            return 0.95 if named else 0.85
        if possible and digits >= 9 and (named or near(text, start, end, PHONE_ONLY)):
            return 0.75 if named else 0.6
        return 0.0
    grouped = len(re.findall(r"\d+", raw)) >= 2
    if NANP_FORMAT.match(raw):
        region = _nanp(raw)
        if region == "organisation":
            return 0.0
        if region:
            return 0.95 if named else 0.8
    if worded and _valid_in(raw, REGIONS):
        return 0.95 if named else 0.55
    if raw.startswith(("0", "(0")) and grouped and digits >= 9 and _valid_in(raw, REGIONS):
        return 0.6  # a trunk-prefixed national number in groups: a phone's way of writing
    return 0.0


def phones(text: str) -> Iterator[Hit]:
    worded = bool(PHONE_WORDS.search(text))
    for match in PHONE_SHAPE.finditer(text):
        raw = match.group().strip()
        start, end = match.start(), match.start() + len(raw)
        if raw.startswith("(") and raw.endswith(")") and raw.count("(") == 1:
            raw, start, end = raw[1:-1], start + 1, end - 1  # "(1-800-776-4737)"
        digits = sum(ch.isdigit() for ch in raw)
        if not 8 <= digits <= 15 or _date_like(raw) or IP_ADDRESS_CIDR.fullmatch(raw):
            continue
        if raw.isdigit() and digits >= 13:  # 13+ digits in one run: a number, no phone
            continue
        if YEARS.match(raw) or DECIMALS.search(raw) or NOT_PHONE_SHAPE.match(raw):
            continue
        if not raw.startswith("+") and ID_BEFORE.search(text[max(0, start - 20) : start]):
            continue  # ("his number: +91-…" is a phone: an id is not written with a +)
        if NOT_PHONE.search(text[max(0, start - 50) : start]):
            continue
        if ORGANISATION_LINE.search(text[max(0, start - 100) : end + 40]):
            continue  # "call our media line +1 (415) 555-0132": a company's number
        if CODE_LABEL.search(text[max(text.rfind("\n", 0, start) + 1, start - 60) : start]):
            continue  # "código 2FA de backup: 72523872": a code, on a line that says so
        confidence = _confidence(text, start, end, raw, worded)
        if confidence:
            yield Hit("phone", FAMILY, start, end, confidence)

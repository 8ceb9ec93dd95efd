"""Passwords, passphrases and access codes: in configuration (``SMTP_PASS=…``), in prose in
any language ("WiFi密码是 …", "hasło do panelu to …"), on command lines (``mysql -p'…'``,
``curl -u user:…``, ``echo … | docker login --password-stdin``), as ``user / password``
pairs, and the PINs and door codes people hand each other.

The value is judged by its shape (``shape.looks_secret``): a placeholder, a word, code or a
link after "password" is not a password.
"""

from __future__ import annotations

import re
from collections.abc import Iterator

from memory.firewall.credentials.shape import looks_secret, random_token
from memory.firewall.hits import Hit

FAMILY = "secret"
DETECTOR = "password_assignment"

# a password-like configuration name: SMTP_PASS, ansible_become_pass, db.password, apiKey
NAME = re.compile(
    r"(?i)(?<![\w-])[a-z0-9_.-]{0,40}?(?:password|passwd|passphrase|pass|pwd|pw|passcode|"
    r"secret|secret[_-]?key|api[_-]?key|apikey|access[_-]?key|access[_-]?token|auth[_-]?token|"
    r"client[_-]?secret|private[_-]?key|token|mdp|kennwort|passwort|become[_-]?pass|oauth|"
    r"authtok|bindpw|bind[_-]?pw|auth[_-]?pass|"
    r"credentials?|cookie)"
    r"(?![\w-])[\"']?[ \t]*(?::=|=>|=|:)[ \t]*[\"'`]?(?P<value>[^\s\"'`,;)]+)"
)
# "password" in the languages people write here (Latin words start a word and may begin a
# compound, "Lösenordet", "hasłem"; other scripts match anywhere)
_LATIN = (
    r"password|passwd|passphrase|passcode|pass ?word|pwd|mdp|mot de passe|passwort|kennwort|"
    r"contrase[ñn]a|clave|senha|palavra[- ]passe|wachtwoord|parola(?: d'ordine)?|has[łl]o|"
    r"has[łl]a|has[łl]em|heslo|hesla|lösenord|losenord|passord|adgangskode|kodeord|salasana|"
    r"jelsz[óo]|parol[ăa]|[şs]ifre|lozinka|lozinku|geslo|slapta[žz]odis|parole|salas[õo]na|"
    r"m[ậa]t kh[ẩa]u|kata sandi|sandi|kata laluan|nenosiri|wlan[- ]?schl[üu]ssel|"
    r"netzwerkschl[üu]ssel|wlan-netzwerkschl[üu]ssel|wi-?fi key|network key|wpa key|"
    r"master password|passwort"
)
_OTHER = (
    r"пароль|пароля|паролем|парола|лозинка|κωδικός|κωδικό|סיסמה|סיסמא|كلمة المرور|كلمة السر|"
    r"كلمة مرور|كلمة سر|"
    r"رمز عبور|گذرواژه|पासवर्ड|পাসওয়ার্ড|密码|密碼|口令|パスワード|暗証番号|비밀번호|패스워드|암호|"
    r"รหัสผ่าน|รหัส|비번"
)
# digits alone after "password": a PIN-like password, or a router's groups of four
DIGIT_PASSWORD = re.compile(r"^(?:\d{4}(?:[ -]\d{4}){2,}|\d{5,12})(?![\w-])")
# words that name a secret but also many other things: the value must look more like one
SECRET_WORD = re.compile(
    r"(?i)(?<![^\W\d_]|[-_])(?:secret|signing secret|secret key|api key|passkey|"
    r"unlock code|credentials?)(?![\w-])"
)
PASSWORD_WORD = re.compile(
    rf"(?i)(?<![^\W\d_]|_)(?:{_LATIN})[^\W\d_]{{0,3}}(?![\w-])|(?<=wlan-)netzwerkschl[üu]ssel|"
    rf"(?:{_OTHER})"
)
# letters only, but with capitals inside at random: a generated password, not a word
MIXED_LETTERS = re.compile(r"^(?=[A-Za-z]{10,40}$)[A-Za-z]*[a-z][A-Z](?:[a-z]*[A-Z]){2}")
# a camelCase or PascalCase name, "validateUserPasswordInput", not a password
CAMEL = re.compile(r"^[a-z]*(?:[A-Z][a-z]{2,})+$|^(?:[a-z]{2,}[A-Z]){2,}")
APP_WORD = re.compile(
    r"(?i)\bapp(?:lication)?[- ]?(?:specific[- ])?password|anwendungspasswort|"
    r"mot de passe d['’]application|contrase[ñn]a de aplicaci[óo]n|app-?l[öo]senord|app-kodeord"
)
# an app password as Google shows it: four groups of four letters
APP_PASSWORD = re.compile(r"[a-z]{4} [a-z]{4} [a-z]{4} [a-z]{4}(?![\w])")
# after an account: "enguyen@gmail.com:varx xphq tfvn xnws" (a mail relay's password map)
ACCOUNT_APP_PASSWORD = re.compile(r"@[\w\-]+\.[\w.\-]+:([a-z]{4} [a-z]{4} [a-z]{4} [a-z]{4})(?!\w)")
# "brick-body-absurd-advance": a passphrase of words, after the word for it
PASSPHRASE = re.compile(r"^[^\W\d_]{3,}(?:-[^\W\d_]{3,}){3,}$")
# a token after the word: anything up to a space or a quote or punctuation of the line
TOKEN = re.compile(r"[^\s\"'`,;，。、()（）「」«»“”„:：=]+")
SENTENCE_END = re.compile(r"[.!?。！？]\s")

# commands whose short flags take a password (-p, -a, -w, -P, -k)
COMMAND = re.compile(
    r"(?i)\b(?:mysql|mysqldump|mariadb|7z|7za|zip|unzip|rar|unrar|sshpass|redis-cli|"
    r"ldapsearch|ldapmodify|ldapadd|az|docker|podman|openssl|smbclient|mongo|mongosh|"
    r"mongodump|sqlcmd|bcp|gpg|keytool|jarsigner|htpasswd|runas|wget|lftp|ftp|rclone|vault|"
    r"net use|psexec|winrm|ipmitool|snmpwalk|xfreerdp|rdesktop)\b"
)
FLAG = re.compile(
    r"(?:^|\s)(?P<flag>-p|-P|-a|-w|-k|--password|--passwd|--pass|--token|--access-token|"
    r"--auth-token|--api-key|--apikey|--secret|--client-secret|--password-file)"
    r"(?:=|\s+|(?=['\"\w]))['\"]?(?P<value>[^\s'\"]+)"
)
USER_PASS = re.compile(r"(?:^|\s)(?:-u|--user)\s+['\"]?[^\s:'\"]+:(?P<value>[^\s'\"@]+)")
ECHO_PIPE = re.compile(
    r"\becho\s+(?:-n\s+)?['\"]?(?P<value>[^\s'\"|]{6,})['\"]?\s*\|[^\n]*?"
    r"(?:--password-stdin|\blogin\b|\bauth\b|passwd|chpasswd)"
)
OPENSSL_PASS = re.compile(r"-pass(?:in|out)?\s+pass:(?P<value>\S+)|-U\s+[\w.\-]+%(?P<v2>\S+)")
XML_SETTING = re.compile(
    r"(?i)\b(?:key|name)\s*=\s*\"[^\"]*(?:password|passwd|pwd|secret|token|api[_-]?key)[^\"]*\""
    r"\s+value\s*=\s*\"(?P<value>[^\"]+)\""
    # the same as JSON: {"key": "api_key", "value": "…"} (Postman, settings exports)
    r"|\"(?:key|name)\"\s*:\s*\"[^\"]{0,40}(?:password|passwd|pwd|secret|token|api[_-]?key)"
    r"[^\"]{0,40}\"\s*,\s*\"value\"\s*:\s*\"(?P<json>[^\"]+)\""
    # an element named for one: <Pass encoding="base64">…</Pass>, <password>…</password>
    r"|<(?P<tag>[\w:.\-]{0,30}(?:pass|passwd|password|pwd|secret|token|apikey|api_key)"
    r"[\w.\-]{0,20})(?:\s[^<>]{0,80})?>(?P<element>[^<\s]{4,200})</(?P=tag)>"
)
# a table with a column for passwords: "email,password_plain,last_login" and its rows
COLUMN = re.compile(
    r"(?i)^(?:password|passwd|pwd|pass|passphrase|secret|token|api[_-]?key)(?![^\W\d_])"
)
SEPARATORS = (",", ";", "\t", "|")
HEAD = re.compile(r"[\w.\- ]{1,30}")
# "login ana.k / 15RzE7Q!u1Hz", "Router: admin / 0tt0m4n03!", "jdoe@mail.nl / Jun1p3r67!"
LOGIN_PAIR = re.compile(
    r"(?i)\b(?:login|log-in|sign-in|credentials|creds|account|router|admin|user(?:name)?|"
    r"vpn|wi-?fi|nas|shared|netflix)\b[^\n/]{0,30}?(?<![\w.@+\-])[\w.@+\-]{2,40}\s+(?:/|-)\s+"
    r"(?P<value>[^\s,;\"'`/]{6,})"
)
CONTEXT = re.compile(
    r"(?i)(?<![^\W\d_])(?:login|log in|logon|log on|sign in|signin|root|admin|sudo|su|ssh|"
    r"vpn|wi-?fi|wlan|router|account|konto|compte|cuenta|conta|unlock|decrypt|encrypted|"
    r"open it with|zip|pdf|7z|vault|keepass|bitwarden|1password|lastpass|master|credentials|"
    r"creds|user|username|benutzer|identifiant|usuario|usu[áa]rio|utente|gebruiker|"
    r"u[żz]ytkownik|u[žz]ivatel|anv[äa]ndare|bruker|k[äa]ytt[äa]j[äa]|kullan[ıi]c[ıi]|"
    r"ログイン|登录|登入|로그인|账号|帳號|아이디|логин|пользовател|учётн|учетн)(?![^\W\d_])"
)
USER_AT_HOST = re.compile(r"^[a-z0-9][\w.\-]{2,}@[a-z0-9][a-z0-9.\-]{2,}$")
# a password's usual shape among words: letters, a symbol, digits ("Sunflower&2013")
_CHARS = r"[A-Za-z0-9!@#$%^&*?~_\-.]"
STANDALONE = re.compile(
    rf"(?<![\w@/.\-#$+*])(?![#@*])(?={_CHARS}{{0,39}}[A-Za-z])(?={_CHARS}{{0,39}}\d)"
    rf"(?={_CHARS}{{0,39}}[!@#$%^&*?~])"
    rf"{_CHARS}{{8,40}}(?<!\*)(?![\w@/=+*])"
)
CODE_WORDS = re.compile(
    r"(?i)(?<![^\W\d_])(?:pin(?: ?code)?|puk|passcode|(?:door|gate|alarm|entry|entrance|"
    r"access|building|safe|locker|unlock|garage|front door|security|lockbox|key ?box|"
    r"keypad|lock) ?(?:code|pin)|keypad|lock ?box|key ?box|digicode|code (?:de la porte|"
    r"d['’]entr[ée]e|du portail|de l['’]alarme|d['’]acc[èe]s|du portillon)|t[üu]rcode|"
    r"torcode|alarmcode|zugangscode|tresorcode|schl[üu]sselbox|schl[üu]sselkasten|"
    r"(?:haus|garagen|hof|keller|eingangs|vorder|hinter|wohnungs|b[üu]ro|f[öo]rr[åa]ds|"
    r"k[äa]llar|ytter|hoved|gatu|garage)?-?(?:t[üu]r|tor|alarm|tresor|zugangs|larm|d[öo]rr|"
    r"d[øo]r|porten|port)-?(?:code|kod|kode|koden|koodi)|"
    r"c[óo]digo (?:del portal|de la puerta|de acceso|de la alarma|del port[óo]n|do port[ãa]o|"
    r"de acesso|do alarme|da porta)|codice (?:del portone|del cancello|d['’]accesso|"
    r"dell['’]allarme|della porta)|deurcode|toegangscode|kod (?:do drzwi|do bramy|"
    r"domofonu|dost[ęe]pu|alarmu)|d[öo]rrkod|portkod|sejfkod\w*|porttikoodi|ovikoodi|"
    r"h[äa]lytyskoodi|kap[ıi] [şs]ifresi|kod pintu|m[ãa] c[ửu]a|kombination|combination|"
    r"combo|combinación|combinazione|combinação|szyfr|kombinace|şifre kombinasyonu|"
    r"(?:the |door |gate )?code is|koden (?:är|er|dit är)|code lautet|le code est|el código es|"
    r"kod(?:en)? (?:till?|f[öo]r) \w+ (?:är|er)|keypad\b[^.\n]{0,30}? is|"
    r"master ?code|entsch[äa]rfungscode|scharfschaltcode|bedrohungscode|"
    r"c[óo]digo del? (?:garaje|garage|portal|port[óo]n|trastero|buz[óo]n|la cerradura\w*|"
    r"cerradura\w*|alarma)|"
    r"s[äa]kerhetskod|sikkerhedskode|sikkerhetskode|turvakoodi|sicherheitscode|"
    r"code confidentiel|code secret|c[óo]digo secreto|codice segreto|geheimcode|geheimzahl|"
    r"(?:puerta|portal|port[óo]n|porta|porte|door|gate)\s+\w+\s+(?:c[óo]digo|code|codice)|"
    r"(?:alarm[ae]?|alarme)\s{0,3}:?\s{0,3}(?:desactivar|disarm|deactivate|d[ée]sactiver|disattivare|"
    r"entsch[äa]rfen|unscharf|desativar)\s+(?:con|with|avec|mit|com)|"
    r"il codice è|o código é|kod to|kód je|portkoden|dörrkoden|porttikoodi|kodlåset)"
    r"(?![^\W\d_])|暗証番号|门禁密码|הקוד ל|קוד הכניסה|קוד האזעקה|"
    r"門禁密碼|密码锁|도어락|현관 비밀번호|код (?:двери|домофона|подъезда|от)|кодовый замок|"
    r"κωδικός (?:του συναγερμού|της πόρτας|εισόδου|της κλειδαριάς)|解除コード|暗証コード|入館コード"
)
POSTAL = re.compile(r"(?i)\b(?:postal|post office|postcode|zip)\b")
# (CJK letters count as \w: "暗証番号は394742です" has the code between two of them)
CODE_VALUE = re.compile(
    r"(?<![A-Za-z0-9.\-])(?:(?=[0-9A-Z#*]*\d)[0-9A-Z]{4,8}[#*]?|\d(?:-\d){3,7}|"
    r"\d{1,4}-\d{2,6}(?:-(?:enter|#|\*))?)(?![A-Za-z0-9\-]|\.\w)"
)
# a lockbox's or a padlock's code may be three digits
LOCK_WORDS = re.compile(
    r"(?i)\b(?:lock ?box|key ?box|padlock|n[øo]gleboks\w*|nyckelbox\w*|n[øo]kkelboks\w*|"
    r"schl[üu]sselbox)\b[^.\n]{0,30}?\b(?:opens? with|code|combination|combo|is|[åö]bner med|"
    r"öppnas med|åpnes med|:)\s*(\d{3,8})(?![A-Za-z0-9\-])"
)


def assignments(text: str) -> Iterator[Hit]:
    for match in NAME.finditer(text):
        app = APP_PASSWORD.match(text, match.start("value"))
        if app:
            yield Hit(DETECTOR, FAMILY, app.start(), app.end(), 0.85)
            continue
        confidence = looks_secret(match.group("value"))
        if confidence:
            yield Hit(DETECTOR, FAMILY, *match.span("value"), confidence)
    for match in XML_SETTING.finditer(text):
        group = next(name for name in ("value", "json", "element") if match.group(name))
        confidence = looks_secret(match.group(group))
        if confidence:
            yield Hit(DETECTOR, FAMILY, *match.span(group), confidence)
    yield from columns(text)
    for match in ACCOUNT_APP_PASSWORD.finditer(text):
        yield Hit(DETECTOR, FAMILY, *match.span(1), 0.85)


def columns(text: str) -> Iterator[Hit]:
    """The cells of a password column in a delimited table (its header names it)."""
    lines = text.split("\n")
    offset = 0
    for index, line in enumerate(lines[:-1]):
        starts = offset
        offset += len(line) + 1
        separator = next((sep for sep in SEPARATORS if line.count(sep) >= 1), None)
        if separator is None or len(line) > 300:
            continue
        heads = [cell.strip().strip("\"'") for cell in line.split(separator)]
        if len(heads) < 2 or not all(HEAD.fullmatch(head) for head in heads):
            continue  # a header names its columns, it says nothing
        wanted = [i for i, head in enumerate(heads) if COLUMN.match(head)]
        if not wanted:
            continue
        at = starts + len(line) + 1
        for row in lines[index + 1 : index + 51]:
            cells = row.split(separator)
            if len(cells) != len(heads):
                break
            place = at
            for i, cell in enumerate(cells):
                value = cell.strip().strip("\"'")
                if i in wanted and value and " " not in value:
                    confidence = looks_secret(value)
                    if confidence >= 0.55:
                        begin = place + cell.index(value)
                        yield Hit(DETECTOR, FAMILY, begin, begin + len(value), confidence)
                place += len(cell) + 1
            at += len(row) + 1
        return


def prose(text: str) -> Iterator[Hit]:
    """The first token after the word "password" (starting within 90 characters, on its
    line, before the sentence ends) that looks like one; after "secret", "master" and the
    like, one that looks more like one."""
    for words, least in ((PASSWORD_WORD, 0.55), (SECRET_WORD, 0.75)):
        for word in words.finditer(text):
            line_end = text.find("\n", word.end())
            end = len(text) if line_end < 0 else line_end
            stop = SENTENCE_END.search(text, word.end(), end)
            for match in TOKEN.finditer(text, word.end(), stop.start() + 1 if stop else end):
                if match.start() > word.end() + 90:
                    break
                digits = DIGIT_PASSWORD.match(text[match.start() : match.start() + 40])
                if digits and words is PASSWORD_WORD:
                    at = match.start()
                    yield Hit(DETECTOR, FAMILY, at, at + digits.end(), 0.6)
                    break
                confidence = looks_secret(match.group())
                if words is PASSWORD_WORD and PASSPHRASE.match(match.group()):
                    confidence = max(confidence, 0.75)
                mixed = MIXED_LETTERS.match(match.group()) and not CAMEL.match(match.group())
                if words is PASSWORD_WORD and mixed:
                    confidence = max(confidence, 0.6)  # "lilAwOvanhsBAJ"
                app = APP_WORD.search(text, max(0, word.start() - 40), word.end())
                if words is PASSWORD_WORD and app and APP_PASSWORD.match(text, match.start()):
                    end = APP_PASSWORD.match(text, match.start()).end()  # type: ignore[union-attr]
                    yield Hit(DETECTOR, FAMILY, match.start(), end, 0.85)
                    break
                if confidence >= least:
                    yield Hit(DETECTOR, FAMILY, *match.span(), confidence)
                    break


def command_lines(text: str) -> Iterator[Hit]:
    commanded = bool(COMMAND.search(text))
    for match in FLAG.finditer(text):
        value = match.group("value")
        if len(match.group("flag")) == 2 and not commanded:
            continue  # "-p" means a port, a path or a parent without a command that logs in
        confidence = max(looks_secret(value), 0.8 if random_token(value) else 0.0)
        if confidence >= 0.55:
            yield Hit(DETECTOR, FAMILY, *match.span("value"), confidence)
    for pattern in (USER_PASS, ECHO_PIPE, OPENSSL_PASS):
        for match in pattern.finditer(text):
            group = "value" if match.group("value") else "v2"
            value = match.group(group)
            confidence = max(looks_secret(value), 0.8 if random_token(value, 12) else 0.0)
            if confidence >= 0.55:
                yield Hit(DETECTOR, FAMILY, *match.span(group), max(confidence, 0.8))


def pairs_and_shapes(text: str) -> Iterator[Hit]:
    """``user / password`` pairs, and password-shaped tokens, where the text speaks of logging
    in, accounts, routers or unlocking."""
    if not CONTEXT.search(text):
        return
    for match in LOGIN_PAIR.finditer(text):
        confidence = looks_secret(match.group("value"))
        if confidence >= 0.75:
            yield Hit(DETECTOR, FAMILY, *match.span("value"), confidence)
    for match in STANDALONE.finditer(text):
        if USER_AT_HOST.match(match.group()):
            continue  # "ci-runner@build-5": an account on a machine
        if looks_secret(match.group()) >= 0.85:
            yield Hit("password_shape", FAMILY, *match.span(), 0.6)


def access_codes(text: str) -> Iterator[Hit]:
    """A PIN, a door or alarm code: a short code a few words after the word for it."""
    for word in CODE_WORDS.finditer(text):
        window = text[word.end() : word.end() + 60]
        if POSTAL.search(text[max(0, word.start() - 60) : word.end() + 80]):
            continue  # India's "PIN code" is a postcode
        stop = SENTENCE_END.search(window)
        match = CODE_VALUE.search(window[: stop.start() if stop else len(window)])
        if match:
            start = word.end() + match.start()
            yield Hit("access_code", FAMILY, start, start + len(match.group()), 0.7)


def spaced_passphrases(text: str) -> Iterator[Hit]:
    """ "password walrus igloo copper thunder": four or more words with no little words among
    them, right after the word for a password, ending the clause."""
    for word in PASSWORD_WORD.finditer(text):
        match = SPACED.match(text, word.end())
        if not match:
            continue
        words = match.group("phrase").lower().split()
        if any(w in LITTLE or w.rstrip("0123456789") in POLICY for w in words):
            continue
        if not match.group("said") and len(words) < 4:
            continue
        yield Hit(DETECTOR, FAMILY, *match.span("phrase"), 0.75)


SPACED = re.compile(
    r"(?P<said>[^\n]{0,50}?(?:[:：=]|\b(?:is|är|er|ist|est|es|è|é|jest)\b))?[^\S\n]*"
    r"(?P<phrase>(?:[a-zà-ÿ]{3,12} ){3,7}[a-zà-ÿ]{3,12}\d{0,4})(?=[^\S\n]*(?:$|[.,;!—–\-(]))",
    re.MULTILINE,
)
# what a password policy talks about: not a passphrase
POLICY = frozenset(
    "policy policies requires require required requirement requirements characters character "
    "minimum maximum length long include includes including uppercase lowercase numbers number "
    "symbols symbol letters letter digits digit special strong weak complexity rules rule expire "
    "expires expiry days change changes reset manager hint field box entry must needs need "
    "contain contains least enforce enforced rotation rotate history".split()
)
# words that make prose, not a passphrase
LITTLE = frozenset(
    "the and for are was were with that this from into your you our has have had not but "
    "can will should must been being than then also only still stored saved kept changed "
    "reset rotated shared sent set used same new old which where when there here their them "
    "für ihr wurde soeben erfolgreich geändert eine einen dem den sie wir ich aber auch "
    "och att det som för med den till inte har var ska kan och und der die das ist nicht mit "
    "les des une est pas que pour dans sur avec los las una por para con del que non per "
    "della sono het een van voor niet met zijn".split()
)


def scan(text: str) -> Iterator[Hit]:
    yield from assignments(text)
    yield from spaced_passphrases(text)
    for match in LOCK_WORDS.finditer(text):
        yield Hit("access_code", FAMILY, *match.span(1), 0.65)
    yield from prose(text)
    yield from command_lines(text)
    yield from pairs_and_shapes(text)
    yield from access_codes(text)


DETECTORS = [DETECTOR, "password_shape", "access_code"]

"""Text talked about rather than addressed to the reader: a phrase in quotes, in a sentence
about attacks, filters or examples (in the languages people write here), or a chat-template
marker in a sentence that documents templates.

The rules score what is mentioned under the threshold (``mentioned``); the learned detector
reads a mentioned quotation as one placeholder word (``neutralise``), so a security article
quoting "ignore previous instructions" reads as an article.
"""

from __future__ import annotations

import re

QUOTES = "\"'`\u201c\u201d\u2018\u2019\u00ab\u00bb\u201e\u300c\u300d\u300e\u300f"
# opening and closing marks that differ: “…” ‘…’ «…» „…“ »…« 「…」 『…』
PAIRS = (
    ("\u201c", "\u201d"),
    ("\u2018", "\u2019"),
    ("\u00ab", "\u00bb"),
    ("\u201e", "\u201c"),
    ("\u00bb", "\u00ab"),
    ("\u300c", "\u300d"),
    ("\u300e", "\u300f"),
    ("\u201e", "\u201d"),
    ("\u201e", '"'),  # „…" as typed on a keyboard without the closing mark
    ("\u201d", "\u201d"),  # ”…” (Swedish, Finnish)
    ("\u00bb", "\u00bb"),  # »…» (Finnish, Swedish)
)
SAME = '"`'  # marks that open and close alike
CUE_QUOTES = QUOTES.replace("`", "")  # a command in a code span is still a command to run
MENTION = re.compile(
    r"(?i)\b(?:examples?|e\.g\.|such as|like|phrases?|payloads?|attacks?|attackers?|"
    r"injections?|jailbreaks?|classic|famous|known|detect|detects|detector|filter|filters|"
    r"flag|flags|flagged|catch|catches|recogni[sz]e|test|tests|testing|"
    r"red[- ]team|says|saying|said|wrote|writing|instead of|quote|quoted|called|pattern|signature|"
    r"training|paper|asking it to|asked it to|write-?up|ctf|blocklist|denylist|allowlist|"
    r"sanitizer|sanitiser|heuristics?|"
    r"article|talk|slides|rules?|regex)\b"
    # the same words elsewhere: injection, attack, phrase, such as, example
    # (the names of the attack also end compounds: "promptinjectie", "Promptinjektion")
    r"|(?i:injek\w*|injec[tț]\w*|inyecci\w*|iniezion\w*|inje[çc][ãa]o|iniekcj\w*)"
    r"|(?<![^\W\d_])(?i:"
    r"wstrzykiw\w*|enjeksiyon\w*|suntikan|chèn|angriff\w*|angreifer\w*|attaque\w*|"
    r"attaquant\w*|ataque\w*|atacante\w*|attacc\w*|aanval\w*|atak\w*|útok\w*|"
    r"útočník\w*|saldır\w*|atac\w*|támad\w*|hyökkä\w*|angrep\w*|angreb\w*|"
    r"tấn công|kẻ xấu|serangan|penyerang|shambulio|mshambuliaji|frases?|phrasen?|sätze|"
    r"klassie\w*|klassisch\w*|classique\w*|cl[áa]sic\w*|luidt|lautet|"
    r"zin|zinnen|mening(?:ar)?|zdani\w*|věty|vetu|cümle\w*|fraz\w*|mondat\w*|lausee?\w*|setning\w*|"
    r"sætning\w*|câu|kalimat|ayat|sentensi|wie|comme|como|come|zoals|jak|jako|gibi|precum|"
    r"kuten|như|seperti|kama|w rodzaju|typu|beispiel|exemple|ejemplo|esempio|exemplo|"
    r"voorbeeld|przykład|"
    r"příklad|örnek|exemplu|példa|esimerkki|exempel|eksempel|ví dụ|contoh|mfano)(?![^\W\d_])"
    r"|инъекци|ін.єкці|инжекци|έγχυσ|הזרק|حقن|تزریق|इंजेक्शन|ইনজেকশন|注入|インジェクション|"
    r"常见形式|示例|例子|样例|举例|攻撃例|"
    r"인젝션|атак|напад|злоумышлен|επίθεσ|מתקפ|תוקף|هجوم|المهاجم|مهاجم|حمله|मलावर|हमल|আক্রমণ|"
    r"攻击|攻撃|공격|โจมตี|фраз|речен|предложени|φράσ|משפט|عبارة|جمله|वाक्य|বাক্য|句子|文言|"
    r"문장|문구|といった|같은|"
    r"เช่น|вроде|как|като|όπως|כמו|مثل|مانند|जैसे|যেমন|之类|пример|приклад|παράδειγμα|"
    r"דוגמ|مثال|उदाहरण|উদাহরণ|例如"
)
# a sentence about chat templates and their markers: documentation, not a forged turn
TEMPLATE_TALK = re.compile(
    r"(?i)\{(?:role|content|system|user|prompt)\}|\{%|\{\{|message\[|\b(?:format|template|templates|wraps?|"
    r"markers?|tokens?|such as|roles are|detector|flags?|chatml|llama \d|uses|documentation|"
    r"tags?|rollen-tags|dokumentation|documentaci[óo]n|etiquetas?|[ée]tiquettes?|etichette|"
    r"tokenizers?|changelog|special tokens?|prompt library|library entry|"
    r"vorlage|modèle|plantilla|modello|sjabloon|szablon|šablona|şablon|formato|formatu)\b"
    r"|テンプレート|フォーマット|形式|区切り|模板|格式|标记|템플릿|형식|토큰|шаблон|формат|токен"
)
# a title, or a line that introduces what follows ("ChatML format used by our scripts:")
INTRO = re.compile(r"(?m)^[^\n]{0,120}[:：][ \t]*$")


REACH = 200  # how far a quotation may run on either side of a span (across a line break)


def _paragraph(text: str, start: int, end: int) -> tuple[int, int]:
    """Where the span's paragraph (a blank line ends one) starts and ends, at most ``REACH``
    characters either way."""
    low = max(0, start - REACH)
    high = min(len(text), end + REACH)
    blank = text.rfind("\n\n", low, start)
    low = low if blank < 0 else blank + 2
    blank = text.find("\n\n", end, high)
    return low, high if blank < 0 else blank


def _mark_at(piece: str, mark: str, last: bool) -> int:
    """Where ``mark`` stands in ``piece`` as a quotation mark (the last or the first; -1:
    nowhere). An apostrophe inside a word ("don't", "l'IA") is none."""
    if mark not in piece:
        return -1
    if mark not in "'\u2019":
        return piece.rfind(mark) if last else piece.find(mark)
    places = range(len(piece) - 1, -1, -1) if last else range(len(piece))
    for i in places:
        if piece[i] != mark:
            continue
        if mark in "'\u2019" and piece[i - 1 : i].isalpha() and piece[i + 1 : i + 2].isalpha():
            continue
        return i
    return -1


def _opening(text: str, start: int, end: int, marks: str) -> int:
    """Where the quotation around the span opens (-1: the span is not inside one). The
    quotation may run over a line break within its paragraph, and a span that runs on past the
    closing mark ("ignore everything above", restructure…) counts as inside."""
    low, high = _paragraph(text, start, end)
    before, after = text[low:start], text[start + 1 : high]
    found = -1
    for mark in marks:
        if mark not in before:
            continue
        if mark in "'\u2019":  # apostrophes: on the span's line only (they are mostly in words)
            line_start = before.rfind("\n") + 1
            at = _mark_at(before[line_start:], mark, last=True)
            line_end = after.find("\n")
            rest = after if line_end < 0 else after[:line_end]
            if at >= 0 and _mark_at(rest, mark, last=False) >= 0:
                found = max(found, low + line_start + at)
        elif mark in SAME and before.count(mark) % 2 == 1 and mark in after:
            # an odd number of marks before: one is open (the closing mark of an earlier
            # quotation does not open one)
            found = max(found, low + before.rfind(mark))
    for opening, closing in PAIRS:
        at = before.rfind(opening)
        if at < 0 or closing not in after:
            continue
        if opening == closing:
            if before.count(opening) % 2 == 0:
                continue
        elif before.rfind(closing) > at:
            continue  # that quotation closed before the span
        found = max(found, low + at)
    return found


def quoted(text: str, start: int, end: int, marks: str = QUOTES) -> bool:
    """The span sits inside a pair of quotes (or a code span): see ``_opening``."""
    return _opening(text, start, end, marks) >= 0


def about_templates(text: str, start: int) -> bool:
    """The marker sits in a sentence that explains chat templates or their markers, or in a
    block that a title or an introducing line ("Llama 2 chat prompt template:") says is one."""
    sentence_start = max(text.rfind(". ", 0, start), text.rfind("\n", 0, start), start - 200) + 1
    sentence_end = text.find(". ", start, start + 200)
    sentence = text[sentence_start : start + 200 if sentence_end < 0 else sentence_end]
    if TEMPLATE_TALK.search(sentence):
        return True
    title = text[: text.find("\n")] if "\n" in text[:121] else ""
    if title and text.find("\n") < start and TEMPLATE_TALK.search(title):
        return True
    return any(
        TEMPLATE_TALK.search(line.group())
        for line in INTRO.finditer(text, max(0, start - 400), start)
    )


LIST_QUOTE = re.compile(
    r"[ \t]*(?:[-*•]|\d{1,2}[.)、]|[一二三四五六七八九十]、)?[ \t]*[\"“„«'「『]"
)


def mentioned(text: str, start: int, end: int) -> bool:
    """Quoted, in a sentence about attacks, filters or examples."""
    opening = _opening(text, start, end, QUOTES)
    if opening < 0:
        return False
    at = min(start, opening)  # the sentence that opens the quotation
    sentence_start = max(text.rfind(".", 0, at), text.rfind("\n", 0, at), at - 200) + 1
    # what the sentence says around the quotation, not inside it ("…skip the test suite" is
    # the quoted order, not a sentence about tests)
    mark = text[opening]
    closers = "".join(c for o, c in PAIRS if o == mark) or mark
    ends = [i for i in (text.find(c, start + 1, end + REACH) for c in closers) if i >= 0]
    close = min(ends) if ends else end
    window = text[sentence_start:opening] + " " + text[close + 1 : close + 81]
    if LIST_QUOTE.match(text, text.rfind("\n", 0, opening) + 1):
        # a quotation that is a list's item: the lines that introduce the list say why
        window += " " + text[max(0, sentence_start - 200) : sentence_start]
    return bool(MENTION.search(window))


def _run(opening: str, closing: str, lines: bool = True) -> str:
    inner = f"(?:[^{closing}\\n]|\\n(?!\\n))" if lines else f"[^{closing}\\n]"
    return f"{opening}{inner}{{6,{REACH}}}[{closing}]"


# a quotation: one line, or more within a paragraph (not for apostrophes, which are mostly in
# words: "don't … it's" is no quotation)
QUOTED_RUN = re.compile(
    "|".join(
        [
            _run('"', '"'),
            _run("'", "'", lines=False),
            _run("`", "`"),
            _run("\u201c", "\u201d"),
            _run("\u2018", "\u2019", lines=False),
            _run("\u00ab", "\u00bb"),
            _run("\u201e", '\u201c\u201d"'),
            _run("\u00bb", "\u00ab"),
            _run("\u300c", "\u300d"),
            _run("\u300e", "\u300f"),
            _run("\u201d", "\u201d"),
        ]
    )
)
PLACEHOLDER = " \u27eaquote\u27eb "


def neutralise(text: str) -> str:
    """``text`` with every quotation that is mentioned (see ``mentioned``) replaced by one
    placeholder word."""
    pieces: list[str] = []
    cursor = 0
    for match in QUOTED_RUN.finditer(text):
        inner_start, inner_end = match.start() + 1, match.end() - 1
        if not mentioned(text, inner_start, inner_end):
            continue
        pieces.append(text[cursor : match.start()])
        pieces.append(PLACEHOLDER)
        cursor = match.end()
    if not pieces:
        return text
    pieces.append(text[cursor:])
    return "".join(pieces)

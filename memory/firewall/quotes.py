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
)
CUE_QUOTES = QUOTES.replace("`", "")  # a command in a code span is still a command to run
MENTION = re.compile(
    r"(?i)\b(?:example|e\.g\.|such as|like|phrases?|strings?|payloads?|attacks?|attackers?|"
    r"injections?|jailbreaks?|classic|famous|known|detect|detects|detector|filter|filters|"
    r"block|blocks|flag|flags|flagged|catch|catches|recogni[sz]e|test|tests|testing|"
    r"red[- ]team|says?|said|wrote|quote|quoted|called|pattern|signature|training|paper|"
    r"article|talk|slides|rule|regex)\b"
    # the same words elsewhere: injection, attack, phrase, such as, example
    r"|(?i:injek\w*|injec[tț]\w*|inyecci\w*|iniezion\w*|inje[çc][ãa]o|iniekcj\w*|"
    r"wstrzykiw\w*|enjeksiyon\w*|suntikan|chèn|angriff\w*|angreifer\w*|attaque\w*|"
    r"attaquant\w*|ataque\w*|atacante\w*|attacc\w*|aanval\w*|atak\w*|útok\w*|"
    r"útočník\w*|saldır\w*|atac\w*|támad\w*|hyökkä\w*|angrep\w*|angreb\w*|"
    r"tấn công|kẻ xấu|serangan|penyerang|shambulio|mshambuliaji|frases?|phrasen?|sätze|"
    r"zin|zinnen|mening(?:ar)?|zdani\w*|věty|vetu|cümle\w*|fraz\w*|mondat\w*|lausee?\w*|setning\w*|"
    r"sætning\w*|câu|kalimat|ayat|sentensi|wie|comme|como|come|zoals|jak|jako|gibi|precum|"
    r"kuten|như|seperti|kama|beispiel|exemple|ejemplo|esempio|exemplo|voorbeeld|przykład|"
    r"příklad|örnek|exemplu|példa|esimerkki|exempel|eksempel|ví dụ|contoh|mfano)"
    r"|инъекци|ін.єкці|инжекци|έγχυσ|הזרק|حقن|تزریق|इंजेक्शन|ইনজেকশন|注入|インジェクション|"
    r"인젝션|атак|напад|злоумышлен|επίθεσ|מתקפ|תוקף|هجوم|المهاجم|مهاجم|حمله|मलावर|हमल|আক্রমণ|"
    r"攻击|攻撃|공격|โจมตี|фраз|речен|предложени|φράσ|משפט|عبارة|جمله|वाक्य|বাক্য|句子|文言|"
    r"문장|문구|といった|같은|"
    r"เช่น|вроде|как|като|όπως|כמו|مثل|مانند|जैसे|যেমন|之类|пример|приклад|παράδειγμα|"
    r"דוגמ|مثال|उदाहरण|উদাহরণ|例如"
)
# a sentence about chat templates and their markers: documentation, not a forged turn
TEMPLATE_TALK = re.compile(
    r"(?i)\{(?:role|content|system|user|prompt)\}|\{%|\{\{|message\[|\b(?:format|template|templates|wraps?|"
    r"markers?|tokens?|such as|roles are|detector|flags?|chatml|llama \d|uses)\b"
)


def quoted(text: str, start: int, end: int, marks: str = QUOTES) -> bool:
    """The span sits inside a pair of quotes (or a code span) on its line."""
    line_start = text.rfind("\n", 0, start) + 1
    line_end = text.find("\n", end)
    line_end = len(text) if line_end < 0 else line_end
    before, after = text[line_start:start], text[end:line_end]
    return any(mark in before and mark in after for mark in marks) or any(
        opening in before and closing in after for opening, closing in PAIRS
    )


def about_templates(text: str, start: int) -> bool:
    """The marker sits in a sentence that explains chat templates or their markers."""
    sentence_start = max(text.rfind(". ", 0, start), text.rfind("\n", 0, start), start - 200) + 1
    sentence_end = text.find(". ", start, start + 200)
    sentence = text[sentence_start : start + 200 if sentence_end < 0 else sentence_end]
    return bool(TEMPLATE_TALK.search(sentence))


def mentioned(text: str, start: int, end: int) -> bool:
    """Quoted, in a sentence about attacks, filters or examples."""
    if not quoted(text, start, end):
        return False
    sentence_start = max(text.rfind(".", 0, start), text.rfind("\n", 0, start), start - 200) + 1
    window = text[sentence_start:start] + " " + text[end : end + 80]
    return bool(MENTION.search(window))


QUOTED_RUN = re.compile(
    "\"[^\"\n]{6,}\"|'[^'\n]{6,}'|`[^`\n]{6,}`|\u201c[^\u201d\n]{6,}\u201d|\u2018[^\u2019\n]{6,}\u2019|"
    "\u00ab[^\u00bb\n]{6,}\u00bb|\u201e[^\u201c\u201d\n]{6,}[\u201c\u201d]|\u00bb[^\u00ab\n]{6,}\u00ab|"
    "\u300c[^\u300d\n]{6,}\u300d|\u300e[^\u300f\n]{6,}\u300f|\u201d[^\u201d\n]{6,}\u201d"
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

"""Sentences and normalisation: the text a frame is matched against.

Splits an update into sentences (lines, bullets, terminal punctuation), remembers the
Markdown headings and ``Label:`` lines that give later bullets their subject, and
rewrites each sentence into a plain form: contractions expanded, emoji, Markdown and
filler adverbs removed, parenthesised asides dropped unless they carry a relation,
common typos of trigger words corrected (``blokced`` -> ``blocked``).
"""

from __future__ import annotations

import re
import unicodedata
from functools import lru_cache

from memcli.extract.factuality import lowercase_twin
from memcli.extract.lexicon import fix_typos
from memcli.extract.phrases import _WEEKDAYS, _name_like

# --------------------------------------------------------------------------------------
# Sentence splitting and normalisation
# --------------------------------------------------------------------------------------

_HEADING = re.compile(r"\s*(?:#{1,6}(?:\s|$)|[-=*_]{3,}\s*$|```)")
_BULLET = re.compile(r"\A\s*(?:[-*+•◦‣>]|\d+[.)])\s+(?:\[[ xX]\]\s+)?")
_SENTENCE_END = re.compile(
    r"(?<=[.!?;])(?<!\bDr\.)(?<!\bMr\.)(?<!\bMs\.)(?<!\bMrs\.)(?<!\bvs\.)(?<!\bSt\.)"
    r"(?<!\be\.g\.)(?<!\bi\.e\.)(?<!\bProf\.)\s+"
)

_QUOTES = str.maketrans({"\u2019": "'", "\u2018": "'", "\u201c": '"', "\u201d": '"'})

_IS_FOLLOWERS = (
    "blocked|waiting|stuck|stalled|on|off|done|working|leading|driving|handling|owning|not"
    "|no|in|out|shipped|landed|merged|finished|complete|completed|deployed|responsible"
    "|gated|pending|dependent|held|paused|unblocked|now|still|also|currently|the|a|an"
    "|blocking|holding|going|taking|picking|assigned|owned|handled|from|with|at|under"
    "|being|nearly|almost|mostly|just|really|finally|ready|behind|cancelled|canceled"
    "|released|totally|completely|fully|already|hard|waiting|stalling|gating|running|doing"
    "|covering|chasing|looking|building|writing"
    "|making|chipping|plugging|carrying|grinding|heading|volunteering"
)

_CONTRACTIONS: tuple[tuple[re.Pattern[str], str], ...] = tuple(
    (re.compile(p, re.IGNORECASE), r)
    for p, r in (
        (r"\bcan't\b|\bcan not\b", "cannot"),
        (r"\bwon't\b", "will not"),
        (r"\bshan't\b", "shall not"),
        (r"\b(\w+)n't\b", r"\1 not"),
        (r"\b(I)'m\b", r"\1 am"),
        (r"\b(\w+)'re\b", r"\1 are"),
        (r"\b(\w+)'ve\b", r"\1 have"),
        (r"\b(\w+)'ll\b", r"\1 will"),
        (r"\b(\w+)'d\b", r"\1 would"),
        (r"\b(\w+)'s been\b", r"\1 has been"),
        (r"\b(\w+)'s got\b", r"\1 has got"),
        (
            r"\b(she|he|it|that|this|there|here|what|who|everything|nothing|something"
            r"|everyone|someone)'s\b",
            r"\1 is",
        ),
        (rf"\b(\w+)'s(?=\s+(?:{_IS_FOLLOWERS})\b(?!-))", r"\1 is"),
    )
)

# A substring each contraction pattern needs, so most are skipped with one "in" test.
_CONTRACTION_HINTS = (
    "can",
    "won't",
    "shan't",
    "n't",
    "'m",
    "'re",
    "'ve",
    "'ll",
    "'d",
    "'s",
    "'s",
    "'s",
    "'s",
)

# Plain twins of case-blind patterns that rewrite (see ``factuality.lowercase_twin``): a
# sentence the twin finds nothing in is left as it is without the costlier search.
_CONTRACTION_TWINS = tuple(lowercase_twin(pattern) for pattern, _ in _CONTRACTIONS)


def _may_match(twin: re.Pattern[str] | None, s: str) -> bool:
    """False only when the case-blind original cannot match ``s`` either."""
    return twin is None or not s.isascii() or twin.search(s.lower()) is not None


def _contract(s: str) -> str:
    """Expand contractions ("can't", "she's", "X's been"): a pattern runs only when the
    sentence has its hint and its plain twin finds something."""
    low = current = s.lower()  # current: s.lower() of s as rewritten so far
    for (pattern, repl), hint, twin in zip(
        _CONTRACTIONS, _CONTRACTION_HINTS, _CONTRACTION_TWINS, strict=True
    ):  # (``_may_match`` inline, lowering s again only after a pattern changed it)
        if hint in low and (twin is None or not s.isascii() or twin.search(current)):
            rewritten = pattern.sub(repl, s)
            if rewritten != s:
                s, current = rewritten, rewritten.lower()
    return s


_LEADING_FILLER = re.compile(
    # labels only with their punctuation ("Status page integration:" keeps "Status")
    r"\A(?:(?:status update|quick update|sprint update|weekly update|daily update"
    r"|update from today|quick note|status|update|note|summary|context|news|reminder|edit"
    r"|tl;?dr|heads up|heads-up|psa|ps|p\.s\.|q|a|answer|reply)\s*[:\-—–]\s*"
    r"|(?:note that|noting that|so|and|but|also|ok|okay|well|fyi|btw|heads up|heads-up|yes|yeah"
    r"|all good here|all good on my end|all good|looks good"
    r"|yep|yup|nope|sure|nah|hey|hi|hello|hiya|yo|hmm|um"
    r"|today|yesterday|tomorrow|this week|last week|this morning|this sprint|as of today"
    r"|for context|unfortunately|sadly|currently|right now|at the moment"
    r"|(?:good|bad) news(?!\s+(?:on|for|about|regarding)\b)"  # "Good news on X:" names X
    r"|as of now|it turned out that|it turns out that|turns out|turned out|as it turns out"
    r"|fwiw|per discussion(?: in [\w-]+)?|as discussed|as agreed|next|separately|meanwhile"
    r"|additionally|in addition|on the positive side|on the plus side|elsewhere|finally"
    r"|anyway)\b\s*[,:\-—–]?\s+)",
    re.IGNORECASE,
)

# "X can now start", "X can finally move" (nothing after the verb): the "now" says the
# wait is over, so it stays; "we can now start the audit" is a plan, and loses it.
# "..., which means X can move", "That means X is unblocked": a consequence, read as "so".
_MEANS = re.compile(
    r"(?:\A|,\s*|\s+)(?:which|that|this)\s+(?:means|meant)(?:\s+that)?\s+(?=\S)", re.IGNORECASE
)


_MOVE_NOW = re.compile(
    r"\b(can|could)\s+(move|proceed|go ahead|go in|go out|resume|start|begin|continue|restart)"
    r"\s+now\b(?=\s*(?:$|[,;.!—–)])|\s+(?:and|so|but)\b)",
    re.IGNORECASE,
)
# A status set on a ticket: "Marking DOCS-9 as blocked by DOCS-7" says DOCS-9 is blocked.
_MARKED_AS = re.compile(
    r"(?i:marking|marked|flagging|flagged)\s+(?P<x>[^,;:()]{1,60}?)"
    r"\s+(?i:as)\s+(?=(?i:blocked|waiting|dependent|depending|on hold|stalled|parked)\b)"
)


# "so nothing is blocking the banner now", "nothing stands in the way of the banner": the
# banner is free.
_NOTHING_BLOCKS = re.compile(
    r"\b[Nn]othing(?:\s+else)?\s+(?:is\s+)?(?:blocking|holding up|holding back|gating"
    r"|(?:standing\s+|stands\s+)?in\s+the\s+way\s+of)"
    r"\s+(?P<x>[^\s,;.!—–][^,;.!—–]{0,60}?)(?:\s+(?:now|anymore|any more|any longer))?"
    r"(?=\s*(?:$|[,;.!—–]))"
)


# "the permit landing means the swap can proceed": Y's landing frees X.
_DONE_MEANS = re.compile(
    r"(?P<y>[^,;:]{1,80}?)\s+(?:landing|shipping|merging|going (?:out|live|in)|being (?:done"
    r"|merged|approved|signed off|finished|released|deployed|in|fixed))\s+means\s+"
    r"(?:that\s+)?(?=\S)",
    re.IGNORECASE,
)


def _moves_now(word: str) -> str:
    """After ``word``: not "can <word> <move>" with nothing after the verb."""
    return (
        rf"(?:(?<!can {word})(?<!could {word})|(?!\s+(?:move|proceed|go ahead|go in|go out"
        r"|resume|start|begin|continue|restart|happen)(?:\s*(?:$|[,;.!—–)])|\s+(?:and|so|but"
        r"|again|today|tomorrow|tonight|once|since|as|because|from)\b)))"
    )


_ADVERBS = re.compile(
    r"\b(?:right now|also|still(?!\s+on\b)|(?<=\w )still|currently"
    rf"|now(?!\s+that\b){_moves_now('now')}|just|really"
    r"|actually|(?<!moving )(?<!free )again"  # "X is moving again": free, so it stays
    rf"|basically|unfortunately|sadly|officially|finally{_moves_now('finally')}|already|totally|completely|fully"
    r"|effectively|literally|definitely|certainly|honestly|apparently|unsurprisingly"
    r"|both(?!\s+of\b)"
    # a floating "all": "A, B and C are all waiting on X"
    r"|(?:(?<=\bare )|(?<=\bwere ))all(?=\s+(?:waiting|blocked|stuck|held|sitting|parked|gated"
    r"|pending|dependent|depending|on hold|queued)\b))\b",
    re.IGNORECASE,
)

_TRAILING_TIME = re.compile(
    rf"""(?:,?\s+)(?:(?:from|starting|effective)\ (?:today|tomorrow|now|this\ week)
    |today|yesterday|tonight|tomorrow|this\ (?:morning|afternoon|evening|week
    |sprint|quarter)|last\ (?:night|week|sprint|{_WEEKDAYS})|right\ now|at\ the\ moment|atm
    |for\ now|as\ of\ (?:today|now|this\ morning|this\ week)|as\ well|too
    |(?<!moving\ )(?<!free\ )again
    |(?:on|since|by|until|till|last|this)\ {_WEEKDAYS}|since\ (?:yesterday|last\ week)
    |for\ (?:a\ |the\ )?(?:few\ |couple\ of\ |couple\ |several\ |\d+\ |two\ |three\ |four\ )?
    (?:days?|weeks?|hours?|sprints?)|earlier|at\ last|as\ planned|on\ time|ahead\ of\ schedule
    |yet|eod|eow|asap|in\ the\ meantime|meanwhile|so\ far|overall|otherwise|as\ expected
    |going\ forward|moving\ forward|from\ now\ on|from\ here\ on|from\ here|end\ to\ end)$""",
    re.IGNORECASE | re.VERBOSE,
)

_DURATION = re.compile(
    r"\s+for\s+(?:(?:a|an|the past|the last|the next|over a|about|almost|nearly|like)\s+)?(?:(?:few"
    r"|couple of|couple|several|\d+|two|three|four|five|six)\s+)?(?:days?|weeks?|hours?|sprints?"
    r"|months?|minutes?|mins?|hrs?)\b",
    re.IGNORECASE,
)

_DURATION_LOWER = lowercase_twin(_DURATION)
# Connectives set off by commas: "X, however, is still blocked", "Y, by contrast, ..."
_CONNECTIVE = re.compile(
    r"\s*,\s*(?:however|though|therefore|thus|hence|by contrast|in contrast|in turn|as such"
    r"|as previously reported|as reported|as noted|as noted last week|as mentioned|as expected"
    r"|at the time of writing|in the interim|in the meantime|meanwhile|moreover|furthermore"
    r"|nonetheless|nevertheless|consequently|as a result|in practice|for now|so far"
    r"|unfortunately|fortunately|once again|again|too|also|by the way|on the other hand"
    r"|for its part|for their part|in any case|either way|as it stands|for the moment"
    r"|on balance|in short|in fact|admittedly)\s*,(?=\s)",
    re.IGNORECASE,
)
_CONNECTIVE_FIRST = frozenset(
    """however though therefore thus hence by in as at meanwhile moreover furthermore
    nonetheless nevertheless consequently for so unfortunately fortunately once again too
    also on either admittedly""".split()
)


def _connective_after_comma(s: str) -> bool:
    """Whether a word that opens a connective follows some ", " (most commas are lists)."""
    at = s.find(", ")
    while at >= 0:
        word = s[at + 2 : at + 16].split(" ", 1)[0].rstrip(",").lower()
        if word in _CONNECTIVE_FIRST:
            return True
        at = s.find(", ", at + 2)
    return False


# "during planning", "during the incident": a time, never part of an argument.
_DURING = re.compile(
    r"\s+during\s+(?:the\s+|this\s+|last\s+|our\s+)?[\w-]+(?:\s+[\w-]+){0,2}?"
    r"(?=\s*(?:[,;.)!]|$|\s(?:and|but|so|which|when|because|as|after|before)\b))",
    re.IGNORECASE,
)
_AGO = re.compile(
    r"\s+(?:about\s+|like\s+)?(?:an?|one|two|three|four|five|few|a few|couple of|a couple of|\d+)"
    r"\s+(?:minutes?|mins?|hours?|hrs?|days?|weeks?|months?)\s+ago\b",
    re.IGNORECASE,
)
_HANDOVER_FROM = re.compile(
    r"\b(moved|passed|handed|handed over|transferred|transitioned|shifted|reassigned)"
    r"\s+from\s+[^,;]+?\s+to\s+",
    re.IGNORECASE,
)
_WITH = re.compile(r"(?<!\w)w/(?=\s)", re.IGNORECASE)

_PARENS = re.compile(r"\(([^()]*)\)|\[[^\[\]]*\]")
_PAREN_CLAUSE = re.compile(
    r"\s*(?:owned|run|driven|led|handled|managed|which|from|waiting|blocked|needs|depends"
    r"|pending|gated|now unblocked|unblocked|no longer"
    r"|[\w'-]+(?:\s+[\w'-]+)?\s+(?:has|have|owns|own|is on|are on|is driving|is handling)"
    r"\s+(?:it|that|this|those|these|them)\s*$"
    r"|[\w-]+(?:'s|’s|\s+is|\s+are)\s+(?:on|running|leading|driving|handling|doing|owning)"
    r"\s+(?:it|that|this|those|these|them)\s*$)\b",
    re.IGNORECASE,
)


def _split_sentences(text: str) -> list[str]:
    """Split text into stripped sentences: by line, bullet and terminal punctuation.

    Markdown headings, rules and blank lines are skipped because they carry no claims.
    """
    return [sentence for sentence, _ in sentences_under_headings(text)]


# A line that is only a standup section name ("**Today**", "Blockers:") heads the
# bullets under it like a Markdown heading.
_SECTION_LINE = re.compile(
    r"\s*[*_]*(?:(?:retro|meeting|sprint|review|sync|open|new)\s+)?"
    r"(?P<h>yesterday|yday|today|blockers?|blocked|done|doing|next|next steps"
    r"|in progress|wip|shipped|completed|finished|merged|released|this week|last week"
    r"|action items|actions|y|t|b)"
    r"[*_]*:?[*_]*\s*",
    re.IGNORECASE,
)
# What ``_BULLET`` can start with after blanks (besides a digit), and a section line is
# at most three words ("retro next steps:"), so longer lines skip both patterns.
_BULLET_MARKS = frozenset("-*+•◦‣>")
_HEADING_TEXT = re.compile(r"\s*#{1,6}\s+(?P<h>.+?)\s*#*\s*$")
_END_MARK = re.compile(r"[.!?;]\s")
_ALNUM = re.compile(r"[^\W_]")  # a letter or digit: the same characters as str.isalnum
# What a ``_HEADING`` line opens with after its blanks (``\s`` and ``str.lstrip`` agree).
_HEADING_LEADS = frozenset("#-=*_`")


def sentences_under_headings(text: str) -> list[tuple[str, str | None]]:
    """Each sentence with the Markdown heading it sits under (None before any heading).

    A heading that names a work item ("## Invoice sync") is the subject of the bullets
    below it that have none ("- waiting on the ledger cleanup").
    """
    return [(sentence, heading) for sentence, heading, _ in sentence_lines(text)]


def sentence_lines(text: str) -> list[tuple[str, str | None, int]]:
    """Like ``sentences_under_headings``, plus the number of the line each sentence is on.

    Minutes need the line: "Raj: X is blocked; Y is done" is all Raj speaking.
    """
    sentences: list[tuple[str, str | None, int]] = []
    heading: str | None = None
    for number, line in enumerate(text.splitlines()):
        if not line.strip():
            continue
        if line.lstrip()[:1] in _HEADING_LEADS and _HEADING.match(line):
            m = _HEADING_TEXT.match(line)
            heading = m["h"].strip(" *_:`") if m else None
            continue
        if len(line.split(None, 3)) <= 3 and (m := _SECTION_LINE.fullmatch(line)):
            heading = m["h"]
            continue
        if (  # a section as a bullet over its own bullets: "- Today:" / "  - wiring X"
            line.rstrip(" *_").endswith(":")
            and len(line.split(None, 4)) <= 4
            and (b := _BULLET.match(line)) is not None
            and (m := _SECTION_LINE.fullmatch(line[b.end() :])) is not None
        ):
            heading = m["h"]
            continue
        if "[" in line and (box := _DONE_BOX.match(line)) is not None:
            line = f"Done: {_ticked(line[box.end() :])}"  # "- [x] #501 drop Python 3.8"
        if (lead := line.lstrip()[:1]) in _BULLET_MARKS or lead.isdigit():
            line = _BULLET.sub("", line, count=1)
        # a sentence ends at .!?; and a space: a line with none is one piece, unsplit
        label = _LIST_LABEL.match(line) if ";" in line else None
        for k, piece in enumerate(_SENTENCE_END.split(line) if _END_MARK.search(line) else (line,)):
            piece = piece.strip()
            if piece and (piece[:1].isalnum() or _ALNUM.search(piece)):
                if label and k and _LIST_ITEM.fullmatch(piece):
                    piece = f"{label['label']}: {piece}"  # "Delivered: X; Y; Z": Y too
                sentences.append((piece, heading, number))
    return sentences


# A line listing items after a done or work-in-hand label, with ";" between them: each
# item after the first is the label's too ("Delivered: X; the Y; Z v1.").
_LIST_LABEL = re.compile(
    r"\s*(?P<label>(?i:done|delivered|shipped|completed|finished|achieved|closed|fixed"
    r"|merged|released|landed|wip|doing|in progress|working on)):\s+(?!\s)"
)
# An item of such a list: a few words, no predicate of its own, no label.
_LIST_ITEM = re.compile(
    r"(?!(?:.*\s)?(?i:is|are|was|were|has|have|had|will|can|needs?|waiting|blocked)\b)"
    r"[^:;]{1,60}?[;.]?"
)
# "since" between an auxiliary and a participle is an adverb ("has since fixed it",
# "she's since merged it"), not the start of a reason clause.
_SINCE_ADVERB = re.compile(
    r"\b((?i:has|have|had|is|are|was|were)|['’]s|['’]ve)\s+since\s+(?=[a-z]+(?:ed|en|t)\b)"
)
_NON_ASCII = re.compile(r"[^\x00-\x7f]")


def _symbol(m: re.Match[str]) -> str:
    """An emoji or other pictograph as a NUL mark, any other character as itself."""
    ch = m.group()
    return "\x00" if unicodedata.category(ch) in ("So", "Sk", "Cs", "Co") else ch


_SYMBOL_RUN = re.compile(r"\s*\x00[\x00\s]*")


def _drop_symbols(text: str) -> str:
    """Remove emoji and other pictographs; one inside a sentence ends a clause there
    ("merged 🎉 lmk if ...", "not blocked anymore 🙌 huge thanks")."""
    if text.isascii():
        return text
    # only the characters outside ASCII are looked at: most of a sentence is plain letters
    out = _NON_ASCII.sub(_symbol, text).replace("\ufe0f", "")
    out = _SYMBOL_RUN.sub(" \x00 ", out).strip(" \x00")
    return out.replace(" \x00 ", ", ")


_DONE_BOX = re.compile(r"\A\s*(?:(?:[-*+•]|\d+[.)])\s+)?\[[xX]\]\s+(?=\S)")
# A ticked action with its assignee first: "Odile: circulate the berth plan (done)"
_TICKED_WHO = re.compile(
    r"@?(?P<who>[A-Z][\w'’-]*(?:\s+[A-Z][\w'’-]*)?)\s*(?::|\s[—–-]\s|[—–])\s*(?P<rest>\S.*?)"
    r"(?:\s*\((?i:done|complete|completed)\))?\s*"
)


def _ticked(item: str) -> str:
    """A ticked action item as a done label's entry: the assignee did it ("Odile:
    circulate the berth plan" is "circulate the berth plan by Odile")."""
    m = _TICKED_WHO.fullmatch(item)
    if m is None or not all(_name_like(w) for w in m["who"].split()):
        return item
    return f"{m['rest']} by {m['who']}"


_DONE_BY = re.compile(
    r"\s*(?:(?:[A-Z][A-Z0-9]+-\d+|#\d+)\s+(?:was\s+)?)?"  # "(OPS-12 closed by Nikolai)"
    r"(?:done|carried out|completed|delivered|shipped|handled|implemented|executed|performed"
    r"|finished|fixed|merged|deployed|rolled out|closed|closed out|resolved|applied|released"
    r"|landed|published)\s+by\s+(?P<who>[^,;]+?)\s*",
    re.IGNORECASE,
)


def _paren(m: re.Match[str]) -> str:
    """Keep ownership/waiting parentheticals as a comma clause, drop ids and asides."""
    inner = m.group(1)
    if inner is not None and (doer := _DONE_BY.fullmatch(inner)):
        return f" by {doer['who']} "  # "migration of X (carried out by the Platform team)"
    if inner is not None and (owner := _OWNER_LABEL.fullmatch(inner)):
        return f", owned by {owner['who']},"  # "payments refactor (owner: Dmitri)"
    if inner is not None and _PAREN_CLAUSE.match(inner):
        return f", {inner.strip()},"
    if inner is not None and (_names_only(inner) or _team_only(inner)):
        return f" by {inner.strip()} "  # "done (Ayumi)", "waiting on X (platform team)"
    return " "


# "acme/core#512 (the tokenizer rewrite)", "FIN-72 [rate card schema]": a ticket with its
# title beside it is one work item, named by its title (the labelling contract's rule).
_TICKET_TITLED = re.compile(
    r"(?P<ticket>#\d+|(?<![\w-])[A-Z][A-Z0-9]+-\d+)"
    r"\s*(?:\((?P<p>[^()\[\]]+)\)|\[(?P<b>[^()\[\]]+)\])"
)
_TICKET_PREFIX = re.compile(r"(?:(?:PR|MR|pr|mr)\s*|[A-Za-z][\w.-]*/[\w.-]+)\Z")
_TITLE_HINT = re.compile(r"\d\s*[(\[]")


def _titled_tickets(s: str) -> str:
    """Each "TICKET (title)" replaced as ``_ticket_title`` says, "PR " and "org/repo"
    prefixes included (found backwards: a forward pattern would try every word)."""
    out: list[str] = []
    pos = 0
    for m in _TICKET_TITLED.finditer(s):
        start = m.start()
        if m["ticket"].startswith("#") and (pre := _TICKET_PREFIX.search(s, 0, start)):
            start = pre.start()
        if start < pos:
            continue
        out += [s[pos:start], _ticket_title(m, s[start : m.end("ticket")], start)]
        pos = m.end()
    return "".join(out) + s[pos:] if out else s


_TITLE_WORD = re.compile(r"[^\W\d_][\w'’/&.+-]*|\d[\w.]*")
_NOT_TITLES = frozenset(
    """done merged closed open opened draft wip blocked p0 p1 p2 p3 see cc was is now still
    again reverted pending approved fixed shipped deployed released mine yours ours not
    partially follow-up eta due""".split()
)


def _ticket_title(m: re.Match[str], ticket: str, start: int) -> str:
    """The title when the bracket holds a short noun phrase, else the bare ticket."""
    inner = (m["p"] if m["p"] is not None else m["b"]).strip()
    if m.string[:start].rstrip().lower().endswith(_CLOSING):
        return ticket  # "Closes #12 (login loop)": the closing frame reads tickets
    words = _TITLE_WORD.findall(inner)
    if (
        1 <= len(words) <= 7
        and len(" ".join(words)) >= len(inner) - 2  # no clause punctuation inside
        and words[0].lower() not in _NOT_TITLES
        and not words[0].lower().endswith("ing")  # "(moving X onto Y)": a description
        and not _PAREN_CLAUSE.match(inner)
        and not _names_only(inner)
        and not _TICKET_ONLY.fullmatch(inner)
        and any(len(w) > 2 and w[0].isalpha() for w in words)
    ):  # a definite name, so "X and PR #7 (Y)" still reads as a list of two
        before = m.string[:start].rsplit(None, 1)[-1:] or [""]
        if words[0].lower() in _ARTICLES or before[0].lower() in _ARTICLES:
            return inner
        return inner if before[0].endswith(("'s", "’s")) else f"the {inner}"
    return f"{ticket}{m.string[m.end('ticket') : m.end()]}"


_ARTICLES = frozenset("the a an our my their his her its this that".split())
_CLOSING = ("closes", "fixes", "resolves", "closing", "fixing", "resolving", "close", "fix")
_TICKET_ONLY = re.compile(r"(?:PR\s*)?#\d+|[A-Z][A-Z0-9]+-\d+", re.IGNORECASE)


def _team_only(inner: str) -> bool:
    """Whether a parenthesis names one team ("platform team", "the data squad")."""
    words = inner.lower().split()
    return 1 < len(words) <= 4 and words[-1] in ("team", "squad", "guild", "group")


_NAME_LIST = re.compile(r"\s*(?:&|,|\band\b|/)\s*")


def _names_only(inner: str) -> bool:
    """Whether a parenthesis holds only people's names ("Noa", "Ruth & Gideon")."""
    parts = [p for p in _NAME_LIST.split(inner.strip()) if p]
    return bool(parts) and all(
        1 <= len(p.split()) <= 2 and all(_name_like(w) for w in p.split()) for p in parts
    )


_WONTFIX = re.compile(r"\bwon'?t[- ]fix\b", re.IGNORECASE)
# A role field after an item, not in brackets: "Kiln relining: owner Odile", "the glaze
# audit, Assignee: @piet", and "the owner of X is Odile": the person owns the item, as in
# "X (owner: Odile)". The field's name must be followed by a name and end its clause.
_FIELD_WHO = r"(?P<who>@[\w.-]*\w|[A-Z][\w'’-]*(?:\s+[A-Z][\w'’-]*)?)(?=\s*(?:$|[,;.]))"
_ROLE_FIELD = re.compile(
    r"\s*(?:[:,—–]|\s-)\s*(?i:owner|assignee|dri)(?:\s*[:=—–]\s*|\s+-\s+|\s+)" + _FIELD_WHO
)
_OWNER_OF_IS = re.compile(
    r"\b(?:[Tt]he\s+)?[Oo]wner\s+(?:of|for)\s+(?P<item>[^,;:()]{2,80}?)\s+is\s+(?:now\s+)?"
    + _FIELD_WHO
)
_OWNER_LABEL = re.compile(r"\s*(?:owner|owners|dri|lead|assignee)\s*[:=-]\s*@?(?P<who>[^:]+?)\s*")
_EMOJI_CODE = re.compile(r":[a-z0-9_+-]+:")
_EMOTICON = re.compile(r"[:;]-?[()/|]+(?!\w)")  # ":(", ";)", ":-/"
_MENTION = re.compile(r"(?<!\w)@(?=\w)")
# "@mehmet I'll take X": a leading mention addresses someone (see ``addressee``).
_VOCATIVE = re.compile(
    r"\A\s*@[\w.-]+(?:\s*[,:]\s*|\s+(?=(?:i|we|you|fyi|thanks|thx|ty|pls|please|can|could"
    r"|would|heads|just|your|this|that|these|those|re|sorry|ok|okay|sure|agreed|lgtm|looks"
    r"|the|it|its|all|over"
    r"|nice|good|great|yes|yep|nope)\b|[A-Z][A-Z0-9]+-\d+\b|#\d+\b))(?=\S)",
    re.IGNORECASE,
)


# "..., so @lee you're unblocked": a mention inside a sentence, before "you"
_INNER_VOCATIVE = re.compile(r"(?<=\s)@[\w.-]+\s+(?=you\b)", re.IGNORECASE)


def addressee(sentence: str) -> str | None:
    """Who a sentence opening with an @mention speaks to, or None."""
    m = _VOCATIVE.match(sentence)
    return m.group(0).strip(" @,:\t") if m else None


# "IT" in capitals as a doer, not the pronoun: "the account that IT is provisioning",
# "which IT completed", "sits with IT." (not "the IT ticket", where it qualifies a noun)
_IT_DEPARTMENT = re.compile(
    r"(?<![\w'’-])(?<!the )(?<!an )(?<!The )IT(?![\w'’-])(?=\s+(?:is|are|was|were|has|have|had"
    r"|will|can|should|says|said|owns|\w+ed|\w+ing)\b|\s*(?:[,.;:)!?]|\Z))"
)
_ARROW = re.compile(r"\s*(?:->|→|=>|⇒)\s*")


@lru_cache(maxsize=64)  # one update reads a sentence several times
def _normalise(sentence: str) -> str:
    """Rewrite a sentence into the plain form the pattern table is written against."""
    if not sentence.isascii() and _STATUS_EMOJI.match(sentence):
        sentence = _STATUS_EMOJI.sub(_status_label, sentence, count=1)
    if not sentence.isascii():  # curly quotes are not ASCII: most sentences have none
        sentence = sentence.translate(_QUOTES)
    s = fix_typos(_drop_symbols(sentence))
    if (
        "teh" in s or "hte" in s or "adn" in s or "nad" in s or "theyre" in s or "thats" in s
    ) and _FUNCTION_TYPO.search(s):
        s = _FUNCTION_TYPO.sub(lambda m: _FUNCTION_TYPOS[m.group(0).lower()], s)
    if ":" in s:
        s = _EMOJI_CODE.sub(" ", s)  # Slack emoji codes
        if ":(" in s or ":)" in s or ":-" in s or ";)" in s or ":/" in s:
            s = _EMOTICON.sub(" ", s)
    s = s.replace("**", "").replace("__", "").replace("`", "").replace('"', "")
    if "IT" in s and (it := _IT_DEPARTMENT.search(s)) is not None and not s.isupper():
        before = s[: it.start()].split()
        if not before or not before[-1][:1].isupper():  # ("Central IT" is a name)
            s = f"{s[: it.start()]}the IT team{s[it.end() :]}"  # "that IT is building"
    if ("wner" in s or "ssignee" in s or "DRI" in s) and (field := _ROLE_FIELD.search(s)):
        s = f"{s[: field.start()]}, owned by {field['who']}{s[field.end() :]}"
    elif "wner " in s and (owner_of := _OWNER_OF_IS.search(s)):
        rest = s[owner_of.end() :]
        s = f"{s[: owner_of.start()]}{owner_of['item']} is owned by {owner_of['who']}{rest}"
    if "@" in s:
        s = _MENTION.sub("", _INNER_VOCATIVE.sub("", _VOCATIVE.sub("", s, count=1)))
    if ">" in s or "→" in s or "⇒" in s:
        s = _ARROW.sub(" -> ", s)
    if "(" in s or "[" in s:
        if _TITLE_HINT.search(s):
            s = _titled_tickets(s)
        s = _PARENS.sub(_paren, s)
    if "fix" in s and "on" in s:
        s = _WONTFIX.sub("wontfix", s)  # "closing as won't-fix" is a resolution, not a plan
    if "'" in s:
        s = _contract(s)
    s = " ".join(s.split()).strip(" \t.,;:!-—–")
    if " now" in s and (" can " in s or " could " in s):
        s = _MOVE_NOW.sub(r"\1 now \2", s)  # "X can go in now" is "X can now go in"
    if not _ADVERB_WORDS.isdisjoint(s.lower().replace(",", " ").split()):
        s = _ADVERBS.sub(" ", s)
    if s[:1] in "MmFf" and (marked := _MARKED_AS.match(s)) is not None:
        s = f"{marked['x']} is {s[marked.end() :]}"  # "Marking X as blocked by Y"
    if "othing" in s and (free := _NOTHING_BLOCKS.search(s)) is not None:
        s = f"{s[: free.start()]}{free['x']} is unblocked{s[free.end() :]}"
    if " mean" in s and (means := _MEANS.search(s)) is not None:
        s = f"{s[: means.start()]}{', so ' if means.start() else ''}{s[means.end() :]}"
    elif " means " in s and (done := _DONE_MEANS.match(s)) is not None:
        s = f"{done['y']} is done, so {s[done.end() :]}"  # "Y landing means X can go"
    if " for " in s and _may_match(_DURATION_LOWER, s):
        s = _DURATION.sub(" ", s)
    if ", " in s and _connective_after_comma(s):
        s = _CONNECTIVE.sub(" ", s)  # "X, however, is blocked": X is the subject
    if " since " in s and _SINCE_ADVERB.search(s):
        s = _SINCE_ADVERB.sub(r"\1 ", s)  # "Piet has since fixed it": after that, no reason
    if " ago" in s:
        s = _AGO.sub("", s)  # "Oren pushed it an hour ago": when, not what
    if " from " in s and _HANDOVER_FROM.search(s):
        s = _HANDOVER_FROM.sub(r"\1 to ", s)  # "moved from Kwame to the CRM team": to whom
    if " during " in s:
        s = _DURING.sub("", s)  # "handed to the squad during planning": when, not who
    if "w/" in s:
        s = _WITH.sub("with", s)
    s = " ".join(s.split())
    if " ," in s or " ;" in s or " :" in s:
        s = _SPACE_PUNCT.sub(r"\1", s)
    if ",," in s or ", ," in s:
        s = _COMMAS.sub(",", s)
    previous = None
    if s[:1] in "nN" and (lead := _NONE_LEAD.match(s)) is not None:
        s = s[lead.end() :]  # "none, the X got fixed so Y is unblocked": the rest is news
    while previous != s:
        previous = s
        words = s.split(None, 1)
        if words and (
            _FILLER_START_LOWER.match(words[0].lower())
            if _FILLER_START_LOWER is not None and words[0].isascii()
            else _FILLER_START.match(words[0])
        ):
            s = _LEADING_FILLER.sub("", s, count=1)
        last = s.rsplit(None, 1)[-1].lower().strip(".,;:!") if s else ""
        if last in _TIME_ENDINGS or (last.endswith("day") and _WEEKDAY_END.fullmatch(last)):
            s = _TRAILING_TIME.sub("", s).strip(" \t.,;:!-—–")
    return s


_NONE_LEAD = re.compile(r"(?:none|nothing|nope|no blockers?)\s*[,;—–-]+\s*(?:but\s+)?(?=\S)", re.I)
_ADVERB_WORDS = frozenset(
    """right also still currently now just really actually again basically unfortunately
    sadly officially finally already totally completely fully effectively literally
    definitely certainly honestly apparently unsurprisingly both all""".split()
)
# A status emoji opening a line is a label: "✅ X" is done, "🔄 X" in progress.
_STATUS_EMOJI = re.compile(r"\s*(?P<e>[✅✔☑]|🔄|🚧|⏳|🏗|🛠|⛔|🚫|🛑)\ufe0f?\s*")
_STATUS_LABELS = {
    **dict.fromkeys("✅✔☑", "Done: "),
    **dict.fromkeys(["🔄", "🚧", "⏳", "🏗", "🛠"], "In progress: "),
    **dict.fromkeys(["⛔", "🚫", "🛑"], "Blocked: "),
}


def _status_label(m: re.Match[str]) -> str:
    return _STATUS_LABELS[m["e"]]


def status_emoji(sentence: str) -> bool:
    """Whether a sentence opens with a status emoji (a done / in progress / blocked label)."""
    return not sentence.isascii() and _STATUS_EMOJI.match(sentence) is not None


# Misspelt function words ("teh", "adn"): a trigger phrase needs its little words right.
_FUNCTION_TYPOS = {
    "teh": "the",
    "hte": "the",
    "adn": "and",
    "nad": "and",
    "theyre": "they're",  # the pronoun must be read as one
    "thats": "that's",
}
_FUNCTION_TYPO = re.compile(r"\b(?:teh|hte|adn|nad|theyre|thats)\b", re.IGNORECASE)
_SPACE_PUNCT = re.compile(r"\s+([,;:])")
_COMMAS = re.compile(r",(?:\s*,)+")
_FILLER_START = re.compile(
    r"(?:so|and|but|also|ok|okay|well|fyi|btw|update|status|quick|heads|note|psa|today"
    r"|yesterday|tomorrow|this|last|as|for|context|unfortunately|sadly|good|bad|news|tl;?dr"
    r"|summary|sprint|weekly|daily|currently|right|at|it|turns|turned|reminder|edit|ps|p\.s\."
    r"|fwiw|per|heads-up|next|separately|meanwhile|additionally|in|on|elsewhere|finally|q|a"
    r"|answer|reply|yes|yeah|yep|yup|nope|sure|nah|all|looks|hey|hi|hello|hiya|yo|hmm|um"
    r"|anyway)"
    r"\b",
    re.IGNORECASE,
)
_FILLER_START_LOWER = lowercase_twin(_FILLER_START)  # the same, over lowercased ASCII
# Last words a trailing time phrase can end with: the costly pattern runs only after them.
_TIME_ENDINGS = frozenset(
    """today yesterday tonight tomorrow morning afternoon evening week sprint quarter night
    now moment atm well too again days day weeks hours hour sprints earlier last planned time
    schedule yet eod eow asap meantime meanwhile far overall otherwise expected forward on
    here end""".split()
)
_WEEKDAY_END = re.compile(_WEEKDAYS, re.IGNORECASE)

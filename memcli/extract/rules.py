"""Deterministic, rule-based extraction of facts from English status updates.

``extract(text, author)`` splits an update into sentences, normalises each one
(contractions, filler adverbs, trailing time phrases, emoji and Markdown), and tries a
table of sentence patterns in a fixed order. A pattern only yields facts when every noun
phrase it captured survives validation, so an unusual sentence falls through to
``Extraction.unparsed`` instead of producing a guess. The module is pure: no I/O, no
global state, the same input always gives the same output.

Context carried from sentence to sentence (see the memcli README for the contract):

* the author owns the work item their update reports as blocked or stalled, unless the
  text names another owner for it (rule 1);
* a blocked/stalled report makes that item the owner's *current work item*; a later
  "I'm / she's / we're waiting on Y" then blocks the current work item, not the person
  (rule 2). This applies per owner, so "Bob's X is stalled. He's waiting on Y" blocks X;
* "it", "that", "this", "that work" refer to the most recently mentioned work item;
* she/he/her/him mean the last person other than the author named in an earlier
  sentence, else the author; they/them mean the last team named in an earlier sentence,
  else the author; I/me/we/us/"the team"/"our team" mean the author.

Known limits (what it cannot read; such sentences are reported as unparsed):

* Questions, conditionals ("if X slips, Y will be blocked", "once ...", "when ..."),
  hedges ("might", "probably", "I think"), reported speech ("Bob said X is done"),
  future plans ("we will ship X") and negated states ("X isn't done") give no fact, by
  design. A leading factual clause ("Since the refactor slipped, the migration is
  blocked") is skipped and only the main clause is read.
* Only one relation is read per clause. A sentence that matches nothing as a whole is
  split at commas, semicolons, "and", "but", "so"; a subjectless later clause borrows
  the subject of the clause before it ("Kim shipped X and is working on Y"). Relative
  clauses are read only at the end of a sentence ("X is blocked on Y, which is blocked
  on Z") or as ownership clauses anywhere ("X, owned by the data team, is ...").
* Person detection is heuristic: a single capitalised word that is not a common
  engineering noun (see ``_NON_NAMES``) and is never written in lowercase in the same
  text is a person; two capitalised name-like words are a person in owner/doer slots;
  otherwise full names are recognised only for the author. A lowercase name is a
  person only in owner/doer slots ("bob owns X", "bob's on it"); as the subject of a
  blocker sentence ("bob is blocked on X") it is read as a work item.
* A blocker must be a work item (``RELATION_TYPES``): "waiting on Bob", "waiting for
  the design team" and single capitalised blocker names that look like given names
  ("waiting on Zephyr"; well-known tools such as Stripe or Kafka are listed as
  non-names) are dropped rather than stored with a wrong type.
* Vague blockers ("waiting on feedback", "blocked on review", "some stuff"), time
  phrases ("blocked until Friday") and quantities ("merged three PRs") are not facts.
* The "current work item" (rule 2) is set only by a blocked/stalled report, not by
  "I'm working on X", as the contract specifies; so "I'm working on X. I'm blocked on
  Y." gives (author blocked_by Y).
* "they"/"their" never fall back to a guessed team: with no team named earlier,
  "they" is the author and "their X" carries no owner. "the team"/"our team" is the
  author, so "the team shipped X" credits the author.
* Ownership is not inferred from team membership ("Bob is on the platform team",
  "Dana from the identity team" is just Dana), from "for" ("the dashboard for
  Sofia"), or from who handed work over ("took over X from Bob" does not make Bob the
  owner).
* "for the Z" after a blocker names the waiting work item only when the waiter is a
  person or team ("Dan is waiting on X for the mobile release"); after a work-item
  subject it stays part of the blocker's name.
* Completion with no named doer is credited to the author, even when the sentence names
  an owner ("Bob's X shipped" -> author completed X, Bob owns X); only with no author
  does the named owner become the doer.
* Parenthesised text is dropped unless it is an ownership or waiting clause, so ticket
  ids like "(PROJ-12)" do not appear in names; Markdown checkboxes are ignored ("[x]"
  does not mean done).
* Names keep the words and case written in the text (only a leading article,
  possessive or "my/our" is removed); matching "auth refactor" with "auth service
  refactor" is left to entity resolution. Sentences are split on . ! ? ; and newlines,
  so abbreviations like "e.g." split a sentence.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field

from memcli.models import (
    RELATION_TYPES,
    EntityRef,
    EntityType,
    ExtractedFact,
    Extraction,
    Relation,
)

PERSON = EntityType.PERSON
TEAM = EntityType.TEAM
ITEM = EntityType.WORK_ITEM


def _words(text: str) -> frozenset[str]:
    """A frozenset from a whitespace-separated word list (keeps the tables readable)."""
    return frozenset(text.split())


# --------------------------------------------------------------------------------------
# Vocabulary tables
# --------------------------------------------------------------------------------------

# Capitalised words that start status-update sentences but are not people.
_NON_NAMES = _words(
    """
    deploy deployment deploys release releases migration migrations search billing checkout
    payments payment auth login logout signup sso onboarding infra infrastructure launch
    rollout refactor backend frontend mobile web android ios docs documentation testing
    tests staging prod production analytics reporting reports monitoring alerting logging
    security compliance legal design marketing sales support finance ops devops platform
    data pipeline pipelines dashboard dashboards integration integrations upgrade cleanup
    feature features project projects work everything nothing something anything today
    yesterday tomorrow tonight monday tuesday wednesday thursday friday saturday sunday
    january february march july august september october november december blocked done
    shipped update updates status note notes also still this that it the sprint beta alpha
    api apis ui ux sdk cli cache database schema server service services gateway proxy
    cluster kubernetes terraform postgres redis kafka stripe jira github gitlab slack
    everyone nobody someone anyone team teams squad group crew review reviews approval
    budget hiring procurement audit localization translation notifications settings admin
    invoicing pricing inventory shipping cart catalog recommendations qa ci cd eod eow asap
    tbd eta fyi btw wip okr okrs roadmap plan planning hold track schedule time pto
    vacation leave holiday call break point board fire site radar ice pause standby main
    master trunk progress blockers blocker waiting stuck stalled landed merged yes no ok
    okay thanks great good bad next last first then also however meanwhile overall
    blockers dependencies dependency sprint retro standup demo launch go live helm docker
    aws gcp azure s3 ec2 lambda vercel heroku nginx graphql rest grpc oauth saml ldap okta
    auth0 sentry datadog grafana prometheus elasticsearch opensearch snowflake bigquery
    airflow spark hadoop react vue angular node python java golang rust swift kotlin
    """
)

# Noun suffixes that make a capitalised word a thing, not a given name.
_NOUN_SUFFIXES = ("ing", "tion", "sion", "ment", "ness", "ity", "ics", "ware", "base", "flow")

_TEAM_WORDS = _words("team squad group crew")

_FIRST_PERSON = _words("i me myself we us ourselves")
_SELF_GROUPS = frozenset({"team", "the team", "our team", "my team", "the whole team", "we all"})
_THIRD_PERSON = _words("she he her him")
_PLURAL_PERSON = _words("they them")
_PRONOUNS = _FIRST_PERSON | _THIRD_PERSON | _PLURAL_PERSON | _words("you it")

# Phrases that refer back to the most recently mentioned work item (context rule 3).
_REFS = frozenset(
    {
        "it",
        "that",
        "this",
        "the same",
        "same",
        "the case",
        "top of it",
        *(
            f"{d} {n}"
            for d in ("that", "this")
            for n in (
                "work",
                "one",
                "item",
                "task",
                "project",
                "piece",
                "piece of work",
                "ticket",
                "change",
                "effort",
                "thing",
            )
        ),
    }
)

# Words that never occur inside a clean noun phrase: seeing one means the lazy capture
# swallowed a clause ("X is not", "if the refactor slips"), so the match is rejected.
_CLAUSE_WORDS = _words(
    """
    is are am was were be been being not no never will would can cannot could should shall
    may might must does did do has have had because but if when until unless whether while
    which who whom whose where why how what once although though since then than so or
    i we you he she they me us him them it my our your his her their think thinks guess
    hope hopefully maybe probably perhaps said says say there here yet nothing anything
    blocked blocking waiting waits stuck stalled shipped owns owned depends finished
    completed landed merged deployed released unblocked handling leading driving needs
    requires done got get gets getting expects expect expected plans plan planned hopes
    wants want wanted going decided thanks
    """
)

# Whole phrases too vague to be a work item.
_VAGUE = _words(
    """
    something anything nothing everything stuff things thing none n/a na tbd nobody
    someone anyone everyone lots more others work help input feedback answers answer
    response responses reply replies progress people folks schedule track hold time
    approval approvals review reviews sign-off signoff go-ahead greenlight decision
    decisions info information details it's
    """
) | frozenset({"other things", "other stuff", "other teams", "a lot", "the go-ahead"})

# "X is on Y" is ownership unless Y is one of these ("on hold", "on PTO", "on call").
_ON_STOPLIST = _words(
    """
    hold track schedule time pto vacation leave holiday holidays call on-call break point
    board fire deck site radar ice pause standby target budget par plan mute it's top
    """
)

_PREPOSITIONS = _words("on by for to of in at from with about into onto over under after")

_WEEKDAYS = r"(?:mon|tues|wednes|thurs|fri|satur|sun)day"
_TIME_PHRASE = re.compile(
    rf"""(?:(?:a|an|one|two|three|four|five|six|several|few|a\ few|couple\ of|a\ couple\ of|
    \d+)\s+)?(?:more\s+)?(?:minutes?|hours?|days?|weeks?|months?|sprints?|quarters?|while|bit)
    |today|tomorrow|yesterday|tonight|{_WEEKDAYS}|next\ (?:week|sprint|month|quarter)
    |(?:the\ )?weekend|end\ of\ (?:the\ )?(?:day|week|sprint|month|quarter)|eod|eow
    |q[1-4]|this\ (?:week|sprint|month|quarter)|last\ (?:week|sprint|month)""",
    re.IGNORECASE | re.VERBOSE,
)
_QUANTITY = re.compile(
    r"(?:\d+|one|two|three|four|five|six|seven|eight|nine|ten|several|some|many|few|a few"
    r"|a couple(?: of)?|couple of|a bunch of|bunch of|lots of|a lot of|multiple|various|all"
    r"|most|any|every|each|no)\s",
    re.IGNORECASE,
)
_GERUND_CLAUSE = re.compile(
    r"\w+ing\s+(?:(?:on|at|with|for|to|through|into|up|over)\s+)?(?:the|a|an|our|my|his|her"
    r"|their|some|all|this|that|these|those)\s",
    re.IGNORECASE,
)
_NAME_TOKEN = re.compile(r"[A-Z][a-z]+(?:[-'][A-Z]?[a-z]+)*")
_LOOSE_NAME_TOKEN = re.compile(r"[A-Za-z][a-z]+(?:[-'][A-Za-z]?[a-z]+)*")
_ACRONYM = re.compile(r"[A-Z]{2,5}")

# --------------------------------------------------------------------------------------
# Sentence splitting and normalisation
# --------------------------------------------------------------------------------------

_HEADING = re.compile(r"\s*(?:#{1,6}(?:\s|$)|[-=*_]{3,}\s*$|```)")
_BULLET = re.compile(r"\A\s*(?:[-*+•◦‣>]|\d+[.)])\s+(?:\[[ xX]\]\s+)?")
_SENTENCE_END = re.compile(r"(?<=[.!?;])\s+")

_QUOTES = str.maketrans({"\u2019": "'", "\u2018": "'", "\u201c": '"', "\u201d": '"'})

_IS_FOLLOWERS = (
    "blocked|waiting|stuck|stalled|on|off|done|working|leading|driving|handling|owning|not"
    "|no|in|out|shipped|landed|merged|finished|complete|completed|deployed|responsible"
    "|gated|pending|dependent|held|paused|unblocked|now|still|also|currently|the|a|an"
    "|blocking|holding|going|taking|picking|assigned|owned|handled|from|with|at|under"
    "|being|nearly|almost|mostly|just|really|finally|ready|behind|cancelled|canceled"
    "|released|totally|completely|fully|already|hard|waiting|stalling|gating"
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
        (
            r"\b(she|he|it|that|this|there|here|what|who|everything|nothing|something"
            r"|everyone|someone)'s\b",
            r"\1 is",
        ),
        (rf"\b(\w+)'s(?=\s+(?:{_IS_FOLLOWERS})\b(?!-))", r"\1 is"),
    )
)

_LEADING_FILLER = re.compile(
    r"\A(?:so|and|but|also|ok|okay|well|fyi|btw|update|status|status update|quick update"
    r"|heads up|note|psa|today|yesterday|tomorrow|this week|last week|this morning"
    r"|this sprint|as of today|for context|context|unfortunately|sadly|good news|bad news"
    r"|news|tl;?dr|summary|sprint update|weekly update|daily update|currently|right now"
    r"|at the moment|as of now)\b\s*[,:\-—–]?\s+",
    re.IGNORECASE,
)

_ADVERBS = re.compile(
    r"\b(?:right now|also|still|currently|now(?!\s+that\b)|just|really|actually|again"
    r"|basically|unfortunately|sadly|officially|finally|already|totally|completely|fully"
    r"|effectively|literally|definitely|certainly|honestly|apparently|unsurprisingly|both)\b",
    re.IGNORECASE,
)

_TRAILING_TIME = re.compile(
    rf"""(?:,?\s+)(?:today|yesterday|tonight|tomorrow|this\ (?:morning|afternoon|evening|week
    |sprint|quarter)|last\ (?:night|week|sprint|{_WEEKDAYS})|right\ now|at\ the\ moment|atm
    |for\ now|as\ of\ (?:today|now|this\ morning|this\ week)|as\ well|too|again
    |(?:on|since|by|until|till|last|this)\ {_WEEKDAYS}|since\ (?:yesterday|last\ week)
    |for\ (?:a\ |the\ )?(?:few\ |couple\ of\ |couple\ |several\ |\d+\ |two\ |three\ |four\ )?
    (?:days?|weeks?|hours?|sprints?)|earlier|at\ last|as\ planned|on\ time|ahead\ of\ schedule
    |yet|eod|eow|asap|in\ the\ meantime|meanwhile|so\ far|overall|otherwise|as\ expected)$""",
    re.IGNORECASE | re.VERBOSE,
)

_DURATION = re.compile(
    r"\s+for\s+(?:(?:a|the past|the last|over a|about|almost|nearly)\s+)?(?:(?:few|couple of"
    r"|couple|several|\d+|two|three|four|five|six)\s+)?(?:days?|weeks?|hours?|sprints?"
    r"|months?)\b",
    re.IGNORECASE,
)

_PARENS = re.compile(r"\(([^()]*)\)|\[[^\[\]]*\]")
_PAREN_CLAUSE = re.compile(
    r"\s*(?:owned|run|driven|led|handled|managed|which|from|waiting|blocked|needs|depends"
    r"|pending|gated)\b",
    re.IGNORECASE,
)


def _split_sentences(text: str) -> list[str]:
    """Split text into stripped sentences: by line, bullet and terminal punctuation.

    Markdown headings, rules and blank lines are skipped because they carry no claims.
    """
    sentences: list[str] = []
    for line in text.splitlines():
        if not line.strip() or _HEADING.match(line):
            continue
        line = _BULLET.sub("", line, count=1)
        for piece in _SENTENCE_END.split(line):
            piece = piece.strip()
            if piece and any(ch.isalnum() for ch in piece):
                sentences.append(piece)
    return sentences


def _drop_symbols(text: str) -> str:
    """Remove emoji and other pictographs, which only confuse the patterns."""
    return "".join(
        " " if unicodedata.category(ch) in ("So", "Sk", "Cs", "Co") else ch for ch in text
    ).replace("\ufe0f", "")


def _paren(m: re.Match[str]) -> str:
    """Keep ownership/waiting parentheticals as a comma clause, drop ids and asides."""
    inner = m.group(1)
    if inner is not None and _PAREN_CLAUSE.match(inner):
        return f", {inner.strip()},"
    return " "


def _normalise(sentence: str) -> str:
    """Rewrite a sentence into the plain form the pattern table is written against."""
    s = _drop_symbols(sentence.translate(_QUOTES))
    s = re.sub(r":[a-z0-9_+-]+:", " ", s)  # Slack emoji codes
    s = s.replace("**", "").replace("__", "").replace("`", "").replace('"', "")
    s = re.sub(r"(?<!\w)@(?=\w)", "", s)
    s = re.sub(r"\s*(?:->|→|=>|⇒)\s*", " -> ", s)
    s = _PARENS.sub(_paren, s)
    for pattern, repl in _CONTRACTIONS:
        s = pattern.sub(repl, s)
    s = " ".join(s.split()).strip(" \t.,;:!-—–")
    s = _ADVERBS.sub(" ", s)
    s = _DURATION.sub(" ", s)
    s = re.sub(r"\s+([,;:])", r"\1", " ".join(s.split()))
    s = re.sub(r",(?:\s*,)+", ",", s)
    previous = None
    while previous != s:
        previous = s
        s = _LEADING_FILLER.sub("", s, count=1)
        s = _TRAILING_TIME.sub("", s).strip(" \t.,;:!-—–")
    return s


# --------------------------------------------------------------------------------------
# Noun phrases: tails, owners, determiners
# --------------------------------------------------------------------------------------

_FLAGS = re.IGNORECASE

# Ownership clauses at the end of a noun phrase (context rule 4). ``strict`` means the
# owner must look like a person or team before the clause is split off ("data from the
# warehouse" keeps its name).
_OWNER_TAILS: tuple[tuple[re.Pattern[str], bool], ...] = tuple(
    (re.compile(p, _FLAGS), strict)
    for p, strict in (
        (
            r"(?P<head>.+?),?\s+(?:which|that)\s+(?:is\s+|are\s+)?(?:owned|run|driven|led"
            r"|handled|managed|built|maintained)\s+by\s+(?P<o>.+)",
            False,
        ),
        (
            r"(?P<head>.+?),?\s+(?:which|that)\s+(?P<o>.+?)\s+(?:owns|own|is working on"
            r"|are working on|is handling|are handling|is driving|are driving|is leading"
            r"|are leading|leads|lead|drives|drive|handles|handle|is on|are on"
            r"|is responsible for|are responsible for|is building|are building|maintains"
            r"|maintain|is doing|are doing)",
            False,
        ),
        (r"(?P<head>.+?),?\s+(?:which|that)\s+(?:belongs|belong)\s+to\s+(?P<o>.+)", False),
        (
            r"(?P<head>.+?),?\s+(?:owned|run|driven|led|handled|managed|maintained)\s+by"
            r"\s+(?P<o>.+)",
            False,
        ),
        (r"(?P<head>.+)[\s,]+(?:from|by)\s+(?P<o>.+)", True),
    )
)

_OBJ_VERBS = (
    r"start|ship|finish|land|merge|release|deploy|launch|continue|begin|complete|roll out"
    r"|resume|work on|move forward with|move forward on|move on|proceed with|make progress on"
    r"|progress on|pick up|kick off"
)
_BEFORE_START = re.compile(
    rf"(?P<head>.+?)\s+before\s+(?:we|I|they|he|she)\s+(?:can|could)\s+(?:{_OBJ_VERBS})"
    r"\s+(?P<z>.+)",
    re.IGNORECASE,
)
_FOR_TAIL = re.compile(r"(?P<head>.+?)\s+for\s+(?P<z>(?:the|our|my|his|her|their)\s+.+)", _FLAGS)

_DONE_WORDS = (
    r"land|ship|finish|merge|complete|go out|go live|get done|be done|be merged|be finished"
    r"|be ready|be deployed|be released|be shipped|be fixed|be resolved|be approved|be landed"
    r"|be completed|be sorted|wrap up|roll out|clear|get merged|get shipped|get fixed"
    r"|get approved|get sorted|happen|done|merged|finished|ready|deployed|released|shipped"
    r"|fixed|resolved|approved|unblock us|unblock me|unblock it|be available"
)
_STATE_WORDS = (
    r"ready|done|finished|merged|landed|shipped|available|complete|completed|deployed"
    r"|released|in|out|there|live|approved|fixed|resolved|sorted|unblocked|stable|sorted out"
)

# Tails after a blocker that say *when* it unblocks, not what it is.
_TAILS: tuple[re.Pattern[str], ...] = tuple(
    re.compile(p, _FLAGS)
    for p in (
        rf"(?P<head>.+?)\s+(?:to|till it|until it)\s+(?:{_DONE_WORDS})(?:\s+(?:first|out|up"
        r"|in|live|in main|on main|to prod|to production))?",
        r"(?P<head>.+?)\s+(?:(?:has|have|had)\s+)?(?:lands|ships|finishes|merges|is done"
        r"|is ready|is merged|is finished|is complete|is completed|is deployed|is released"
        r"|is shipped|is fixed|is resolved|is in|is out|is live|goes out|goes live|gets done"
        r"|gets merged|gets shipped|gets fixed|clears|wraps up|rolls out|landed|shipped|merged"
        r"|finished|completed|gone out|went out|went live|been merged|been shipped"
        r"|been deployed|been released|is approved|gets approved|is sorted|is sorted out"
        r"|got merged|got fixed|got done|got shipped|is available|becomes available)"
        r"(?:\s+(?:first|in main|on main|to prod|to production))?",
        rf"(?P<head>.+?)\s+(?:is|are|has|have)\s+(?:not|never)\s+(?:been\s+)?(?:{_STATE_WORDS})",
        r"(?P<head>.+?)\s+(?:is|are|was|were)\s+(?:late|slipping|delayed|behind|behind schedule"
        r"|blocked|stuck|stalled|pending|in progress|in review|under review|not ready|broken"
        r"|down|flaky|red)",
        r"(?P<head>.+?)\s+(?:slipped|slips|slid|broke|failed|regressed|went down|got delayed)",
        r"(?P<head>.+?)\s+(?:first|anymore|any more|any longer)",
        r"(?P<head>.+?)\s+(?:before|so that|so)\s+.+",
        r"(?P<head>.+?)\s*,\s*(?:which|that|who|but|so|and then|and we|and I|though|although"
        r"|hopefully|eta|expected|probably|maybe|since|because|as|meaning|which means)\b.*",
        r"(?P<head>.+?)\s+(?:eta|ETA)\b.*",
        r"(?P<head>.+?)\s+(?:which|that|who)\s+(?:is|are|was|were|has|have|should|will|might"
        r"|may)\b.*",
        r"(?P<head>.+?)\s+(?:in|on|into|to)\s+(?:main|master|prod|production|staging|trunk)",
    )
)

# "until the backend team ships the auth refactor": the blocker is the refactor.
_AGENT_VERB_HEAD = re.compile(
    r"(?P<o>.+?)\s+(?:ships|lands|finishes|delivers|merges|completes|wraps up|rolls out"
    r"|releases)\s+(?P<rest>.+)",
    _FLAGS,
)
_LEADING_ARTICLE = re.compile(r"\A(?:the|a|an|these|those)\s+", _FLAGS)
_DEMONSTRATIVE = re.compile(r"(?:this|that)\s+(?=\S+\s+\S)", _FLAGS)
_POSSESSIVE_DET = re.compile(r"(?P<det>my|our|his|her|their|your)\s+(?P<rest>.+)", _FLAGS)
_POSSESSIVE_NAME = re.compile(r"(?P<o>.+?)'s\s+(?P<rest>.+)")
_PUNCT = " \t.,;:!?'\"()[]{}<>-—–*_"

_ITEM_SPLIT = re.compile(
    r"\s*,\s*(?:and\s+|&\s+)?(?!\s|(?:which|that|who|owned|run|driven|led|handled|managed"
    r"|maintained|from|by|so|but|because|since|as|eta|hopefully|expected|probably|maybe"
    r"|though|although|meaning|and then|and we|and i|to|until|before|first|for|in|on)\b)"
    r"|\s+(?:and|&)\s+(?=(?:the|a|an|our|my|their|his|her)\s)"
    r"|\s+(?:and|&)\s+(?=[A-Z][\w-]*'s\s)|\s+\+\s+",
    re.IGNORECASE,
)
_MEMBER_OF = re.compile(
    r"(?P<who>.+?)\s+(?:from|of|on|in)\s+(?:the\s+)?\S+(?:\s+\S+)?\s+team", _FLAGS
)
_AGENT_SPLIT = re.compile(r"\s*,\s*(?:and\s+)?|\s+(?:and|&)\s+|\s*/\s*", re.IGNORECASE)


def _trim(text: str) -> str:
    """Strip surrounding whitespace and punctuation from a captured phrase."""
    return " ".join(text.split()).strip(_PUNCT)


@dataclass(frozen=True, slots=True)
class _Phrase:
    """A noun phrase split into its name and the ownership it states about itself."""

    core: str
    owners: tuple[str, ...] = ()


def _parse_phrase(raw: str, *, target: bool = True, from_owner: bool = True) -> _Phrase:
    """Peel tails, ownership clauses, determiners and possessives off a noun phrase.

    ``target`` phrases (blockers, objects) also lose "to land", "isn't ready" and similar
    tails; subjects keep them so "X is done and Y" is never misread as "X". The loop runs
    until nothing changes so tails can appear in any order ("the auth refactor from the
    backend team to land").
    """
    text = _trim(raw)
    owners: list[str] = []
    changed = True
    while changed and text:
        changed = False
        for pattern, strict in _OWNER_TAILS:
            m = pattern.fullmatch(text)
            if m and _agent_shaped(_trim(m["o"]), strict=strict):
                if from_owner or not strict:  # "took over X from Bob": Bob is not the owner
                    owners.append(_trim(m["o"]))
                text, changed = _trim(m["head"]), True
                break
        if changed:
            continue
        for pattern in _TAILS if target else ():
            if m := pattern.fullmatch(text):
                text, changed = _trim(m["head"]), True
                break
    if target and (m := _AGENT_VERB_HEAD.fullmatch(text)) and len(m["o"].split()) <= 4:
        if _agent_shaped(_trim(m["o"]), strict=True):
            owners.append(_trim(m["o"]))
        text = _trim(m["rest"])
    if text.lower() in _REFS:
        return _Phrase(text, tuple(owners))
    text = _strip_determiners(text, owners)
    return _Phrase(text, tuple(owners))


def _strip_determiners(text: str, owners: list[str]) -> str:
    """Remove a leading article or possessive, recording the possessor as an owner."""
    if m := _LEADING_ARTICLE.match(text):
        text = text[m.end() :]
    if m := _POSSESSIVE_DET.fullmatch(text):
        det = m["det"].lower()
        pronoun = {"my": "I", "our": "we", "his": "he", "her": "she"}
        if det in pronoun:
            owners.append(pronoun[det])
        text = m["rest"]
    elif m := _POSSESSIVE_NAME.fullmatch(text):
        if _agent_shaped(_trim(m["o"]), strict=True):
            owners.append(_trim(m["o"]))
            text = m["rest"]
    elif (m := _DEMONSTRATIVE.match(text)) and text.lower() not in _REFS:
        text = text[m.end() :]
    if m := _LEADING_ARTICLE.match(text):
        text = text[m.end() :]
    return _trim(text)


def _split_waiters(raw: str) -> list[str]:
    """Split 'the X and the Y' like items, but also 'Sofia and I' (people need no article)."""
    parts = _ITEM_SPLIT.split(_trim(raw))
    if len(parts) == 1:
        people = _AGENT_SPLIT.split(parts[0])
        if len(people) > 1 and all(_agent_shaped(_trim(p), strict=True) for p in people):
            return people
    return parts


def _is_team(name: str) -> bool:
    """'backend team', 'SRE squad', 'Team Phoenix' are teams (a bare 'team' is not)."""
    words = name.lower().split()
    return len(words) >= 2 and (words[-1] in _TEAM_WORDS or words[0] == "team")


def _name_like(word: str) -> bool:
    """A capitalised given-name-shaped word that is not a common engineering noun."""
    low = word.lower()
    if not _NAME_TOKEN.fullmatch(word) or low in _NON_NAMES:
        return False
    return not (len(word) >= 6 and low.endswith(_NOUN_SUFFIXES))


def _agent_shaped(phrase: str, *, strict: bool) -> bool:
    """Could this phrase name a person or team? Used before any context is known."""
    core = _LEADING_ARTICLE.sub("", phrase, count=1)
    low = core.lower()
    if low in _PRONOUNS - {"it", "you"} or low in _SELF_GROUPS or _is_team(core):
        return True
    tokens = core.split()
    if len(tokens) == 1:
        if _name_like(core):
            return True
        if not strict and _LOOSE_NAME_TOKEN.fullmatch(core) and low not in _NON_NAMES:
            return True
    return len(tokens) == 2 and all(_name_like(t) for t in tokens)


def _valid_core(core: str) -> bool:
    """Reject captures that are clauses, quantities, times or too vague to be an entity."""
    if not core or not any(ch.isalnum() for ch in core):
        return False
    words = core.split()
    if len(words) > 8 or words[0].lower() in _PREPOSITIONS:
        return False
    for word in words:
        bare = word.strip(_PUNCT)
        if bare.lower() in _CLAUSE_WORDS and not _ACRONYM.fullmatch(bare):
            return False
    low = core.lower()
    if low in _VAGUE or _TIME_PHRASE.fullmatch(low):
        return False
    return not (_QUANTITY.match(core) or _GERUND_CLAUSE.match(core))


# --------------------------------------------------------------------------------------
# Per-text reading state
# --------------------------------------------------------------------------------------


@dataclass(slots=True)
class _Draft:
    """A fact before dedupe; ``tentative`` marks rule-1 author ownership."""

    source: EntityRef
    relation: Relation
    target: EntityRef
    sentence: str
    tentative: bool = False


@dataclass(slots=True)
class _Outcome:
    """What one pattern read from one clause, and the context it updates."""

    drafts: list[_Draft] = field(default_factory=list)
    items: list[EntityRef] = field(default_factory=list)
    people: list[EntityRef] = field(default_factory=list)
    teams: list[EntityRef] = field(default_factory=list)
    current: list[tuple[str, EntityRef]] = field(default_factory=list)


def _key(ref: EntityRef) -> str:
    """Case-insensitive identity of an entity inside one text."""
    return f"{ref.type}:{ref.name.casefold()}"


class _Reader:
    """Reads one text sentence by sentence, carrying the context rules need.

    The state lives only for one ``extract`` call; nothing module-level is mutated.
    """

    def __init__(self, text: str, author: str | None) -> None:
        self.author = author.strip() if author and author.strip() else None
        self.lower_words = frozenset(
            w for w in re.findall(r"[A-Za-z][A-Za-z'-]*", text) if w == w.lower()
        )
        self.last_item: EntityRef | None = None
        self.last_person: EntityRef | None = None
        self.last_team: EntityRef | None = None
        self.current: dict[str, EntityRef] = {}
        self.waits: dict[str, list[EntityRef]] = {}
        self.owner_of: dict[str, EntityRef] = {}
        self.sentence = ""
        self.subject: str | None = None

    # -- entity resolution -------------------------------------------------------------

    @property
    def author_ref(self) -> EntityRef | None:
        """The author as a person, when known."""
        return EntityRef(self.author, PERSON) if self.author else None

    @property
    def self_key(self) -> str:
        """Key under which the author's current work item is kept ('' when anonymous)."""
        return _key(self.author_ref) if self.author_ref else ""

    def _is_author(self, name: str) -> bool:
        if not self.author:
            return False
        low, author = name.casefold(), self.author.casefold()
        return low == author or low == author.split()[0]

    def _pronoun(self, low: str) -> EntityRef | None:
        """Resolve a personal pronoun (or 'the team') to an entity, or None."""
        if low in _FIRST_PERSON or low in _SELF_GROUPS:
            return self.author_ref
        if low in _THIRD_PERSON:
            return self.last_person or self.author_ref
        if low in _PLURAL_PERSON:
            return self.last_team or self.author_ref
        return None

    def _person_like(self, core: str) -> bool:
        """Single capitalised name-shaped word never written in lowercase in this text."""
        return _name_like(core) and core.lower() not in self.lower_words

    def agent(self, raw: str, out: _Outcome, *, loose: bool = False) -> EntityRef | None:
        """Resolve a phrase in a person-or-team slot (owner, doer)."""
        core = _trim(raw)
        low = core.lower()
        if low in _FIRST_PERSON | _THIRD_PERSON | _PLURAL_PERSON | _SELF_GROUPS:
            return self._pronoun(low)
        core = _trim(_LEADING_ARTICLE.sub("", core, count=1))
        if (m := _MEMBER_OF.fullmatch(core)) and _agent_shaped(m["who"], strict=True):
            core = _trim(m["who"])  # "Dana from the identity team" is Dana
        if not _valid_core(core) and not _is_team(core):
            return None
        ref: EntityRef | None = None
        tokens = core.split()
        if _is_team(core):
            ref = EntityRef(core, TEAM)
        elif self._is_author(core):
            return self.author_ref
        elif len(tokens) == 1 and _name_like(core):
            ref = EntityRef(core, PERSON)
        elif len(tokens) == 1 and _ACRONYM.fullmatch(core) and low not in _NON_NAMES:
            ref = EntityRef(core, TEAM)
        elif (
            loose
            and len(tokens) == 1
            and _LOOSE_NAME_TOKEN.fullmatch(core)
            and low not in _NON_NAMES
            and not low.endswith(_NOUN_SUFFIXES)
        ):
            ref = EntityRef(core, PERSON)
        elif len(tokens) == 2 and all(_name_like(t) for t in tokens):
            ref = EntityRef(core, PERSON)
        if ref is not None:
            (out.teams if ref.type is TEAM else out.people).append(ref)
        return ref

    def agents(self, raw: str, out: _Outcome, *, loose: bool = False) -> list[EntityRef] | None:
        """Resolve a list of owners/doers ('Alice and Bob'); None if any part fails."""
        refs = [self.agent(part, out, loose=loose) for part in _AGENT_SPLIT.split(_trim(raw))]
        if not refs or any(r is None for r in refs):
            return None
        return [r for r in refs if r is not None]

    def _ref_item(self, core: str) -> EntityRef | None:
        return self.last_item if core.lower() in _REFS else None

    def item(self, phrase: _Phrase, out: _Outcome) -> EntityRef | None:
        """Resolve a phrase in a work-item slot; people, teams and junk are rejected."""
        core, low = phrase.core, phrase.core.lower()
        if low in _REFS:
            ref = self.last_item
        elif (
            low in _PRONOUNS
            or low in _SELF_GROUPS
            or _is_team(core)
            or self._is_author(core)
            or self._person_like(core)
            or not _valid_core(core)
        ):
            return None
        else:
            ref = EntityRef(core, ITEM)
        if ref is not None:
            out.items.append(ref)
        return ref

    def any_entity(self, phrase: _Phrase, out: _Outcome) -> EntityRef | None:
        """Resolve a phrase in a slot that takes a person, team or work item."""
        core, low = phrase.core, phrase.core.lower()
        if low in _REFS:
            return self.item(phrase, out)
        if low in _FIRST_PERSON | _THIRD_PERSON | _PLURAL_PERSON | _SELF_GROUPS:
            return self._pronoun(low)
        if _is_team(core) or self._is_author(core) or self._person_like(core):
            return self.agent(core, out)
        return self.item(phrase, out)

    def owners_of(self, phrase: _Phrase, item: EntityRef, out: _Outcome) -> bool:
        """Emit the ownership a noun phrase states about itself; True if it had any."""
        found = False
        for owner_raw in phrase.owners:
            owner = self.agent(owner_raw, out, loose=True)
            if owner is not None:
                self.draft(out, owner, Relation.OWNS, item)
                found = True
        return found

    def items(
        self, raw: str, out: _Outcome, *, target: bool = True, from_owner: bool = True
    ) -> list[tuple[EntityRef, _Phrase]] | None:
        """Resolve a list of work items ('X and the Y'); None if any part fails."""
        result: list[tuple[EntityRef, _Phrase]] = []
        for part in _ITEM_SPLIT.split(_trim(raw)):
            phrase = _parse_phrase(part, target=target, from_owner=from_owner)
            ref = self.item(phrase, out)
            if ref is None:
                return None
            result.append((ref, phrase))
        return result or None

    # -- drafting ----------------------------------------------------------------------

    def draft(
        self,
        out: _Outcome,
        source: EntityRef,
        relation: Relation,
        target: EntityRef,
        *,
        tentative: bool = False,
    ) -> None:
        """Add a fact if its endpoint types are allowed and it is not a self-loop."""
        sources, targets = RELATION_TYPES[relation]
        if source.type not in sources or target.type not in targets:
            return
        if _key(source) == _key(target):
            return
        out.drafts.append(_Draft(source, relation, target, self.sentence, tentative))

    def claim_item(self, item: EntityRef, phrase: _Phrase | None, out: _Outcome) -> None:
        """Rules 1 and 2: a reported blocked item is its owner's (default: author's)
        current work item, and the author owns it unless someone else is named."""
        owner_key = self.self_key
        if phrase is not None and phrase.owners:
            before = len(out.drafts)
            self.owners_of(phrase, item, out)
            owned = [d.source for d in out.drafts[before:] if d.relation is Relation.OWNS]
            if owned:
                owner_key = _key(owned[0])
        elif _key(item) in self.owner_of:
            owner_key = _key(self.owner_of[_key(item)])
        elif self.author_ref is not None:
            self.draft(out, self.author_ref, Relation.OWNS, item, tentative=True)
        out.current.append((owner_key, item))

    def self_source(self) -> EntityRef | None:
        """Implied or first-person waiter: the author's current work item, else the author."""
        return self.current.get(self.self_key) or self.author_ref

    def waiter(
        self, raw: str | None, out: _Outcome
    ) -> list[tuple[EntityRef, _Phrase | None, bool]] | None:
        """Resolve the waiting side of a blocker sentence.

        Returns (entity, phrase, is_agent) triples; agents are mapped to their current
        work item later, once the "for the Z" tail of the blocker has been read.
        """
        if raw is None:
            ref = self.self_source()
            return [(ref, None, ref.type is not ITEM)] if ref else None
        result: list[tuple[EntityRef, _Phrase | None, bool]] = []
        for part in _split_waiters(raw):
            phrase = _parse_phrase(part, target=False)
            low = phrase.core.lower()
            if not self.author and (low in _FIRST_PERSON or low in _SELF_GROUPS):
                ref = self.current.get("")
            else:
                ref = self.any_entity(phrase, out)
            if ref is None:
                return None
            result.append((ref, phrase, ref.type is not ITEM))
        return result

    def resolve_waiters(
        self,
        waiters: list[tuple[EntityRef, _Phrase | None, bool]],
        waiting_items: list[EntityRef],
        out: _Outcome,
        *,
        claim: bool,
    ) -> list[EntityRef]:
        """Map people/teams to the item they wait for (rule 2) and claim items (rule 1)."""
        sources: list[EntityRef] = []
        for ref, phrase, is_agent in waiters:
            if is_agent and waiting_items:
                for z in waiting_items:
                    self.draft(out, ref, Relation.OWNS, z, tentative=True)
                    out.current.append((_key(ref), z))
                    sources.append(z)
            elif is_agent:
                sources.append(self.current.get(_key(ref), ref))
            else:
                if claim:
                    self.claim_item(ref, phrase, out)
                elif phrase is not None:
                    self.owners_of(phrase, ref, out)
                sources.append(ref)
        return sources

    # -- relation handlers -------------------------------------------------------------

    def blocked(
        self, src_raw: str | None, tgt_raw: str, waiting_raw: str | None = None
    ) -> _Outcome | None:
        """``src_raw`` waits on ``tgt_raw`` (None: the author/current work item).

        ``waiting_raw`` (or a "for the Z" tail when the waiter is a person or team)
        names the work item that actually waits.
        """
        out = _Outcome()
        waiters = self.waiter(src_raw, out)
        if not waiters:
            return None
        tgt_raw = _trim(tgt_raw)
        if waiting_raw is None and any(is_agent for _, _, is_agent in waiters):
            if m := _FOR_TAIL.fullmatch(tgt_raw) or _BEFORE_START.fullmatch(tgt_raw):
                tgt_raw, waiting_raw = m["head"], m["z"]
        targets = self.items(tgt_raw, out)
        if targets is None:
            return None
        waiting_items: list[EntityRef] = []
        if waiting_raw is not None:
            found = self.items(waiting_raw, out, target=False, from_owner=False)
            if found is None:
                return None
            for z, phrase in found:
                self.owners_of(phrase, z, out)
                waiting_items.append(z)
        sources = self.resolve_waiters(waiters, waiting_items, out, claim=True)
        for target, phrase in targets:
            self.owners_of(phrase, target, out)
            for source in sources:
                self.draft(out, source, Relation.BLOCKED_BY, target)
        return out

    def stalled(self, src_raw: str) -> _Outcome | None:
        """``src_raw`` is blocked/stalled with no blocker named yet."""
        out = _Outcome()
        waiters = self.waiter(src_raw, out)
        if not waiters:
            return None
        self.resolve_waiters(waiters, [], out, claim=True)
        return out

    def unblocked(self, src_raw: str | None, tgt_raw: str | None) -> _Outcome | None:
        """``src_raw`` no longer waits on ``tgt_raw`` (or on what it waited on earlier)."""
        out = _Outcome()
        waiters = self.waiter(src_raw, out)
        if not waiters:
            return None
        sources = self.resolve_waiters(waiters, [], out, claim=False)
        if tgt_raw is None:
            for source in sources:
                if not self.waits.get(_key(source)) and src_raw and src_raw.lower() in _REFS:
                    source = self.current.get(self.self_key, source)  # "it's unblocked"
                for target in self.waits.get(_key(source), []):
                    self.draft(out, source, Relation.UNBLOCKED_FROM, target)
            return out
        targets = self.items(tgt_raw, out)
        if targets is None:
            return None
        for target, phrase in targets:
            self.owners_of(phrase, target, out)
            for source in sources:
                self.draft(out, source, Relation.UNBLOCKED_FROM, target)
        return out

    def owns(self, owner_raw: str | None, item_raw: str | None) -> _Outcome | None:
        """``owner_raw`` (None: the author) owns ``item_raw`` (None: the last work item)."""
        out = _Outcome()
        if owner_raw is None:
            owners = [self.author_ref] if self.author_ref else None
        else:
            owners = self.agents(owner_raw, out, loose=True)
        if item_raw is None:
            targets = [(self.last_item, _Phrase("it"))] if self.last_item else None
        else:
            targets = self.items(item_raw, out, from_owner=False)
        if not owners or not targets:
            return None
        for item, phrase in targets:
            self.owners_of(phrase, item, out)
            for owner in owners:
                self.draft(out, owner, Relation.OWNS, item)
        return out

    def owns_on(self, owner_raw: str, item_raw: str) -> _Outcome | None:
        """'X is on Y': ownership unless Y is hold/PTO/call...; 'bob is on it' is fine."""
        phrase = _parse_phrase(item_raw)
        low = phrase.core.lower()
        if low.split()[0:1] and low.split()[0] in _ON_STOPLIST:
            return None
        if low not in _REFS and not _agent_shaped(_trim(owner_raw), strict=True):
            return None
        return self.owns(owner_raw, item_raw)

    def completed(self, doer_raw: str | None, item_raw: str) -> _Outcome | None:
        """``doer_raw`` finished ``item_raw``; no doer means the author, else the owner."""
        out = _Outcome()
        targets = self.items(item_raw, out)
        if targets is None:
            return None
        doers: list[EntityRef] | None
        if doer_raw is not None:
            doers = self.agents(doer_raw, out, loose=True)
            if doers is None:
                return None
        for item, phrase in targets:
            had_owner = self.owners_of(phrase, item, out)
            if doer_raw is None:
                if self.author_ref:
                    doers = [self.author_ref]
                elif had_owner:
                    doers = [d.source for d in out.drafts if d.target == item]
                else:
                    doers = []
            for doer in doers or []:
                self.draft(out, doer, Relation.COMPLETED, item)
        return out

    # -- reading -----------------------------------------------------------------------

    def read_clause(self, clause: str) -> _Outcome | None:
        """Try the pattern table in order; the first pattern whose slots resolve wins.

        Records the clause's subject text (the group that opens the clause, if any) in
        ``self.subject`` so a following subjectless clause can borrow it.
        """
        self.subject = None
        if _SUBORDINATE.match(clause):
            return None
        for pattern, handler in _RULES:
            m = pattern.fullmatch(clause)
            if m is None:
                continue
            outcome = handler(self, m)
            if outcome is not None:
                opening = [g for g in m.groupdict() if m.start(g) == 0]
                self.subject = m[opening[0]] if opening else None
                return outcome
        return None

    def commit(self, out: _Outcome, clause: str) -> None:
        """Fold a clause's outcome into the context used by later clauses."""
        lowered = clause.lower()
        if out.items:
            ranked = sorted(
                enumerate(out.items),
                key=lambda pair: (lowered.rfind(pair[1].name.lower()), pair[0]),
            )
            self.last_item = ranked[-1][1]
        for owner_key, item in out.current:
            self.current[owner_key] = item
        for d in out.drafts:
            if d.relation is Relation.OWNS and not d.tentative:
                self.owner_of.setdefault(_key(d.target), d.source)
            if d.relation is Relation.BLOCKED_BY:
                waits = self.waits.setdefault(_key(d.source), [])
                if d.target not in waits:
                    waits.append(d.target)

    def end_sentence(self, outcomes: Iterable[_Outcome]) -> None:
        """People and teams named in this sentence become pronoun antecedents for the next."""
        for out in outcomes:
            for person in out.people:
                if not self._is_author(person.name):
                    self.last_person = person
            for team in out.teams:
                self.last_team = team


# --------------------------------------------------------------------------------------
# The pattern table
# --------------------------------------------------------------------------------------

_S = r"(?P<s>.+?)"
_T = r"(?P<t>.+)"
_SEP = r"(?:\s*(?::|->|—|–|\s-)\s*|\s+)"
_BE = (
    r"(?:is|are|am|was|were|has been|have been|had been|remains|remain"
    r"|stays|stay|seems to be|seems|seem|looks|look|got|gets|get|been|being|is being)"
)
_OPT_BE = rf"(?:{_BE}\s+)?"
_MOVE = (
    r"move(?:\s+(?:forward|ahead|on))?|proceed|progress|start|begin|continue|resume|ship|land"
    r"|launch|merge|finish|complete|release|deploy|roll out|go out|go live|go ahead"
    r"|go anywhere|happen|kick off|get started|get going|get done|make progress"
    r"|be (?:released|deployed|shipped|merged|done|finished|completed|started|landed)"
)
_WAIT_VERBS = (
    r"(?:hard\s+)?(?:blocked|stuck|stalled|held up|hung up|gated|parked|paused|on hold|frozen)"
    r"(?:\s+waiting\s+(?:on|for|upon)|\s+(?:on|upon|by|behind|until|till|pending|because of"
    r"|due to|because))"
    r"|(?:waiting|waits|waited|wait|sitting)\s+(?:on|for|upon|until|till)"
    r"|awaiting|awaits"
    r"|(?:depends|depend|depended|depending)\s+(?:on|upon)"
    r"|(?:dependent|dependant|contingent|conditional|reliant)\s+(?:on|upon)"
    r"|(?:hinges|hinge|hinged|hinging)\s+on"
    r"|requires|require|required"
    r"|pending(?:\s+on)?"
    r"|(?:stuck\s+)?behind"
    r"|(?:has|have|had|needs|need)\s+to\s+wait\s+(?:on|for|until)"
    rf"|(?:cannot|could not|will not|would not|does not|do not|did not|not able to|unable to"
    rf"|not going to)\s+(?:{_MOVE})\s+(?:until|till|before|without|because of|because"
    rf"|due to|ahead of|pending)"
    r"|not\s+(?:landing|shipping|moving|starting|launching|going out|going anywhere"
    r"|proceeding|happening|merging|progressing)\s+(?:until|till|before|without)"
)
_STALL_WORDS = (
    r"(?:hard\s+)?(?:blocked|stalled|stuck|on hold|paused|held up|frozen|parked|on ice)"
    r"|at a standstill|dead in the water|not moving|going nowhere"
    rf"|(?:cannot|could not|will not|not able to|unable to)\s+(?:{_MOVE})"
)
_NO_LONGER = (
    r"(?:blocked|waiting|stuck|stalled|held up|gated|dependent|depending|pending)"
    r"(?:\s+(?:on|by|for|behind|upon))?"
)
_UNBLOCKED_WORDS = (
    r"unblocked|unstuck|off hold|freed up|clear to (?:proceed|go|start|ship)"
    r"|free to (?:proceed|go|start|ship|move)|moving again|back on track"
)
_STATUS_WORDS = (
    r"slipping|late|delayed|at risk|flaky|broken|in progress|in review|under review"
    r"|behind schedule|on track|off track|red|yellow|green|amber|going well|underway"
    r"|kicking off|starting|next|up next|a mess|a priority|the priority|top priority"
    rf"|not (?:{_STATE_WORDS})"
)
_DONE_TV = (
    r"shipped|finished|completed|merged|landed|deployed|released|launched|cancelled|canceled"
    r"|wrapped up|closed out|finished up|delivered|rolled out|published|pushed out|shut down"
    r"|sunset|sunsetted|decommissioned|killed|descoped|de-scoped|scrapped|abandoned"
    r"|finalized|finalised|fixed|resolved|closed|wrapped"
)
_DONE_IV = (
    r"shipped|done|finished|complete|completed|landed|merged|deployed|released|launched|live"
    r"|out|cancelled|canceled|wrapped up|wrapped|closed|closed out|delivered|rolled out"
    r"|scrapped|killed|descoped|de-scoped|abandoned|shelved|in production|in prod|finalized"
    r"|finalised|out the door|over the line|across the line|resolved|fixed|decommissioned"
    r"|sunset|sunsetted|shut down|published|good to go|wrapped up"
)
_DONE_AUX = (
    r"(?:(?:is|are|was|were|has been|have been|had been|got|gets|has|have|had|went|is now)\s+)?"
)
_WHERE = r"(?:\s+(?:in|on|to|into)\s+(?:main|master|prod|production|staging|trunk))?"
_OWN_VERBS = (
    r"owns|own|owned|(?:the\s+)?owners?\s+(?:of|for)|(?:the\s+)?(?:DRI|lead|tech lead"
    r"|point person|owner)\s+(?:for|on|of)|point\s+on|on point for|responsible for"
    r"|accountable for|in charge of|on the hook for|tasked with|assigned(?:\s+to)?"
    r"|working on|works on|work on|worked on|handling|handles|handle|handled|driving|drives"
    r"|drive|drove|leading|leads|lead|led|managing|manages|covering|covers|tackling|tackles"
    r"|tackled|picking up|picked up|picks up|taking over|took over|takes over|taking on"
    r"|took on|building|builds|implementing|implements|owning|signed up for"
    r"|(?:will|going to|is going to|are going to)\s+(?:own|take|handle|drive|lead|pick up"
    r"|work on|take over|tackle|build)"
)

Handler = Callable[[_Reader, re.Match[str]], _Outcome | None]


def _g(m: re.Match[str], name: str) -> str | None:
    """An optional named group's text, or None."""
    return m.groupdict().get(name)


def _blocked(r: _Reader, m: re.Match[str]) -> _Outcome | None:
    """Rule adapter: waiter ``s`` (optional) is blocked by ``t``."""
    return r.blocked(_g(m, "s"), m["t"])


def _blocked_obj(r: _Reader, m: re.Match[str]) -> _Outcome | None:
    """Rule adapter: waiter ``s`` cannot progress on ``z`` until ``t``."""
    return r.blocked(_g(m, "s"), m["t"], waiting_raw=m["z"])


def _stalled(r: _Reader, m: re.Match[str]) -> _Outcome | None:
    """Rule adapter: ``s`` is blocked with no blocker named."""
    return r.stalled(m["s"])


def _unblocked(r: _Reader, m: re.Match[str]) -> _Outcome | None:
    """Rule adapter: ``s`` (optional) no longer waits on ``t`` (optional)."""
    return r.unblocked(_g(m, "s"), _g(m, "t"))


def _owns(r: _Reader, m: re.Match[str]) -> _Outcome | None:
    """Rule adapter: owner ``o`` (optional) owns ``w`` (optional)."""
    return r.owns(_g(m, "o"), _g(m, "w"))


def _owns_on(r: _Reader, m: re.Match[str]) -> _Outcome | None:
    """Rule adapter: 'O is on W'."""
    return r.owns_on(m["o"], m["w"])


def _owns_strict(r: _Reader, m: re.Match[str]) -> _Outcome | None:
    """Rule adapter for weak cues ('is with', 'is from'): owner must look like one."""
    if not _agent_shaped(_trim(m["o"]), strict=True):
        return None
    return r.owns(m["o"], m["w"])


def _mentioned(r: _Reader, m: re.Match[str]) -> _Outcome | None:
    """Rule adapter: a status line; records the work item for later 'it'."""
    out = _Outcome()
    return out if r.item(_parse_phrase(m["s"]), out) is not None else None


def _completed(r: _Reader, m: re.Match[str]) -> _Outcome | None:
    """Rule adapter: doer ``d`` (optional) completed ``w``."""
    return r.completed(_g(m, "d"), m["w"])


def _rule(pattern: str, handler: Handler) -> tuple[re.Pattern[str], Handler]:
    """Compile one case-insensitive table row."""
    return re.compile(pattern, re.IGNORECASE), handler


# Order matters: labels first, then "no longer blocked" before "blocked", blockers
# before completion and ownership, bare stalls last. The first rule whose slots all
# resolve wins.
_RULES: tuple[tuple[re.Pattern[str], Handler], ...] = (
    # Labels: "Blocked: X on Y", "Done: X", "Owner: Bob", "Working on: X".
    _rule(r"blocke(?:d|rs?)\s*:\s*(?:waiting|blocked|stuck)\s+(?:on|for|by)\s+" + _T, _blocked),
    _rule(
        r"blocked\s*:\s*(?P<s>.+?)\s*(?:->|,|—|–|:|\s-)\s*(?:(?:is|are)\s+)?(?:(?:waiting|blocked"
        r"|stuck|held up|gated|pending)\s+(?:on|for|by|behind)\s+|(?:needs|requires|depends on)"
        r"\s+)?" + _T,
        _blocked,
    ),
    _rule(r"blocked\s*:\s*(?P<s>.+?)\s+(?:on|by|behind|pending|until)\s+" + _T, _blocked),
    _rule(r"blocked\s*:\s*(?P<s>.+)", _stalled),
    _rule(
        r"(?:blockers?|blocked on|blocked by|waiting on|waiting for|depends on|dependencies|deps)"
        r"\s*:\s*" + _T,
        _blocked,
    ),
    _rule(
        r"(?:done|shipped|completed|complete|finished|landed|merged|released|deployed|launched"
        r"|cancelled|canceled)\s*:\s*(?P<w>.+)",
        _completed,
    ),
    _rule(r"(?:owners?|owned by|dri|assignee|assigned to|lead)\s*:\s*(?P<o>.+)", _owns),
    _rule(
        r"(?:working on|wip|in progress|current work|current focus|focus)\s*:\s*(?P<w>.+)", _owns
    ),
    _rule(r"unblocked\s*:\s*(?P<s>.+)", _unblocked),
    # Unblocked.
    _rule(_S + _SEP + _OPT_BE + r"no longer\s+" + _NO_LONGER + r"\s+" + _T, _unblocked),
    _rule(_OPT_BE + r"no longer\s+" + _NO_LONGER + r"\s+" + _T, _unblocked),
    _rule(
        _S + _SEP + _OPT_BE + r"not\s+" + _NO_LONGER + r"\s+(?P<t>.+?)\s+(?:anymore|any more"
        r"|any longer)",
        _unblocked,
    ),
    _rule(
        _S + r"\s+(?:no longer|(?:does|do) not)\s+(?:depends?|needs?|requires?)(?:\s+on)?\s+"
        r"(?P<t>.+?)(?:\s+(?:anymore|any more|any longer))",
        _unblocked,
    ),
    _rule(_S + r"\s+no longer\s+(?:depends?|needs?|requires?)(?:\s+on)?\s+" + _T, _unblocked),
    _rule(
        r"(?P<t>.+?)" + _SEP + _OPT_BE + r"no longer\s+(?:blocking|holding up|holding back|gating)"
        r"\s+(?P<s>.+)",
        _unblocked,
    ),
    _rule(
        _S + _SEP + _OPT_BE + r"no longer\s+(?:blocked|stuck|stalled|waiting|held up)", _unblocked
    ),
    _rule(
        _S + _SEP + _OPT_BE + rf"(?:{_UNBLOCKED_WORDS})(?:\s+(?:now that|since|because|as|from"
        r"|by|on|once|after)\s+" + _T + ")?",
        _unblocked,
    ),
    _rule(
        _S + rf"\s+(?:can|could|is able to|are able to|am able to)\s+(?:{_MOVE})\s+(?:now that"
        r"|since|because|as|after)\s+" + _T,
        _unblocked,
    ),
    _rule(r"(?P<t>.+?)\s+(?:has\s+)?(?:unblocked|unblocks)\s+(?P<s>.+)", _unblocked),
    _rule(
        r"now that\s+(?P<t>.+?),\s*" + _S + _SEP + _OPT_BE + rf"(?:{_UNBLOCKED_WORDS})", _unblocked
    ),
    _rule(
        _OPT_BE + rf"(?:no longer\s+(?:blocked|stuck|stalled|waiting)|{_UNBLOCKED_WORDS})",
        _unblocked,
    ),
    # Blocked, no subject: "Waiting on X", "blocked by X", "Needs X first".
    _rule(_OPT_BE + rf"(?:{_WAIT_VERBS})\s+" + _T, _blocked),
    _rule(
        r"(?:needs|need)\s+(?P<t>.+?)\s+(?:first|to\s+(?:land|ship|finish|merge|go out|go live"
        r"|get done|complete|be\s+\w+)(?:\s+first)?|before\s+.+)",
        _blocked,
    ),
    # Blocked: "I can't start X until Y lands", "we need Y before we can start X".
    _rule(
        r"(?:(?P<s>.+?)\s+)?(?:cannot|could not|will not|am not able to|are not able to"
        rf"|is not able to|am unable to|are unable to|is unable to|not able to|unable to)\s+"
        rf"(?:{_OBJ_VERBS})\s+(?P<z>.+?)\s+(?:until|till|before|without)\s+" + _T,
        _blocked_obj,
    ),
    _rule(
        r"(?:(?P<s>.+?)\s+)?(?:needs|need|needed)\s+(?P<t>.+?)\s+before\s+(?:we|I|they|he|she"
        rf"|it)\s+(?:can|could)\s+(?:{_OBJ_VERBS})\s+(?P<z>.+)",
        _blocked_obj,
    ),
    # Blocked: "X needs Y first", "X is blocked on Y", "Y is blocking X".
    _rule(
        _S + r"\s+(?:needs|need|needed)\s+(?P<t>.+?)\s+(?:first|to\s+(?:land|ship|finish|merge"
        r"|go out|go live|get done|complete|be\s+\w+)(?:\s+first)?|before\s+.+)",
        _blocked,
    ),
    _rule(_S + _SEP + _OPT_BE + rf"(?:{_WAIT_VERBS})\s+" + _T, _blocked),
    _rule(
        r"(?P<t>.+?)" + _SEP + _OPT_BE + r"(?:blocking|holding up|holding back|gating|stalling"
        r"|in the way of|(?:the|a|our|the main|the biggest|the only|a hard)?\s*(?:blocker"
        r"|blocking dependency|bottleneck|dependency|prerequisite|prereq|hard dependency)"
        r"\s+(?:for|of|on|to))\s+(?P<s>.+)",
        _blocked,
    ),
    _rule(
        r"(?P<t>.+?)\s+(?:blocks|block|holds up|holds back|held up|held back|gates|gated"
        r"|blocked)\s+(?P<s>.+)",
        _blocked,
    ),
    _rule(
        r"(?P<t>.+?)\s+(?:needs|need|has|have|must)\s+to\s+(?:land|ship|finish|merge|go out"
        r"|go live|be done|be merged|be shipped|be finished|be deployed|be released|happen"
        r"|complete)\s+(?:first\s+)?(?:before|for)\s+(?P<s>.+?)(?:\s+(?:can|could|is able to"
        r"|will|to)\s+.+)?",
        _blocked,
    ),
    _rule(
        r"(?P<t>.+?)\s+" + _OPT_BE + r"(?:needed|required)\s+(?:for|before)\s+(?P<s>.+?)"
        r"(?:\s+(?:can|could|to)\s+.+)?",
        _blocked,
    ),
    # Completed.
    _rule(r"(?P<d>.+?)\s+" + _OPT_BE + r"(?:done|finished)\s+with\s+(?P<w>.+)", _completed),
    _rule(
        r"(?P<d>.+?)\s+(?:got|gotten|has gotten|have gotten|managed to get)\s+(?P<w>.+?)\s+"
        r"(?:done|merged|shipped|out|out the door|deployed|released|over the line"
        r"|across the line|landed|finished|live|wrapped up)" + _WHERE,
        _completed,
    ),
    _rule(
        r"(?P<d>.+?)\s+(?:(?:has|have|had|did)\s+)?(?:" + _DONE_TV + r")\s+(?P<w>.+)",
        _completed,
    ),
    _rule(
        r"(?P<w>.+?)" + _SEP + _DONE_AUX + rf"(?:{_DONE_IV})" + _WHERE + r"(?:\s+by\s+(?P<d>.+))?",
        _completed,
    ),
    _rule(rf"(?:{_DONE_TV})\s+(?P<w>.+)", _completed),
    _rule(
        r"(?:got|managed to get)\s+(?P<w>.+?)\s+(?:done|merged|shipped|out|out the door"
        r"|deployed|released|over the line|across the line|landed|finished|live|wrapped up)"
        + _WHERE,
        _completed,
    ),
    # Owns.
    _rule(
        r"(?P<w>.+?)\s+" + _OPT_BE + r"(?:owned|handled|run|driven|led|managed|covered|taken"
        r"|picked up|built|being built|worked on|being worked on|being handled|being driven"
        r"|being led|maintained|championed)\s+by\s+(?P<o>.+)",
        _owns,
    ),
    _rule(
        r"(?P<w>.+?)\s+(?:belongs|belong|belonged|falls|fall|fell|sits|sit)\s+(?:to|with|under)"
        r"\s+(?P<o>.+)",
        _owns,
    ),
    _rule(
        r"(?P<w>.+?)\s+" + _OPT_BE + r"(?:assigned|given|allocated|delegated|handed off"
        r"|handed over|handed|reassigned)\s+to\s+(?P<o>.+)",
        _owns,
    ),
    _rule(r"(?P<w>.+?)\s+(?:is|are|was|were)\s+(?:with|from)\s+(?P<o>.+)", _owns_strict),
    _rule(
        r"(?P<w>.+?)\s+(?:is|are|was|were)\s+(?P<o>[^\s']+(?:\s+(?:team|squad|group|crew))?)'s",
        _owns_strict,
    ),
    _rule(r"(?P<o>.+?)\s+" + _OPT_BE + rf"(?:{_OWN_VERBS})\s+(?P<w>.+)", _owns),
    _rule(r"(?P<o>.+?)\s+(?:is|are|am|was|were)\s+on\s+(?P<w>.+)", _owns_on),
    _rule(r"(?:assigned|handed|handed off|gave)\s+(?P<w>.+?)\s+to\s+(?P<o>.+)", _owns),
    _rule(
        _OPT_BE + r"(?:working on|picking up|taking over|taking on|driving|leading|owning"
        r"|handling|tackling|took over|picked up|took on|started on|starting on)\s+(?P<w>.+)",
        _owns,
    ),
    # Stalled, blocker not named (yet).
    _rule(_S + _SEP + _OPT_BE + rf"(?:{_STALL_WORDS})", _stalled),
    # Status without a relation: no fact, but "it"/"Owner:" in the next sentence can
    # refer to the work item named here.
    _rule(_S + _SEP + _OPT_BE + rf"(?:{_STATUS_WORDS})", _mentioned),
)


# --------------------------------------------------------------------------------------
# Clauses and the public entry point
# --------------------------------------------------------------------------------------

# Clauses that state a condition, not a fact ("if X slips, Y will be blocked").
_SUBORDINATE = re.compile(
    r"(?:if|when|whenever|unless|once|whether|in case|as soon as|assuming|suppose|until"
    r"|after|before|hopefully|maybe|perhaps|probably|i think|we think|i guess|not sure)\b",
    re.IGNORECASE,
)

_RELATIVE_SPLIT = re.compile(
    r"(?P<main>.+?),?\s+which\s+(?P<rest>(?:is|are|was|were|has|have)\s+(?:been\s+)?(?:blocked"
    r"|waiting|stuck|stalled|held up|gated|shipped|done|landed|merged|dependent|pending"
    r"|on hold)\b[^,]*)",
    re.IGNORECASE,
)
_CLAUSE_SPLIT = re.compile(
    r"\s*[,;]\s*(?:and|but|so|while|whereas)?\s*|\s+(?:and|but|so|while|whereas)\s+",
    re.IGNORECASE,
)


# "X can't start until Y, owned by Amir, is done": an ownership aside in the middle of a
# sentence (often written as a parenthesis, which _normalise turns into commas). Read the
# sentence without it, then the aside as its own clause about the noun phrase before it,
# rather than splitting at the commas, which would make "is done" a completion of X.
_EMBEDDED_OWNER = re.compile(
    r"(?P<head>.+?),\s*(?P<own>owned by [^,]+|which [^,]+? owns?|handled by [^,]+"
    r"|from the [^,]+? team),\s*(?P<tail>.+)",
    re.IGNORECASE,
)
_NP_START = re.compile(
    r".*\b(?:until|till|because|since|before|after|on|by|for|behind|with|of|and|but|so)\s+",
    re.IGNORECASE,
)


def _split_embedded_owner(text: str) -> tuple[str, str] | None:
    """(sentence without the aside, the aside as a clause), or None."""
    m = _EMBEDDED_OWNER.fullmatch(text)
    if m is None:
        return None
    head, own = m["head"], m["own"].strip()
    phrase = _NP_START.sub("", head).strip()
    if not phrase:
        return None
    if own.lower().startswith("which"):
        owner = re.sub(r"^which\s+|\s+owns?$", "", own, flags=re.IGNORECASE)
        clause = f"{owner} owns {phrase}"
    else:
        clause = f"{phrase} is {own}"
    return f"{head} {m['tail']}", clause


def _read_sentence(reader: _Reader, sentence: str) -> list[_Outcome]:
    """Read one sentence: whole first, then relative or compound clauses as a fallback."""
    if sentence.rstrip().endswith("?"):
        return []
    reader.sentence = sentence
    text = _normalise(sentence)
    if not text:
        return []
    rel = _RELATIVE_SPLIT.fullmatch(text)
    if rel:
        main = reader.read_clause(rel["main"])
        if main is not None:
            reader.commit(main, rel["main"])
            rest = reader.read_clause("it " + rel["rest"])
            if rest is not None:
                reader.commit(rest, rel["rest"])
                return [main, rest]
            return [main]
    whole = reader.read_clause(text)
    if whole is not None:
        reader.commit(whole, text)
        return [whole]
    embedded = _split_embedded_owner(text)
    if embedded is not None:
        main = reader.read_clause(embedded[0])
        if main is not None:
            reader.commit(main, embedded[0])
            aside = reader.read_clause(embedded[1])
            if aside is None:
                return [main]
            reader.commit(aside, embedded[1])
            return [main, aside]
    outcomes: list[_Outcome] = []
    parts = [p for p in _CLAUSE_SPLIT.split(text) if p and p.strip()]
    if len(parts) < 2 or _SUBORDINATE.match(text):
        return outcomes
    previous_subject: str | None = None
    for part in parts:
        part = _normalise(part)
        out = reader.read_clause(part)
        subject = reader.subject
        if subject is None and previous_subject is not None:
            # "The data team owns X and is working on Y": Y's owner is the data team.
            borrowed = reader.read_clause(f"{previous_subject} {part}")
            if borrowed is not None:
                out, subject = borrowed, previous_subject
        if out is not None:
            reader.commit(out, part)
            outcomes.append(out)
            previous_subject = subject
    return outcomes


def extract(text: str, author: str | None) -> Extraction:
    """Read blocker, ownership, completion and unblock facts from one status update.

    ``author`` is who wrote the update: first-person pronouns and subjectless bullets
    refer to them, and they own the work their update reports as blocked (rule 1)
    unless the text names another owner. Sentences that yield no fact are returned,
    stripped, in ``Extraction.unparsed``; nothing is guessed from them.
    """
    reader = _Reader(text, author)
    drafts: list[_Draft] = []
    unparsed: list[str] = []
    per_sentence: list[tuple[str, list[_Draft]]] = []
    for sentence in _split_sentences(text):
        outcomes = _read_sentence(reader, sentence)
        reader.end_sentence(outcomes)
        found = [d for out in outcomes for d in out.drafts]
        per_sentence.append((sentence, found))
        drafts.extend(found)

    explicit: dict[str, set[str]] = {}
    for d in drafts:
        if d.relation is Relation.OWNS and not d.tentative:
            explicit.setdefault(_key(d.target), set()).add(_key(d.source))

    def keep(d: _Draft) -> bool:
        """Rule 1: author ownership stands only if nobody else is named as owner."""
        if not d.tentative:
            return True
        return explicit.get(_key(d.target), set()) <= {_key(d.source)}

    facts: list[ExtractedFact] = []
    seen: set[tuple[str, Relation, str]] = set()
    for sentence, found in per_sentence:
        kept = [d for d in found if keep(d)]
        if not kept:
            unparsed.append(sentence)
        for d in kept:
            identity = (_key(d.source), d.relation, _key(d.target))
            if identity in seen:
                continue
            seen.add(identity)
            facts.append(ExtractedFact(d.source, d.relation, d.target, d.sentence))
    return Extraction(facts=facts, unparsed=unparsed)

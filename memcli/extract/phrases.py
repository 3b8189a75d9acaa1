"""Noun phrases and entities: what a slot of a predicate frame may hold.

A frame (``memcli.extract.core``) captures raw text for each argument role; this
module turns that text into a clean name: it peels ownership clauses ("owned by the data
team", "from the backend team"), *when* tails ("to land", "isn't ready"), determiners and
possessives ("Bob's X" -> X, owner Bob), container heads ("progress on X", "the rest of
X" -> X), keeps ticket and PR references (#123, PROJ-42, org/repo#12) whole, splits
lists ("X and the Y", "X & Y", "X/Y" for references), and decides whether a phrase can
be a person, a team or a work item. Pure functions over strings; no state.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import lru_cache


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
    tbd eta fyi btw wip okr okrs roadmap plan planning hold track schedule time pto lgtm
    ptal ack nack imo tbh afaik mon tue tues wed thu thur thurs fri sat sun
    vacation leave holiday call break point board fire site radar ice pause standby main
    master trunk progress blockers blocker waiting stuck stalled landed merged yes no ok
    okay thanks great good bad next last first then also however meanwhile overall
    blockers dependencies dependency sprint retro standup demo launch go live helm docker
    aws gcp azure s3 ec2 lambda vercel heroku nginx graphql rest grpc oauth saml ldap okta
    auth0 sentry datadog grafana prometheus elasticsearch opensearch snowflake bigquery
    airflow spark hadoop react vue angular node python java golang rust swift kotlin
    """
)

# Words a line opens with, capitalised, that are verbs, labels or times rather than
# people: "Took point on X", "Slipped: Y", "Reason: Z", "handing over at noon".
_NOT_NAMES = _words(
    """
    took got made did spent went wrote sent kept left came gave began found saw ran built
    slipped slips shipped landed fixed finished closed completed released deployed
    delivered migrated resolved wrapped started paired reviewed tested added moved cleaned
    helped investigated debugged synced pushed opened filed raised dug grabbed claimed
    picked handed drove led owned managed handled parked paused delayed held carried
    reason reasons risk risks summary outcome outcomes result results decision context
    background impact scope asks noon midnight morning afternoon evening later nvm
    q1 q2 q3 q4 h1 h2 fy hey hi hello hiya yo goes comes sits belongs ties relates
    """
)
_NON_NAMES = _NON_NAMES | _NOT_NAMES

# Noun suffixes that make a capitalised word a thing, not a given name.
_NOUN_SUFFIXES = ("ing", "tion", "sion", "ment", "ness", "ity", "ics", "ware", "base", "flow")

_TEAM_WORDS = _words(
    "team squad group crew office department dept org organisation organization division"
    " unit desk guild chapter pod tribe committee board folks"
)
# Organisational units that name a group on their own ("the backend's endpoint",
# "treasury's FX feed", "SRE's rotation change"): a possessive of one names an owner.
_ORG_UNITS = _words(
    """
    backend frontend infra infrastructure platform security secops legal finance treasury
    marketing sales support ops devops design product qa sre hr compliance procurement
    dba dbas networking growth research analytics engineering eng accounting payroll
    partnerships facilities operations tooling
    """
)

_FIRST_PERSON = _words("i me myself we us ourselves")
_SELF_GROUPS = frozenset({"team", "the team", "our team", "my team", "the whole team", "we all"})
_THIRD_PERSON = _words("she he her him")
_PLURAL_PERSON = _words("they them")
_PRONOUNS = _FIRST_PERSON | _THIRD_PERSON | _PLURAL_PERSON | _words("you it")

# "The same X" refers back to an X named before, in this update or an earlier one
# (``identity.short_forms`` finds the latter); after these heads it names nothing.
_SAME_VAGUE = frozenset(
    "thing things issue issues problem problems one ones stuff reason place boat story "
    "way time ticket page wall spot blocker blockers error deal".split()
)

# Phrases that refer back to the most recently mentioned work item (context rule 3).
_REFS = frozenset(
    {
        "it",
        "that",
        "this",
        "those",
        "these",
        "them",
        "the same",
        "same",
        "the case",
        "top of it",
        "a piece of work",
        "piece of work",
        "the piece of work",
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
                "piece of work",
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
    requires done got get gets getting expects expect expected planned hopes
    wants want wanted going decided thanks
    """
)

# Clause words ending in "-ing" that head no compound noun ("breakfast, anything").
_NO_HEAD_ING = _words("nothing anything being getting waiting")

# Whole phrases too vague to be a work item.
_VAGUE = _words(
    """
    something anything nothing everything stuff things thing none n/a na tbd nobody
    someone anyone everyone lots more others work help input feedback answers answer
    response responses reply replies progress people folks schedule track hold time
    approval approvals review reviews sign-off signoff go-ahead greenlight decision
    decisions info information details it's coffee lunch dinner breakfast food pizza
    checks tests builds itself themselves himself herself myself ourselves yourself
    comment comments note notes link links label labels reviewer reviewers screenshot
    screenshots context thoughts build following interviews interview meetings side end
    train bus flight taxi kids kid dog weather laundry snacks tea package parcel
    """
) | frozenset({"other things", "other stuff", "other teams", "a lot", "the go-ahead"})
_VAGUE |= frozenset({"kind of", "sort of", "kinda", "sorta", "not really"})
# A pointer into the text itself ("Blockers: see above"): no item of its own.
_VAGUE |= frozenset({"above", "see above", "as above", "below", "see below", "as below"})
_VAGUE |= frozenset({"up", "off", "out", "down"})  # a verb's particle: "Leon is finishing up"
_VAGUE |= frozenset({"ci run", "ci runs", "a green build", "green ci", "ci checks", "green build"})

# Everyday nouns: "waiting on my coffee" is not a dependency.
_EVERYDAY = _words(
    "coffee lunch dinner breakfast food pizza train bus flight taxi kids dog weather laundry"
    " snacks tea haircut dentist doctor groceries laptop phone wifi internet keyboard monitor"
    " car commute headphones shuttle cab uber ferry plane"
)

# Everyday nouns that never modify a work item's name ("dentist appointment").
_PERSONAL = _words(
    "coffee lunch dinner breakfast food pizza snacks tea haircut dentist doctor groceries"
    " laundry kids dog commute weather"
)

# Words before an everyday noun that keep it everyday ("morning coffee", "late train").
_CASUAL = _words(
    "my our your his her their the a morning afternoon evening iced hot cold quick late"
    " early delayed next last first team family usual new replacement spare loaner"
)

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
    |q[1-4]|(?:this|last|next)\ (?:week|sprint|month|quarter|cycle|term|semester|round|year)""",
    re.IGNORECASE | re.VERBOSE,
)
# The last word of every ``_TIME_PHRASE``: a phrase ending in another word is no time.
_TIME_PHRASE_ENDS = frozenset(
    """minute minutes hour hours day days week weeks month months sprint sprints quarter
    quarters while bit today tomorrow yesterday tonight monday tuesday wednesday thursday
    friday saturday sunday weekend eod eow q1 q2 q3 q4 cycle term semester round year""".split()
)
_QUANTITY = re.compile(
    r"(?:\d+(?:[.,]\d+)?\s+(?:million|thousand|billion|hundred)|\d+|one|two|three|four|five|six|seven|eight|nine|ten|several|some|many|few|a few"
    r"|a couple(?: of)?|couple of|a bunch of|bunch of|lots of|a lot of|multiple|various|all"
    r"|most|any|every|each|no)\s",
    re.IGNORECASE,
)
_GERUND_CLAUSE = re.compile(
    r"\w+ing\s+(?:(?:on|at|with|for|to|through|into|up|over)\s+)?(?:the|a|an|our|my|his|her"
    r"|their|some|all|this|that|these|those)\s",
    re.IGNORECASE,
)
_NAME_SHAPE = re.compile(r"[^\W\d_]{2,}(?:[-'][^\W\d_]+)*")


_NAME_PARTS = re.compile(r"[-']")


def _name_token(word: str, *, loose: bool = False) -> bool:
    """'Priya', 'Hee-won', 'Björn', 'O'Neil' (any script); ``loose`` also 'priya'."""
    if not _NAME_SHAPE.fullmatch(word):
        return False
    parts = _NAME_PARTS.split(word) if "-" in word or "'" in word else [word]
    if not loose and not parts[0][0].isupper():
        return False
    return all(not part[1:] or part[1:].islower() for part in parts)


_ACRONYM = re.compile(r"[A-Z]{2,5}")
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
        (  # "until the retention confirmation is obtained from the records team"
            r"(?P<head>.+?)\s+(?:is|are|gets|get|has been|have been)\s+(?:obtained|received"
            r"|provided|delivered|issued|signed|approved|confirmed)\s+(?:from|by)\s+(?P<o>.+)",
            True,
        ),
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
    r"|progress on|pick up|kick off|touch|tackle|get to|look at|build|wire up|test|integrate"
    r"|enable|turn on|cut|do|write|finish up|wrap up"
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
        r"(?P<head>.+?)\s+(?:is|are|gets|get|has been|have been)\s+[a-z]+(?:ed|en)",
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
# A word ``_AGENT_VERB_HEAD`` needs: most phrases have none, and the search is skipped.
_AGENT_VERB_WORDS = frozenset(
    "ships lands finishes delivers merges completes wraps rolls releases".split()
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
    r"|\s+(?:and|&)\s+(?=[A-Z][\w-]*'s\s)|\s+\+\s+"
    r"|\s+(?:plus|as\s+well\s+as|along\s+with)\s+(?=(?:the|a|an|our|my|their|his|her)\s)",
    re.IGNORECASE,
)


def split_items(text: str) -> list[str]:
    """``_ITEM_SPLIT.split(text)``: every split needs a comma, "and", "&" or "+", and most
    phrases name one item, so those without any are returned whole without a search."""
    if (
        "," in text
        or "&" in text
        or "+" in text
        or "and" in text.casefold()
        or " plus " in text
        or " as well as " in text
        or " along with " in text
    ):
        if " between " in text.casefold() and "," not in text:
            return [text]  # "the link between the gateway and billing" is one item
        return _ITEM_SPLIT.split(text)
    return [text]


def split_named_items(text: str) -> list[str]:
    """``split_items``, except that a description and the ticket id after its comma are
    one item ("the ticket for the ward printers, INC-30912"), and that a possessive shared
    by two owners is one item of each ("Tomas and Kai's batcher")."""
    if text.count(",") == 1 and _named_ticket(text):
        return [text]
    return split_items(_shared_possessive(text))


# "Tomas and Kai's payout batcher", "Priya's and Kai's fixes": one thing (or one kind of
# thing) with two owners, not a list of a person and an item. Written out as "Tomas's X
# and Kai's X" so each owner is read from its own possessive.
_SHARED_POSSESSIVE = re.compile(
    r"(?P<a>[A-Z][\w-]+)(?:['’]s)?\s+(?:and|&)\s+(?P<b>[A-Z][\w-]+)['’]s\s+(?P<x>\S.*)"
)


def _shared_possessive(text: str) -> str:
    """``_SHARED_POSSESSIVE`` written out (see there); other text as it is."""
    if "'" not in text and "’" not in text:
        return text
    m = _SHARED_POSSESSIVE.fullmatch(text)
    if m is None or not (_name_like(m["a"]) or _orgish(m["a"])) or not _name_like(m["b"]):
        return text
    return f"{m['a']}'s {m['x']} and {m['b']}'s {m['x']}"


_MEMBER_OF = re.compile(
    r"(?P<who>.+?)\s+(?:from|of|on|in)\s+(?:the\s+)?\S+(?:\s+\S+)?\s+team", _FLAGS
)
# A person named with the group they sit in, without the word "team": "Marcus in
# integration", "Ife from the data team". The person owns; the group only says where to
# find them (``_Reader.owns``).
_MEMBER_IN = re.compile(
    r"(?!(?:One|Two|Three|Four|Five|Six|Both|All|Some|Most|Several|Few|Many|None|Each|Either"
    r"|Neither|Any|Half|Rest|Everyone|Someone|Anyone|Nobody)\b)"
    r"(?P<who>[A-Z][\w'’.-]*(?:\s+[A-Z][\w'’.-]*)?)\s+(?:in|from|on|at)\s+(?:the\s+)?"
    r"[A-Za-z][\w-]*(?:\s+[A-Za-z][\w-]*)?\Z"
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


@lru_cache(maxsize=64)  # one update asks again and again, frame after frame
def _parse_phrase(raw: str, *, target: bool = True, from_owner: bool = True) -> _Phrase:
    """Peel tails, ownership clauses, determiners and possessives off a noun phrase.

    ``target`` phrases (blockers, objects) also lose "to land", "isn't ready" and similar
    tails; subjects keep them so "X is done and Y" is never misread as "X". The loop runs
    until nothing changes so tails can appear in any order ("the auth refactor from the
    backend team to land").
    """
    text = _trim(raw)
    owners: list[str] = []
    changed = (  # most phrases have no tail at all: a word test, then one search
        " " in text
        and not _TAIL_ANCHORS.isdisjoint(text.lower().replace(",", " ").split())
        and _ANY_TAIL.search(text) is not None
    )
    while changed and text:
        changed = False
        for pattern, strict in _OWNER_TAILS:
            m = pattern.fullmatch(text)
            owner = _trim(m["o"]) if m else ""
            if m and (_agent_shaped(owner, strict=strict) or _is_org(owner) or _orgish(owner)):
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
    if (
        target
        and not _AGENT_VERB_WORDS.isdisjoint(text.casefold().split())
        and (m := _AGENT_VERB_HEAD.fullmatch(text))
        and len(m["o"].split()) <= 4
    ):
        if _agent_shaped(_trim(m["o"]), strict=True):
            owners.append(_trim(m["o"]))
        text = _trim(m["rest"])
    if text.lower() in _REFS:
        return _Phrase(text, tuple(owners))
    if " " in text:  # a subject keeps a leading verb ("merged PRs"), loses the adjuncts
        text = _trim_adjuncts(_drop_leading_verb(text) if target else text)
        if " " in text:
            text = _cut_contact_clause(text)
    if "," in text and (m := _named_ticket(text)):
        text = m["id"] if m["head"].lower() in _TICKET_HEADS else _trim(m["name"])
    text = _strip_determiners(text, owners)
    return _Phrase(text, tuple(owners))


_NUMBER = r"(?:\d+|one|two|three|four|five|six|seven|eight|nine|ten|a\ few|few|several|a\ couple\ of|couple\ of)"
_PERIOD = r"(?:minutes?|mins?|hours?|hrs?|days?|weeks?|months?|sprints?|quarters?)"
# Adjuncts after an item's name that belong to the clause, not to the name: the release
# it went out in ("in 4.2.1", "in the 2.14 release"), a span of time ("for the rest of the
# week", "in about two hours", "around noon"), a manner ("full-time", "as planned"), the
# larger effort it is part of ("as part of PAY-88"), and the place a phrasal verb moves it
# to or from ("pulled X out of the gateway", "folded X into the client"). Everything from
# the adjunct on is cut.
_ADJUNCTS = re.compile(
    rf"""\s+(?:
    in\s+(?:the\s+|our\s+)?(?:v?\d+(?:\.\d+)+[\w.-]*|v\d+[\w.-]*|(?:release|build|version)\s+v?\d[\w.-]*
        |v?\d[\w.-]*\s+(?:release|build|version))
    |for\s+(?:the\s+)?(?:rest\s+of\s+the|rest\s+of\s+this|remainder\s+of\s+the|next|coming|past)\s+(?:{_NUMBER}\s+)?{_PERIOD}
    |(?:for|in|within|over)\s+(?:the\s+next\s+|the\s+past\s+|another\s+)?(?:about\s+|around\s+|roughly\s+|under\s+|~)?{_NUMBER}\s+(?:more\s+)?{_PERIOD}
    |(?:around|about|at|by|before|after)\s+(?:noon|midday|midnight|lunch|lunchtime)
    |(?:all|the\s+whole|the\s+entire)\s+(?:day|morning|afternoon|evening|night|week|sprint)
    |full-?time|part-?time|solo|again|for\s+now|as\s+planned|on\s+time|on\s+schedule
    |as\s+part\s+of
    |as\s+(?:a\s+|an\s+)?(?!service\b|code\b)[\w'-]+(?:\s+[\w'-]+)?\s*\Z
    |in\s+turn|as\s+well(?!\s+as)|instead|for\s+(?:real|good)|this\s+time|in\s+the\s+meantime|meanwhile|as\s+soon\s+as
    |(?:exist|exists|are\s+there|is\s+there|(?:goes|went|gone|comes|came)(?:\s+through)?)\s*\Z
    |(?:rolls|rolled|slips|slipped|slid|moves|moved|carries|carried|spills|spilled|pushed)
        \s+(?:over\s+)?(?:into|to)\s+(?:the\s+)?(?:next|this|another|following)
    )\b""",
    re.IGNORECASE | re.VERBOSE,
)
# Words one of which every ``_ADJUNCTS`` match holds: most phrases have none.
_ADJUNCT_WORDS = frozenset(
    "in for within over around about at by before after full-time fulltime part-time"
    " parttime solo again as out into onto instead meanwhile exist exists"
    " there to this back away aside along through goes went gone comes came all whole"
    " entire".split()
)
# "out of", "into", "onto", "over to" after a thing the verb moved: the verb's, unless the
# word before is a noun made from a verb ("the migration of the ledger into Postgres").
_MOVED_TO = re.compile(r"\s+(?:out\s+of|into|onto|over\s+to)\s+\S", re.IGNORECASE)
_ACTION_NOUN = re.compile(
    r"(?:tion|sion|ment|ance|ence|al|ure)s?\Z|\A(?:move|moves|port|switch|cutover|upgrade"
    r"|rollout|push|import|merge|transfer|handover|hand-?off|backport)\Z",
    re.IGNORECASE,
)


_PAST_VERBS = _words(
    "took got made did put pulled pushed moved merged shipped finished closed fixed wrote"
    " sent built ran kept left brought cut split dropped added removed rewrote reworked"
)
_DETERMINER_WORDS = _words("the a an our my their his her its this that these those another")


_BACK_TO = re.compile(
    r"(?:back|straight|right)\s+(?:to|on|onto|into|at|in)\s+(?=\S)", re.IGNORECASE
)


def _drop_leading_verb(text: str) -> str:
    """ "pulled the token issuer", "having another go at X": a verb before a determiner
    is the clause's verb left in the span, not the start of the item's name; so is an
    adverb and its preposition ("back to the auth refactor")."""
    if text[:1] in "bBsSrR" and (m := _BACK_TO.match(text)):
        return text[m.end() :]
    first, _, rest = text.partition(" ")
    if (
        first.islower()
        and (first.endswith(("ed", "ing")) or first in _PAST_VERBS)
        and rest.partition(" ")[0].lower() in _DETERMINER_WORDS
        and " " in rest
    ):
        return rest
    return text


# A phrasal verb's particle left after its object ("giving the slotting work back",
# "passing the scorecard over"); after these verbs the two words are a noun instead
# ("the cut over", "the hand over", "a fall back").
_PARTICLES = frozenset("back over away aside along".split())
_PARTICLE_NOUNS = frozenset("cut hand take change push carry roll start turn fall".split())


# "the ticket for the ward printers, INC-30912": a description and its id, one item. A
# generic head ("ticket", "issue") makes the id its name; a real name keeps its words.
_NAMED_TICKET = re.compile(
    r"(?P<name>(?:(?:the|a|an|our|my)\s+)?(?P<head>[\w-]+)(?:\s+.+?)?)\s*,\s*"
    r"(?P<id>[A-Z][A-Z0-9]+-\d+|#\d+|[\w.-]+/[\w.-]+#\d+)",
)
_HAS_ID = re.compile(r"[#-]\d")


def _named_ticket(text: str) -> re.Match[str] | None:
    """``_NAMED_TICKET`` when the words before the comma describe something: two words or
    more and no id of their own ("OPS-1, OPS-2" is a list, "ok, #2231" a reply)."""
    m = _NAMED_TICKET.fullmatch(text)
    if m is None or _HAS_ID.search(m["name"]):
        return None
    return m if len(_LEADING_ARTICLE.sub("", m["name"]).split()) >= 2 else None


_TICKET_HEADS = frozenset("ticket issue bug card incident request story task pr".split())


# A relative clause without "that" ("the retry logic Kai had drafted", "the change we
# talked about", "the script I mentioned on Monday"): a subject and its verb after the
# head noun end the name. A pronoun subject is always one; a name only when the clause
# runs to the end (with at most a time or a preposition after the verb), so "the
# Terraform managed buckets" keeps its words.
_CONTACT_CLAUSE = re.compile(
    r"\s+(?P<subj>(?i:we|you|they|he|she)|I|[A-Z][a-z]+(?:\s+[A-Z][a-z]+)?)\s+"
    r"(?:(?i:had|has|have|just|already|originally|first)\s+)?"
    r"(?:[a-z]+ed|wrote|built|drew|took|made|did|began|ran|set|put|sent|brought|found|saw"
    r"|dug|spun|kicked|left|kept)\b(?P<rest>.*)"
)
_CLAUSE_END_WORDS = _words(
    "about for on up out in to with over yesterday today earlier before last week monday"
    " tuesday wednesday thursday friday this morning afternoon night ago a an two few days"
    " weeks sprint"
)


_SAME = re.compile(r"\bsame\b", re.IGNORECASE)


def _cut_contact_clause(text: str) -> str:
    """``_CONTACT_CLAUSE`` removed from the end of a name (see there)."""
    m = _CONTACT_CLAUSE.search(text)
    if m is None or m.start() == 0:
        return text
    if _SAME.search(text, 0, m.start()):  # "hit the same wall she did": a comparison
        return text
    subj = m["subj"]
    if subj.lower() not in _PRONOUNS:
        if not _name_like(subj.split()[0]) or not _CLAUSE_END_WORDS.issuperset(
            m["rest"].lower().split()
        ):
            return text
    return _trim(text[: m.start()])


def _trim_adjuncts(text: str) -> str:
    """Cut a clause's adjunct off the end of an item's name (``_ADJUNCTS``, ``_MOVED_TO``);
    a cut that would leave nothing keeps the phrase whole."""
    if _ADJUNCT_WORDS.isdisjoint(text.casefold().split()):
        return text
    if (m := _ADJUNCTS.search(text)) and m.start() > 0:
        text = _trim(text[: m.start()])
    if (m := _MOVED_TO.search(text)) and m.start() > 0:
        words = text[: m.start()].split()
        heads = [words[-1]] + [
            w for w, nxt in zip(words[:-1], words[1:], strict=True) if nxt.lower() == "of"
        ]
        if not any(_ACTION_NOUN.search(head) for head in heads):  # "import of X into Y"
            text = _trim(text[: m.start()])
    head, _, last = text.rpartition(" ")
    if last.lower() in _PARTICLES and " " in head:
        if head.rsplit(None, 1)[-1].lower() not in _PARTICLE_NOUNS:
            text = _trim(head)
    return text


# One search that any tail needs: the tails above without their "head" group.
_ANY_TAIL = re.compile(
    "|".join(
        re.sub(r"\(\?P<\w+>", "(?:", re.sub(r"^\(\?P<head>\.\+\??\)", "", p.pattern))
        for p in [pattern for pattern, _ in _OWNER_TAILS] + list(_TAILS)
    ),
    _FLAGS,
)


# Words at least one of which every tail contains (common little words left out).
_TAIL_ANCHORS = frozenset(
    word
    for p in [pattern for pattern, _ in _OWNER_TAILS] + list(_TAILS)
    for word in re.findall(r"[a-z]+", re.sub(r"\(\?P<\w+>", "(", p.pattern))
) - frozenset(
    "to in on into for is are has have had was were be been it me us we and up s b".split()
)


# Heads that contain the work item rather than name it: "progress on X", "the rest of X",
# "pagination for X", "the last bits of X" all mean X.
_CONTAINER = re.compile(
    r"\A(?:(?:the|a|an|any|some|more|further|our|my|their)\s+)?"
    r"(?:(?:quick|short|brief|good|bad|latest|weekly|daily)\s+"  # "Quick update on X": X
    r"(?:news|notes?|comments?|status|updates?|progress)"
    r"|news|notes?|comments?|progress|work|status|rest|start"
    r"|starting"
    r"|remainder|remaining work|last bits?|final bits?|final steps?|next steps?|pagination"
    r"|cleanup|follow-?ups?|tail end|bulk|first part|second part|part|parts|phase \d+"
    r"|ownership|delivery|completion|implementation|finalisation|finalization|execution"
    r"|responsibility|accountability|status update|update|updates"
    r"|remaining parts?|review|reviews|testing|rollout plan|go-live|launch|rollout|roll-out"
    r"|deployment|kick-?off|approval|sign-?off|arrival|ticket|tickets|card)\s+(?:on|of|for)\s+(?=\S)",
    _FLAGS,
)


_COUNT = (
    r"(?:\d+|one|two|three|four|five|six|seven|eight|nine|ten|a\s+few|few|several|a\s+couple"
    r"\s+of|couple\s+of|some|all|most|half)"
)
# Pieces counted against an item name the item: "the last two tickets for X", "2 PRs for
# X", "three of the five X" (a part of the set X); "the real integration for WEB-88",
# "the actual wiring for OPS-311": the ticket names the work the generic head describes.
_COUNTED = re.compile(
    rf"""\A(?:(?:the|a|an)\s+)?(?:
    (?:(?:last|first|final|remaining|other|next)\s+)?{_COUNT}\s+(?:more\s+)?(?:tickets?|prs?|pull\s+requests?
        |bits?|pieces?|items?|tasks?|changes?|fixes|steps?|issues?|cards?|stories|commits?|patches
        |subtasks?|sub-tasks?|bugs?|parts?)\s+(?:for|of|on|in)
    |(?:last|first|final|remaining)\s+(?:tickets?|prs?|items?|tasks?|subtasks?|stories|cards?)\s+(?:for|of|on|in)
    |{_COUNT}\s+of\s+(?:the|our|my|their)(?:\s+{_COUNT})?
    |(?:another\s+|first\s+|second\s+|quick\s+|proper\s+)?(?:stab|go|crack|shot|swing|pass|attempt)\s+at
    |(?:real|actual|proper)\s+[\w-]+(?:\s+[\w-]+)?\s+(?:for|of|on)(?=\s+[A-Za-z][\w/.-]*[#-]\d+\Z|\s+\#\d+\Z)
    )\s+(?=\S)""",
    re.IGNORECASE | re.VERBOSE,
)
# ``_CONTAINER`` ends in one of these words: a phrase without any is no container.
_CONTAINER_LINKS = frozenset({"on", "of", "for", "at"})
_STATE_ADJ = frozenset(
    "delayed late ongoing outstanding continued pending timely successful overdue slipped"
    " stalled".split()
)


# The ASCII letters each opening pattern below can start with, in both cases: a text that
# opens with another ASCII character cannot match, so the pattern is not run on it.
_ARTICLE_LEADS = "tTaA"  # _LEADING_ARTICLE: the a an these those
_POSSESSIVE_DET_LEADS = "mMoOhHtTyY"  # my our his her their your
_DEMONSTRATIVE_LEADS = "tT"  # this that


def _may_open(text: str, leads: str) -> bool:
    """False only when ``text`` opens with an ASCII character none of ``leads`` is (a
    non-ASCII one may fold to a letter case-blind, so it is always tried)."""
    lead = text[:1]
    return lead in leads or not lead.isascii()


def _strip_determiners(text: str, owners: list[str]) -> str:
    """Remove a leading article or possessive, recording the possessor as an owner."""
    if not _CONTAINER_LINKS.isdisjoint(text.casefold().split()) and (
        (m := _CONTAINER.match(text)) or (m := _COUNTED.match(text))
    ):
        text = text[m.end() :]
    had_article = False
    if _may_open(text, _ARTICLE_LEADS) and (m := _LEADING_ARTICLE.match(text)):
        text, had_article = text[m.end() :], True
    first, _, rest = text.partition(" ")
    if rest and " " in rest and first.lower() in _STATE_ADJ:
        text = rest  # "the delayed provisioning of X" names the provisioning
    if _may_open(text, _POSSESSIVE_DET_LEADS) and (m := _POSSESSIVE_DET.fullmatch(text)):
        det = m["det"].lower()
        pronoun = {"my": "I", "our": "we", "his": "he", "her": "she", "your": "you"}
        if det in pronoun:
            owners.append(pronoun[det])
        text = m["rest"]
    elif "'s" in text and (m := _POSSESSIVE_NAME.fullmatch(text)):
        if _agent_shaped(_trim(m["o"]), strict=True) or _is_org(_trim(m["o"])):
            owners.append(_trim(m["o"]))
            text = m["rest"]
        elif not had_article and _lower_possessor(_trim(m["o"])):  # "dana's migration"
            owners.append(_trim(m["o"]).lstrip("@"))
            text = m["rest"]
    elif (
        _may_open(text, _DEMONSTRATIVE_LEADS)
        and (m := _DEMONSTRATIVE.match(text))
        and text.lower() not in _REFS
    ):
        text = text[m.end() :]
    if _may_open(text, _ARTICLE_LEADS) and (m := _LEADING_ARTICLE.match(text)):
        text = text[m.end() :]
    return _trim(text)


# "the new one", "our old one": an appositive that only points back names nothing new.
_ONE_REF = re.compile(r"(?:the|our|its)\s+(?:[\w-]+\s+)?ones?", re.IGNORECASE)
_APPOSITION = re.compile(
    r"(?P<first>[^,&]+?),\s+(?P<second>(?:the|our|its)\s+[^,&]+?)",
    re.IGNORECASE,
)


def _split_waiters(raw: str) -> list[str]:
    """Split 'the X and the Y' like items, but also 'Sofia and I' (people need no article).

    "Phase two, the inventory sync" (one comma, no "and") is one item named twice: the
    phrase after the comma, which says what it is."""
    raw = _trim(raw)
    if (m := _APPOSITION.fullmatch(raw)) is not None:
        if _ONE_REF.fullmatch(m["second"]):  # "the exporter, the new one": the exporter
            return [m["first"]]
        return [m["second"]]
    parts = split_items(_shared_possessive(raw))
    if len(parts) == 1:
        people = _AGENT_SPLIT.split(parts[0])
        if len(people) > 1 and all(_agent_shaped(_trim(p), strict=True) for p in people):
            return people
    return parts


_ORGISH = re.compile(r"[A-Z][a-z]+[A-Z][A-Za-z]*|[A-Z]{2,6}")


def _orgish(name: str) -> bool:
    """ "FinOps", "InfoSec", "SRE": one capitalised word shaped like a group's name."""
    core = _LEADING_ARTICLE.sub("", name, count=1)
    return _ORGISH.fullmatch(core) is not None and core.lower() not in _NON_NAMES


def _is_org(name: str) -> bool:
    """ "backend", "the DBA team", "data eng", "the controller's office": a group."""
    low = name.lower()
    if low in _ORG_UNITS:
        return True
    if " " not in low:
        return False
    low = _LEADING_ARTICLE.sub("", low, count=1)
    return (
        low in _ORG_UNITS
        or _is_team(low)
        or (len(low.split()) == 2 and low.split()[-1] in ("eng", "engineering", "ops", "infra"))
    )


def _is_team(name: str) -> bool:
    """'backend team', 'SRE squad', 'Team Phoenix' are teams (a bare 'team' is not)."""
    words = name.lower().split()
    return len(words) >= 2 and (words[-1] in _TEAM_WORDS or words[0] == "team")


@lru_cache(maxsize=64)  # one update asks again and again, frame after frame
def _name_like(word: str) -> bool:
    """A capitalised given-name-shaped word that is not a common engineering noun."""
    low = word.lower()
    if not _name_token(word) or low in _NON_NAMES:
        return False
    return not (len(word) >= 6 and low.endswith(_NOUN_SUFFIXES))


# Lowercase words that take a possessive in status text without being anyone's name:
# "the customer's export", "yesterday's deploy", "let's".
_NOT_POSSESSORS = _words(
    """
    customer customers client clients user users vendor vendors partner partners company
    companies week weeks month months year years quarter quarters day days night morning
    afternoon evening weekend everybody people person world industry bank store app site
    product system repo repository codebase org organisation organization department office
    manager managers boss lead board committee region country city market government
    competitor competitors provider providers contractor contractors agency auditor
    auditors mom dad wife husband kid kids family friend friends sister brother doctor one
    other others let sprint sprints release cycle service engineer engineers dev devs
    folks guys everyone else tonight last next this that there here what who which
    """
)


def _lower_possessor(word: str, before: str = "") -> bool:
    """ "dana's migration", "@arnav's follow-up": a lowercase possessor in chat that can
    only be someone's name. A handle always is; a bare word is when it is name-shaped,
    not a common noun, and no article or determiner stands before it ("the client's X")."""
    if word.startswith("@"):
        return len(word) > 2 and word[1:2].isalpha()
    if not word.islower() or not 3 <= len(word) <= 12 or not word.isalpha():
        return False
    if word in _NON_NAMES or word in _NOT_POSSESSORS or word in _PRONOUNS:
        return False
    last = before.rsplit(None, 1)[-1] if before.strip() else ""
    if last and last[-1].isalpha() and last.lower() not in _BEFORE_A_NAME:
        if not last.lower().endswith(("ed", "ing")):  # "the package mirror's", "CI runner's"
            return False
    return not (len(word) >= 6 and word.endswith(_NOUN_SUFFIXES))


# Words after which a lowercase possessor still opens a noun phrase of its own:
# prepositions, conjunctions and the verbs that take an object ("so ravi's refactor").
_BEFORE_A_NAME = _words(
    "on in at for to from with by of about into onto over under behind after before and or"
    " but so then also is was are were be been has have had saw see check review reviews"
    " take takes took grab grabs need needs fixes fix merge merges"
)


@lru_cache(maxsize=64)  # one update asks again and again, frame after frame
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
        if not strict and _name_token(core, loose=True) and low not in _NON_NAMES:
            return True
    return len(tokens) == 2 and all(_name_like(t) for t in tokens)


_SCORE = re.compile(r"\b\d+/\d+\b|\d%|\b(?:pts|points|story points)\b", re.IGNORECASE)


@lru_cache(maxsize=64)  # one update asks again and again, frame after frame
def _valid_core(core: str) -> bool:
    """Reject captures that are clauses, quantities, times or too vague to be an entity."""
    if not core or not (core[:1].isalnum() or any(ch.isalnum() for ch in core)):
        return False
    words = core.split()
    low = core.lower()
    lows = low.split()  # each word lowercased: lowering makes or removes no blank
    if len(words) > 8 or lows[0] in _PREPOSITIONS:
        return False
    if len(core) == 1 and core.isalnum():
        return False  # "RAG: A", "phase B": a lone letter or digit names nothing
    for k, low_word in enumerate(lows):
        bare = low_word.strip(_PUNCT)  # (no letter lowers to punctuation)
        if bare in _CLAUSE_WORDS and not _ACRONYM.fullmatch(words[k].strip(_PUNCT)):
            if (
                k == len(words) - 1
                and bare.endswith("ing")
                and (k >= 2 or (k == 1 and words[0][:1].islower() and bare not in _NO_HEAD_ING))
            ):  # "Windows path handling", "retry handling": a compound noun, not a clause
                continue  # ("Priya driving" is one)
            return False
    if low in _VAGUE or (
        low.rsplit(None, 1)[-1].casefold() in _TIME_PHRASE_ENDS and _TIME_PHRASE.fullmatch(low)
    ):
        return False
    if lows[0] == "next" or (
        lows[0] == "same" and (len(lows) == 1 or "as" in lows or lows[-1] in _SAME_VAGUE)
    ):  # "the same ticket as yesterday", "the same thing": nothing with a name of its own
        return False
    if len(words) == 2 and words[0].endswith(("'s", "’s")) and lows[1] in ("side", "end"):
        return False  # "pending on the store's side": a party, not a work item
    for k, low_word in enumerate(lows if not _EVERYDAY.isdisjoint(lows) else ()):
        if low_word in _EVERYDAY and (  # "my coffee", not "the release train"
            (k == len(words) - 1 and (k == 0 or lows[k - 1] in _CASUAL))
            or (k < len(words) - 1 and low_word in _PERSONAL)  # "lunch order", not
        ):  # "keyboard shortcuts" or "phone verification"
            return False
    if ("/" in core or "%" in core or "pts" in low or "points" in low) and _SCORE.search(core):
        return False  # "21/34 pts", "80% of tests": a measurement, no work item
    return not (
        _QUANTITY.match(core)
        or (
            ("ing" in low or not core.isascii())
            and _GERUND_CLAUSE.match(core)
            and not (lows[0] in _CAPABILITY_NOUNS and lows[1] == "for")
        )
    )


# "-ing" words that name what a system does, as nouns: "paging for the queue alert" is an
# item (the paging), not a clause like "waiting for the queue alert".
_CAPABILITY_NOUNS = _words(
    "paging alerting logging tracing monitoring caching billing routing wiring batching"
    " throttling sharding indexing pooling metering invoicing onboarding offboarding"
    " provisioning labelling labeling tagging versioning signing"
)

"""Deterministic, rule-based extraction of facts from English status updates.

``extract(text, author)`` splits an update into sentences and reads each one with the
compositional reader (``memcli.extract.core``: token classes, clauses, a frame table,
normalised noun phrases). A frame only yields facts when every argument survives
validation, so an unusual sentence falls through to ``Extraction.unparsed`` (with its
reason in ``Extraction.trace``) instead of producing a guess. The module is pure: no I/O, no global state, the same
input always gives the same output.

Context carried from sentence to sentence (see the memcli README for the contract):

* the author owns the work item their update reports as blocked or stalled, unless the
  text names another owner for it (rule 1);
* a blocked/stalled report makes that item the owner's *current work item*; a later
  "I'm / she's / we're waiting on Y" then blocks the current work item, not the person
  (rule 2); within one sentence, "X, though I'm blocked on Y" blocks X;
* "it", "that", "this", "that work" refer to the most recently mentioned work item;
* she/he/her/him mean the last person other than the author named earlier, else the
  author; they/them the last team named earlier, else the author; I/me/we/us/"the
  team"/"our team" mean the author; "you" after a leading "@name" means that person;
* a "Heading:" (or Markdown heading naming a work item) is the subject of the
  subjectless clauses of its line;
* in meeting minutes (an attendance line or action items), the speaker of a line
  ("Raj: ...", "Raj reported that ...") takes the author's place and the note-taker owns
  and completes nothing by default; "ACTION: Dana to migrate X" gives Dana ownership.

Known limits (what it cannot read; such sentences are reported as unparsed):

* Questions, conditionals, hedges ("might", "should", "almost"), plans ("will ship"),
  negations ("isn't done"), decisions and measurements give no fact, by design;
  "no longer blocked" is an unblock and "once/until X ships" a dependency, not a
  condition.
* There is no parser: clauses are found by punctuation, subordinators and the lexicon,
  so a verb outside the lexicon ("Hana pushed the fix") is no predicate, and one frame
  reads a clause.
* Pronouns resolve to the most recent fitting entity; an antecedent further back, or
  reported speech in the middle of a line ("Farah said it's blocked on X"), is missed.
* A blocker must be a work item: "waiting on Bob", vague blockers ("feedback", "review")
  and ordinary senses ("waiting on my coffee") are not facts.
* Person detection is heuristic: a capitalised name-shaped word (any script) that is not
  a common engineering noun; a group that is the agent of a passive ("finalised by
  marketing") or the subject of "owns" ("Networking owns X") is a team.
* Completion with no named doer is credited to the author (in minutes: the speaker);
  "resolved by PR #62" credits the author, the PR is how, not who.
* "X is unblocked" names no blocker, so it is no fact: it is a *release*
  (``memcli.extract.releases``, ``Extraction.releases``), which ingest turns into
  ``unblocked_from`` facts for the waits of X it knows; its trace frame is "release".
* Names keep the words and case written in the text (a leading article, possessive,
  container head such as "progress on", or a ticket id before a title is removed);
  matching "auth refactor" with "auth service refactor" is left to entity resolution.
"""

from __future__ import annotations

from dataclasses import replace

from memcli.extract import reader
from memcli.extract.factuality import RELEASED
from memcli.extract.releases import RELEASE_FRAME, find_releases
from memcli.models import Extraction

__all__ = ["RELEASE_FRAME", "extract"]


def extract(text: str, author: str | None) -> Extraction:
    """The reader's facts, and the releases among the sentences (see the module's
    known limits): a sentence read as a release is understood, so it leaves
    ``unparsed`` and its trace says what it released."""
    extraction = reader.extract(text, author)
    releases = find_releases([t.sentence for t in extraction.trace], extraction.facts)
    if not releases:
        return extraction
    released: dict[str, str] = {}
    for r in releases:  # "A and B are unblocked": both, in the sentence's trace
        released[r.sentence] = (
            f"{released[r.sentence]} and {r.item.name}" if r.sentence in released else r.item.name
        )
    extraction.releases = releases
    extraction.unparsed = [s for s in extraction.unparsed if s not in released]
    extraction.trace = [
        t
        if t.sentence not in released
        else replace(
            t,
            frame=RELEASE_FRAME,
            reason=f"{RELEASED}: ingest ends the waits of {released[t.sentence]} that hold then",
        )
        for t in extraction.trace
    ]
    return extraction

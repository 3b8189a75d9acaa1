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

from memcli.extract.reader import extract

__all__ = ["extract"]

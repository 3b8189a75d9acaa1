"""Entity merges: the recorded decisions that two entities are one, and what reads need
to follow them.

Facts keep the entities they were stated with; a merge is a row in ``entity_merges``
and every analysis read maps fact ends through the active merges (``entity_canon``).
Undoing a merge stamps the row; nothing else has to be put back.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable, Sequence
from typing import Any

from memcli.store.connection import StoreBase, chunks

# A graph's names in id order ("+graph_id": a table scan, cheaper than walking the graph
# index and sorting what it gives).
# Terms OR-ed into one read of an index range at most (an OR chain is as deep as it is
# long, and SQLite bounds the depth of an expression).
_TERMS = 100

_Row = tuple[int, str, str, str]  # an entity as identity reads it: (id, name, norm, type)

_NAMES_SQL = "SELECT id, name, norm, type FROM entities WHERE +graph_id = ? ORDER BY id"


class IdentityMixin(StoreBase):
    def entity_canon(self, graph_id: str) -> dict[int, int]:
        """Each merged entity of the graph -> the entity it resolves to, chains followed
        (a -> b -> c gives a -> c, b -> c). Empty when nothing is merged."""
        with self._lock:
            direct = dict(
                self.conn.execute(
                    "SELECT entity_id, canonical_id FROM entity_merges"
                    " WHERE graph_id = ? AND undone_at IS NULL",
                    (graph_id,),
                ).fetchall()
            )
        out: dict[int, int] = {}
        for start in direct:
            seen = {start}
            end = direct[start]
            while end in direct and end not in seen:  # a cycle stops where it closes
                seen.add(end)
                end = direct[end]
            out[start] = end
        return out

    def identity_name_rows(self, graph_id: str) -> list[tuple[int, str, str, str]]:
        """Every name of the graph as (id, name, norm, type) tuples, in id order: an
        automatic-merge check reads them all, and a dict per row was most of that read."""
        with self._lock:
            return self.conn.execute(_NAMES_SQL, (graph_id,)).fetchall()

    def identity_rows_touched(
        self, graph_id: str, created: str, decided: str, types: Sequence[str]
    ) -> list[tuple[int, str, str, str]]:
        """Names of these types an automatic-merge check must start from: entities
        created at or after ``created``, and both ends of a merge made or undone at or
        after ``decided``, as (id, name, norm, type). One scan of the entities, no row
        read into Python unless it matches."""
        kinds = ", ".join("?" * len(types))
        sql = (
            "SELECT id, name, norm, type FROM entities WHERE +graph_id = ?"
            f" AND type IN ({kinds}) AND (created_at >= ? OR id IN ("
            " SELECT entity_id FROM entity_merges WHERE graph_id = ?"
            "  AND (created_at >= ? OR undone_at >= ?)"
            " UNION SELECT canonical_id FROM entity_merges WHERE graph_id = ?"
            "  AND (created_at >= ? OR undone_at >= ?)))"
        )
        args = [graph_id, *types, created, graph_id, decided, decided, graph_id, decided, decided]
        with self._lock:
            return self.conn.execute(sql, args).fetchall()

    def identity_check_since(self, graph_id: str, before: str) -> str | None:
        """The creation time of the graph's newest name older than ``before`` (the start
        of the last analyze): the automatic-merge check that saw it ran at or after it,
        so no check has run since without seeing every merge decision made since. With
        no merge decision in the graph, ``before`` (there is nothing to look back for);
        None when every name is newer."""
        with self._lock:
            if (
                self.conn.execute(
                    "SELECT 1 FROM entity_merges WHERE graph_id = ? LIMIT 1", (graph_id,)
                ).fetchone()
                is None
            ):
                return before  # no merge decision at all: no need to scan the names
            row = self.conn.execute(
                "SELECT max(created_at) FROM entities WHERE +graph_id = ? AND created_at < ?",
                (graph_id, before),
            ).fetchone()
        return None if row is None or row[0] is None else str(row[0])

    def _identity_rows(
        self,
        graph_id: str,
        kind: str,
        start: str,
        term: tuple[str, Sequence[object]],
        odd: tuple[str, Sequence[object]],
    ) -> list[tuple[int, str, str, str]]:
        """Names of one type whose first word starts with ``start`` and that pass
        ``term`` (SQL, its arguments): the (graph, type, norm) index range of names
        starting with it, and the ranges of names that start with no letter or digit
        (their first word starts further on), which must pass ``odd`` instead.
        (id, name, norm, type)."""
        # after the start's own range: ASCII outside 0-9, A-Z, a-z, and past ASCII
        spans: list[tuple[str, str | None, tuple[str, Sequence[object]]]] = [
            (start, chr(ord(start) + 1), term),
            ("", "0", odd),
            (":", "A", odd),
            ("[", "a", odd),
            ("{", None, odd),
        ]
        out: list[tuple[int, str, str, str]] = []
        with self._lock:
            for lo, hi, (where, args) in spans:
                sql = "SELECT id, name, norm, type FROM entities WHERE graph_id = ? AND type = ?"
                bounds: list[object] = [graph_id, kind, lo]
                sql += " AND norm >= ?"
                if hi is not None:
                    sql += " AND norm < ?"
                    bounds.append(hi)
                out += self.conn.execute(f"{sql} AND {where}", [*bounds, *args]).fetchall()
        return out

    def identity_rows_led_by(
        self, graph_id: str, kind: str, many: Sequence[Sequence[str]]
    ) -> list[tuple[int, str, str, str]]:
        """Names of one type that a name of any of these word lists may stand for: at
        least every name whose first word holds the first of its words letter by letter
        (equal or abbreviated), and for a single word, every name of as many words as it
        has letters, starting with them (initials), as (id, name, norm, type). Lists
        whose first words start alike share one read of their index range."""
        by_start: dict[str, list[tuple[tuple[str, list[object]], tuple[str, list[object]]]]]
        by_start = defaultdict(list)
        head = "substr(norm, 1, instr(norm || ' ', ' ') - 1)"  # up to the first space
        # Lists of two or more words that share a first word: one term for all of them
        # (its GLOB once per name read, not once per list), with every second character.
        seconds: dict[str, dict[str, None]] = defaultdict(dict)
        for words in many:
            word = words[0]
            if any(ch in "*?[]" for ch in word):
                by_start[word[0]].append((("1", []), ("1", [])))
                continue
            if len(words) > 1:
                seconds[word][words[1][0]] = None
                continue
            letters = _letters(word)
            initials = word[0] + "".join(f"* {ch}" for ch in word[1:]) + "*"
            term: tuple[str, list[object]] = (
                f"({head} GLOB ? OR norm GLOB ?)",
                [letters, initials],
            )
            by_start[word[0]].append((term, ("norm GLOB ?", ["*" + letters])))
        for word, chars in seconds.items():
            # the second word starts with one of these characters: within the first
            # space-separated part ("pg16") or right after it
            letters = _letters(word)
            within = " OR ".join([f"instr({head}, ?) > 1"] * len(chars))
            marks = ", ".join("?" * len(chars))
            term = (
                f"{head} GLOB ? AND ({within}"
                f" OR substr(norm, instr(norm || ' ', ' ') + 1, 1) IN ({marks}))",
                [letters, *chars, *chars],
            )
            by_start[word[0]].append((term, ("norm GLOB ?", ["*" + letters])))
        out: list[tuple[int, str, str, str]] = []
        for start, terms in sorted(by_start.items()):
            for i in range(0, len(terms), _TERMS):
                part = terms[i : i + _TERMS]
                out += self._identity_rows(
                    graph_id, kind, start, _any(t for t, _ in part), _any(o for _, o in part)
                )
        return out

    def identity_rows_inside(
        self, graph_id: str, kind: str, start: str, norms: Sequence[str]
    ) -> list[tuple[int, str, str, str]]:
        """Names of one type that may stand for any of the names ``norms`` (whose first
        words start with ``start``): at least every shorter name written only with its
        characters (or with any character past ASCII), as (id, name, norm, type), in
        one read of the index range."""
        terms: list[tuple[str, list[object]]] = []
        allowed: list[tuple[int, set[str] | None]] = []  # what each term lets through
        for norm in norms:
            chars = set(norm) | {" ", "_"}
            term: tuple[str, list[object]] = ("length(norm) < ?", [len(norm)])
            if not any(ch in "*?[]^-" for ch in chars):
                term = (
                    "length(norm) < ? AND (norm NOT GLOB ? OR norm GLOB ?)",
                    [len(norm), "*[^" + "".join(sorted(chars)) + "]*", "*[^ -~]*"],
                )
            terms.append(term)
            allowed.append((len(norm), chars if len(term[1]) > 1 else None))
        out: list[tuple[int, str, str, str]] = []
        for i in range(0, len(terms), _TERMS):
            either = _any(terms[i : i + _TERMS])
            part = allowed[i : i + _TERMS]
            if all(chars is not None for _, chars in part):
                # A name any of the terms passes is shorter than the longest of these
                # names and written with the characters of all of them together: one
                # GLOB turns most of the range away before the terms are tried.
                union = sorted(set().union(*(chars or () for _, chars in part)))
                guard = (
                    "length(norm) < ? AND (norm NOT GLOB ? OR norm GLOB ?)",
                    [max(n for n, _ in part), "*[^" + "".join(union) + "]*", "*[^ -~]*"],
                )
                either = (f"({guard[0]}) AND {either[0]}", [*guard[1], *either[1]])
            out += self._identity_rows(graph_id, kind, start, either, either)
        return out

    def entity_neighbours(self, graph_id: str) -> list[tuple[int, str, int]]:
        """(entity, relation as read from it, other entity) over the current facts:
        ("blocks", waiting item), ("waits on", blocker), ("owned by", owner)."""
        with self._lock:
            out: list[tuple[int, str, int]] = []
            for src, rel, tgt in self.conn.execute(
                "SELECT source_id, relation, target_id FROM facts f"
                " WHERE graph_id = ? AND invalid_at IS NULL"
                " AND relation IN ('blocked_by', 'owns')",
                (graph_id,),
            ):
                if rel == "blocked_by":
                    out.append((tgt, "block", src))
                    out.append((src, "wait on", tgt))
                else:
                    out.append((tgt, "owned by", src))
            return out

    def identity_rows_by_id(
        self, graph_id: str, ids: Iterable[int]
    ) -> list[tuple[int, str, str, str]]:
        """These entities of the graph as (id, name, norm, type)."""
        out: list[tuple[int, str, str, str]] = []
        with self._lock:
            for chunk, marks in chunks(ids):
                out += self.conn.execute(
                    "SELECT id, name, norm, type FROM entities"
                    f" WHERE graph_id = ? AND id IN ({marks})",
                    [graph_id, *chunk],
                ).fetchall()
        return out

    def person_rows(self, graph_id: str) -> list[_Row]:
        """The graph's people as (id, name, norm, type): what ``identity.short_forms``
        compares first names against. A read of the (graph, type, norm) index."""
        with self._lock:
            return self.conn.execute(
                "SELECT id, name, norm, type FROM entities WHERE graph_id = ? AND type = 'person'",
                (graph_id,),
            ).fetchall()

    def rows_keyed(self, graph_id: str, keys: Iterable[str]) -> list[_Row]:
        """Work items of the graph whose key starts with one of these words and a space
        ("auth 212" for "auth"): the tickets a project key may stand for."""
        out: list[_Row] = []
        with self._lock:
            for key in sorted(set(keys)):
                escaped = key.replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_")
                out += self.conn.execute(
                    "SELECT id, name, norm, type FROM entities WHERE graph_id = ?"
                    " AND type = 'work_item' AND norm LIKE ? ESCAPE '\\'",
                    (graph_id, escaped + " %"),
                ).fetchall()
        return out

    def rows_ending(self, graph_id: str, endings: Iterable[str]) -> list[_Row]:
        """Work items of the graph whose key is one of these words or ends with one
        ("wms 2210" for "2210", "auth refactor" for "refactor"), as (id, name, norm,
        type)."""
        wanted = sorted(set(endings))
        out: list[_Row] = []
        with self._lock:
            for i in range(0, len(wanted), _TERMS):
                part = wanted[i : i + _TERMS]
                likes = " OR ".join("norm = ? OR norm LIKE ? ESCAPE '\\'" for _ in part)
                args: list[object] = [graph_id]
                for e in part:
                    args += [
                        e,
                        "% " + e.replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_"),
                    ]
                out += self.conn.execute(
                    "SELECT id, name, norm, type FROM entities WHERE graph_id = ?"
                    f" AND type = 'work_item' AND ({likes})",
                    args,
                ).fetchall()
        return out

    def stated_pairs(self, graph_id: str) -> list[tuple[int, str, int, int]]:
        """Names written beside a ticket id (``stated_names``) whose ticket and name are
        both work items of the graph: (episode id, the name as written, ticket entity id,
        name entity id), oldest update first. A retracted update's pairs are left out."""
        with self._lock:
            return self.conn.execute(
                "SELECT s.episode_id, s.name, t.id, n.id FROM stated_names s"
                " JOIN episodes e ON e.id = s.episode_id AND e.retracted_at IS NULL"
                " JOIN entities t ON t.graph_id = s.graph_id AND t.type = 'work_item'"
                "  AND t.norm = s.ticket_norm"
                " JOIN entities n ON n.graph_id = s.graph_id AND n.type = 'work_item'"
                "  AND n.norm = s.name_norm"
                " WHERE s.graph_id = ? ORDER BY s.episode_id",
                (graph_id,),
            ).fetchall()

    def record_merge(
        self,
        graph_id: str,
        entity_id: int,
        canonical_id: int,
        *,
        decided_by: str,
        reason: str,
        now: str,
    ) -> int:
        """Record that ``entity_id`` means ``canonical_id`` from now on; the next analyze
        of the graph is a full pass. Call inside a transaction."""
        cur = self.conn.execute(
            "INSERT INTO entity_merges (graph_id, entity_id, canonical_id, decided_by, reason,"
            " created_at) VALUES (?, ?, ?, ?, ?, ?)",
            (graph_id, entity_id, canonical_id, decided_by, reason, now),
        )
        self.mark_needs_full(graph_id)
        assert cur.lastrowid is not None
        return cur.lastrowid

    def undo_merge(self, merge_id: int, *, by: str, reason: str, now: str) -> None:
        self.conn.execute(
            "UPDATE entity_merges SET undone_at = ?, undone_by = ?, undo_reason = ? WHERE id = ?",
            (now, by, reason, merge_id),
        )
        graph = self.scalar("SELECT graph_id FROM entity_merges WHERE id = ?", (merge_id,))
        self.mark_needs_full(str(graph))

    def merges(self, graph_id: str, *, include_undone: bool = False) -> list[dict[str, Any]]:
        """Merge decisions of a graph with both names, oldest first."""
        where = "" if include_undone else " AND m.undone_at IS NULL"
        return self.rows(
            "SELECT m.id, m.entity_id, a.name AS alias, a.type, m.canonical_id,"
            " c.name AS canonical, m.decided_by, m.reason, m.created_at, m.undone_at,"
            " m.undone_by, m.undo_reason"
            " FROM entity_merges m JOIN entities a ON a.id = m.entity_id"
            " JOIN entities c ON c.id = m.canonical_id"
            f" WHERE m.graph_id = ?{where} ORDER BY m.id",
            (graph_id,),
        )

    def refused_merges(self, graph_id: str) -> set[tuple[int, int]]:
        """(alias, canonical) pairs a merge of which was undone by a person: never
        merged again automatically, never suggested again. A merge analyze undid itself
        (its stated evidence withdrawn) is no refusal."""
        with self._lock:
            return {
                (int(a), int(b))
                for a, b in self.conn.execute(
                    "SELECT entity_id, canonical_id FROM entity_merges"
                    " WHERE graph_id = ? AND undone_at IS NOT NULL"
                    " AND undone_by IS NOT 'auto'",
                    (graph_id,),
                )
            }

    def mark_needs_full(self, graph_id: str) -> None:
        """The next analyze must be a full pass (and not a no-op)."""
        self.conn.execute(
            "UPDATE graphs SET needs_full = 1, ingest_seq = ingest_seq + 1 WHERE id = ?",
            (graph_id,),
        )

    def canonical_signatures(
        self, graph_id: str, canon: dict[int, int], kinds: Sequence[str]
    ) -> dict[int, int | None]:
        """Signature id -> the id of the same signature with merged entities replaced by
        what they resolve to (None: a fact that now joins an entity to itself, which
        links nothing). Only signatures of facts that touch a merged entity are listed.
        A canonical key nobody stated yet is added to ``signatures`` (a key dictionary),
        so call inside the analyze transaction."""
        if not canon:
            return {}
        ends = set(canon) | set(canon.values())
        names = {
            r["id"]: f"{r['type']}:{r['norm']}"
            for r in self.rows_in("SELECT id, type, norm FROM entities WHERE id IN ({marks})", ends)
        }
        token = {names[a]: names[c] for a, c in canon.items() if a in names and c in names}
        keys: dict[int, tuple[str, str]] = {}
        with self._lock:
            for chunk, marks in chunks(canon):
                for sig, kind, key in self.conn.execute(
                    f"""
                    SELECT DISTINCT s.id, s.kind, s.key FROM facts f
                    JOIN fact_signatures fs ON fs.fact_id = f.id
                    JOIN signatures s ON s.id = fs.signature_id
                    WHERE f.graph_id = ? AND (f.source_id IN ({marks}) OR f.target_id IN ({marks}))
                    """,
                    [graph_id, *chunk, *chunk],
                ):
                    if kind in kinds:
                        keys[int(sig)] = (str(kind), str(key))
            wanted: dict[int, tuple[str, str] | None] = {}
            for sig, (kind, key) in keys.items():
                parts = key.split("|")
                if len(parts) != 4:
                    continue
                src, tgt = token.get(parts[1], parts[1]), token.get(parts[3], parts[3])
                if kind == "literal" and src == tgt:
                    wanted[sig] = None
                    continue
                new = "|".join([parts[0], src, parts[2], tgt])
                if new != key:
                    wanted[sig] = (kind, new)
            ids: dict[str, int] = {}
            for kind, new in {w for w in wanted.values() if w is not None}:
                self.conn.execute(
                    "INSERT OR IGNORE INTO signatures (graph_id, kind, key) VALUES (?, ?, ?)",
                    (graph_id, kind, new),
                )
                ids[new] = int(
                    self.conn.execute(
                        "SELECT id FROM signatures WHERE graph_id = ? AND key = ?", (graph_id, new)
                    ).fetchone()[0]
                )
        return {sig: (ids[w[1]] if w is not None else None) for sig, w in wanted.items()}

    def members_of(self, canon: dict[int, int], ids: set[int]) -> dict[int, set[int]]:
        """Each id with every entity merged into it (itself included)."""
        out: dict[int, set[int]] = defaultdict(set)
        for i in ids:
            out[i].add(i)
        for a, c in canon.items():
            if c in ids:
                out[c].add(a)
        return dict(out)

    def changes_touch(
        self, graph_id: str, since: str, max_fact_id: int, entity_ids: set[int]
    ) -> bool:
        """Whether a fact added or ended since the last run has an end in ``entity_ids``
        (merged entities: an incremental pass cannot follow them, see api.analyze)."""
        with self._lock:
            for chunk, marks in chunks(entity_ids):
                hit = self.conn.execute(
                    f"""
                    SELECT 1 FROM facts WHERE graph_id = ? AND (id > ? OR expired_at >= ?)
                      AND (source_id IN ({marks}) OR target_id IN ({marks})) LIMIT 1
                    """,
                    [graph_id, max_fact_id, since, *chunk, *chunk],
                ).fetchone()
                if hit:
                    return True
        return False

    def merge_ended(self, graph_id: str, canon: dict[int, int]) -> set[int]:
        """Current waits that a merge ends: a completion or unblocking stated under
        another name of the same entity ("pg16 shipped" ends "waits on Postgres 16
        migration"), by the contradiction rules' own test (stated at or after the wait),
        retracted updates left out. The stored facts are not touched: an unmerge makes
        them hold again."""
        if not canon:
            return set()
        members = sorted(set(canon) | set(canon.values()))

        def c(i: int) -> int:
            return canon.get(i, i)

        done: dict[int, str] = {}
        freed: dict[tuple[int, int], str] = {}
        waits: list[tuple[int, int, int, str]] = []
        with self._lock:
            for chunk, marks in chunks(members):
                for rel, src, tgt, at in self.conn.execute(
                    f"""
                    SELECT f.relation, f.source_id, f.target_id, f.valid_at FROM facts f
                    JOIN episodes e ON e.id = f.episode_id AND e.retracted_at IS NULL
                    WHERE f.graph_id = ? AND f.relation IN ('completed', 'unblocked_from')
                      AND f.target_id IN ({marks})
                    """,
                    [graph_id, *chunk],
                ):
                    if rel == "completed":
                        done[c(tgt)] = max(done.get(c(tgt), ""), at)
                    else:
                        key = (c(src), c(tgt))
                        freed[key] = max(freed.get(key, ""), at)
                waits += self.conn.execute(
                    f"""
                    SELECT id, source_id, target_id, valid_at FROM facts
                    WHERE graph_id = ? AND relation = 'blocked_by' AND invalid_at IS NULL
                      AND target_id IN ({marks})
                    """,
                    [graph_id, *chunk],
                ).fetchall()
        return {
            int(i)
            for i, src, tgt, at in waits
            if done.get(c(tgt), "") >= at or freed.get((c(src), c(tgt)), "") >= at
        }

    def fill_merge_ended(self, graph_id: str, canon: dict[int, int]) -> str:
        """Put ``merge_ended`` in a temp table; returns the SQL condition that leaves
        those facts out (``f`` is the facts alias), or "" when there are none. Empty the
        table with ``clear_merge_ended``."""
        ended = self.merge_ended(graph_id, canon)
        if not ended:
            return ""
        self.conn.execute(
            "CREATE TEMP TABLE IF NOT EXISTS merge_ended (fact_id INTEGER PRIMARY KEY)"
        )
        self.conn.execute("DELETE FROM temp.merge_ended")
        self.conn.executemany(
            "INSERT INTO temp.merge_ended (fact_id) VALUES (?)", ((i,) for i in sorted(ended))
        )
        return " AND f.id NOT IN (SELECT fact_id FROM temp.merge_ended)"

    def clear_merge_ended(self) -> None:
        self.conn.execute("DROP TABLE IF EXISTS temp.merge_ended")

    def entities_created_since(self, graph_id: str, since: str) -> bool:
        """Whether the graph has an entity created at or after ``since``."""
        return (
            self.scalar(
                # newest first, by a table scan (the graph index would look every row
                # up): a name added since is found at once, and "none" is one scan
                "SELECT 1 FROM entities WHERE +graph_id = ? AND created_at >= ?"
                " ORDER BY id DESC LIMIT 1",
                (graph_id, since),
            )
            is not None
        )


def _letters(word: str) -> str:
    """A GLOB for a word holding ``word``'s letters in order: equal or abbreviated."""
    return word[0] + "".join(f"*{ch}" for ch in word[1:]) + "*"


def _any(terms: Iterable[tuple[str, list[object]]]) -> tuple[str, list[object]]:
    """SQL terms (and their arguments) joined with OR: a name passes if it passes any."""
    parts: list[str] = []
    args: list[object] = []
    for sql, values in terms:
        parts.append(f"({sql})")
        args += values
    return ("(" + (" OR ".join(parts) or "0") + ")", args)

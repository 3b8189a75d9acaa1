"""Seeded synthetic corpus of engineering status updates, with the patterns it plants.

The same episodes come out three ways, so recall can be measured with and without the
extractor in the loop:

* ``md/*.md``: Markdown with front matter (author, date, graph, source) in plain English
  the rules extractor reads (several phrasings per relation);
* ``facts/*.jsonl``: the same episodes with their true ``facts`` (extraction bypassed);
* ``text/*.jsonl``: the same episodes as JSONL without facts (the extractor reads them;
  the fast way to ingest 100k updates);
* ``truth.json``: every planted dependency chain (root, root owner, members with their
  episode sources), the noise and hub episodes, and the near-namesakes.

A *chain* is a root work item owned by a team, 2-4 direct dependents each reported by a
different person, and 0-2 downstream items two hops away reported by yet other people.
``owner_naming`` is the chance that a blocked person also names the owner of what they
wait on (the team that owns the root, or the person who owns the direct item). Noise is
people working on, owning and finishing unrelated things, chatter with no facts, and
"lone blockers" (one person waiting on something nobody else waits on: not a pattern).

Everything is drawn from one ``random.Random(seed)`` in a fixed order: the same config
gives byte-identical files. Run ``python benchmarks/generate.py --help``.
"""

from __future__ import annotations

import argparse
import hashlib
import itertools
import json
import random
import shutil
from dataclasses import asdict, dataclass, field
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

GENERATOR_VERSION = 4  # bump when output for a given config changes (invalidates caches)

# --- vocabulary: every word was checked against the rules extractor (lowercase nouns,
# no verbs it reads as state changes, no prepositions, no time words) ---

AREAS = """
billing ledger search checkout identity payments invoice catalog pricing inventory
shipping partner admin audit usage metrics event quota tenant session token webhook email
mobile report geo tax refund coupon loyalty fraud risk consent profile avatar media upload
storage backup archive ticket chat voice support warehouse routing
""".split()

COMPONENTS = """
engine service api portal console dashboard pipeline worker gateway index schema client
sdk database exporter importer scheduler router feed widget plugin connector adapter cache
queue registry proxy job ledger
""".split()

ACTIONS = """
rewrite rollout migration upgrade cleanup refactor redesign revamp overhaul split
consolidation deprecation integration backfill cutover hardening pilot prototype port sync
rebuild replatform sharding partitioning localization instrumentation retirement
""".split()

QUALIFIERS = "legacy internal external shared regional nightly realtime batch".split()

TEAMS = """
payments identity data search mobile infra security growth billing storage networking
observability web core api messaging compliance reliability frontend analytics
""".split()

HUB_TEAM = "platform"

# Given names the extractor reads as people (capitalised, not engineering nouns, not
# English words). Past these, syllable names are made up deterministically.
GIVEN_NAMES = """
Alice Bob Clara Aarav Abena Adele Aditi Aiko Akira Alejandro Alena Amara Amir Anya Arjun
Astrid Ayla Bao Beatriz Bilal Bjorn Bruno Camila Chidi Chloe Dana Dario Dmitri Elif Emeka
Enzo Esme Farah Femi Freya Gianni Goran Hana Hiro Ines Ingrid Isha Ivan Jamal Jana Javier
Jin Joon Kai Kamal Karin Keiko Kenji Kofi Lars Leila Lena Liam Lucia Luca Maya Mei Mika
Nadia Nia Nikhil Nora Oksana Olu Omar Pablo Priya Quinn Rafael Rania Ravi Rosa Sana Sanjay
Selin Soren Sofia Tariq Tomas Uma Vera Wei Xin Yara Yusuf Zara Zeynep Ahmed Aisha Anders
Anika Aris Ayesha Bianca Boris Carmen Cyrus Daria Demi Diego Elena Emil Eun Fatima Felix
Gita Hamid Hugo Ilse Imani Jonas Juno Kaito Kiran Lea Leon Lina Malik Marco Mateo Milo
Nabil Naomi Nico Noor Olga Oscar Paolo Petra Rashid Reza Rina Saanvi Samir Sven Talia Teo
Thea Timo Vikram Wren Yuki Yosef Zainab Zoltan Ines Kwame Laszlo Magnus Noemi Orla Pilar
""".split()

_SYLLABLES = "ka lo mi ra su te no vi da ze ri po la ne to sa ki mu ja re bo fe gu ha".split()

CHATTER = [
    "Reviewed three PRs and paired with the new hire.",
    "Spent the morning in planning.",
    "Had a productive design session.",
    "Wrote the runbook for on-call.",
    "Mostly meetings today.",
    "Drafted the quarterly roadmap.",
    "Helped triage the support queue.",
    "Out on Friday.",
    "Interviewed two candidates.",
    "Cleaned up some flaky tests.",
]

START = datetime(2026, 1, 5, tzinfo=UTC)  # a Monday


@dataclass
class Config:
    """Every knob of the corpus. Defaults: the recall corpus (20 chains, some noise)."""

    seed: int = 7
    chains: int = 20
    owner_naming: float = 0.8  # chance a blocked person names the owner of what they wait on
    noise: int = 80  # unrelated updates
    weeks: int = 4
    people: int = 60
    teams: int = 12
    namesakes: float = 0.5  # share of chains whose root has a near-namesake elsewhere
    hub_team: float = 0.0  # share of roots and team-owned noise items owned by the platform team
    hub_person: bool = False  # one person posts a roll-up every weekday
    hub_restates: int = 2  # chain-root ownerships each roll-up restates
    two_foundation: float = 0.0  # share of chains with a dependent that waits on two roots
    repeats: float = 0.2  # chance a direct reporter posts "still blocked" again later
    extra_sentences: float = 0.0  # mean sentences about their own work in chain updates
    noise_sentences: tuple[int, int] = (1, 4)  # fact sentences per noise update (min, max)
    chatter: float = 0.5  # chance an update carries a sentence with no fact
    lone_blockers: float = 0.1  # chance a noise update reports a lone blocker
    increment: int = 30  # updates dated after the corpus (for incremental analyze)
    graph: str = "bench"

    def key(self) -> str:
        """Cache key: the config and the generator version."""
        payload = json.dumps([GENERATOR_VERSION, asdict(self)], sort_keys=True)
        return hashlib.blake2b(payload.encode(), digest_size=8).hexdigest()


@dataclass
class Episode:
    source: str
    author: str
    occurred_at: str
    content: str
    facts: list[dict[str, str]]
    role: str  # chain, noise, hub, increment
    chains: list[int] = field(default_factory=list)


def _fact(s: str, rel: str, t: str, st: str = "work_item", tt: str = "work_item") -> dict[str, str]:
    return {"source": s, "relation": rel, "target": t, "source_type": st, "target_type": tt}


def person_names(n: int) -> list[str]:
    """``n`` distinct person names: real given names first, then made-up ones."""
    names = list(dict.fromkeys(GIVEN_NAMES))
    rng = random.Random(12345)
    taken = set(names)
    while len(names) < n:
        name = "".join(rng.choice(_SYLLABLES) for _ in range(rng.choice((2, 3)))).capitalize()
        if name not in taken and not name.endswith(("ing", "tion", "ment", "ness", "ity")):
            taken.add(name)
            names.append(name)
    return names[:n]


class _Gen:
    def __init__(self, cfg: Config) -> None:
        self.cfg = cfg
        self.rng = random.Random(cfg.seed)
        self.people = person_names(max(cfg.people, 8))
        self.hub_name = self.people[0] if cfg.hub_person else None
        self.reporters = [p for p in self.people if p != self.hub_name]
        teams = [t for t in TEAMS if t != HUB_TEAM][: max(cfg.teams - 1, 1)]
        self.teams = [f"{t} team" for t in teams]
        self.hub_team = f"{HUB_TEAM} team"
        names = [f"{a} {c} {x}" for a in AREAS for c in COMPONENTS for x in ACTIONS if a != c]
        self.rng.shuffle(names)
        # Qualified names ("legacy billing engine rewrite") only once the plain ones run out.
        shuffled = random.Random(cfg.seed + 1).sample(names, len(names))
        # Then numbered phases ("billing engine rewrite phase 2"), so a million-update corpus
        # never runs out; smaller configs never reach them and are unchanged.
        self.qualified = itertools.chain(
            (f"{q} {n}" for q in QUALIFIERS for n in shuffled),
            (f"{n} phase {k}" for k in itertools.count(2) for n in shuffled),
        )
        self.pool = names
        self.used: set[str] = set()
        self.episodes: list[Episode] = []
        self.truth_chains: list[dict[str, Any]] = []
        self.namesakes: list[dict[str, Any]] = []
        self.lone: list[str] = []
        self.cross: list[tuple[int, dict[str, Any]]] = []  # two-foundation members of a 2nd chain
        self.days = max(cfg.weeks, 1) * 5

    # -- items and time ----------------------------------------------------------

    def item(self) -> str:
        while self.pool:
            name = self.pool.pop()
            if name not in self.used:
                self.used.add(name)
                return name
        for name in self.qualified:
            if name not in self.used:
                self.used.add(name)
                return name
        raise AssertionError("unreachable: numbered phases never run out")

    def namesake_of(self, name: str) -> str | None:
        """Same area and component, another action: 'billing engine rewrite' -> '... rollout'."""
        area_comp, _ = name.rsplit(" ", 1)
        options = [f"{area_comp} {x}" for x in ACTIONS if f"{area_comp} {x}" not in self.used]
        if not options:
            return None
        pick = self.rng.choice(options)
        self.used.add(pick)
        return pick

    def when(self, day: int) -> str:
        """A weekday timestamp: day index counts weekdays from START."""
        day = max(0, min(day, self.days + 40))
        week, wd = divmod(day, 5)
        t = START + timedelta(days=week * 7 + wd, hours=self.rng.randint(8, 18))
        t += timedelta(minutes=self.rng.randint(0, 59), seconds=self.rng.randint(0, 59))
        return t.strftime("%Y-%m-%dT%H:%M:%SZ")

    def team(self) -> str:
        if self.rng.random() < self.cfg.hub_team:
            return self.hub_team
        return self.rng.choice(self.teams)

    # -- sentences: (text, facts) ------------------------------------------------

    def blocked(
        self, author: str, src: str, tgt: str, owner: str | None, owner_type: str
    ) -> tuple[str, list[dict[str, str]]]:
        """``src`` (the author's) waits on ``tgt``; maybe name ``tgt``'s owner."""
        r = self.rng
        facts = [_fact(author, "owns", src, "person"), _fact(src, "blocked_by", tgt)]
        o = f"the {owner}" if owner_type == "team" else owner
        forms = [
            f"The {src} is blocked on the {tgt}.",
            f"The {src} is waiting for the {tgt}.",
            f"The {src} depends on the {tgt}.",
            f"The {src} is held up by the {tgt}.",
            f"The {src} is stuck behind the {tgt}.",
            f"The {src} can't start until the {tgt} is done.",
            f"The {src} is gated on the {tgt}.",
            f"My {src} is blocked. I'm waiting on the {tgt}.",
            f"Still waiting on the {tgt} for the {src}.",
        ]
        if owner is None:
            forms.append(f"The {tgt} is blocking the {src}.")
            return r.choice(forms), facts
        facts.append(_fact(owner, "owns", tgt, owner_type))
        base = r.choice(forms)
        style = r.randrange(6)
        if style == 3 and base.startswith("Still waiting"):
            style = 2  # "that work" would point at the waiting item, named last
        if style == 0:
            text = base[:-1] + f", which {o} owns."
        elif style == 1:
            text = base.replace(f"the {tgt}", f"the {tgt} from {o}", 1)
        elif style == 2:
            text = base + f" The {tgt} is owned by {o}."
        elif style == 3:
            text = base + f" That work belongs to {o}."
        elif style == 4:
            text = base.replace(f"the {tgt}", f"the {tgt} (owned by {o})", 1)
        else:
            text = base + f" {o[0].upper() + o[1:]} owns the {tgt}."
        return text, facts

    def own_work(self, author: str, item: str) -> tuple[str, list[dict[str, str]]]:
        form = self.rng.choice(
            [
                f"I'm working on the {item}.",
                f"Working on the {item}.",
                f"{author} is working on the {item}.",
                f"Picked up the {item}.",
            ]
        )
        return form, [_fact(author, "owns", item, "person")]

    def team_owns(self, item: str, team: str) -> tuple[str, list[dict[str, str]]]:
        form = self.rng.choice(
            [
                f"The {item} is owned by the {team}.",
                f"The {team} owns the {item}.",
                f"The {item} belongs to the {team}.",
            ]
        )
        return form, [_fact(team, "owns", item, "team")]

    def finished(self, author: str, item: str) -> tuple[str, list[dict[str, str]]]:
        form = self.rng.choice(
            [f"The {item} shipped.", f"Finished the {item}.", f"The {item} is done."]
        )
        return form, [_fact(author, "completed", item, "person")]

    def other_leads(self, other: str, item: str) -> tuple[str, list[dict[str, str]]]:
        return f"{other} is leading the {item}.", [_fact(other, "owns", item, "person")]

    # -- episodes ------------------------------------------------------------------

    def emit(
        self, author: str, day: int, parts: list[tuple[str, list[dict[str, str]]]], role: str
    ) -> Episode:
        if self.rng.random() < self.cfg.chatter:
            parts = [*parts]
            parts.insert(self.rng.randrange(len(parts) + 1), (self.rng.choice(CHATTER), []))
        facts: list[dict[str, str]] = []
        seen: set[tuple[str, ...]] = set()
        for _, fs in parts:
            for f in fs:
                k = (f["source"], f["relation"], f["target"])
                if k not in seen:
                    seen.add(k)
                    facts.append(f)
        ep = Episode("", author, self.when(day), " ".join(t for t, _ in parts), facts, role)
        self.episodes.append(ep)
        return ep

    def portfolio_parts(self, author: str, k: int) -> list[tuple[str, list[dict[str, str]]]]:
        """``k`` sentences about the author's own (unrelated) work."""
        parts = []
        port = self.portfolio.setdefault(author, [self.item() for _ in range(2)])
        for _ in range(k):
            roll = self.rng.random()
            if roll < 0.5:
                parts.append(self.own_work(author, self.rng.choice(port)))
            elif roll < 0.8:
                parts.append(self.team_owns(self.rng.choice(self.team_items), self.team()))
            elif roll < 0.9:
                done = port.pop(self.rng.randrange(len(port)))
                port.append(self.item())
                parts.append(self.finished(author, done))
            else:
                other = self.rng.choice(self.reporters)
                if other == author:
                    parts.append(self.own_work(author, self.rng.choice(port)))
                else:
                    parts.append(self.other_leads(other, self.rng.choice(self.team_items)))
        return parts

    def build(self) -> None:
        cfg, r = self.cfg, self.rng
        self.portfolio: dict[str, list[str]] = {}
        team_items = max(10, cfg.noise // 4)
        self.team_items = [self.item() for _ in range(team_items)]
        roots = [self.item() for _ in range(cfg.chains)]
        # Near-namesakes: half become another chain's root, half live in the noise.
        namesake_noise: list[str] = []
        for i in range(cfg.chains):
            if r.random() >= cfg.namesakes:
                continue
            twin = self.namesake_of(roots[i])
            if twin is None:
                continue
            j = (i + cfg.chains // 2) % cfg.chains
            if j != i and r.random() < 0.5 and roots[j] not in {n["of"] for n in self.namesakes}:
                self.used.discard(roots[j])
                roots[j] = twin
                self.namesakes.append({"of": roots[i], "twin": twin, "where": f"chain {j}"})
            else:
                namesake_noise.append(twin)
                self.namesakes.append({"of": roots[i], "twin": twin, "where": "noise"})
        for i in range(cfg.chains):
            self.chain(i, roots[i], roots)
        self.noise(namesake_noise)
        if cfg.hub_person:
            self.hub()

    def chain(self, idx: int, root: str, roots: list[str]) -> None:
        cfg, r = self.cfg, self.rng
        owner = self.team()
        start = r.randrange(max(self.days - 8, 1))
        people = r.sample(self.reporters, min(len(self.reporters), 8))
        n_direct, n_down = r.randint(2, 4), r.randint(0, 2)
        members: list[dict[str, Any]] = []
        direct: list[tuple[str, str]] = []  # (item, person)

        def extra(author: str) -> list[tuple[str, list[dict[str, str]]]]:
            k = int(cfg.extra_sentences) + (r.random() < cfg.extra_sentences % 1)
            return self.portfolio_parts(author, k) if k else []

        for d in range(n_direct):
            person, item = people[d], self.item()
            named = r.random() < cfg.owner_naming
            text = self.blocked(person, item, root, owner if named else None, "team")
            ep = self.emit(person, start + d, [text, *extra(person)], "chain")
            ep.chains.append(idx)
            members.append(
                {"episode": ep, "item": item, "role": "direct", "waits_on": [root], "named": named}
            )
            direct.append((item, person))
            if r.random() < cfg.repeats:
                again = self.emit(
                    person,
                    start + d + r.randint(2, 5),
                    [
                        (
                            f"The {item} is still blocked on the {root}.",
                            [
                                _fact(person, "owns", item, "person"),
                                _fact(item, "blocked_by", root),
                            ],
                        )
                    ],
                    "chain",
                )
                again.chains.append(idx)
                members.append(
                    {
                        "episode": again,
                        "item": item,
                        "role": "repeat",
                        "waits_on": [root],
                        "named": False,
                    }
                )
        for d in range(n_down):
            person, item = people[n_direct + d], self.item()
            via, via_owner = direct[d % len(direct)]
            named = r.random() < cfg.owner_naming
            text = self.blocked(person, item, via, via_owner if named else None, "person")
            ep = self.emit(person, start + n_direct + d + 1, [text, *extra(person)], "chain")
            ep.chains.append(idx)
            members.append(
                {
                    "episode": ep,
                    "item": item,
                    "role": "downstream",
                    "waits_on": [via],
                    "named": named,
                }
            )
        other = (idx + 1) % len(roots)
        if cfg.two_foundation and other != idx and r.random() < cfg.two_foundation:
            person, item = people[-1], self.item()
            text = f"The {item} is blocked on the {root} and the {roots[other]}."
            facts = [
                _fact(person, "owns", item, "person"),
                _fact(item, "blocked_by", root),
                _fact(item, "blocked_by", roots[other]),
            ]
            ep = self.emit(person, start + 3, [(text, facts), *extra(person)], "chain")
            ep.chains.extend([idx, other])
            member = {
                "episode": ep,
                "item": item,
                "role": "two_foundation",
                "waits_on": [root, roots[other]],
                "named": False,
            }
            members.append(member)
            self.cross.append((other, member))
        self.truth_chains.append({"id": idx, "root": root, "root_owner": owner, "members": members})

    def noise(self, namesake_items: list[str]) -> None:
        cfg, r = self.cfg, self.rng
        lo, hi = cfg.noise_sentences
        for n in range(cfg.noise):
            author = r.choice(self.reporters)
            parts = self.portfolio_parts(author, r.randint(lo, hi))
            if namesake_items and n % 3 == 0:
                twin = namesake_items.pop()
                parts.append(r.choice([self.own_work(author, twin), self.finished(author, twin)]))
            if r.random() < cfg.lone_blockers:
                port = self.portfolio.setdefault(author, [self.item() for _ in range(2)])
                target = self.item()
                self.lone.append(target)
                parts.append(self.blocked(author, r.choice(port), target, None, "team"))
            self.emit(author, r.randrange(self.days), parts, "noise")
        for twin in namesake_items:  # any left over
            author = r.choice(self.reporters)
            self.emit(author, r.randrange(self.days), [self.finished(author, twin)], "noise")

    def hub(self) -> None:
        """The daily poster: own work, plus restated ownership of live chain roots."""
        assert self.hub_name is not None
        name, r = self.hub_name, self.rng
        own = [self.item() for _ in range(3)]
        for day in range(self.days):
            parts = [self.own_work(name, own[(day // 5) % len(own)])]
            live = [c for c in self.truth_chains if c["members"]]
            for c in r.sample(live, min(self.cfg.hub_restates, len(live))):
                parts.append(self.team_owns(c["root"], c["root_owner"]))
            parts.append(self.team_owns(r.choice(self.team_items), self.team()))
            self.emit(name, day, parts, "hub")

    def increment(self) -> list[Episode]:
        """Updates dated after the corpus: new dependents of existing roots, and noise."""
        cfg, r = self.cfg, self.rng
        out: list[Episode] = []
        mark = len(self.episodes)
        for n in range(cfg.increment):
            day = self.days + 1 + n % 5
            if n % 3 == 0 and self.truth_chains:
                chain = r.choice(self.truth_chains)
                person, item = r.choice(self.reporters), self.item()
                named = r.random() < cfg.owner_naming
                text = self.blocked(
                    person, item, chain["root"], chain["root_owner"] if named else None, "team"
                )
                ep = self.emit(person, day, [text], "increment")
                ep.chains.append(chain["id"])
            else:
                author = r.choice(self.reporters)
                lo, hi = cfg.noise_sentences
                self.emit(author, day, self.portfolio_parts(author, r.randint(lo, hi)), "increment")
        out = self.episodes[mark:]
        del self.episodes[mark:]
        return out


@dataclass
class Corpus:
    config: Config
    episodes: list[Episode]  # in time order; source names follow that order
    increment: list[Episode]
    truth: dict[str, Any]


def generate(cfg: Config) -> Corpus:
    """Build the corpus in memory (pure: no files)."""
    g = _Gen(cfg)
    g.build()
    g.episodes.sort(key=lambda e: (e.occurred_at, e.author, e.content))
    seen: set[tuple[str, str]] = set()
    for i, ep in enumerate(g.episodes):
        ep.source = f"ep{i:06d}"
        while (ep.author, ep.occurred_at) in seen:  # keep content hashes distinct
            t = datetime.fromisoformat(ep.occurred_at.replace("Z", "+00:00")) + timedelta(seconds=1)
            ep.occurred_at = t.strftime("%Y-%m-%dT%H:%M:%SZ")
        seen.add((ep.author, ep.occurred_at))
    inc = g.increment()
    inc.sort(key=lambda e: (e.occurred_at, e.author, e.content))
    for i, ep in enumerate(inc):
        ep.source = f"inc{i:04d}"
    for other, member in g.cross:
        g.truth_chains[other]["members"].append(member)
    chains = []
    for c in g.truth_chains:
        members = [
            {
                "source": m["episode"].source,
                "author": m["episode"].author,
                "item": m["item"],
                "role": m["role"],
                "waits_on": m["waits_on"],
                "owner_named": m["named"],
            }
            for m in c["members"]
        ]
        chains.append(
            {
                "id": c["id"],
                "root": c["root"],
                "root_owner": c["root_owner"],
                "members": members,
                "episodes": sorted({m["source"] for m in members}),
                "items": sorted({c["root"], *(m["item"] for m in members)}),
            }
        )
    truth = {
        "generator_version": GENERATOR_VERSION,
        "config": asdict(cfg),
        "graph": cfg.graph,
        "episodes": len(g.episodes),
        "facts": sum(len(e.facts) for e in g.episodes),
        "chains": chains,
        "noise": [e.source for e in g.episodes if e.role == "noise"],
        "hub": [e.source for e in g.episodes if e.role == "hub"],
        "hub_person": g.hub_name,
        "hub_team": g.hub_team if cfg.hub_team else None,
        "lone_blockers": sorted(g.lone),
        "namesakes": g.namesakes,
        "increment": [{"source": e.source, "chains": e.chains, "role": e.role} for e in inc],
    }
    return Corpus(cfg, g.episodes, inc, truth)


# --- writing -------------------------------------------------------------------------


def _md(ep: Episode, graph: str) -> str:
    return (
        f"---\nauthor: {ep.author}\ndate: {ep.occurred_at}\ngraph: {graph}\n"
        f"source: {ep.source}\n---\n{ep.content}\n"
    )


def _json(ep: Episode, graph: str, with_facts: bool) -> str:
    obj: dict[str, Any] = {
        "source": ep.source,
        "author": ep.author,
        "occurred_at": ep.occurred_at,
        "graph": graph,
        "content": ep.content,
    }
    if with_facts:
        obj["facts"] = ep.facts
    return json.dumps(obj, ensure_ascii=False)


def write(
    corpus: Corpus, out: Path, formats: tuple[str, ...] = ("md", "facts", "text"), shard: int = 5000
) -> Path:
    """Write the corpus under ``out`` (replacing what is there); returns ``out``.

    JSONL is sharded (``shard`` episodes a file) to stay under memcli's per-file size
    limit. The increment goes to ``out/increment/`` in the same formats.
    """
    if out.exists():
        shutil.rmtree(out)
    out.mkdir(parents=True)
    graph = corpus.config.graph
    for sub, episodes in (("", corpus.episodes), ("increment", corpus.increment)):
        base = out / sub if sub else out
        if "md" in formats:
            (base / "md").mkdir(parents=True, exist_ok=True)
            for ep in episodes:
                (base / "md" / f"{ep.source}.md").write_text(_md(ep, graph), encoding="utf-8")
        for fmt in ("facts", "text"):
            if fmt not in formats:
                continue
            (base / fmt).mkdir(parents=True, exist_ok=True)
            for n, i in enumerate(range(0, max(len(episodes), 1), shard)):
                lines = [_json(ep, graph, fmt == "facts") for ep in episodes[i : i + shard]]
                if lines:
                    (base / fmt / f"part-{n:04d}.jsonl").write_text(
                        "\n".join(lines) + "\n", encoding="utf-8"
                    )
    (out / "truth.json").write_text(json.dumps(corpus.truth, indent=1), encoding="utf-8")
    (out / "config.json").write_text(
        json.dumps({"key": corpus.config.key(), "config": asdict(corpus.config)}, indent=1),
        encoding="utf-8",
    )
    return out


def cached(cfg: Config, out: Path, formats: tuple[str, ...] = ("md", "facts", "text")) -> Path:
    """Generate into ``out`` unless it already holds this exact config's corpus."""
    marker = out / "config.json"
    if marker.exists():
        try:
            have = json.loads(marker.read_text(encoding="utf-8"))
        except ValueError:
            have = {}
        present = all((out / f).is_dir() for f in formats)
        if have.get("key") == cfg.key() and present:
            return out
    return write(generate(cfg), out, formats)


def config_from_args(args: argparse.Namespace) -> Config:
    return Config(
        seed=args.seed,
        chains=args.chains,
        owner_naming=args.owner_naming,
        noise=args.noise,
        weeks=args.weeks,
        people=args.people,
        teams=args.teams,
        namesakes=args.namesakes,
        hub_team=args.hub_team,
        hub_person=args.hub_person,
        two_foundation=args.two_foundation,
        repeats=args.repeats,
        extra_sentences=args.extra_sentences,
        noise_sentences=(args.noise_sentences[0], args.noise_sentences[1]),
        lone_blockers=args.lone_blockers,
        increment=args.increment,
        graph=args.graph,
    )


def add_config_args(p: argparse.ArgumentParser) -> None:
    d = Config()
    p.add_argument("--seed", type=int, default=d.seed)
    p.add_argument("--chains", type=int, default=d.chains, help="planted dependency chains")
    p.add_argument(
        "--owner-naming",
        type=float,
        default=d.owner_naming,
        help="chance a blocked person names the owner of what they wait on",
    )
    p.add_argument("--noise", type=int, default=d.noise, help="unrelated updates")
    p.add_argument("--weeks", type=int, default=d.weeks)
    p.add_argument("--people", type=int, default=d.people)
    p.add_argument("--teams", type=int, default=d.teams)
    p.add_argument("--namesakes", type=float, default=d.namesakes)
    p.add_argument(
        "--hub-team", type=float, default=d.hub_team, help="share owned by the platform team"
    )
    p.add_argument(
        "--hub-person", action="store_true", help="one person posts a roll-up every weekday"
    )
    p.add_argument("--two-foundation", type=float, default=d.two_foundation)
    p.add_argument("--repeats", type=float, default=d.repeats)
    p.add_argument("--extra-sentences", type=float, default=d.extra_sentences)
    p.add_argument("--noise-sentences", type=int, nargs=2, default=list(d.noise_sentences))
    p.add_argument("--lone-blockers", type=float, default=d.lone_blockers)
    p.add_argument("--increment", type=int, default=d.increment)
    p.add_argument("--graph", default=d.graph)


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    add_config_args(p)
    p.add_argument("--out", type=Path, default=Path(__file__).parent / "out" / "corpus")
    p.add_argument(
        "--formats", default="md,facts,text", help="comma list of md, facts, text (default all)"
    )
    p.add_argument("--shard", type=int, default=5000, help="episodes per JSONL file")
    args = p.parse_args(argv)
    cfg = config_from_args(args)
    corpus = generate(cfg)
    write(corpus, args.out, tuple(args.formats.split(",")), args.shard)
    t = corpus.truth
    print(
        f"{args.out}: {t['episodes']} episodes, {t['facts']} facts, {len(t['chains'])} chains, "
        f"{len(t['noise'])} noise, {len(t['hub'])} hub, {len(corpus.increment)} increment"
    )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

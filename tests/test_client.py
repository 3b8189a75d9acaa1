"""The Python API (memcli.Client): the README example runs, results are typed, and the
client and the CLI agree on the JSON contract."""

from __future__ import annotations

import contextlib
import io
import re
import subprocess
import sys
from pathlib import Path

import pytest

import memcli
from memcli.client import Episode, Observation, SearchResult
from memcli.errors import NotFound, UsageError
from tests.conftest import ROOT, Cli


def readme_example() -> str:
    text = (ROOT / "README.md").read_text(encoding="utf-8")
    marker = "<!-- tested: tests/test_client.py runs this block -->"
    assert marker in text, "README lost its tested Python example"
    block = re.search(r"```python\n(.*?)```", text.split(marker, 1)[1], re.DOTALL)
    assert block is not None
    return block.group(1)


def test_readme_example_runs_and_prints_what_it_says(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    code = readme_example()
    monkeypatch.chdir(tmp_path)
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        exec(compile(code, "README.md", "exec"), {"__name__": "readme"})
    printed = out.getvalue().splitlines()
    expected = [line.strip()[2:] for line in code.splitlines() if line.strip().startswith("# ")]
    assert printed == expected
    assert (tmp_path / "atlas.db").exists()


def test_import_memcli_stays_cheap() -> None:
    probe = (
        "import sys, memcli; "
        "heavy = [m for m in ('pydantic', 'sqlite3', 'memcli.store', 'memcli.client') "
        "if m in sys.modules]; print(heavy); "
        "assert memcli.Client.__module__ == 'memcli.client'"
    )
    result = subprocess.run(
        [sys.executable, "-c", probe], capture_output=True, text=True, check=True, cwd=ROOT
    )
    assert result.stdout.strip() == "[]"


def test_client_and_cli_agree(cli: Cli, atlas: Path, db_path: Path) -> None:
    cli("ingest", str(atlas))
    cli("analyze")
    with memcli.Client(db_path) as client:
        observations = client.graph.observation.get_by_graph_id(graph_id="project-atlas")
        assert all(isinstance(o, Observation) for o in observations)
        assert [o.model_dump() for o in observations] == cli.json(
            "observations", "--graph", "project-atlas"
        )
        one = client.graph.observation.get(observations[0].id)
        assert one.model_dump()["cluster"]["id"] == one.cluster_id  # contract extras kept
        hits = client.graph.search(graph_id="project-atlas", query="kafka OR auth", scope="all")
        assert all(isinstance(h, SearchResult) for h in hits)
        assert [h.model_dump() for h in hits] == cli.json(
            "search", "kafka OR auth", "--graph", "project-atlas", "--scope", "all"
        )
        episodes = client.graph.episode.get_by_graph_id(graph_id="project-atlas", lastn=2)
        assert [e.author for e in episodes] == ["Bob", "Clara"]
        assert {(f.source, f.relation, f.target) for f in episodes[1].facts} == {
            ("checkout flow", "blocked_by", "payments integration"),
            ("Clara", "owns", "checkout flow"),
            ("Bob", "owns", "payments integration"),
        }
        report = client.graph.report(graph_id="project-atlas")
        assert report.since_source == "first report"
        [action] = report.act_on
        assert (action.root, action.leverage, action.change) == ("auth service refactor", 6, "new")
        assert [c.episode_id for c in action.evidence] == [1, 2, 3]
        printed = cli("report", "--graph", "project-atlas", "--no-record").stdout
        assert report.markdown().split("\n")[4:] == printed.split("\n")[4:]  # past the time
        assert client.graph.report(graph_id="project-atlas").since_source == "first report"
        assert (
            client.graph.visualize(graph_id="project-atlas")
            == cli("visualize", "--graph", "project-atlas").stdout
        )
        with pytest.raises(UsageError, match="unknown picture format"):
            client.graph.visualize(graph_id="project-atlas", format="png")  # type: ignore[arg-type]
        [info] = client.graph.list_all()
        assert (info.graph, info.episodes, info.active_observations) == ("project-atlas", 3, 1)


def test_add_is_idempotent_and_takes_json_with_facts(db_path: Path) -> None:
    with memcli.Client(db_path) as client:
        first = client.graph.add(
            graph_id="g", data="The docs site is blocked on the CMS migration.", author="Eve"
        )
        again = client.graph.add(
            graph_id="g",
            data="The docs site is blocked on the CMS migration.",
            author="Eve",
            occurred_at=first.occurred_at,
        )
        assert isinstance(first, Episode) and first.created is True
        assert (again.id, again.created) == (first.id, False)
        assert first.source == "api" and first.format == "text"
        given = client.graph.add(
            graph_id="g",
            type="json",
            data={
                "content": "Sync notes.",
                "occurred_at": "2026-11-08",
                "source": "notes/sync.json",
                "facts": [
                    {"source": "blog relaunch", "relation": "blocked_by", "target": "CMS migration"}
                ],
            },
            author="Finn",
        )
        assert (given.author, given.occurred_at, given.source) == (
            "Finn",
            "2026-11-08T00:00:00Z",
            "notes/sync.json",
        )
        assert [(f.source, f.relation, f.target) for f in given.facts] == [
            ("blog relaunch", "blocked_by", "CMS migration")
        ]
        batch = client.graph.add_batch(
            graph_id="g",
            episodes=[
                {"content": "The wiki move is waiting on the CMS migration.", "author": "Gus"},
                {"content": "Sync notes.", "occurred_at": "2026-11-08", "author": "Finn"},
            ],
        )
        assert [e.created for e in batch] == [True, False]
        # add analyzed already (the default, as in Zep): a second pass has nothing new
        result = client.graph.analyze(graph_id="g")
        assert result.skipped and not result.created
        [obs] = client.graph.observation.get_by_graph_id(graph_id="g")
        assert obs.root_entities == ["CMS migration"]
        assert obs.rank == 5  # docs site, blog relaunch, wiki move; Eve, Gus

        with pytest.raises(NotFound, match="no graph named 'nope'"):
            client.graph.search(graph_id="nope", query="x")
        with pytest.raises(NotFound, match="no observation with id 99"):
            client.graph.observation.get(99)
        with pytest.raises(UsageError, match="unknown type"):
            client.graph.add(graph_id="g", data="x", type="xml")  # type: ignore[arg-type]
        with pytest.raises(UsageError, match="non-empty text"):
            client.graph.add(graph_id="g", data="   ")
        with pytest.raises(UsageError, match="add_batch"):
            client.graph.add(graph_id="g", type="json", data=[{"content": "x"}])  # type: ignore[arg-type]
        with pytest.raises(UsageError, match="not valid JSON"):
            client.graph.add(graph_id="g", type="json", data="{oops")
        with pytest.raises(memcli.errors.InputError, match="needs a non-empty 'content'"):
            client.graph.add(graph_id="g", type="json", data={"author": "x"})


def test_entity_timeline_covers_ended_facts(cli: Cli, atlas: Path, write, db_path: Path) -> None:  # type: ignore[no-untyped-def]
    from tests.conftest import update

    cli("ingest", str(atlas))
    shipped = write(
        "shipped.md",
        update(
            "Erik", "2026-11-09T10:00:00Z", "The backend team shipped the auth service refactor."
        ),
    )
    cli("ingest", str(shipped))
    with memcli.Client(db_path) as client:
        timeline = client.graph.entity_timeline(
            graph_id="project-atlas", name="The Auth-Service Refactor"
        )
        [entity] = timeline.entities
        assert entity.name == "auth service refactor" and entity.type == "work_item"
        rows = [(f.source, f.relation, f.status, f.episode.author) for f in timeline.facts]
        assert sorted(rows) == sorted(
            [
                ("API migration", "blocked_by", "ended", "Alice"),
                ("backend team", "owns", "current", "Alice"),
                ("payments integration", "blocked_by", "ended", "Bob"),
                ("backend team", "owns", "current", "Bob"),
                ("backend team", "completed", "current", "Erik"),
            ]
        )
        assert rows[-1][1] == "completed"
        assert [f.valid_at for f in timeline.facts] == sorted(f.valid_at for f in timeline.facts)
        [ended, *_] = [f for f in timeline.facts if f.status == "ended"]
        assert ended.invalid_at == "2026-11-09T10:00:00Z"
        assert ended.invalidated_by == {"id": 4, "source": str(shipped)}
        with pytest.raises(NotFound) as missing:
            client.graph.entity_timeline(graph_id="project-atlas", name="auth refactr")
        assert missing.value.hint is not None


ZEP_UPDATES = [
    ("Hana: My onboarding survey is waiting on the consent form.", "06-01"),
    ("Ivan: The referral widget is blocked by the consent form.", "06-02"),
    ("Jo: My pricing page test is waiting on the referral widget.", "06-03"),
]


def test_zep_shaped_calls(db_path: Path) -> None:
    """The calls a Zep SDK user writes first, against a real database file."""
    with memcli.Client(db_path) as client:
        made = client.graph.create(graph_id="growth", name="Growth", description="team")
        assert (made.graph, made.episodes) == ("growth", 0)
        for text, day in ZEP_UPDATES:
            client.graph.add(
                graph_id="growth",
                type="message",
                data=text,
                created_at=f"2026-{day}T09:00:00Z",
                source_description=f"slack/{text.split(':')[0].lower()}",
            )
        # the speaker is the author: "I" and "My" are theirs
        episodes = client.graph.episode.get_by_graph_id("growth")
        assert [(e.author, e.source, e.occurred_at[:10]) for e in episodes] == [
            ("Hana", "slack/hana", "2026-06-01"),
            ("Ivan", "slack/ivan", "2026-06-02"),
            ("Jo", "slack/jo", "2026-06-03"),
        ]
        assert ("Hana", "owns", "onboarding survey") in {
            (f.source, f.relation, f.target) for f in episodes[0].facts
        }
        # analyzed on add, as Zep's observations appear without a separate call
        [obs] = client.observation.get_by_graph_id("growth", limit=5)
        assert obs.root_entities == ["consent form"]
        assert obs.uuid == str(obs.id) == obs.uuid_
        assert obs.episode_ids == [e.id for e in episodes]
        assert obs.episode_uuids == [str(e.id) for e in episodes]
        assert client.graph.get(graph_id="growth").active_observations == 1
        same = client.observation.get(uuid_=obs.uuid)
        assert same.id == obs.id and client.graph.observation.get(str(obs.id)).id == obs.id
        assert client.graph.episode.get(uuid_=str(episodes[1].id)).author == "Ivan"
        with pytest.raises(UsageError, match="string of digits"):
            client.observation.get(uuid_="abc")

        edges = client.graph.search(graph_id="growth", query="consent form", scope="edges")
        assert edges and all(r.type == "fact" for r in edges) and edges.edges == list(edges)
        nodes = client.graph.search(graph_id="growth", query="consent form", scope="nodes")
        assert [r.title for r in nodes.nodes][:1] == ["consent form"]
        mixed = client.graph.search(graph_id="growth", query="consent form", scope="all")
        assert [r.id for r in mixed.observations] == [obs.id]
        assert mixed.episodes and mixed.edges == mixed.facts

        # pages: limit with cursor (or offset)
        client.graph.add(graph_id="growth", data="Kim owns the pricing page test.")
        everything = client.graph.episode.get_by_graph_id("growth")
        first = client.graph.episode.get_by_graph_id("growth", limit=3)
        rest = client.graph.episode.get_by_graph_id("growth", limit=3, offset=len(first))
        assert [e.id for e in first + rest] == [e.id for e in everything] and len(rest) == 1
        assert client.observation.get_by_graph_id("growth", limit=1, cursor="1") == []
        assert [g.graph for g in client.graph.list_all(page_number=1, page_size=1)] == ["growth"]
        assert client.graph.list_all(page_number=2, page_size=1) == []

        client.graph.delete(graph_id="growth")
        assert client.graph.list_all() == []
        with pytest.raises(NotFound, match="no graph named 'growth'"):
            client.graph.delete(graph_id="growth")
        with pytest.raises(NotFound):
            client.observation.get(obs.id)


def test_analyze_on_add_can_be_turned_off(db_path: Path) -> None:
    with memcli.Client(db_path, analyze_on_add=False) as client:
        for text, day in ZEP_UPDATES:
            client.graph.add(graph_id="g", type="message", data=text, created_at=f"2026-{day}")
        assert client.observation.get_by_graph_id("g") == []
        client.graph.add(graph_id="g", data="Lu owns the consent form.", analyze=True)
        assert len(client.observation.get_by_graph_id("g")) == 1
    with memcli.Client(db_path) as client:
        # a label is not a speaker; an explicit author wins over the opening name
        note = client.graph.add(graph_id="n", data="Status: the badge reader waits on Ops.")
        assert (note.author, note.content) == (None, "Status: the badge reader waits on Ops.")
        given = client.graph.add(graph_id="n", type="message", data="Ro: hi.", author="Su")
        assert (given.author, given.content) == ("Su", "Ro: hi.")
    with memcli.Client(db_path) as client:  # on by default; off for one call
        client.graph.add(graph_id="h", data="The app audit is blocked by the key rotation.")
        client.graph.add(
            graph_id="h", data="The store listing is blocked by the key rotation.", analyze=False
        )
        assert client.observation.get_by_graph_id("h") == []
        assert client.graph.analyze(graph_id="h").created
        assert len(client.observation.get_by_graph_id("h")) == 1


def test_async_client_runs_the_same_calls(db_path: Path) -> None:
    import asyncio

    async def main() -> tuple[list[int], list[str], str]:
        async with memcli.AsyncClient(db_path) as client:
            for text, day in ZEP_UPDATES:
                await client.graph.add(
                    graph_id="growth", type="message", data=text, created_at=f"2026-{day}"
                )
            [obs] = await client.observation.get_by_graph_id("growth", limit=5)
            detail = await client.graph.observation.get(uuid_=obs.uuid)
            hits = await client.graph.search(graph_id="growth", query="referral", scope="edges")
            return obs.episode_ids, [h.type for h in hits], detail.name

    episode_ids, kinds, name = asyncio.run(main())
    assert episode_ids == [1, 2, 3] and set(kinds) == {"fact"}
    assert "consent form" in name.lower()
    with memcli.Client(db_path) as client:  # it wrote the real file
        assert [e.author for e in client.graph.episode.get_by_graph_id("growth")] == [
            "Hana",
            "Ivan",
            "Jo",
        ]

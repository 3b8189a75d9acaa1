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

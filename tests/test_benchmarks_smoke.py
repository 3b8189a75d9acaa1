"""The benchmark scripts run on tiny sizes, and the corpus generator says what it plants.

Figures come from ``benchmarks/``; these tests only guard that the scripts keep working
as memcli changes (a renamed store method or a changed JSON field breaks them here
first), and that the generator's English is what the rules extractor reads.
"""

from __future__ import annotations

import json
import sys
from dataclasses import replace
from pathlib import Path

import pytest

BENCH = Path(__file__).resolve().parents[1] / "benchmarks"
sys.path.insert(0, str(BENCH))

import generate  # noqa: E402
import ingest_dump  # noqa: E402
import perf  # noqa: E402
import recall  # noqa: E402

from memcli import api  # noqa: E402
from memcli.extract.rules import extract  # noqa: E402
from memcli.resolve import normalize  # noqa: E402
from memcli.sources import expand  # noqa: E402
from memcli.store import Store  # noqa: E402

TINY = generate.Config(chains=4, noise=12, people=20, weeks=2, increment=3)


def test_generator_is_deterministic_and_writes_every_format(tmp_path: Path) -> None:
    hubs = generate.Config(
        chains=6, noise=20, hub_person=True, hub_team=0.5, two_foundation=1.0, people=20
    )
    first = generate.write(generate.generate(hubs), tmp_path / "a")
    second = generate.write(generate.generate(hubs), tmp_path / "b")
    for name in ("truth.json", "facts/part-0000.jsonl", "text/part-0000.jsonl"):
        assert (first / name).read_bytes() == (second / name).read_bytes()
    truth = json.loads((first / "truth.json").read_text())
    md = {p.stem for p in (first / "md").glob("*.md")}
    assert len(md) == truth["episodes"]
    assert len(truth["chains"]) == 6 and truth["hub"]
    for chain in truth["chains"]:
        assert set(chain["episodes"]) <= md
        assert 2 <= sum(m["role"] == "direct" for m in chain["members"]) <= 4
    assert any(m["role"] == "two_foundation" for c in truth["chains"] for m in c["members"])
    assert (first / "increment" / "md").is_dir()


def test_generated_text_reads_back_as_the_planted_facts() -> None:
    """If the extractor stops reading a phrasing, recall through Markdown would measure
    extraction, not linking: fail here instead."""
    corpus = generate.generate(
        generate.Config(chains=10, noise=40, hub_person=True, two_foundation=0.5, people=25)
    )
    for ep in corpus.episodes:
        got = {
            (normalize(f.source.name), f.relation.value, normalize(f.target.name))
            for f in extract(ep.content, ep.author).facts
        }
        want = {(normalize(f["source"]), f["relation"], normalize(f["target"])) for f in ep.facts}
        assert got == want, ep.content


def test_recall_scores_a_tiny_corpus(tmp_path: Path) -> None:
    rows = recall.run("clean", [3], ["facts", "md"], ["extended"], True, base=TINY, out=tmp_path)
    assert {(r["input"], r["mode"]) for r in rows} >= {("md", "extended"), ("facts", "node")}
    full = [r for r in rows if r["owner_naming"] == 1.0]
    assert all(r["whole"] == r["chains"] == 4 for r in full)
    assert "| clean | 100% | extended |" in recall.table(rows, TINY.noise)


def test_perf_pieces_agree_with_the_oracles(tmp_path: Path) -> None:
    small = replace(perf.scale_config(300), chains=5, noise=60, weeks=1)
    corpus = generate.write(generate.generate(small), tmp_path / "c")
    db = tmp_path / "perf.db"
    with Store(db) as store:
        assert api.ingest(store, expand([str(corpus / "text")])).ok
    res = perf.Results()
    perf.cluster_figures(res, db, 300)
    assert not [n for n in res.notes if "disagree" in n]
    assert res.rows[0]["figure"].startswith("clustering step")


def test_measured_process_reports_time_and_memory(tmp_path: Path) -> None:
    run = perf.memcli_run(tmp_path / "x.db", "--version")
    assert run.code == 0 and run.stdout.startswith("memcli ")
    assert run.seconds > 0 and run.rss_mb > 1


@pytest.mark.parametrize("argv", [["--help"]])
def test_generator_cli(argv: list[str], capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as exc:
        generate.main(argv)
    assert exc.value.code == 0
    assert "--owner-naming" in capsys.readouterr().out


def test_perf_stages_run_the_real_pipeline_and_leave_no_trace(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    small = replace(perf.scale_config(300), chains=5, noise=60, weeks=1)
    corpus = generate.write(generate.generate(small), tmp_path / "c")
    db = tmp_path / "perf.db"
    with Store(db) as store:
        assert api.ingest(store, expand([str(corpus / "facts")])).ok
    perf.stages(db)
    steps = [line.split("\t")[0] for line in capsys.readouterr().out.splitlines()]
    assert steps[:2] == ["corrections.auto_resolve (names)", "store.load_analysis"]
    assert steps[-1] == "store.apply"
    with Store(db) as store:  # rolled back: the graph was never analyzed
        assert api.observations(store, perf.GRAPH) == []
        assert api.analyze(store, perf.GRAPH).created  # and a real analyze finds patterns


def test_connectors_benchmark_runs(tmp_path: Path) -> None:
    import subprocess

    out = subprocess.run(
        [
            sys.executable,
            str(BENCH / "connectors.py"),
            "--records",
            "20",
            "--issues",
            "25",
            "--out",
            str(tmp_path),
        ],
        capture_output=True,
        text=True,
        check=True,
    ).stdout
    for fmt in ("github", "jira", "slack"):
        assert f"| {fmt} | 20 |" in out
    assert "25-issue GitHub export" in out


def test_mcp_sizes_runs_on_a_small_store(tmp_path: Path) -> None:
    """benchmarks/mcp_sizes.py drives every tool over stdio and checks the 20 KB target."""
    pytest.importorskip("mcp")
    import subprocess

    corpus = generate.write(generate.generate(TINY), tmp_path / "corpus")
    db = tmp_path / "tiny.db"
    with Store(db) as store:
        assert api.ingest(store, expand([str(corpus / "facts")])).ok
        api.analyze(store, TINY.graph)
    run = subprocess.run(
        [sys.executable, str(BENCH / "mcp_sizes.py"), "--db", str(db), "--graph", TINY.graph],
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert run.returncode == 0, run.stderr
    tools = {line.split()[0] for line in run.stdout.splitlines()[1:-1]}
    assert {"list_observations", "get_observation", "report", "add_episode"} <= tools
    assert "target <= 20,000 met" in run.stdout


def test_ingest_dump_writes_every_table_and_the_awkward_inputs_errors(tmp_path: Path) -> None:
    corpus = generate.write(generate.generate(TINY), tmp_path / "corpus")
    odd = ingest_dump.awkward(tmp_path)
    codes = ingest_dump.dump(BENCH.parent, tmp_path / "dump", corpus, odd)
    assert codes == {"md": 0, "facts": 0, "text": 0, "sample": 0, "awkward": 1}
    report = (tmp_path / "dump" / "awkward" / "_report.json").read_text(encoding="utf-8")
    assert f"{odd / 'bad-lines.jsonl'}:7: could not store" in report
    facts = (tmp_path / "dump" / "facts" / "facts.txt").read_text(encoding="utf-8")
    assert len(facts.splitlines()) > 10 and "<clock>" in facts


def test_week_benchmark_scores_the_week_against_its_key(
    capsys: pytest.CaptureFixture[str],
) -> None:
    import week

    answer = json.loads((BENCH / "week" / "answer.json").read_text(encoding="utf-8"))
    # Every update has a line in the key, and the key's items are named in the text.
    names = {p.name for p in (BENCH / "week" / "updates").glob("*.md")}
    assert set(answer["facts"]) == names and len(names) == 72
    assert week.main(["--json"]) == 0
    result = json.loads(capsys.readouterr().out)
    assert [r["root"] for r in result["roots"]] == [
        "auth refactor",
        "Postgres 16 upgrade",
        "staging gateway allowlist",
    ]
    assert result["facts"]["gold"] == sum(len(f) for f in answer["facts"].values())
    assert 0 < result["facts"]["matched"] <= result["facts"]["gold"]


def test_a_second_week_runs_with_week(capsys: pytest.CaptureFixture[str]) -> None:
    import week

    answer = json.loads((BENCH / "week2" / "answer.json").read_text(encoding="utf-8"))
    names = {p.name for p in (BENCH / "week2" / "updates").glob("*.md")}
    assert set(answer["facts"]) == names and len(names) == 71
    assert week.main(["--json", "--week", str(BENCH / "week2")]) == 0
    result = json.loads(capsys.readouterr().out)
    assert len(result["roots"]) == 3
    assert result["facts"]["gold"] == sum(len(f) for f in answer["facts"].values())

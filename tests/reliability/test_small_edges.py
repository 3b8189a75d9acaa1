"""Small edges from the hostile run (issue 12, item 16), each through a real process."""

from __future__ import annotations

import json
import os
import signal
import sqlite3
import subprocess
import sys
from pathlib import Path

import pytest

from tests.reliability.helpers import env, memcli_cmd, wait_until, write_updates


def run(
    db: Path, *args: str, stdin: str = "", cwd: Path | None = None, timeout: float = 120
) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        memcli_cmd(db, *args),
        input=stdin,
        env=env(),
        capture_output=True,
        text=True,
        timeout=timeout,
        check=False,
        cwd=cwd,
    )


def episodes(db: Path) -> int:
    conn = sqlite3.connect(db)
    try:
        return int(conn.execute("SELECT count(*) FROM episodes").fetchone()[0])
    finally:
        conn.close()


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="no FIFOs on this platform")
def test_fifo_argument_is_refused_not_waited_on(tmp_path: Path) -> None:
    fifo = tmp_path / "updates.md"
    os.mkfifo(fifo)
    good = write_updates(tmp_path / "in", [1])[0]
    # Before the fix this blocked in open() forever; the timeout turns that into a failure.
    result = run(tmp_path / "m.db", "ingest", str(fifo), str(good), timeout=60)
    assert result.returncode == 1 and "Traceback" not in result.stderr
    assert f"{fifo}: not a regular file" in result.stderr
    assert episodes(tmp_path / "m.db") == 1


def test_utf32_is_called_utf32(tmp_path: Path) -> None:
    path = tmp_path / "wide.md"
    path.write_bytes("Alice is blocked by the parser.\n".encode("utf-32"))
    result = run(tmp_path / "m.db", "ingest", str(path))
    assert result.returncode == 1
    assert f"{path}: UTF-32 text" in result.stderr and "UTF-16" not in result.stderr


def test_self_loop_fact_is_a_warning_with_the_path(tmp_path: Path) -> None:
    path = tmp_path / "given.json"
    record = {
        "content": "The parser waits on itself, says the tracker.",
        "author": "Alice",
        "occurred_at": "2026-11-02T09:00:00Z",
        "graph": "g",
        "facts": [
            {"source": "parser", "relation": "blocked_by", "target": "parser"},
            {"source": "Alice", "relation": "owns", "target": "parser"},
        ],
    }
    path.write_text(json.dumps(record), encoding="utf-8")
    result = run(tmp_path / "m.db", "ingest", "--json", str(path))
    assert result.returncode == 0, result.stderr
    warnings = json.loads(result.stdout)["warnings"]
    assert any(
        w["source"] == str(path) and "(parser, blocked_by, parser)" in w["message"]
        for w in warnings
    ), warnings


@pytest.mark.parametrize(
    "args",
    [
        ("ingest", "--graph", "  ", "-"),
        ("import", "--graph", "", "-"),
        ("analyze", "--graph", "  "),
        ("facts", "--graph", " "),
        ("export", "--graph", "\t"),
    ],
)
def test_blank_graph_name_is_a_usage_error(tmp_path: Path, args: tuple[str, ...]) -> None:
    db = tmp_path / "m.db"
    seeded = run(db, "ingest", "-", stdin="Alice is blocked by the parser.\n")
    assert seeded.returncode == 0, seeded.stderr
    result = run(db, *args, stdin="Bob is blocked by the linker.\n")
    assert result.returncode == 2, result.stderr
    assert "empty graph name" in result.stderr
    assert episodes(db) == 1


def test_mcp_add_episode_refuses_oversize_content(tmp_path: Path) -> None:
    pytest.importorskip("mcp")
    import anyio
    from mcp import ClientSession, StdioServerParameters, stdio_client

    db = tmp_path / "agent.db"
    root = Path(__file__).resolve().parents[2]
    params = StdioServerParameters(
        command=sys.executable,
        args=["-m", "memcli", "mcp", "--db", str(db)],
        cwd=str(root),
        env=env(),
    )
    big = "The parser is blocked by the linker. " * (11 * 1024 * 1024 // 37 + 1)

    async def session() -> tuple[bool, str, bool]:
        with anyio.fail_after(120):
            async with stdio_client(params) as (read, write):
                async with ClientSession(read, write) as s:
                    await s.initialize()
                    too_big = await s.call_tool(
                        "add_episode", {"graph": "g", "content": big, "analyze": False}
                    )
                    fine = await s.call_tool(
                        "add_episode",
                        {"graph": "g", "content": "Alice is blocked by the parser."},
                    )
                    return too_big.is_error, too_big.content[0].text, fine.is_error

    error, text, fine_error = anyio.run(session)
    assert error and "byte limit" in text and "MEMCLI_MAX_FILE_BYTES" in text
    assert not fine_error
    conn = sqlite3.connect(db)
    sizes = [r[0] for r in conn.execute("SELECT length(content) FROM episodes")]
    conn.close()
    assert sizes == [len("Alice is blocked by the parser.")]


@pytest.fixture
def exportable(tmp_path: Path) -> Path:
    db = tmp_path / "big.db"
    write_updates(tmp_path / "in", range(1500))
    assert run(db, "ingest", "-q", str(tmp_path / "in")).returncode == 0
    return db


def temp_files(folder: Path) -> list[str]:
    return sorted(p.name for p in folder.iterdir() if p.name.endswith(".tmp"))


def test_export_terminated_mid_way_removes_its_temp_file(exportable: Path, tmp_path: Path) -> None:
    out_dir = tmp_path / "out"
    out_dir.mkdir()
    target = out_dir / "g.jsonl"
    target.write_text("yesterday's export\n")
    proc = subprocess.Popen(
        memcli_cmd(exportable, "export", "--graph", "g", "--output", str(target)),
        env=env(),
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    seen = wait_until(lambda: bool(temp_files(out_dir)), proc, 60)
    proc.send_signal(signal.SIGTERM)
    proc.communicate(timeout=60)
    assert temp_files(out_dir) == []
    if seen and proc.returncode != 0:  # stopped mid-way: the old file stands
        assert proc.returncode == 128 + signal.SIGTERM
        assert target.read_text() == "yesterday's export\n"
    else:  # finished before the signal: the new export is whole
        assert target.read_text().count("\n") == 1500


def test_stale_temp_files_of_killed_exports_are_swept(exportable: Path, tmp_path: Path) -> None:
    out_dir = tmp_path / "out"
    out_dir.mkdir()
    target = out_dir / "g.jsonl"
    # What SIGKILL leaves behind: a temp file whose writer no longer exists.
    gone = subprocess.run(
        [sys.executable, "-c", "import os; print(os.getpid())"],
        capture_output=True,
        text=True,
        check=True,
    )
    dead_pid = int(gone.stdout)
    for n in range(3):
        (out_dir / f".g.jsonl.export-{dead_pid}.run{n}.tmp").write_text("half an expo")
    (out_dir / ".other.jsonl.export-1.x.tmp").write_text("not ours to remove")
    result = run(exportable, "export", "--graph", "g", "--output", str(target))
    assert result.returncode == 0, result.stderr
    assert temp_files(out_dir) == [".other.jsonl.export-1.x.tmp"]
    assert target.read_text().count("\n") == 1500


PEAK_RSS = (
    "import resource, subprocess, sys\n"
    "subprocess.run(sys.argv[1:], check=True, capture_output=True)\n"
    "print(resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss)\n"
)


def peak_rss_kib(db: Path, *args: str) -> int:
    """Peak resident memory (KiB on Linux) of one memcli run, measured by a parent of
    its own so that no other child process of the test run is counted."""
    out = subprocess.run(
        [sys.executable, "-c", PEAK_RSS, *memcli_cmd(db, *args)],
        env=env(),
        capture_output=True,
        text=True,
        timeout=600,
        check=True,
    )
    return int(out.stdout)


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="ru_maxrss units differ")
def test_ingest_memory_follows_the_largest_file_not_the_total(tmp_path: Path) -> None:
    folder = tmp_path / "in"
    folder.mkdir()
    filler = ("lorem ipsum dolor " * 120_000)[:2_000_000]
    for i in range(25):  # 25 files x 2 MB; each carries its facts, so no extraction runs
        record = {
            "content": f"Update {i} about the release. {filler}",
            "author": f"Writer {i}",
            "occurred_at": f"2026-11-{1 + i:02d}T09:00:00Z",
            "graph": "g",
            "facts": [{"source": f"task {i}", "relation": "blocked_by", "target": "parser"}],
        }
        (folder / f"u{i:02d}.json").write_text(json.dumps(record), encoding="utf-8")
    one = peak_rss_kib(tmp_path / "one.db", "ingest", "-q", str(folder / "u00.json"))
    many = peak_rss_kib(tmp_path / "many.db", "ingest", "-q", str(folder))
    assert episodes(tmp_path / "many.db") == 25
    # Holding every input at once costs the whole 50 MB on top of one file's peak.
    assert many - one < 25 * 1024, (one, many)

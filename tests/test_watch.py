"""memcli watch (issue 15, item 3): ingests files as they land, analyzes once the inbox has
settled, reads each file once, and stops cleanly on a signal."""

from __future__ import annotations

import os
import shutil
import signal
import sqlite3
import subprocess
import sys
import time
from pathlib import Path

import pytest

from memcli.store import Store
from memcli.watch import Watcher
from tests.conftest import SAMPLES, Cli

ATLAS = sorted((SAMPLES / "project-atlas").glob("*.md"))


def drop(src: Path, inbox: Path) -> None:
    """Land a file in the inbox the way a mailer or sync tool should: written beside it,
    then renamed in whole."""
    tmp = inbox.parent / f".{src.name}.part"
    shutil.copyfile(src, tmp)
    os.replace(tmp, inbox / src.name)


def state(db: Path) -> tuple[int, int, bool] | None:
    """(episodes, active observations, analyzed up to the last ingest), or None while the
    database is not there or busy."""
    try:
        with sqlite3.connect(f"file:{db}?mode=ro", uri=True, timeout=1) as conn:
            episodes = conn.execute("SELECT count(*) FROM episodes").fetchone()[0]
            active = conn.execute(
                "SELECT count(*) FROM observations WHERE status = 'active'"
            ).fetchone()[0]
            row = conn.execute("SELECT min(analyzed_seq = ingest_seq) FROM graphs").fetchone()
            return episodes, active, bool(row[0])
    except sqlite3.Error:
        return None


def wait_for(check: object, what: str, limit: float = 90.0) -> None:
    """Poll ``check()`` until it is true; fail (saying what never happened) after
    ``limit`` seconds, a bound for a stuck process, not a measurement."""
    deadline = time.monotonic() + limit
    while time.monotonic() < deadline:
        if check():  # type: ignore[operator]
            return
        time.sleep(0.05)
    raise AssertionError(f"gave up waiting: {what}")


@pytest.mark.parametrize("stop_with", [signal.SIGTERM, signal.SIGINT])
def test_watch_ingests_as_files_land_then_analyzes_and_stops_cleanly(
    tmp_path: Path, stop_with: signal.Signals
) -> None:
    inbox, db, log = tmp_path / "inbox", tmp_path / "watch.db", tmp_path / "watch.log"
    inbox.mkdir()
    env = {k: v for k, v in os.environ.items() if k != "MEMCLI_DB"}
    command = [sys.executable, "-m", "memcli", "--db", str(db), "watch", str(inbox)]
    with log.open("w") as err:
        proc = subprocess.Popen(
            [*command, "--settle", "1s", "--interval", "0.1s"],
            stdin=subprocess.DEVNULL,
            stdout=subprocess.DEVNULL,
            stderr=err,
            env=env,
        )
        try:
            wait_for(lambda: "watching" in log.read_text(), "watch to start")
            drop(ATLAS[0], inbox)
            wait_for(lambda: (state(db) or (0,))[0] == 1, "the first file to be ingested")
            for path in ATLAS[1:]:
                drop(path, inbox)
            wait_for(lambda: state(db) == (3, 1, True), "three episodes, analyzed")
            proc.send_signal(stop_with)
            assert proc.wait(timeout=60) == 0
        finally:
            if proc.poll() is None:
                proc.kill()
                proc.wait()
    lines = log.read_text().splitlines()
    ingested = [line for line in lines if " ingested " in line]
    # Each file read once, though the inbox was polled many times after it landed.
    assert len(ingested) == 3 and all("1 new episode(s)" in line for line in ingested)
    assert any("analyzed project-atlas: observations 1 new" in line for line in lines)
    # The signal is logged when it lands; a step already under way (the analyze whose
    # commit the test saw) still finishes and logs, then the watch stops.
    stopping = [i for i, line in enumerate(lines) if line.endswith(f"stopping on {stop_with.name}")]
    assert len(stopping) == 1 and lines[-1].endswith("stopped")
    assert not any(" ingested " in line for line in lines[stopping[0] :])
    assert "Traceback" not in log.read_text()


def test_a_file_is_taken_once_it_is_steady_and_again_when_it_changes(tmp_path: Path) -> None:
    inbox = tmp_path / "inbox"
    inbox.mkdir()
    logged: list[str] = []
    with Store(tmp_path / "w.db") as store:
        watcher = Watcher(store, inbox, log=logged.append, settle=0)
        (inbox / ".hidden.md").write_text("ignored", encoding="utf-8")
        (inbox / "notes.pdf").write_text("ignored", encoding="utf-8")
        shutil.copyfile(ATLAS[0], inbox / "alice.md")
        assert watcher.due() == []  # seen once: it may still be being written
        ready = watcher.due()
        assert ready == [str(inbox / "alice.md")]
        watcher.ingest(ready)
        assert watcher.due() == [] and watcher.due() == []  # not read again
        assert watcher.settled()
        watcher.analyze()
        assert not watcher.settled() and logged[-1].startswith("analyzed project-atlas")
        with (inbox / "alice.md").open("a", encoding="utf-8") as f:
            f.write("\nThe design review is done.\n")
        os.utime(inbox / "alice.md", ns=(time.time_ns(), time.time_ns() + 10**9))
        assert watcher.due() == [] and watcher.due() == [str(inbox / "alice.md")]


def test_watch_once_and_a_missing_inbox(cli: Cli, atlas: Path, tmp_path: Path) -> None:
    result = cli("watch", str(atlas), "--once")
    assert result.stderr.count(" ingested ") == 3
    assert "analyzed project-atlas: observations 1 new" in result.stderr
    assert len(cli.json("observations", "--graph", "project-atlas")) == 1
    missing = cli("watch", str(tmp_path / "nope"), ok=False)
    assert missing.exit_code == 2 and "is not a folder" in missing.stderr


def test_watch_quiet_prints_only_errors(cli: Cli, atlas: Path, tmp_path: Path) -> None:
    quiet = cli("watch", str(atlas), "--once", "--quiet")
    assert (quiet.stdout, quiet.stderr) == ("", "")
    assert len(cli.json("observations", "--graph", "project-atlas")) == 1
    (atlas / "broken.md").write_bytes(b"\xff\xfe" + "hello".encode("utf-16-le"))
    failed = cli("watch", str(atlas), "--once", "--quiet", ok=False)
    assert failed.exit_code == 1 and "error:" in failed.stderr and "broken.md" in failed.stderr

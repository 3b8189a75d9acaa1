"""A large Markdown batch is read by the rules reader across the cores
(``RulesExtractor.extract_many``): the rows stored, the report and the order are the
same as reading each update in turn, and no worker process outlives the ingest."""

from __future__ import annotations

import json
import multiprocessing
import os
import subprocess
import sys
from pathlib import Path

import pytest

from memcli import api
from memcli.extract.rules import extract
from memcli.models import Extraction
from memcli.sources import expand
from memcli.store import Store
from tests.reliability.helpers import update_text
from tests.test_ingest_batches import rows

N = 260  # batches of 1, 1, 2, 4, ... 64 and 128: the last ones are read by a pool

# Sentences the reader reads, half-reads or leaves alone, so that facts, unparsed
# sentences and traces all differ from one update to the next.
EXTRA = [
    "Finished the ledger export {i}.",
    "The ledger export {i} is no longer waiting on the quota service.",
    "Lunch ran long and nobody minded.",
    "Maybe the cache warmer {i} waits on the ticket queue, hard to say.",
    "Dana owns the ledger export {i}.",
    "We are still waiting for the quota service rollout.",
]


def write_updates(folder: Path) -> None:
    folder.mkdir()
    for i in range(N):
        extra = " ".join(s.format(i=i) for s in EXTRA[i % 3 : i % 3 + 1 + i % 4])
        (folder / f"u{i:04d}.md").write_text(update_text(i) + extra + "\n", encoding="utf-8")


class OneAtATime:
    """The rules reader called once per update (no ``extract_many``)."""

    name = "rules"

    def __call__(self, text: str, author: str | None) -> Extraction:
        return extract(text, author)


def pool_possible() -> bool:
    return sys.platform == "linux" and len(os.sched_getaffinity(0)) > 1


def test_a_batch_read_across_processes_stores_what_reading_one_at_a_time_does(
    tmp_path: Path,
) -> None:
    write_updates(tmp_path / "in")
    reports = []
    for name, extractor in (("pool", api.RulesExtractor()), ("serial", OneAtATime())):
        with Store(tmp_path / f"{name}.db") as store:
            report = api.ingest(store, expand([str(tmp_path / "in")]), extractor=extractor)
        reports.append(report)
    assert rows(tmp_path / "pool.db") == rows(tmp_path / "serial.db")
    pool, serial = reports
    assert pool.as_dict() == serial.as_dict()
    assert pool.explain == serial.explain and pool.trace == serial.trace
    assert pool.episodes_new == N and pool.facts_new > 2 * N
    assert multiprocessing.active_children() == []  # the ingest ended its workers


def test_extract_many_gives_each_text_its_own_reading_in_order() -> None:
    items = [
        (f"The relay {i} is blocked on the vault {i % 7}. " + EXTRA[i % 6].format(i=i), "Ilse")
        for i in range(3 * api.POOL_MIN_TEXTS + 1)
    ]
    reader = api.RulesExtractor()
    try:
        got = reader.extract_many(items)  # across processes if a core is free
    finally:
        reader.close()
    assert got == [extract(text, author) for text, author in items]
    assert multiprocessing.active_children() == []


@pytest.mark.skipif(not pool_possible(), reason="one core: everything is read here")
def test_a_small_batch_starts_no_worker() -> None:
    reader = api.RulesExtractor()
    reader.extract_many([("The relay is blocked on the vault.", "Ilse")] * 5)
    assert multiprocessing.active_children() == []
    reader.close()


def test_updates_with_given_facts_never_load_the_reader(tmp_path: Path) -> None:
    # Loading the rules reader compiles a few hundred patterns (~60 ms): an ingest with
    # nothing to read must not pay for it.
    data = tmp_path / "given.jsonl"
    record = {
        "content": "The relay waits on the vault.",
        "occurred_at": "2026-05-02",
        "facts": [{"source": "relay", "relation": "blocked_by", "target": "vault"}],
    }
    data.write_text(json.dumps(record) + "\n", encoding="utf-8")
    code = (
        "import sys\n"
        "from memcli import api\n"
        "from memcli.sources import expand\n"
        "from memcli.store import Store\n"
        f"with Store({str(tmp_path / 'm.db')!r}) as store:\n"
        f"    assert api.ingest(store, expand([{str(data)!r}])).episodes_new == 1\n"
        "print('memcli.extract.rules' in sys.modules)\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "False"

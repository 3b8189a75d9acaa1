"""Ingest turns the cyclic garbage collector off while it runs (its batches hold no
cycles) and leaves it as it found it: on for an application that had it on, off for one
that had turned it off, also when the ingest is interrupted."""

from __future__ import annotations

import gc
from collections.abc import Iterator
from pathlib import Path

import pytest

from memcli import api
from memcli.sources import SourceText
from memcli.store import Store


def updates() -> Iterator[SourceText]:
    for day in (2, 3, 4):
        text = f"---\nauthor: Ilse\ndate: 2026-05-0{day}\n---\nThe relay {day} waits on the vault."
        yield SourceText(f"u{day}.md", text, "2026-05-01T00:00:00Z")


@pytest.fixture
def collector() -> Iterator[None]:
    was = gc.isenabled()
    yield
    if was:
        gc.enable()
    else:
        gc.disable()


@pytest.mark.parametrize("enabled", [True, False])
def test_the_collector_is_off_during_an_ingest_and_as_it_was_after(
    tmp_path: Path, enabled: bool, collector: None
) -> None:
    if enabled:
        gc.enable()
    else:
        gc.disable()
    seen: list[bool] = []
    with Store(tmp_path / "m.db") as store:
        report = api.ingest(store, updates(), progress=lambda _: seen.append(gc.isenabled()))
    assert report.episodes_new == 3
    assert seen == [False, False, False]
    assert gc.isenabled() is enabled


def test_the_collector_is_back_on_after_an_interrupted_ingest(
    tmp_path: Path, collector: None
) -> None:
    def interrupted() -> Iterator[SourceText]:
        yield from updates()
        raise KeyboardInterrupt

    gc.enable()
    with Store(tmp_path / "m.db") as store, pytest.raises(KeyboardInterrupt):
        api.ingest(store, interrupted())
    assert gc.isenabled()

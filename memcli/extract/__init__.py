"""Extractors: turn the text of one status update into facts.

``memcli.extract.rules`` is the default, deterministic extractor: pure, standard library
only, so ingest works offline and a given text always yields the same facts.

The seam every extractor fits (the rules reader, the model-backed ``llm``/``auto``
extractors, and anything a user plugs in) is ``Extractor``: a callable from one update's
text and author to an ``Extraction``. An extractor that talks to a model also has a
batch ``prepare(items)`` that ingest calls once, before any write transaction, with every
(text, author) it is about to extract, so model calls run first and concurrently.
"""

from __future__ import annotations

from typing import Protocol, runtime_checkable

from memcli.models import Extraction


@runtime_checkable
class Extractor(Protocol):
    """Text and author of one update in, facts and a per-sentence trace out. Pure."""

    name: str  # "rules", "llm", "auto": recorded with each episode's extraction

    def __call__(self, text: str, author: str | None) -> Extraction: ...


@runtime_checkable
class BatchExtractor(Extractor, Protocol):
    """An extractor that wants to see the whole batch first (model calls, caches)."""

    def prepare(self, items: list[tuple[str, str | None]]) -> None: ...

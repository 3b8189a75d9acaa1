"""Extractors: turn the text of one status update into facts.

``memcli.extract.rules`` is the default, deterministic extractor: pure, standard library
only, so ingest works offline and a given text always yields the same facts.
"""

"""Printing results: one helper for --json, --jsonl, the human view and --quiet.

Commands hand :func:`emit` the contract records :mod:`memcli.api` returned and a function
that draws them for a person; the helper decides what reaches stdout. In the machine
formats nothing but the records is printed (notes go to stderr), and an empty result is
``[]`` (JSON) or nothing (JSON lines, quiet).
"""

from __future__ import annotations

import json
import sys
from collections.abc import Callable, Sequence
from enum import StrEnum
from typing import Any


class Format(StrEnum):
    TABLE = "table"  # rich tables and panels for a person
    JSON = "json"  # one JSON document (a list for list commands)
    JSONL = "jsonl"  # one compact JSON object per line, for streams and `jq -c`
    CSV = "csv"  # a header row, then one row per record, for spreadsheets
    QUIET = "quiet"  # only each record's id, one per line, for shell pipelines


def choose(
    *, as_json: bool = False, as_jsonl: bool = False, as_csv: bool = False, quiet: bool = False
) -> Format:
    """The format the flags ask for; asking for two is a usage error."""
    import typer

    chosen = [
        f
        for f, on in ((Format.JSON, as_json), (Format.JSONL, as_jsonl), (Format.CSV, as_csv))
        if on
    ]
    if quiet:
        chosen.append(Format.QUIET)
    if len(chosen) > 1:
        names = " and ".join(f"--{f.value}" for f in chosen)
        raise typer.BadParameter(f"choose one of {names}", param_hint=f"--{chosen[1].value}")
    return chosen[0] if chosen else Format.TABLE


def jsonable(data: Any) -> Any:
    """Contract records (pydantic models) and lists of them as plain JSON data."""
    if hasattr(data, "model_dump"):
        return data.model_dump(mode="json")
    if isinstance(data, list | tuple):
        return [jsonable(d) for d in data]
    if isinstance(data, dict):
        return {k: jsonable(v) for k, v in data.items()}
    return data


def _dump(record: Any, plain: bool = False) -> str:
    if hasattr(record, "model_dump_json"):
        # pydantic-core writes the JSON itself: no dict copy, no second encoder pass.
        return str(record.model_dump_json())
    if plain:
        # A contract record as plain data (str, int, bool, None, lists and dicts), keys
        # in the contract's order: compact and unescaped UTF-8 are the bytes
        # model_dump_json writes, without importing pydantic to write them.
        return json.dumps(record, ensure_ascii=False, separators=(",", ":"))
    return json.dumps(jsonable(record), ensure_ascii=False, default=str)


def print_json(data: Any, *, plain: bool = False) -> None:
    """Stable JSON on stdout; nothing else ever goes there in --json mode. ``plain``:
    ``data`` is contract records as plain data (see :func:`emit`)."""
    if sys.stdout.isatty():  # indented for a person at a terminal
        text = json.dumps(jsonable(data), ensure_ascii=False, indent=2, default=str)
    elif isinstance(data, list):  # compact for programs, written by pydantic-core
        text = "[" + ",".join(_dump(r, plain) for r in data) + "]"
    else:
        text = _dump(data, plain)
    sys.stdout.write(text + "\n")
    sys.stdout.flush()


def print_jsonl(records: Sequence[Any], *, plain: bool = False) -> None:
    """One compact JSON object per line."""
    sys.stdout.write("".join(_dump(r, plain) + "\n" for r in records))
    sys.stdout.flush()


def emit_json_texts(texts: list[str], fmt: Format) -> None:
    """Print records already written as compact JSON text (one per record, e.g.
    :func:`memcli.reads.observation_json`) as :func:`emit` prints the records in ``fmt``
    (JSON or JSON lines): the same bytes, without decoding them first but at a
    terminal, where JSON is indented."""
    if fmt is Format.JSONL:
        sys.stdout.write("".join(t + "\n" for t in texts))
    elif sys.stdout.isatty():
        records = [json.loads(t) for t in texts]
        sys.stdout.write(json.dumps(records, ensure_ascii=False, indent=2, default=str) + "\n")
    else:
        sys.stdout.write("[" + ",".join(texts) + "]\n")
    sys.stdout.flush()


def print_csv(records: Sequence[Any]) -> None:
    """A header row from the first record's fields, then one row per record; a list or
    object field is written as JSON (as sqlite-utils does), None as an empty cell."""
    import csv

    rows = [jsonable(r) for r in records]
    if not rows:
        return
    writer = csv.writer(sys.stdout, lineterminator="\n")
    columns = list(rows[0])
    writer.writerow(columns)
    for row in rows:
        writer.writerow(
            [
                ""
                if row.get(c) is None
                else json.dumps(row[c], ensure_ascii=False)
                if isinstance(row.get(c), list | dict)
                else row[c]
                for c in columns
            ]
        )
    sys.stdout.flush()


def _key(record: Any) -> str:
    data = jsonable(record)
    for name in ("id", "observation_id", "graph", "version"):
        if name in data:
            return str(data[name])
    return str(next(iter(data.values())))


def emit(
    records: Any,
    fmt: Format,
    human: Callable[[Any], None],
    *,
    plain: bool = False,
) -> None:
    """Print ``records`` (one contract record or a list of them) in ``fmt``.

    ``human`` draws them for a person; it gets what it was given as plain dicts (enums
    are ``StrEnum``, so they still compare and format as text). ``plain``: the records
    are contract records as plain data (dicts with the record's keys in its order, e.g.
    :func:`memcli.api.observation_records`), written by pydantic-core as the model
    would be, byte for byte."""
    if fmt is Format.JSON:
        print_json(records, plain=plain)
    elif fmt is Format.JSONL:
        print_jsonl(records if isinstance(records, list) else [records], plain=plain)
    elif fmt is Format.CSV:
        print_csv(records if isinstance(records, list) else [records])
    elif fmt is Format.QUIET:
        many = records if isinstance(records, list) else [records]
        sys.stdout.write("".join(_key(r) + "\n" for r in many))
        sys.stdout.flush()
    else:
        if isinstance(records, list):
            human([r.model_dump() if hasattr(r, "model_dump") else r for r in records])
        else:
            human(records.model_dump() if hasattr(records, "model_dump") else records)

"""memcli config show, and the language-model options shared by ingest, analyze and extract.

Nothing here imports openai or instructor: :mod:`memcli.llm` loads them only when a
model is actually called.
"""

from __future__ import annotations

from enum import StrEnum
from typing import TYPE_CHECKING, Annotated, Any

import typer

from memcli.cli._app import command, err_console, out_console
from memcli.cli._options import JsonOpt
from memcli.cli._output import choose, emit
from memcli.llm.settings import EXTRACTORS, MODES, WRITERS, LLMSettings, load_settings

if TYPE_CHECKING:
    from memcli.llm.usage import Usage

LLMModelOpt = Annotated[
    str | None,
    typer.Option(
        "--llm-model", metavar="MODEL", help="Model name (default: $MEMCLI_LLM_MODEL, config file)."
    ),
]
LLMBaseUrlOpt = Annotated[
    str | None,
    typer.Option(
        "--llm-base-url",
        metavar="URL",
        help="OpenAI-compatible endpoint, e.g. http://127.0.0.1:8000/v1 "
        "(default: $MEMCLI_LLM_BASE_URL, config file, api.openai.com).",
    ),
]
LLMModeOpt = Annotated[
    str | None,
    typer.Option(
        "--llm-mode",
        metavar="MODE",
        help=f"Structured-output request shape: {', '.join(MODES)} "
        "(default: $MEMCLI_LLM_MODE, config file, a default for the endpoint).",
    ),
]


class Extractor(StrEnum):
    """--extractor's values (typer lists them in --help and rejects others)."""

    RULES = "rules"
    LLM = "llm"
    AUTO = "auto"


class Writer(StrEnum):
    """--writer's values."""

    TEMPLATE = "template"
    LLM = "llm"


assert tuple(Extractor) == EXTRACTORS and tuple(Writer) == WRITERS

ExtractorOpt = Annotated[
    Extractor | None,
    typer.Option(
        "--extractor",
        help="rules (offline), llm (a language model), auto (llm "
        "when one is configured, plus the rules' facts). Default: $MEMCLI_EXTRACTOR, config "
        "file, rules.",
    ),
]
WriterOpt = Annotated[
    Writer | None,
    typer.Option(
        "--writer",
        help="Who writes observation prose. Default: $MEMCLI_WRITER, config file, template.",
    ),
]


def settings(
    model: str | None = None,
    base_url: str | None = None,
    mode: str | None = None,
    **more: Any,
) -> LLMSettings:
    plain = {k: v.value if isinstance(v, StrEnum) else v for k, v in more.items()}
    return load_settings({"model": model, "base_url": base_url, "mode": mode, **plain})


def print_usage(usage: Usage, model: str) -> None:
    """The cost summary line, on stderr."""
    console = err_console()
    console.print(usage.line(model), markup=False)
    for error in usage.errors:
        console.print(f"  llm error: {error}", markup=False)


@command
def show(
    model: LLMModelOpt = None,
    base_url: LLMBaseUrlOpt = None,
    mode: LLMModeOpt = None,
    as_json: JsonOpt = False,
) -> None:
    """Print the effective language-model settings, the key masked, with each one's source.

    Precedence: command option, environment (MEMCLI_LLM_BASE_URL, MEMCLI_LLM_MODEL,
    OPENAI_API_KEY, MEMCLI_LLM_MODE, ...), [llm] in the config file, default.
    """
    s = settings(model, base_url, mode)

    def human(data: dict[str, Any]) -> None:
        from rich.table import Table

        table = Table("setting", "value", "source", title=f"config file: {data['config_file']}")
        for key, item in data["settings"].items():
            value = item["value"]
            table.add_row(key, "-" if value is None else str(value), item["source"])
        out_console().print(table)
        if not s.configured:
            err_console().print(
                "No language model configured: the rules extractor and template writer are "
                "used. Set MEMCLI_LLM_MODEL (and MEMCLI_LLM_BASE_URL for a local server) to "
                "add one.",
                markup=False,
            )

    emit(s.as_dict(), choose(as_json=as_json), human)


__all__ = [
    "ExtractorOpt",
    "LLMBaseUrlOpt",
    "LLMModeOpt",
    "LLMModelOpt",
    "WriterOpt",
    "print_usage",
    "settings",
]

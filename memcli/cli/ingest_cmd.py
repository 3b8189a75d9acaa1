"""memcli ingest and memcli analyze."""

from __future__ import annotations

import sys
from typing import Annotated, Any

import typer
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

from memcli import api
from memcli.cli._app import (
    GraphOpt,
    JsonOpt,
    command,
    err_console,
    open_store,
    print_json,
)
from memcli.cli.config_cmd import (
    ExtractorOpt,
    LLMBaseUrlOpt,
    LLMModelOpt,
    LLMModeOpt,
    WriterOpt,
    print_usage,
    settings,
)
from memcli.errors import UsageError
from memcli.signatures import SignatureMode
from memcli.sources import expand


@command("ingest")
def ingest(
    paths: Annotated[
        list[str],
        typer.Argument(
            help="Update files or directories (.md, .txt, .json, .jsonl); '-' reads stdin."
        ),
    ],
    graph: Annotated[
        str | None,
        typer.Option(
            "--graph", "-g", help="Put every episode in this graph (overrides front matter)."
        ),
    ] = None,
    explain: Annotated[
        bool, typer.Option("--explain", help="List each sentence the extractor did not understand.")
    ] = False,
    quiet: Annotated[
        bool, typer.Option("--quiet", "-q", help="No progress bar, no summary.")
    ] = False,
    extractor: ExtractorOpt = None,
    llm_model: LLMModelOpt = None,
    llm_base_url: LLMBaseUrlOpt = None,
    llm_mode: LLMModeOpt = None,
    as_json: JsonOpt = False,
) -> None:
    """Ingest status updates as episodes, extracting entities and facts.

    Re-ingesting the same update into the same graph adds nothing. A file that fails is
    reported with its path and reason, the others are still ingested, and the exit code
    is 1. With --extractor llm or auto, an update the model cannot read right now (server
    down) is still stored with the rules' facts and marked pending: 'memcli extract
    --pending' retries it.
    """
    console = err_console()
    s = settings(llm_model, llm_base_url, llm_mode, extractor=extractor)
    use_llm = s.extractor == "llm" or (s.extractor == "auto" and s.configured)
    if use_llm:
        s.require()
    elif s.extractor == "auto" and not quiet and not as_json:
        console.print(
            "extractor auto: no language model configured, using the rules extractor",
            markup=False,
        )
    items = list(expand(paths))
    with open_store() as store:
        llm = model_extractor = None
        if use_llm:
            from memcli.llm import LLM
            from memcli.llm.extract import LLMExtractor

            llm = LLM(s, store)
            model_extractor = LLMExtractor(llm, floor=s.extractor == "auto")
        show_bar = not quiet and not as_json and sys.stderr.isatty() and len(items) > 1
        if show_bar:
            with Progress(
                TextColumn("ingesting"),
                BarColumn(),
                MofNCompleteColumn(),
                TimeElapsedColumn(),
                console=console,
                transient=True,
            ) as bar:
                task = bar.add_task("ingest", total=len(items))
                report = api.ingest(
                    store,
                    items,
                    graph=graph,
                    extractor=model_extractor,
                    progress=lambda _s: bar.advance(task),
                )
        else:
            report = api.ingest(store, items, graph=graph, extractor=model_extractor)
    if as_json:
        data = report.as_dict()
        if not explain:
            data.pop("not_understood")
        if llm is not None:
            data["llm"] = {"model": llm.model, **llm.usage.as_dict()}
        print_json(data)
    for source, reason in report.errors:
        console.print(f"Error: {source}: {reason}", markup=False)
    if not quiet and not as_json:
        console.print(
            f"{report.files} file(s): {report.episodes_new} new episode(s), "
            f"{report.episodes_duplicate} duplicate, "
            f"{report.episodes_failed + report.files_failed} failed; "
            f"{report.entities_new} new entities, {report.facts_new} facts"
            + (f" ({report.facts_ended} ended by later updates)" if report.facts_ended else "")
            + f"; {report.unparsed} sentence(s) not understood"
            + ("" if explain or not report.unparsed else " (see --explain)"),
            markup=False,
        )
        if explain:
            for source, sentence in report.explain:
                console.print(f"  not understood: {source}: {sentence}", markup=False)
        if llm is not None:
            print_usage(llm.usage, llm.model)
        if report.episodes_pending:
            console.print(
                f"{report.episodes_pending} episode(s) stored with the rules' facts only: the "
                "model could not be used. Retry with: memcli extract --pending",
                markup=False,
            )
    if not report.ok:
        raise typer.Exit(code=1)


@command("analyze")
def analyze(
    graph: Annotated[
        str | None, typer.Option("--graph", "-g", help="Graph to analyze (default: all graphs).")
    ] = None,
    signatures: Annotated[
        SignatureMode,
        typer.Option(
            "--signatures",
            help="literal: link episodes only by identical facts; extended: also by shared blockers.",
        ),
    ] = SignatureMode.EXTENDED,
    force: Annotated[
        bool, typer.Option("--force", help="Analyze even when nothing changed since the last run.")
    ] = False,
    writer: WriterOpt = None,
    llm_model: LLMModelOpt = None,
    llm_base_url: LLMBaseUrlOpt = None,
    llm_mode: LLMModeOpt = None,
    as_json: JsonOpt = False,
) -> None:
    """Cluster episodes by shared signatures and bring observations in line with the evidence.

    New evidence that fits regenerates an observation (same id, version + 1); evidence that
    contradicts it retires it; running again with nothing new changes nothing. With
    --writer llm a language model words new and changed observations (the structure stays
    the algorithm's); an answer that cites facts outside the evidence or names what the
    evidence does not support is replaced by the template's prose.
    """
    s = settings(llm_model, llm_base_url, llm_mode, writer=writer)
    if s.writer == "llm":
        s.require()
    usages: list[Any] = []
    with open_store() as store:
        graphs = [graph] if graph else store.graph_ids()
        if graph:
            api.require_graph(store, graph)
        if not graphs:
            raise UsageError("nothing to analyze: no graphs yet", hint="run 'memcli ingest' first")
        reports = []
        llm = None
        if s.writer == "llm":
            from memcli.llm import LLM, Usage
            from memcli.llm.write import LLMWriter

            llm = LLM(s, store)
        for g in graphs:
            if llm is None:
                reports.append(api.analyze(store, g, signatures=signatures, force=force))
                continue
            llm.usage = Usage()
            model_writer = LLMWriter(llm, store, g)
            reports.append(
                api.analyze(
                    store,
                    g,
                    signatures=signatures,
                    force=force,
                    writer_name=model_writer.name,
                    write=model_writer,
                )
            )
            usages.append(llm.usage)
    if as_json:
        data = [r.as_dict() for r in reports]
        if llm is not None:
            for d, u in zip(data, usages, strict=True):
                d["llm"] = {"model": llm.model, **u.as_dict()}
        print_json(data)
        return
    console = err_console()
    for i, r in enumerate(reports):
        if r.skipped:
            console.print(f"{r.graph}: {r.reason}; nothing to do", markup=False)
        else:
            console.print(
                f"{r.graph}: {r.episodes} episodes in {r.clusters} clusters "
                f"({r.multi_episode_clusters} with 2+ episodes); observations: "
                f"{len(r.created)} new, {len(r.updated)} updated, {len(r.retired)} retired, "
                f"{len(r.unchanged)} unchanged ({r.seconds * 1000:.0f} ms)",
                markup=False,
            )
        if llm is not None and not r.skipped:
            print_usage(usages[i], llm.model)


@command("extract")
def extract(
    pending: Annotated[
        bool,
        typer.Option("--pending", help="Retry the model extraction of episodes marked pending."),
    ] = False,
    graph: Annotated[
        str | None, typer.Option("--graph", "-g", help="Only this graph (default: all).")
    ] = None,
    llm_model: LLMModelOpt = None,
    llm_base_url: LLMBaseUrlOpt = None,
    llm_mode: LLMModeOpt = None,
    quiet: Annotated[bool, typer.Option("--quiet", "-q", help="No summary.")] = False,
    as_json: JsonOpt = False,
) -> None:
    """Run the language-model extractor again on episodes stored while it was unavailable.

    Their rules facts stay; the model's facts are added, and the next analyze sees them.
    """
    if not pending:
        raise UsageError("nothing to do", hint="use 'memcli extract --pending'")
    s = settings(llm_model, llm_base_url, llm_mode)
    s.require()
    from memcli.llm import LLM
    from memcli.llm.extract import LLMExtractor

    with open_store() as store:
        llm = LLM(s, store)
        report = api.extract_pending(store, LLMExtractor(llm, floor=True), graph)
    if as_json:
        print_json({**report.as_dict(), "llm": {"model": llm.model, **llm.usage.as_dict()}})
    elif not quiet:
        console = err_console()
        console.print(
            f"{report.episodes} pending episode(s): {report.done} extracted, "
            f"{report.still_pending} still pending; {report.entities_new} new entities, "
            f"{report.facts_new} new facts"
            + (f" ({report.facts_ended} ended by later updates)" if report.facts_ended else ""),
            markup=False,
        )
        print_usage(llm.usage, llm.model)
    if report.still_pending:
        raise typer.Exit(code=1)


GraphOptional = Annotated[
    str | None, typer.Option("--graph", "-g", help="Only this graph (default: all).")
]
__all__ = ["analyze", "extract", "ingest", "GraphOpt", "GraphOptional"]

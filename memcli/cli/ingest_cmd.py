"""memcli ingest and memcli analyze."""

from __future__ import annotations

import math
import os
import sys
from enum import StrEnum
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any

import typer

from memcli.cli._app import MAX_BYTES_LIMIT, command, err_console, open_store, print_json
from memcli.cli._options import AnyGraphOpt, JsonOpt, graph_name, in_range
from memcli.cli._output import choose, emit
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

# "Stored, but the model part is pending" (an LLM failure): not a failure of the data,
# not success either. 'memcli extract --pending' finishes the job.
EXIT_PENDING = 3

if TYPE_CHECKING:
    from memcli import api


@command
def ingest(
    paths: Annotated[
        list[str],
        typer.Argument(
            metavar="PATH...",
            help="Update files or directories (.md, .txt, .json, .jsonl); '-' reads stdin.",
        ),
    ],
    graph: Annotated[
        str | None,
        typer.Option(
            "--graph",
            "-g",
            metavar="NAME",
            help="Put every episode in this graph (overrides front matter).",
            callback=graph_name,
        ),
    ] = None,
    explain: Annotated[
        bool, typer.Option("--explain", help="List each sentence the extractor did not understand.")
    ] = False,
    quiet: Annotated[
        bool, typer.Option("--quiet", "-q", help="No progress bar, no summary.")
    ] = False,
    move_to: Annotated[
        Path | None,
        typer.Option(
            "--move-to",
            metavar="DIR",
            file_okay=False,
            help="Move each file once it is stored into DIR, so the next run does not read"
            " it again (an inbox for cron). Files with errors stay where they are.",
        ),
    ] = None,
    max_bytes: Annotated[
        int | None,
        typer.Option(
            "--max-bytes",
            metavar="BYTES",
            callback=in_range(1, MAX_BYTES_LIMIT),
            help="Largest input file accepted, in bytes (default: $MEMCLI_MAX_FILE_BYTES or 10 MiB).",
        ),
    ] = None,
    no_redact: Annotated[
        bool,
        typer.Option(
            "--no-redact",
            help="Store updates exactly as written, without redacting secrets (tokens, keys, passwords).",
        ),
    ] = False,
    from_: Annotated[
        Connector | None,
        typer.Option(
            "--from",
            help="Read a tracker or chat export instead of update files: github (gh or REST"
            " issue JSON), jira (REST search JSON) or slack (an unzipped workspace export folder).",
        ),
    ] = None,
    repo: Annotated[
        str | None,
        typer.Option(
            "--repo",
            metavar="OWNER/REPO",
            help="With --from github: the repository of issues whose JSON has no url.",
        ),
    ] = None,
    jira_dependency_links: Annotated[
        str | None,
        typer.Option(
            "--jira-dependency-links",
            metavar="NAMES",
            help="With --from jira: comma-separated link type names that mean a dependency"
            " (default: Blocks,Dependency,Depends,Required).",
        ),
    ] = None,
    channel: Annotated[
        list[str] | None,
        typer.Option(
            "--channel",
            metavar="NAME",
            help="With --from slack: only this channel (repeat for more; default: all).",
        ),
    ] = None,
    extractor: ExtractorOpt = None,
    llm_model: LLMModelOpt = None,
    llm_base_url: LLMBaseUrlOpt = None,
    llm_mode: LLMModeOpt = None,
    as_json: JsonOpt = False,
) -> None:
    """Ingest status updates as episodes, extracting entities and facts.

    With --from github|jira|slack, read the exports those tools write instead: issues
    become work items with their owners, links and resolutions as facts, and their text,
    comments and chat messages are read like any update (see the README).

    Re-ingesting the same update into the same graph adds nothing. A file that fails is
    reported with its path and reason, the others are still ingested, and the exit code
    is 1.

    A directory with no update files is nothing to do: exit 0 (a note on stderr unless
    --quiet). With --move-to DIR each stored file is moved into DIR (its path below a
    directory argument kept), so a cron job reads each update once.

    Secrets (API tokens, private keys, passwords in assignments, credentials in URLs)
    are replaced by [REDACTED:kind] before anything is stored (and before any model sees
    them); --no-redact opts out.

    With --extractor llm or auto, an update the model cannot read right now (server down)
    is still stored with the rules' facts and marked pending: 'memcli extract --pending'
    retries it; the exit code is then 3 (stored, model part pending).
    """
    from memcli import api, connectors
    from memcli.sources import expand, slack_export

    console = err_console()
    options = _connector_options(from_, repo, jira_dependency_links, channel)
    s = settings(llm_model, llm_base_url, llm_mode, extractor=extractor)
    use_llm = s.extractor == "llm" or (s.extractor == "auto" and s.configured)
    if use_llm:
        s.require()
    elif s.extractor == "auto" and not quiet and not as_json:
        console.print(
            "extractor auto: no language model configured, using the rules extractor",
            markup=False,
        )
    # A generator: each file is read when its turn comes and dropped once stored, so
    # memory follows the largest input, not the sum of them all.
    if move_to is not None and (from_ is not None or "-" in paths):
        raise UsageError("--move-to moves update files: not with --from or '-' (stdin)")
    items = expand(paths, limit=max_bytes)
    if from_ is Connector.SLACK:
        items = slack_export(paths, channels=channel, limit=max_bytes)
    read: list[str] = []  # every source in the order it was read, for --move-to
    items = _recorded(items, read)
    ingest_fn: Any = api.ingest
    if from_ is not None:
        converted = connectors.batches(from_.value, items, **options)

        def ingest_fn(store: Any, _items: Any, **kw: Any) -> api.IngestReport:
            return api.ingest_records(store, converted, **kw)

    with open_store() as store:
        llm = model_extractor = None
        if use_llm:
            from memcli.llm import LLM
            from memcli.llm.extract import LLMExtractor

            llm = LLM(s, store)
            model_extractor = LLMExtractor(llm, floor=s.extractor == "auto")
        many = len(paths) > 1 or any(os.path.isdir(p) for p in paths)
        show_bar = not quiet and not as_json and sys.stderr.isatty() and many
        if show_bar:
            from rich.progress import (
                BarColumn,
                MofNCompleteColumn,
                Progress,
                TextColumn,
                TimeElapsedColumn,
            )

            with Progress(
                TextColumn("ingesting"),
                BarColumn(),
                MofNCompleteColumn(),
                TimeElapsedColumn(),
                console=console,
                transient=True,
            ) as bar:
                task = bar.add_task("ingest", total=None)  # files are counted as read
                report = ingest_fn(
                    store,
                    items,
                    graph=graph,
                    extractor=model_extractor,
                    progress=lambda _s: bar.advance(task),
                    redact=not no_redact,
                )
        else:
            report = ingest_fn(
                store, items, graph=graph, extractor=model_extractor, redact=not no_redact
            )
    if move_to is not None:
        from memcli.sources import move_stored

        stop = None
        if report.incomplete is not None:  # the file where the lock time-out stopped
            stop = next((src for src, why in report.errors if "database is locked" in why), None)
        try:
            move_stored(paths, read, {src for src, _ in report.errors}, stop, move_to)
        except OSError as exc:
            raise UsageError(
                f"--move-to {move_to}: {exc.strerror or exc}",
                hint="the updates are stored; fix the folder and run again",
            ) from None
    if not read and not as_json:
        from memcli.cli._app import note

        note(f"nothing to ingest: no update files in {', '.join(paths)}")
    print_ingest_report(
        report,
        as_json=as_json,
        quiet=quiet,
        explain=explain,
        llm=None if llm is None else (llm.model, llm.usage),
    )


def _recorded(items: Any, read: list[str]) -> Any:
    """``items`` as they are read, each source appended to ``read``."""
    for item in items:
        read.append(item.source)
        yield item


class Connector(StrEnum):
    GITHUB = "github"
    JIRA = "jira"
    SLACK = "slack"


def _connector_options(
    from_: Connector | None,
    repo: str | None,
    links: str | None,
    channels: list[str] | None,
) -> dict[str, Any]:
    """The --from options, each checked against the format it belongs to."""
    for value, option, fmt in (
        (repo, "--repo", Connector.GITHUB),
        (links, "--jira-dependency-links", Connector.JIRA),
        (channels, "--channel", Connector.SLACK),
    ):
        if value is not None and from_ is not fmt:
            raise UsageError(f"{option} needs --from {fmt.value}")
    if from_ is Connector.GITHUB:
        from memcli.connectors import github

        try:
            return {"repo": None if repo is None else github.check_repo(repo)}
        except ValueError as exc:
            raise typer.BadParameter(str(exc), param_hint="--repo") from None
    if from_ is Connector.JIRA:
        names = None if links is None else [n.strip() for n in links.split(",") if n.strip()]
        if names is not None and not names:
            raise typer.BadParameter(
                "give at least one link type name", param_hint="--jira-dependency-links"
            )
        return {"dependency_links": names}
    return {}


def print_ingest_report(
    report: api.IngestReport,
    *,
    as_json: bool,
    quiet: bool,
    explain: bool = False,
    llm: tuple[str, Any] | None = None,
) -> None:
    """The ingest summary (also used by 'memcli import'); exit 1 if any input failed.

    ``llm`` is (model, usage) when a language model extracted.
    """
    console = err_console()
    loud = err_console(always=True)
    if as_json:
        data = report.record().model_dump(mode="json")
        if not explain:
            data.pop("not_understood")
            data.pop("sentences")
        if llm is not None:
            data["llm"] = {"model": llm[0], **llm[1].as_dict()}
        print_json(data)
    for source, reason in report.errors:
        loud.print(f"Error: {source}: {reason}", markup=False)
    for source, message in report.warnings:
        loud.print(f"Warning: {source}: {message}", markup=False)
    if not quiet and not as_json:
        for source, kinds in report.redactions.items():
            console.print(
                f"Redacted: {source}: {sum(kinds.values())} secret(s) ({', '.join(sorted(kinds))})",
                markup=False,
            )
        console.print(
            f"{report.files} file(s): {report.episodes_new} new episode(s), "
            f"{report.episodes_duplicate} duplicate, "
            f"{report.episodes_failed + report.files_failed} failed; "
            f"{report.entities_new} new entities, {report.facts_new} facts"
            + (f" ({report.facts_ended} ended by later updates)" if report.facts_ended else "")
            + f"; {report.unparsed} sentence(s) not understood"
            + ("" if explain or not report.unparsed else " (see --explain)")
            + (f"; {report.secrets_redacted} secret(s) redacted" if report.redactions else "")
            + (
                f"; {report.merge_decisions} merge decision(s) recorded"
                if report.merge_decisions
                else ""
            ),
            markup=False,
        )
        if explain and report.trace:
            from memcli.extract.releases import RELEASE_FRAME

            for source, t in report.trace:
                if t.facts:
                    how = f"read by {t.frame} ({t.facts} fact(s))"
                elif t.frame == RELEASE_FRAME:
                    how = f"read as a release ({t.reason})"
                else:
                    how = f"not understood ({t.reason or 'no fact'})"
                console.print(f"  {how}: {source}: {t.sentence}", markup=False)
        elif explain:
            for source, sentence in report.explain:
                console.print(f"  not understood: {source}: {sentence}", markup=False)
        if llm is not None:
            print_usage(llm[1], llm[0])
    if report.episodes_pending:
        # Not "all is well": said even under --quiet and --json, with the model's errors.
        loud = err_console(always=True)
        loud.print(
            f"{report.episodes_pending} episode(s) stored with the rules' facts only: the "
            "model could not be used. Retry with: memcli extract --pending",
            markup=False,
        )
        if llm is not None and (quiet or as_json):
            for error in llm[1].errors:
                loud.print(f"  llm error: {error}", markup=False)
    if not report.ok:
        raise typer.Exit(code=1)
    if report.episodes_pending:
        raise typer.Exit(code=EXIT_PENDING)


def parse_duration(text: str, option: str, *, zero: bool = True) -> float:
    """'90s', '5m', '1h', '2d' or plain seconds: finite, not negative (and not zero
    unless ``zero``), since a negative window would silently retire every observation."""
    units = {"s": 1, "m": 60, "h": 3600, "d": 86400}
    value = text.strip().lower()
    try:
        if value and value[-1] in units:
            seconds = float(value[:-1]) * units[value[-1]]
        else:
            seconds = float(value)
    except ValueError:
        seconds = math.nan
    if not math.isfinite(seconds) or seconds < 0 or (seconds == 0 and not zero):
        raise typer.BadParameter(
            f"{text!r} is not a {'' if zero else 'positive '}duration (use e.g. 90s, 5m, 1h, 28d)",
            param_hint=option,
        )
    return seconds


@command
def analyze(
    graph: AnyGraphOpt = None,
    signatures: Annotated[
        SignatureMode,
        typer.Option(
            "--signatures",
            help="literal: link episodes only by identical facts; extended: also by shared blockers.",
        ),
    ] = SignatureMode.EXTENDED,
    force: Annotated[
        bool,
        typer.Option(
            "--force", help="Run a full analysis even when nothing changed since the last run."
        ),
    ] = False,
    full: Annotated[
        bool,
        typer.Option(
            "--full", help="Re-cluster the whole graph instead of only what new evidence reaches."
        ),
    ] = False,
    settle: Annotated[
        str | None,
        typer.Option(
            "--settle",
            metavar="DURATION",
            help="Skip a graph that had an ingest in the last DURATION (e.g. 90s, 5m, 1h): wait for quiet.",
        ),
    ] = None,
    window: Annotated[
        str,
        typer.Option(
            "--window",
            metavar="DURATION",
            help="Opt in to cutting links between updates more than this far apart (e.g. 28d; default 'none': a link holds while its facts are valid).",
        ),
    ] = "none",
    stale_after: Annotated[
        str,
        typer.Option(
            "--stale-after",
            metavar="DURATION",
            help="Show a root blocker nobody has confirmed for this long as stale, ranked lower (e.g. 21d; 'none': never).",
        ),
    ] = "21d",
    max_signature_episodes: Annotated[
        int,
        typer.Option(
            "--max-signature-episodes",
            metavar="N",
            callback=in_range(0),
            help="A fact restated in more episodes than this links nothing (0: no limit; blockers exempt).",
        ),
    ] = 50,
    max_cluster: Annotated[
        int,
        typer.Option(
            "--max-cluster",
            metavar="N",
            callback=in_range(0),
            help="Split clusters larger than this, most common signatures first (0: no limit).",
        ),
    ] = 1000,
    explain: Annotated[
        bool, typer.Option("--explain", help="Say what the cluster controls cut and why.")
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
    from memcli.analyze import analyze as analyze_graph
    from memcli.cluster import Controls

    s = settings(llm_model, llm_base_url, llm_mode, writer=writer)
    if s.writer == "llm":
        s.require()
    usages: list[Any] = []
    with open_store() as store:
        graphs = [graph] if graph else store.graph_ids()
        if graph:
            store.require_graph(graph)
        if not graphs:  # nothing to do yet (a cron job before the first update): exit 0
            if as_json:
                emit([], choose(as_json=True), lambda _r: None)
            else:
                from memcli.cli._app import note

                note("nothing to analyze: no graphs yet (run 'memcli ingest' first)")
            return
        quiet_for = parse_duration(settle, "--settle") if settle is not None else None
        controls = Controls(
            window_seconds=None
            if window.strip().lower() in ("none", "0", "off")
            else parse_duration(window, "--window", zero=False),
            max_signature_episodes=max_signature_episodes or None,
            max_cluster=max_cluster or None,
            stale_after_seconds=None
            if stale_after.strip().lower() in ("none", "0", "off")
            else parse_duration(stale_after, "--stale-after", zero=False),
        )
        llm = None
        if s.writer == "llm":
            from memcli.llm import LLM

            llm = LLM(s, store)
        reports = []
        for g in graphs:
            options: dict[str, Any] = {}
            if llm is not None:
                from memcli.llm import Usage
                from memcli.llm.write import LLMWriter

                llm.usage = Usage()
                model_writer = LLMWriter(llm, store, g)
                options = {"writer_name": model_writer.name, "write": model_writer}
            reports.append(
                analyze_graph(
                    store,
                    g,
                    signatures=signatures,
                    force=force,
                    incremental=not full,
                    settle_seconds=quiet_for,
                    controls=controls,
                    **options,
                )
            )
            if llm is not None:
                usages.append(llm.usage)

    def human(_records: list[dict[str, Any]]) -> None:
        _analyze_summary(reports, explain, llm, usages)

    if llm is None:
        # the records as plain data, printed as the contract's models print them
        emit([r.as_dict() for r in reports], choose(as_json=as_json), human, plain=True)
        return
    records = [r.record() for r in reports]
    # what each graph's prose cost, beside its record
    records = [
        record.model_copy(update={"llm": {"model": llm.model, **usage.as_dict()}})
        for record, usage in zip(records, usages, strict=True)
    ]
    emit(records, choose(as_json=as_json), human)


def _analyze_summary(
    reports: list[api.AnalyzeReport], explain: bool, llm: Any, usages: list[Any]
) -> None:
    """One line per graph on stderr (the data stays on stdout for --json)."""
    console = err_console()
    for i, r in enumerate(reports):
        if r.skipped:
            console.print(f"{r.graph}: skipped: {r.reason}", markup=False)
            continue
        console.print(
            f"{r.graph}: {r.episodes} episodes in {r.clusters} clusters "
            f"({r.multi_episode_clusters} with 2+ episodes); observations: "
            f"{len(r.created)} new, {len(r.updated)} updated, {len(r.retired)} retired, "
            f"{len(r.unchanged)} unchanged; {r.mode} pass, {r.seconds * 1000:.0f} ms",
            markup=False,
        )
        for m in r.merged:  # always said: a merge changes what the observations count
            console.print(
                f"  merged {m['alias']['name']!r} into {m['canonical']['name']!r}: "
                f"{m['reasons'][0]} (undo: memcli entity unmerge)",
                markup=False,
            )
        if explain:
            for line in r.explain:
                console.print(f"  {line}", markup=False)
        if llm is not None:
            print_usage(usages[i], llm.model)


@command
def extract(
    pending: Annotated[
        bool,
        typer.Option("--pending", help="Retry the model extraction of episodes marked pending."),
    ] = False,
    reread: Annotated[
        bool,
        typer.Option(
            "--reread",
            help="Read stored updates again with this version's rules reader (see below).",
        ),
    ] = False,
    graph: AnyGraphOpt = None,
    llm_model: LLMModelOpt = None,
    llm_base_url: LLMBaseUrlOpt = None,
    llm_mode: LLMModeOpt = None,
    quiet: Annotated[bool, typer.Option("--quiet", "-q", help="No summary.")] = False,
    as_json: JsonOpt = False,
) -> None:
    """Extract again: --pending retries the model on episodes stored while it was
    unavailable (their rules facts stay; the model's facts are added); --reread reads
    every update the rules reader read from its text again with this version's reader,
    so an improved reader reaches what is already stored (facts no longer read go, new
    ones are added, the contradiction rules run again). Run 'memcli analyze' after.
    """
    if pending == reread:
        raise UsageError(
            "say what to extract again" if not pending else "--pending and --reread are separate",
            hint="memcli extract --pending (the model) or memcli extract --reread (the rules)",
        )
    if reread:
        _reread(graph, quiet=quiet, as_json=as_json)
        return
    s = settings(llm_model, llm_base_url, llm_mode)
    s.require()
    from memcli import api
    from memcli.llm import LLM
    from memcli.llm.extract import LLMExtractor

    with open_store() as store:
        llm = LLM(s, store)
        report = api.extract_pending(store, LLMExtractor(llm, floor=True), graph)
    record = report.record().model_copy(update={"llm": {"model": llm.model, **llm.usage.as_dict()}})

    def human(_record: dict[str, Any]) -> None:
        if quiet:
            return
        err_console().print(
            f"{report.episodes} pending episode(s): {report.done} extracted, "
            f"{report.still_pending} still pending; {report.entities_new} new entities, "
            f"{report.facts_new} new facts"
            + (f" ({report.facts_ended} ended by later updates)" if report.facts_ended else ""),
            markup=False,
        )
        print_usage(llm.usage, llm.model)

    emit(record, choose(as_json=as_json), human)
    if report.still_pending:
        if quiet or as_json:
            err_console(always=True).print(
                f"{report.still_pending} episode(s) still pending: the model could not be "
                "used. Retry with: memcli extract --pending",
                markup=False,
            )
        raise typer.Exit(code=EXIT_PENDING)


def _reread(graph: str | None, *, quiet: bool, as_json: bool) -> None:
    from memcli.reread import reread

    with open_store() as store:
        if quiet or as_json or not sys.stderr.isatty():
            report = reread(store, graph)
        else:
            from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn

            with Progress(
                TextColumn("reading again"),
                BarColumn(),
                MofNCompleteColumn(),
                console=err_console(),
                transient=True,
            ) as bar:
                task = bar.add_task("reread", total=None)
                report = reread(
                    store,
                    graph,
                    progress=lambda done, total: bar.update(task, completed=done, total=total),
                )

    def human(_record: dict[str, Any]) -> None:
        if quiet:
            return
        err_console().print(
            f"{report.episodes} update(s) read again, {report.changed} changed: "
            f"{report.facts_new} new fact(s), {report.facts_removed} no longer read"
            + (f", {report.facts_ended} ended" if report.facts_ended else "")
            + f"; {report.entities_new} new entities"
            + (
                f"; {report.left_as_is} left as they are (given facts, a model's "
                "reading, tracker or chat exports)"
                if report.left_as_is
                else ""
            )
            + ("; run 'memcli analyze'" if report.changed else ""),
            markup=False,
        )

    emit(report.record(), choose(as_json=as_json), human)


__all__ = ["EXIT_PENDING", "analyze", "extract", "ingest", "print_ingest_report"]

"""Read commands: observations, observation show/history, graphs, facts, entities,
episodes."""

from __future__ import annotations

from enum import StrEnum
from typing import TYPE_CHECKING, Annotated, Any

import typer

from memcli.cli._app import command, note, open_store, out_console, parse_when, write_out
from memcli.cli._options import (
    SQL_INT_MAX,
    AnyGraphOpt,
    AsOfOpt,
    CsvOpt,
    EpisodeIdArg,
    GraphOpt,
    IdsOpt,
    IncludeEndedOpt,
    JsonlOpt,
    JsonOpt,
    ObservationIdArg,
    in_range,
)
from memcli.cli._output import Format, choose, emit, emit_json_texts
from memcli.models import ObservationStatus

if TYPE_CHECKING:
    from rich.console import Console


def _date(value: str | None) -> str:
    return value[:10] if value else "-"


# Evidence episodes a person sees per observation in a list; the rest are counted.
EPISODES_SHOWN = 10


def render_observation(console: Console, obs: dict[str, Any], *, detail: bool = False) -> None:
    """A person's view: name, summary, window, evidence (in a list, the first
    EPISODES_SHOWN episodes and how many more; ``detail``: every episode, fact and
    entity)."""
    from rich.panel import Panel
    from rich.text import Text

    status = obs["status"]
    style = "green" if status == ObservationStatus.ACTIVE else "dim"
    header = Text()
    header.append(f"#{obs['id']} ", style="bold")
    header.append(obs["name"], style="bold")
    body = Text()
    body.append(
        f"{status} · version {obs['version']} · {obs['kind'].replace('_', ' ')}"
        f" · leverage {obs['rank']}\n",
        style=style,
    )
    body.append(obs["summary"] + "\n\n")
    window = f"{_date(obs['start_at'])} .. {_date(obs['latest_evidence_at'])}"
    if obs["end_at"]:
        window += f" (ended {_date(obs['end_at'])})"
    body.append(f"Window: {window}\n", style="cyan")
    if obs.get("stale"):
        body.append(f"Stale: last confirmed {_date(obs.get('confirmed_at'))}\n", style="yellow")
    if obs["root_entities"]:
        body.append(f"Root: {', '.join(obs['root_entities'])}\n")
    if obs.get("retire_reason"):
        body.append(f"Retired: {obs['retire_reason']}\n", style="yellow")
    if obs.get("supersedes"):
        body.append(f"Supersedes: {', '.join('#' + str(i) for i in obs['supersedes'])}\n")
    if obs.get("superseded_by"):
        body.append(f"Superseded by: {', '.join('#' + str(i) for i in obs['superseded_by'])}\n")
    body.append("Evidence:\n", style="bold")
    episodes = obs["episodes"] if detail else obs["episodes"][:EPISODES_SHOWN]
    for ep in episodes:
        body.append(
            f"  episode #{ep['id']}  {_date(ep['occurred_at'])}  {ep['author'] or '-'}  {ep['source']}\n"
        )
    more = obs.get("episodes_total", len(obs["episodes"])) - len(episodes)
    if more > 0:
        body.append(
            f"  ... and {more:,} more episode{'s' if more > 1 else ''}"
            f" (memcli observation show {obs['id']})\n",
            style="dim",
        )
    if detail:
        body.append("Facts:\n", style="bold")
        for f in obs["facts"]:
            ended = f"  (ended {_date(f['invalid_at'])})" if f["invalid_at"] else ""
            body.append(
                f"  fact #{f['id']}  ({f['source']}, {f['relation']}, {f['target']})"
                f"  from episode #{f['episode_id']}{ended}\n"
            )
            if f.get("sentence"):
                body.append(f'      "{f["sentence"]}"\n', style="dim")
        body.append("Entities:\n", style="bold")
        for e in obs["entities"]:
            body.append(f"  {e['role']:<11} {e['name']} ({e['type']})\n")
        cluster = obs.get("cluster") or {}
        if cluster.get("observations"):
            others = ", ".join(f"#{o['id']} {o['name']}" for o in cluster["observations"])
            body.append(f"Same cluster: {others}\n", style="dim")
    else:
        facts = obs.get("facts_total", len(obs["facts"]))
        body.append(f"Facts: {facts:,} (memcli observation show {obs['id']})\n", style="dim")
    console.print(Panel(body, title=header, title_align="left", expand=True))


class StatusChoice(StrEnum):
    ACTIVE = "active"
    RETIRED = "retired"
    ALL = "all"


@command
def observations(
    graph: AnyGraphOpt = None,
    status: Annotated[
        StatusChoice, typer.Option("--status", help="Which observations to list.")
    ] = StatusChoice.ACTIVE,
    as_of: AsOfOpt = None,
    limit: Annotated[
        int,
        typer.Option(
            "--limit",
            "-n",
            metavar="N",
            callback=in_range(0, SQL_INT_MAX - 1),
            help="Show the N with most leverage (0: all).",
        ),
    ] = 50,
    evidence: Annotated[
        int | None,
        typer.Option(
            "--evidence",
            metavar="N",
            callback=in_range(0),
            help=(
                "At most N entities, episodes and facts per observation, with"
                " entities_total, episodes_total and facts_total counting them all"
                " (0: the counts only). Default: every item."
            ),
        ),
    ] = None,
    as_json: JsonOpt = False,
    as_jsonl: JsonlOpt = False,
    as_csv: CsvOpt = False,
    quiet: IdsOpt = False,
) -> None:
    """List observations, most leverage first, each with its evidence ('memcli observe'
    is the same command)."""
    from memcli import reads

    fmt = choose(as_json=as_json, as_jsonl=as_jsonl, as_csv=as_csv, quiet=quiet)
    when = parse_when(as_of, "--as-of")
    if fmt is Format.TABLE and evidence is None:
        evidence = EPISODES_SHOWN  # a person sees the first few and how many more
    if fmt in (Format.JSON, Format.JSONL):
        # Each record's JSON text, its evidence written by SQLite: no dict per item.
        with open_store(create=False) as store:
            texts, more = reads.observation_json(
                store, graph, status.value, as_of=when, limit=limit, evidence=evidence
            )
        if more:
            note(f"showing the first {limit} by leverage; --limit 0 shows all")
        emit_json_texts(texts, fmt)
        return
    with open_store(create=False) as store:
        # Plain records: printing them needs no model per evidence item.
        rows = reads.observation_records(
            store,
            graph,
            status.value,
            as_of=when,
            limit=limit + 1 if limit else None,
            evidence=evidence,
        )
    if limit and len(rows) > limit:
        rows = rows[:limit]
        note(f"showing the first {limit} by leverage; --limit 0 shows all")

    def human(rows: list[dict[str, Any]]) -> None:
        console = out_console()
        if not rows:
            console.print(
                f"No {status if status != 'all' else ''} observations.".replace("  ", " ")
            )
        for obs in rows:
            render_observation(console, obs)

    emit(rows, fmt, human, plain=True)


@command
def show(
    obs_id: ObservationIdArg,
    as_json: JsonOpt = False,
    as_mermaid: Annotated[
        bool, typer.Option("--mermaid", help="Print just this observation's chain as Mermaid.")
    ] = False,
) -> None:
    """Show one observation: summary, evidence episodes, each fact with its sentence."""
    from memcli import reads

    if as_mermaid and as_json:
        raise typer.BadParameter("choose one of --json and --mermaid", param_hint="--mermaid")
    with open_store(create=False) as store:
        if as_mermaid:
            from memcli.visualize import mermaid

            write_out(mermaid(reads.dependency_picture(store, observation_id=obs_id)))
            return
        obs = reads.observation_record(store, obs_id)
    emit(
        obs,
        choose(as_json=as_json),
        lambda o: render_observation(out_console(), o, detail=True),
        plain=True,
    )


@command
def history(
    obs_id: ObservationIdArg,
    as_json: JsonOpt = False,
    as_jsonl: JsonlOpt = False,
) -> None:
    """Every version of an observation, oldest first."""
    from memcli import reads

    with open_store(create=False) as store:
        rows = reads.history(store, obs_id)
    emit(rows, choose(as_json=as_json, as_jsonl=as_jsonl), _history_table)


def _history_table(rows: list[dict[str, Any]]) -> None:
    console = out_console()
    for r in rows:
        console.print(
            f"v{r['version']}  {r['created_at']}  {r['name']}", style="bold", markup=False
        )
        console.print(f"  {r['summary']}", markup=False)
        console.print(
            f"  window {_date(r['start_at'])} .. {_date(r['latest_evidence_at'])}; "
            f"episodes {r['episodes']}; facts {r['facts']}",
            style="dim",
            markup=False,
        )


@command
def graphs(
    as_json: JsonOpt = False,
    as_jsonl: JsonlOpt = False,
    as_csv: CsvOpt = False,
    quiet: IdsOpt = False,
) -> None:
    """List graphs with their counts."""
    from memcli import reads

    fmt = choose(as_json=as_json, as_jsonl=as_jsonl, as_csv=as_csv, quiet=quiet)
    with open_store(create=False) as store:
        rows = reads.graphs(store)
    emit(rows, fmt, _graphs_table)


def _graphs_table(rows: list[dict[str, Any]]) -> None:
    from rich.table import Table

    table = Table(
        "graph", "episodes", "entities", "facts (current)", "active observations", "last analyzed"
    )
    for r in rows:
        table.add_row(
            r["graph"],
            str(r["episodes"]),
            str(r["entities"]),
            f"{r['facts']} ({r['current_facts']})",
            str(r["active_observations"]),
            r["last_analyzed_at"] or "never",
        )
    out_console().print(table)


@command
def facts(
    graph: GraphOpt,
    include_ended: IncludeEndedOpt = False,
    as_of: AsOfOpt = None,
    as_json: JsonOpt = False,
    as_jsonl: JsonlOpt = False,
    as_csv: CsvOpt = False,
    quiet: IdsOpt = False,
) -> None:
    """List the facts of a graph (currently valid ones unless told otherwise)."""
    from memcli import reads

    fmt = choose(as_json=as_json, as_jsonl=as_jsonl, as_csv=as_csv, quiet=quiet)
    when = parse_when(as_of, "--as-of")
    with open_store(create=False) as store:
        rows = reads.facts(store, graph, include_ended=include_ended, as_of=when)
    emit(rows, fmt, _facts_table)


def _facts_table(rows: list[dict[str, Any]]) -> None:
    from rich.table import Table

    table = Table("id", "source", "relation", "target", "episode", "valid", "ended")
    for r in rows:
        table.add_row(
            str(r["id"]),
            r["source"],
            r["relation"],
            r["target"],
            f"#{r['episode_id']} {r['author'] or ''}".strip(),
            _date(r["valid_at"]),
            _date(r["invalid_at"]) if r["invalid_at"] else "",
        )
    out_console().print(table)


@command
def entities(
    graph: GraphOpt,
    suggest_merges: Annotated[
        bool,
        typer.Option(
            "--suggest-merges", help="List likely duplicate entities with why, to merge or not."
        ),
    ] = False,
    as_json: JsonOpt = False,
    as_jsonl: JsonlOpt = False,
    as_csv: CsvOpt = False,
    quiet: IdsOpt = False,
) -> None:
    """List the entities of a graph with their types and aliases."""
    from memcli import reads

    fmt = choose(as_json=as_json, as_jsonl=as_jsonl, as_csv=as_csv, quiet=quiet)
    if suggest_merges:
        from memcli import corrections
        from memcli.cli.identity_cmd import suggestions_table

        with open_store(create=False) as store:
            found = corrections.suggest_merges(store, graph)
        emit(found, fmt, suggestions_table)
        return
    with open_store(create=False) as store:
        rows = reads.entity_records(store, graph)
    emit(rows, fmt, _entities_table, plain=True)


def _entities_table(rows: list[dict[str, Any]]) -> None:
    from rich.table import Table

    table = Table("id", "name", "type", "current facts", "episodes", "aliases", "merged into")
    for r in rows:
        table.add_row(
            str(r["id"]),
            r["name"],
            r["type"],
            str(r["current_facts"]),
            str(r["episodes"]),
            ", ".join(a for a in r["aliases"] if a != r["name"]),
            r["merged_into"] or "",
        )
    out_console().print(table)


@command
def entity_show(
    name: Annotated[
        str,
        typer.Argument(metavar="NAME", help="Entity name (any alias; case and articles ignored)."),
    ],
    graph: GraphOpt,
    as_json: JsonOpt = False,
) -> None:
    """An entity's timeline: what it waited on, who owned it, when it shipped, valid and ended."""
    from memcli import reads

    with open_store(create=False) as store:
        timeline = reads.entity_timeline(store, graph, name)
    emit(timeline, choose(as_json=as_json), _timeline_table)


def _timeline_table(timeline: dict[str, Any]) -> None:
    from rich.table import Table

    console = out_console()
    for e in timeline["entities"]:
        aliases = ", ".join(a for a in e["aliases"] if a != e["name"])
        console.print(
            f"{e['name']} ({e['type']}, #{e['id']})"
            + (f"  aliases: {aliases}" if aliases else "")
            + (f"  merged into: {e['merged_into']}" if e.get("merged_into") else ""),
            style="bold",
            markup=False,
        )
    table = Table("valid", "ended", "fact", "episode")
    for f in timeline["facts"]:
        table.add_row(
            _date(f["valid_at"]),
            _date(f["invalid_at"]) if f["invalid_at"] else "",
            f"({f['source']}, {f['relation']}, {f['target']})",
            f"#{f['episode']['id']} {f['episode']['author'] or ''} {f['episode']['source']}".strip(),
        )
    console.print(table)


@command
def episodes(
    graph: AnyGraphOpt = None,
    limit: Annotated[
        int,
        typer.Option(
            "--limit",
            "-n",
            metavar="N",
            callback=in_range(0),
            help="Show the newest N (0: all).",
        ),
    ] = 50,
    as_json: JsonOpt = False,
    as_jsonl: JsonlOpt = False,
    as_csv: CsvOpt = False,
    quiet: IdsOpt = False,
) -> None:
    """List stored updates (episodes), newest first, with their facts; --graph, else
    $MEMCLI_GRAPH or the configured graph, else every graph."""
    from memcli import reads
    from memcli.config import default_graph

    fmt = choose(as_json=as_json, as_jsonl=as_jsonl, as_csv=as_csv, quiet=quiet)
    graph = graph or default_graph()
    with open_store(create=False) as store:
        rows = reads.episodes(store, graph, lastn=limit + 1 if limit else None)
    rows.reverse()  # newest first, as a person scans them
    if limit and len(rows) > limit:
        rows = rows[:limit]
        note(f"showing the newest {limit}; --limit 0 shows all")
    emit(rows, fmt, _episodes_table)


def _episodes_table(rows: list[dict[str, Any]]) -> None:
    from rich.table import Table

    table = Table("id", "graph", "date", "author", "facts", "source", "text")
    for r in rows:
        text = " ".join(r["content"].split())
        table.add_row(
            str(r["id"]),
            r["graph"],
            _date(r["occurred_at"]),
            r["author"] or "",
            str(len(r["facts"])),
            r["source"] or "",
            text if len(text) <= 60 else text[:59] + "\u2026",
        )
    out_console().print(table)


@command
def episode_show(episode_id: EpisodeIdArg, as_json: JsonOpt = False) -> None:
    """Show one stored update: its text as stored and each fact read from it."""
    from memcli import reads
    from memcli.errors import NotFound

    with open_store(create=False) as store:
        found = reads.episodes(store, ids=[episode_id])
    if not found:
        raise NotFound(f"no episode #{episode_id}", hint="'memcli episodes' lists them")

    def human(e: dict[str, Any]) -> None:
        console = out_console()
        console.print(
            f"#{e['id']}  {e['graph']}  {e['occurred_at']}  {e['author'] or '-'}  {e['source']}",
            style="bold",
            markup=False,
        )
        console.print(e["content"].rstrip(), markup=False)
        for f in e["facts"]:
            ended = f"  (ended {_date(f['invalid_at'])})" if f["invalid_at"] else ""
            console.print(
                f"  fact #{f['id']}: ({f['source']}, {f['relation']}, {f['target']}){ended}",
                markup=False,
                style="dim",
            )

    emit(found[0], choose(as_json=as_json), human)

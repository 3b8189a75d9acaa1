"""Read commands: observations, observation show/history, graphs, facts, entities."""

from __future__ import annotations

from typing import Annotated, Any

import typer
from rich.console import Console
from rich.panel import Panel
from rich.table import Table
from rich.text import Text

from memcli import api
from memcli.cli._app import (
    SQL_INT_MAX,
    GraphOpt,
    JsonOpt,
    app,
    command,
    err_console,
    graph_name,
    open_store,
    out_console,
    parse_when,
    print_json,
    write_out,
)

observation_app = typer.Typer(
    help="Show one observation and its history (observations are read-only).",
    no_args_is_help=True,
)
app.add_typer(observation_app, name="observation")
entity_app = typer.Typer(help="Show one entity's facts over time.", no_args_is_help=True)
app.add_typer(entity_app, name="entity")


def _date(value: str | None) -> str:
    return value[:10] if value else "-"


def render_observation(console: Console, obs: dict[str, Any], *, detail: bool = False) -> None:
    """A person's view: name, summary, window, evidence."""
    status = obs["status"]
    style = "green" if status == "active" else "dim"
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
    if obs["root_entities"]:
        body.append(f"Root: {', '.join(obs['root_entities'])}\n")
    if obs.get("retire_reason"):
        body.append(f"Retired: {obs['retire_reason']}\n", style="yellow")
    if obs.get("supersedes"):
        body.append(f"Supersedes: {', '.join('#' + str(i) for i in obs['supersedes'])}\n")
    if obs.get("superseded_by"):
        body.append(f"Superseded by: {', '.join('#' + str(i) for i in obs['superseded_by'])}\n")
    body.append("Evidence:\n", style="bold")
    for ep in obs["episodes"]:
        body.append(
            f"  episode #{ep['id']}  {_date(ep['occurred_at'])}  {ep['author'] or '-'}  {ep['source']}\n"
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
        body.append(
            f"Facts: {len(obs['facts'])} (memcli observation show {obs['id']})\n", style="dim"
        )
    console.print(Panel(body, title=header, title_align="left", expand=True))


@command("observations")
def observations(
    graph: Annotated[
        str | None,
        typer.Option("--graph", "-g", help="Only this graph (default: all).", callback=graph_name),
    ] = None,
    status: Annotated[str, typer.Option("--status", help="active, retired or all.")] = "active",
    as_of: Annotated[
        str | None,
        typer.Option("--as-of", help="The observations that held at this date (world time)."),
    ] = None,
    limit: Annotated[
        int,
        typer.Option(
            "--limit",
            "-n",
            min=0,
            max=SQL_INT_MAX - 1,
            help="Show the N with most leverage (0: all).",
        ),
    ] = 50,
    as_json: JsonOpt = False,
) -> None:
    """List observations, most leverage first, each with its evidence."""
    when = parse_when(as_of, "--as-of")
    with open_store(create=False) as store:
        rows = api.observations(
            store, graph, status, as_of=when, limit=limit + 1 if limit else None
        )
    if limit and len(rows) > limit:
        rows = rows[:limit]
        err_console().print(
            f"showing the first {limit} by leverage; --limit 0 shows all", markup=False
        )
    if as_json:
        print_json(rows)
        return
    console = out_console()
    if not rows:
        console.print(f"No {status if status != 'all' else ''} observations.".replace("  ", " "))
        return
    for obs in rows:
        render_observation(console, obs)


@command("show", on=observation_app)
def show(
    obs_id: Annotated[
        int, typer.Argument(metavar="ID", min=1, max=SQL_INT_MAX, help="Observation id.")
    ],
    as_json: JsonOpt = False,
    as_mermaid: Annotated[
        bool, typer.Option("--mermaid", help="Print just this observation's chain as Mermaid.")
    ] = False,
) -> None:
    """Show one observation: summary, evidence episodes, each fact with its sentence."""
    if as_mermaid and as_json:
        raise typer.BadParameter("choose one of --json and --mermaid", param_hint="--mermaid")
    with open_store(create=False) as store:
        if as_mermaid:
            from memcli.visualize import mermaid

            write_out(mermaid(api.dependency_picture(store, observation_id=obs_id)))
            return
        obs = api.observation(store, obs_id)
    if as_json:
        print_json(obs)
        return
    render_observation(out_console(), obs, detail=True)


@command("history", on=observation_app)
def history(
    obs_id: Annotated[
        int, typer.Argument(metavar="ID", min=1, max=SQL_INT_MAX, help="Observation id.")
    ],
    as_json: JsonOpt = False,
) -> None:
    """Every version of an observation, oldest first."""
    with open_store(create=False) as store:
        rows = api.history(store, obs_id)
    if as_json:
        print_json(rows)
        return
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


@command("graphs")
def graphs(as_json: JsonOpt = False) -> None:
    """List graphs with their counts."""
    with open_store(create=False) as store:
        rows = store.graphs_with_counts()
    if as_json:
        print_json(rows)
        return
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


@command("facts")
def facts(
    graph: GraphOpt,
    include_ended: Annotated[
        bool, typer.Option("--include-ended", help="Also show facts that later updates ended.")
    ] = False,
    as_of: Annotated[
        str | None, typer.Option("--as-of", help="Facts valid at this date (world time).")
    ] = None,
    as_json: JsonOpt = False,
) -> None:
    """List the facts of a graph (currently valid ones unless told otherwise)."""
    when = parse_when(as_of, "--as-of")
    with open_store(create=False) as store:
        rows = api.facts(store, graph, include_ended=include_ended, as_of=when)
    if as_json:
        print_json(rows)
        return
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


@command("entities")
def entities(
    graph: GraphOpt,
    suggest_merges: Annotated[
        bool,
        typer.Option(
            "--suggest-merges", help="List likely duplicate entities with why, to merge or not."
        ),
    ] = False,
    as_json: JsonOpt = False,
) -> None:
    """List the entities of a graph with their types and aliases."""
    if suggest_merges:
        from memcli import corrections
        from memcli.cli.identity_cmd import print_suggestions

        with open_store(create=False) as store:
            found = corrections.suggest_merges(store, graph)
        if as_json:
            print_json(found)
        else:
            print_suggestions(found)
        return
    with open_store(create=False) as store:
        rows = api.entities(store, graph)
    if as_json:
        print_json(rows)
        return
    table = Table("id", "name", "type", "current facts", "episodes", "aliases", "merged into")
    for r in rows:
        table.add_row(
            str(r["id"]),
            r["name"],
            r["type"],
            str(r["current_facts"]),
            str(r["episodes"]),
            ", ".join(a for a in r["aliases"] if a != r["name"]),
            r.get("merged_into") or "",
        )
    out_console().print(table)


@command("show", on=entity_app)
def entity_show(
    name: Annotated[
        str, typer.Argument(help="Entity name (any alias; case and articles ignored).")
    ],
    graph: GraphOpt,
    as_json: JsonOpt = False,
) -> None:
    """An entity's timeline: what it waited on, who owned it, when it shipped, valid and ended."""
    with open_store(create=False) as store:
        timeline = api.entity_timeline(store, graph, name)
    if as_json:
        print_json(timeline)
        return
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

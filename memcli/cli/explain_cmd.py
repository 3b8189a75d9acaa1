"""``memcli explain``: how the reader reads a stored update, sentence by sentence."""

from __future__ import annotations

from typing import Annotated

import typer

from memcli.cli._app import JsonOpt, command, open_store, out_console, print_json


@command("explain")
def explain(
    episode_id: Annotated[int, typer.Argument(metavar="EPISODE_ID", help="Episode id.")],
    as_json: JsonOpt = False,
) -> None:
    """Show which frame read each sentence of a stored update, or why nothing did."""
    from memcli.extract.explain import describe, explain_episode

    with open_store(create=False) as store:
        data = explain_episode(store, episode_id)
    if as_json:
        print_json(data)
        return
    console = out_console()
    console.print(
        f"episode {data['episode_id']} ({data['source']}, {data['author'] or 'no author'})",
        markup=False,
    )
    for line in data["sentences"]:
        console.print(f"  {line['sentence']}", markup=False)
        console.print(f"    -> {describe(line)}", markup=False)

"""``memcli explain``: how the reader reads a stored update, sentence by sentence."""

from __future__ import annotations

from memcli.cli._app import command, open_store, out_console
from memcli.cli._options import EpisodeIdArg, JsonOpt
from memcli.cli._output import print_json


@command
def explain(
    episode_id: EpisodeIdArg,
    as_json: JsonOpt = False,
) -> None:
    """Show which frame read each sentence of a stored update, or why nothing did."""
    from memcli import reads
    from memcli.extract.explain import describe

    with open_store(create=False) as store:
        data = reads.explain_episode(store, episode_id)
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

"""`gamenight play`: take a seat of a game in the browser (site_builder/play/server.py)."""

from __future__ import annotations

import sys
import threading
import webbrowser
from pathlib import Path

import click

from runner.tournament import MAX_SEED



@click.command("play")
@click.option("--game", "game_name", required=True, help="The game: chameleon, undercover, cost_sharing, "
              "prisoners_dilemma, public_good or werewolf.")
@click.option("--rule", "rules", multiple=True, metavar="KEY=VALUE", help="A rule parameter (as `run --rule`).")
@click.option("--name", "names", multiple=True, metavar="NAME",
              help="A person, by the name they play under. Repeatable: several people, each with their own link. "
                   "Without --seat or --role each person's seat is dealt by the game's plan: the only kind of "
                   "played game a submission takes.")
@click.option("--seat", "seats", multiple=True, type=click.IntRange(0), metavar="N",
              help="Practice: a person takes seat N (0 is the first), named by the --name of the same place "
                   "(default guest, guest-2...). Repeatable. Not taken by a submission.")
@click.option("--role", "roles", multiple=True, metavar="ROLE",
              help="Practice: a person takes a seat dealt this role (e.g. chameleon, seer), named by the --names "
                   "after those of --seat. Repeatable. Not taken by a submission.")
@click.option("--against", "against", multiple=True, metavar="AGENT",
              help="The agents of the other seats, repeated as needed (in seat order in a practice game; dealt "
                   "to seats with the people otherwise): a built-in strategy "
                   "(`gamenight agents`) or a model as provider:model[@base_url], e.g. "
                   "openai_compatible:gemma-3-270m@http://127.0.0.1:8000/v1. Default: a built-in player of the game.")
@click.option("--seed", type=click.IntRange(0, MAX_SEED), help="The seed of the game's plan, from which its game "
              "seed, and so the deal and the people's seats, are derived (default: a random one).")
@click.option("--no-probes", is_flag=True, help="Ask nobody the belief probes.")
@click.option("--host", default="127.0.0.1", show_default=True,
              help="Address to listen on; only another address than 127.0.0.1 lets other machines in.")
@click.option("--port", type=click.IntRange(0, 65535), default=0, help="Port (default: a free one).")
@click.option("--out", type=click.Path(file_okay=False, path_type=Path), default=Path("replays"),
              show_default=True, help="The finished game is written with its plan into a folder of its own "
                                      "here, play-<name>-<plan seed>/ (with dealt seats: ready for a pull request).")
@click.option("--open/--no-open", "open_browser", default=True, help="Open the first person's link in a browser "
              "(it says whether one opened; the links are printed either way).")
def play(game_name, rules, seats, roles, names, against, seed, no_probes, host, port, out, open_browser):
    """Play a game in the browser: people take seats, built-in agents or models the others.

    Each --name is a person whose seat the game's plan deals (gamenight play --game werewolf --name
    Ann). Prints one secret link per person (anyone with a link plays that seat) and opens the first
    in a browser. Only a finished game is written, as a normal replay; Ctrl-C before the end writes
    nothing. Reopening a link resumes the game; after the end the pages stay up until Ctrl-C.
    """
    from runner.commands.run import parse_rules
    from runner.table import Person, deal, folder_for
    from runner.tournament import PlanError
    from site_builder.play.server import Session, links, start_server

    people = [Person("", seat=s) for s in seats] + [Person("", role=r) for r in roles]
    if not people:
        people = [Person("") for _ in names]  # seats dealt by the plan
    elif len(names) > len(people):
        raise click.ClickException(f"--name: {len(names)} names for {len(people)} people with --seat or --role "
                                   "(give one per name, or none: seats dealt by the plan)")
    people = [Person(names[i] if i < len(names) else ("guest" if i == 0 else f"guest-{i + 1}"), p.seat, p.role)
              for i, p in enumerate(people)]
    try:
        table = deal(game_name, parse_rules(rules), seed, people, list(against), probes=not no_probes)
        folder = folder_for(table, out)
    except PlanError as exc:
        raise click.ClickException(str(exc)) from None
    session = Session(table, out, probes=not no_probes)
    try:
        server = start_server(session, host, port)
    except OSError as exc:
        raise click.ClickException(f"cannot listen on {host}:{port}: {exc.strerror or exc}") from None
    threading.Thread(target=server.serve_forever, daemon=True).start()
    game = threading.Thread(target=session.run_game, daemon=True)
    game.start()
    click.echo(f"{table.game.title}, plan {table.tournament} (game seed {table.seed}): {table.players} seats; "
               f"the finished game goes to {folder}")
    if table.planned.matchup.seats != "dealt":
        click.echo("  a practice game (seats or roles chosen): a submission does not take it", err=True)
    seat_links = links(session, server, host)
    for seat, link in seat_links.items():
        click.echo(f"  {table.names[seat]} ({table.people[seat]}): {link}")
    if open_browser:
        seat, link = next(iter(seat_links.items()))
        if open_in_browser(link):
            click.echo(f"opened {table.people[seat]}'s link in your browser")
        else:
            click.echo(f"no browser could be opened from here: open {table.people[seat]}'s link above yourself")
    try:
        while not session.done.wait(0.5):
            pass
        if session.failure:
            raise click.ClickException(f"the game stopped: {session.failure}; no replay written")
        click.echo(f"wrote {session.replay}")
        # The finished game's pages keep answering (a reload too) until the person stops the command.
        click.echo("the game is over; its pages stay up at the links above until you press Ctrl-C")
        while True:
            session.done.wait(3600)
    except KeyboardInterrupt:
        if session.replay is not None:
            click.echo("stopped; the replay was written before", err=True)
            return
        click.echo("stopped: the game was not finished, so no replay is written", err=True)
        sys.exit(130)
    finally:
        server.shutdown()


def open_in_browser(link: str) -> bool:
    """Open `link` in a graphical browser; False when there is none. A text browser (lynx, w3m...,
    what Python picks without a display) would take over this terminal, so it is not used."""
    try:
        browser = webbrowser.get()
    except webbrowser.Error:
        return False
    if type(browser) is webbrowser.GenericBrowser:  # runs in the foreground: a console browser
        return False
    return bool(browser.open(link))

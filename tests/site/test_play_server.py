"""`gamenight play` on the wire: each seat's link gets what that seat may know, and nothing else.

Every response a page receives is inspected, before and after each move, for every game and role,
until the rules themselves reveal the hidden information (the vote, the end of the game).
"""

from __future__ import annotations

from pathlib import Path
import json

import pytest
from click.testing import CliRunner

from runner.replay.validate import check_file
from runner.table import Person, deal
from site_builder.replays import REVEALS
from tests.site.play_helpers import play_seat, playing, request

#: Phases whose actions every player sees as they are made (the others are simultaneous or private).
PUBLIC_ACTIONS = {"clue", "day", "guess", "tie_pick"}
SEATS = [("chameleon", "chameleon"), ("chameleon", "non_chameleon"), ("undercover", "undercover"),
         ("undercover", "civilian"), *[("werewolf", r) for r in ("seer", "mason", "villager", "werewolf", "minion",
                                                                    "tanner")],
         ("cost_sharing", None), ("prisoners_dilemma", None), ("public_good", None)]


def leaks(table, seat: int, view: dict, body: bytes) -> list[str]:
    """What this response tells the seat that it may not know yet."""
    game = table.game.name
    phases = {s["p"] for s in view["steps"] if s["k"] != "probe"}
    roles_phase, setup_phase = REVEALS.get(game, (None, None))
    over = view["outcome"] is not None
    roles_out = over or roles_phase in phases or not table.game.reveal_phases
    setup_out = over or setup_phase in phases or not table.game.reveal_phases
    state = table.game.start(table.params, table.setup)
    own = state.private(seat)
    found = []
    if not setup_out:
        if view["setup"]:
            found.append("the setup")
        found += [f"seat {s}'s private deal" for s, p in enumerate(view["private"]) if s != seat and p]
    if not roles_out:
        known = {seat} if "role" in own else set()
        known |= {own["fellow_mason"]} if "fellow_mason" in own else set()
        found += [f"seat {s}'s role" for s, p in enumerate(view["players"]) if s not in known and p["role"] is not None]
    found += [f"seat {s['s']}'s {s['p']} move" for s in view["steps"]
              if s["k"] == "action" and s["s"] != seat and s["p"] not in PUBLIC_ACTIONS]
    found += [f"seat {s['s']}'s belief" for s in view["steps"] if s["k"] == "probe" and s["s"] != seat]
    # The card and what others said may hold any word; everything else must not name a secret.
    rest = json.dumps({k: v for k, v in view.items() if k not in ("steps", "public", "question")}) + \
        json.dumps({k: v for k, v in (view["question"] or {}).items() if k not in ("legal", "words", "roles")})
    if game == "chameleon" and not setup_out and table.roles[seat] == "chameleon":
        secret = table.setup["secret"]
        if f'"{secret}"' in rest or b'"secret":' in body:
            found.append("the secret word")
    if game == "chameleon" and not roles_out and table.roles[seat] != "chameleon" and b'"chameleon":' in body:
        found.append("who the chameleon is")
    if game == "undercover" and not setup_out:
        other = next(state.private(s)["word"] for s in range(table.players) if state.private(s)["word"] != own["word"])
        if f'"{other}"' in rest or b'"undercover":' in body:
            found.append("the other word or the undercover")
    if game == "werewolf" and not roles_out:
        if table.roles[seat] != "seer" and b'"werewolf_among"' in body:
            found.append("the Seer's finding")
        if '"roles": [' in rest:
            found.append("the roles")
    return found


@pytest.mark.parametrize("game, role", SEATS, ids=[f"{g}-{r or 'seat0'}" for g, r in SEATS])
def test_every_response_holds_only_what_the_seat_may_know(tmp_path, game, role):
    table = deal(game, {}, 5, [Person("Ann", role=role) if role else Person("Ann", seat=0)])
    seat = next(iter(table.people))
    seen = {"responses": 0, "refused": False}

    def inspect(view, body):
        seen["responses"] += 1
        assert view["seat"] == seat
        assert leaks(table, seat, view, body) == [], f"response {seen['responses']}"
        question = view["question"]
        seen["refused"] |= bool(question and question["refused"])

    with playing(table, tmp_path) as (session, links):
        final = play_seat(links[seat], inspect)
    assert seen["refused"], "the empty first move was refused with the rules' message and asked again"
    assert final["outcome"]["status"] == "complete" and seen["responses"] > 3
    replay = Path(final['replay'])
    assert check_file(str(replay)).ok


def test_no_token_or_a_wrong_one_gets_nothing(tmp_path):
    table = deal("werewolf", {}, 2, [Person("Ann", role="seer"), Person("Bob", role="werewolf")])
    ann, bob = (next(s for s, n in table.people.items() if n == name) for name in ("Ann", "Bob"))
    with playing(table, tmp_path) as (session, links):
        base = links[ann].rsplit("/seat/", 1)[0]
        token = links[ann].rsplit("/", 1)[-1]
        for path in ("/", "/seat/", "/seat//view", f"/seat/{token[:-1]}/view", f"/seat/{token}x/view",
                     f"/seat/{token.upper()}/view", "/seat/view", f"/view?token={token}", f"/seat/{token}/../view",
                     f"/seat/{token}/setup"):
            status, body = request(base + path)
            assert (status, body) == (404, b""), path
        status, body = request(base + "/seat/nobody/answer", {"id": 1, "answer": {}})
        assert (status, body) == (404, b"")
        # Ann's question cannot be answered through Bob's link.
        while True:
            status, body = request(links[ann] + "/view")
            view = json.loads(body)
            if view["question"]:
                break
        status, _ = request(links[bob] + "/answer", {"id": view["question"]["id"], "answer": {"look": [0, 1]}})
        assert status == 409
        assert json.loads(request(links[ann] + "/view")[1])["question"]["id"] == view["question"]["id"]


def test_an_unfinished_game_writes_nothing(tmp_path):
    table = deal("public_good", {}, 1, [Person("Ann", seat=0)])
    with playing(table, tmp_path) as (session, links):
        request(links[0] + "/view")
    assert not any(tmp_path.iterdir())


def test_the_command_refuses_a_bad_table_with_a_clear_message():
    from site_builder.play_cli import play

    result = CliRunner().invoke(play, ["--game", "chess", "--seat", "0", "--no-open"])
    assert result.exit_code == 1 and "unknown game 'chess'" in result.output
    result = CliRunner().invoke(play, ["--game", "chameleon", "--role", "king", "--no-open"])
    assert result.exit_code == 1 and "--role 'king'" in result.output
    result = CliRunner().invoke(play, ["--game", "chameleon", "--no-open"])
    assert result.exit_code == 1 and "nobody to play" in result.output


def test_a_model_that_cannot_be_reached_stops_the_game_and_writes_nothing(tmp_path):
    table = deal("prisoners_dilemma", {"rounds": 1}, 1, [Person("Ann", seat=0)],
                 against=["openai_compatible:nothing@http://127.0.0.1:9/v1"])
    with playing(table, tmp_path) as (session, links):
        version = None
        while True:
            view = json.loads(request(links[0] + "/view" + ("" if version is None else f"?since={version}"))[1])
            version = view["version"]
            if view["failure"] or view["outcome"]:
                break
            if view["question"]:
                request(links[0] + "/answer", {"id": view["question"]["id"], "answer": {"choice": "cooperate"}})
    assert "cannot connect" in view["failure"] and view["outcome"] is None
    assert not any(tmp_path.iterdir())


def _start_command(tmp_path, *args):
    import re
    import signal
    import subprocess
    import sys

    def ctrl_c_as_in_a_terminal() -> None:
        # A shell without job control starts background commands with SIGINT ignored, and a child
        # inherits that: Python then installs no KeyboardInterrupt handler. Ctrl-C in a terminal
        # always reaches the command, so the test gives it SIGINT's default disposition.
        signal.signal(signal.SIGINT, signal.SIG_DFL)

    process = subprocess.Popen([sys.executable, "-m", "runner", "play", "--no-open", "--out", str(tmp_path), *args],
                               stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                               preexec_fn=ctrl_c_as_in_a_terminal)
    lines = [process.stdout.readline() for _ in range(2)]
    link = re.search(r"http://127\.0\.0\.1:\d+/seat/\S+", lines[1])
    assert link, lines
    return process, link[0]


def test_the_command_serves_a_game_to_its_end_and_writes_the_replay(tmp_path):
    process, link = _start_command(tmp_path, "--game", "public_good", "--seat", "2", "--name", "Ann", "--seed", "8",
                                   "--rule", "rounds=2")
    try:
        play_seat(link)
        out, err = process.communicate(timeout=60)
    finally:
        process.kill()
    assert process.returncode == 0, err
    [replay] = list(tmp_path.rglob("*.jsonl"))
    assert f"wrote {replay}" in out and check_file(str(replay)).ok


def test_ctrl_c_mid_game_writes_nothing(tmp_path):
    import signal

    process, link = _start_command(tmp_path, "--game", "chameleon", "--seat", "0")
    try:
        assert request(link + "/view")[0] == 200
        process.send_signal(signal.SIGINT)
        out, err = process.communicate(timeout=30)
    finally:
        process.kill()
    assert process.returncode == 130 and "no replay is written" in err
    assert not list(tmp_path.iterdir())

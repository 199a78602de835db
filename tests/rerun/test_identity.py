"""A game's id follows from its tournament, matchup and seed, and its fingerprint from what was
played: so one game cannot be counted twice under fresh ids, labels or reworded replies."""

from __future__ import annotations

import copy
import json
from pathlib import Path

import pytest

from runner import games
from runner.agents.builtin import make
from runner.agents.llm import make_llm_agent
from runner.rerun.identity import expected_ids, id_difference, play_fingerprint
from runner.seeds import rng_for
from runner.tournament import from_dict

SHIPPED = Path(__file__).resolve().parents[2] / "replays" / "builtin"


def shipped(n: int = 40) -> list[list[dict]]:
    files = sorted(SHIPPED.glob("*.jsonl"))[:: max(1, len(list(SHIPPED.glob("*.jsonl"))) // n)]
    return [[json.loads(line) for line in f.read_text(encoding="utf-8").splitlines()] for f in files]


def test_every_shipped_game_id_follows_from_its_header():
    for f in sorted(SHIPPED.glob("*.jsonl")):
        header = json.loads(f.read_text(encoding="utf-8").split("\n", 1)[0])
        assert id_difference(header) is None, f.name


@pytest.mark.parametrize("change", ["fresh id", "other seed", "other tournament", "other matchup"])
def test_a_copy_under_another_name_does_not_follow(change):
    header = copy.deepcopy(shipped(1)[0][0])
    if change == "fresh id":
        header["game_id"] = header["game_id"][:-12] + "0123456789ab"
    elif change == "other seed":
        header["seed"] += 1
    elif change == "other tournament":
        header["tournament"] = "mine"
    else:
        header["matchup"] = header["matchup"].replace(": ", ":  ", 1)
    field, message = id_difference(header)
    assert field in ("game_id", "matchup") and any(w in message for w in ("does not follow", "not a matchup", "no seat"))


def _header(toml: dict, seat_agents) -> tuple[str, dict]:
    """The planned id and a header as the runner writes it, for the first game of a tournament."""
    tournament = from_dict(toml)
    planned = tournament.plan()[0]
    game = games.get(planned.matchup.game)
    params = dict(planned.matchup.rules)
    setup = game.deal(params, rng_for(planned.seed, "deal"))
    players = []
    for seat in range(game.players(params)):
        spec = planned.agent_for(seat, game.role_of(params, setup, seat))
        rng = rng_for(planned.seed, f"agent-{seat}")
        agent = (make_llm_agent(dict(spec.spec), None, game=game.name, seat=seat, rng=rng, name=spec.name)  # type: ignore[arg-type]
                 if spec.is_llm else make(spec.spec["builtin"], spec.spec["params"], rng, spec.name, game.name))
        players.append({"seat": seat, "agent": agent.description})
    header = {"game_id": "?", "game": game.name, "variant": params, "seed": planned.seed,
              "tournament": tournament.name, "matchup": planned.matchup.label, "players": players}
    return planned.game_id, header


@pytest.mark.parametrize("agent", [
    {"builtin": "chameleon/associative"},
    {"builtin": "chameleon/associative", "specificity": 0.5},  # the default, written out
    {"builtin": "chameleon/associative", "specificity": 0.9},
    {"provider": "openai", "model": "m", "design": "favor"},
    {"provider": "openai", "model": "m", "design": "favor", "design_params": {"initial": 50.0, "swing": 20}},
    {"provider": "openai", "model": "m", "design": "pgm", "design_params": {"step": 2}},
    {"provider": "openai", "model": "m", "design": "b5p", "design_params": {"openness": 7}},
    {"provider": "openai_compatible", "model": "m", "base_url": "http://127.0.0.1:1/v1", "temperature": 1,
     "structured_output": "json_object", "system_role": False, "stop": "END"},
], ids=lambda a: json.dumps(a))
def test_ids_follow_however_the_file_wrote_the_agents(agent):
    planned_id, header = _header({"name": "t", "seed": 3, "agents": {"a": agent}, "matchups": [
        {"game": "chameleon", "games": 1, "roles": {"chameleon": "a", "non_chameleon": "chameleon/trivial"}}]},
        None)
    assert planned_id in set(expected_ids(header))


def test_the_fingerprint_is_what_was_played_not_how_it_is_labelled_or_worded():
    records = shipped(1)[0]
    base = play_fingerprint(records[0], records)
    relabelled = copy.deepcopy(records)
    relabelled[0].update(game_id="x-chameleon-000000000000", tournament="x", matchup="anything")
    for player in relabelled[0]["players"]:
        player["agent"]["name"] = "someone-else"
    for record in relabelled:
        if record.get("type") == "event" and record["kind"] == "action":
            record["evidence"] = {"calls": [{"messages": [], "reply": "  reworded  "}]}
    assert play_fingerprint(relabelled[0], relabelled) == base
    moved = copy.deepcopy(records)
    action = next(r for r in moved if r.get("type") == "event" and r["kind"] == "action")
    action["attempts"] = [{"action": None, "raw": "?", "error": "no"}]
    assert play_fingerprint(moved[0], moved) != base  # a refused try is part of what the scorer counts
    reseeded = copy.deepcopy(records)
    reseeded[0]["seed"] += 1
    assert play_fingerprint(reseeded[0], reseeded) != base


def test_many_agents_with_defaults_left_out_are_found_at_once():
    """Four favor agents (each of whose two parameters could have been written or left out) and a
    built-in: the runner's usual way of writing them, defaults left out, is tried first."""
    tables = {f"m{i}": {"provider": "openai", "model": f"m{i}", "design": "favor"} for i in range(4)}
    planned_id, header = _header({"name": "t", "seed": 5, "agents": tables, "matchups": [
        {"game": "werewolf", "games": 1, "lineup": ["m0", "m1", "m2", "m3", "random", "random", "random", "random"]}]},
        None)
    forms = expected_ids(header)
    assert next(forms) == planned_id


def test_with_its_plan_a_header_is_checked_against_the_planned_game():
    from runner.rerun.identity import planned_difference

    table = {"name": "t", "seed": 3, "agents": {"a": {"builtin": "chameleon/associative", "specificity": 0.9}},
             "matchups": [{"game": "chameleon", "games": 1, "roles": {"chameleon": "a", "non_chameleon": "random"}}]}
    _, header = _header(table, None)
    planned = from_dict(table).plan()[0]
    header["game_id"] = planned.game_id
    for player in header["players"]:
        player["role"] = "chameleon" if player["agent"]["name"] == "a" else "non_chameleon"
    assert planned_difference(header, planned) is None
    other = copy.deepcopy(header)
    seat = next(p["seat"] for p in other["players"] if p["agent"]["name"] == "a")
    other["players"][seat]["agent"]["params"]["specificity"] = 0.1
    field, message = planned_difference(other, planned)
    assert field == f"players[{seat}].agent" and "the plan seats 'a' here" in message
    reseeded = dict(header, seed=header["seed"] + 1)
    assert planned_difference(reseeded, planned)[0] == "seed"

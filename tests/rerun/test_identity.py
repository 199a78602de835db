"""A game's id follows from its tournament, matchup and seed, and its identity from the deal and
what its players produced on it (a model seat's recorded calls): so one game cannot be counted
twice under fresh ids or labels, and two models that play a deal the same way are two games."""

from __future__ import annotations

import copy
import json
from pathlib import Path

import pytest

from runner import games
from runner.agents.builtin import make
from runner.agents.llm import make_llm_agent
from runner.rerun.identity import (
    expected_ids,
    game_identity,
    id_difference,
    identity_basis,
)
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


RANKED = SHIPPED.parent / "ranked-1-gemma3-270m"
PLAYED = SHIPPED.parent / "play-ann-7e8"


def _read(path: Path) -> list[dict]:
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()]


def _model_game() -> list[dict]:
    """A shipped suite game of Gemma 3 270M (Prisoner's Dilemma: five decisions, five probes each)."""
    return _read(min(RANKED.glob("*-prisoners_dilemma-*.jsonl")))


def _calls(records: list[dict]):
    return [call for r in records for call in (r.get("evidence") or {}).get("calls", ()) if r.get("type") != "judge"]


def _relabel(records):
    header = records[0]
    header.update(game_id="copy-prisoners_dilemma-000000000000", tournament="ranked-1-copy", matchup="anything")
    for player in header["players"]:
        player["agent"]["name"] = "someone-else"
        if player["agent"]["kind"] == "llm":
            player["agent"]["seed"] = 12345  # the model's sampling seed: a setting, not something it produced


def _noise(records):
    for i, call in enumerate(_calls(records)):
        call.update(latency_ms=call["latency_ms"] * 3 + 1, retries=2, cached=True, cached_input_tokens=i,
                    cache_write_input_tokens=1)


def _prompts(records):
    for call in _calls(records):
        call["messages"][-1]["content"] += " (asked another way)"


def _judged(records):
    records.append({"type": "judge", "dimension": "memorability", "judge": {"name": "j", "kind": "llm"},
                    "round": None, "score": 3, "evidence": {"calls": [{"reply": "3", "model_reported": "j"}]}})


def _reworded(records):
    for call in _calls(records):
        call["reply"] += " "


def _model_id(records):
    for call in _calls(records):
        call["model_reported"] = "another-model"


def _tokens(records):
    _calls(records)[0]["output_tokens"] += 1


def _reasoning(records):
    _calls(records)[-1]["reasoning"] = "I thought about it."


def _refused_try(records):
    action = next(r for r in records if r.get("type") == "event" and r["kind"] == "action" and "evidence" in r)
    action["attempts"] = [{"action": None, "raw": "?", "error": "no"}]


def _reseeded(records):
    records[0]["seed"] += 1


@pytest.mark.parametrize("change, same", [
    (_relabel, True), (_noise, True), (_prompts, True), (_judged, True),
    (_reworded, False), (_model_id, False), (_tokens, False), (_reasoning, False), (_refused_try, False),
    (_reseeded, False),
], ids=lambda v: getattr(v, "__name__", str(v)).strip("_"))
def test_a_model_game_is_known_by_its_deal_and_the_models_calls(change, same):
    """Relabelled (names, ids, tournament, the model's settings), with other timings, retries and
    cache counts, prompts or judges: the same game. Any reply, model id, token count or move
    changed: another game (a copier who rewords every reply makes one no check can tell from a
    model that played the same way: a made-up row, confined to its own row)."""
    records = _model_game()
    assert identity_basis(records[0]) == "model"
    changed = copy.deepcopy(records)
    change(changed)
    assert (game_identity(changed[0], changed) == game_identity(records[0], records)) is same


def test_two_models_that_play_a_deal_alike_are_two_games():
    """Same deal, same moves, byte-identical replies (constrained decoding): the model ids differ."""
    records = _model_game()
    other = copy.deepcopy(records)
    _model_id(other)
    moves = [(r["seat"], r["data"]) for r in records if r.get("type") == "event" and r["kind"] == "action"]
    assert moves == [(r["seat"], r["data"]) for r in other if r.get("type") == "event" and r["kind"] == "action"]
    assert game_identity(other[0], other) != game_identity(records[0], records)


def _person_game() -> list[dict]:
    """A game a person played against built-in agents: the shipped played game, its model seat
    taken by a built-in (and its calls dropped), which is all the identity reads of it."""
    records = _read(next(PLAYED.glob("*.jsonl")))
    for player in records[0]["players"]:
        if player["agent"]["kind"] == "llm":
            player["agent"] = {"name": "prisoners_dilemma/tit_for_tat", "kind": "builtin",
                               "strategy": "prisoners_dilemma/tit_for_tat", "params": {}}
    for record in records:
        record.pop("evidence", None)
    return records


def test_a_persons_game_is_known_by_its_deal_and_moves():
    records = _person_game()
    assert identity_basis(records[0]) == "person"
    renamed = copy.deepcopy(records)
    person = next(p for p in renamed[0]["players"] if p["agent"]["kind"] == "human")
    person["agent"]["name"] = "Someone Else"
    for record in renamed:
        if "took_ms" in record:
            record["took_ms"] += 500
    assert game_identity(renamed[0], renamed) == game_identity(records[0], records)
    moved = copy.deepcopy(records)
    choice = next(r for r in moved if r.get("type") == "event" and r["kind"] == "action" and r["seat"] == person["seat"])
    choice["data"]["choice"] = "defect" if choice["data"]["choice"] == "cooperate" else "cooperate"
    assert game_identity(moved[0], moved) != game_identity(records[0], records)


def test_a_game_of_bots_is_known_by_its_strategies_too():
    """Two reference rows of the suite may play a deal alike (the shipped random and scripted rows
    do once): their strategies make them two games; their names do not."""
    records = shipped(1)[0]
    assert identity_basis(records[0]) == "bots"
    renamed = copy.deepcopy(records)
    for player in renamed[0]["players"]:
        player["agent"]["name"] = "someone-else"
    assert game_identity(renamed[0], renamed) == game_identity(records[0], records)
    other = copy.deepcopy(records)
    other[0]["players"][0]["agent"]["strategy"] = "random"
    assert game_identity(other[0], other) != game_identity(records[0], records)


@pytest.mark.parametrize("odd", [
    {"type": "event", "kind": "action", "seat": [1], "evidence": {"calls": "x"}},
    {"type": "probe", "seat": 1, "evidence": "x"},
    {"type": "probe", "seat": 1, "evidence": {"calls": ["x", None, {"reply": 1}]}},
    {"type": "event", "kind": "action", "seat": 1, "evidence": {"calls": [{"reply": "\ud800"}]}},
], ids=["seat a list", "evidence a string", "odd calls", "lone surrogate"])
def test_a_base_file_read_leniently_still_has_an_identity(odd):
    """The index of main reads its files leniently: an odd record never ends the check."""
    records = _model_game()
    records.insert(3, odd)
    assert len(game_identity(records[0], records)) == 64
    header = dict(records[0], players=[None, {"seat": "1", "agent": {}}, {"agent": None}])
    assert identity_basis(header) == "bots" and len(game_identity(header, records)) == 64


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

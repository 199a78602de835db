"""Probe schedules (rules option `probe_schedule`): a replay of each validates strictly (the probes
re-derived) and scores, and with several probe points per game both MAgIC readings pool every
point's answers, so a game weighs as many units as it has points (docs/metrics/magic.md)."""

from __future__ import annotations

import asyncio

import pytest
from builders import replay, scored
from test_magic import AGENTS, B, CARD, KX, X

from runner import games
from runner.agents.builtin import make
from runner.play import Seating, rng_for
from runner.replay.format import encode
from runner.rerun.validate import check_bytes
from tests.helpers import play_alone
from site_builder.scoring.magic import magic

RULES = {"players": 3, "words": 4, "clue": "word", "ties": "even"}


def played(game_name: str, rules: dict, seed: int) -> bytes:
    """A game of built-in agents with probes, as the runner plays it (associative players where
    the game has them: they answer every probe)."""
    game = games.get(game_name)
    params = game.params(rules)
    setup = game.deal(params, rng_for(seed, "deal"))
    n = game.players(params)
    strategy = f"{game_name}/associative" if game_name in ("chameleon", "undercover") else "random"
    agents = [make(strategy, {}, rng_for(seed, f"agent-{s}"), "bot", game_name) for s in range(n)]
    seating = Seating(agents, game.seat_names(params, setup), [game.role_of(params, setup, s) for s in range(n)])
    return encode(asyncio.run(play_alone(game, params, setup, seating, seed=seed, tournament="t",
                                         created="2026-11-25")))


@pytest.mark.parametrize("game_name, rules, points", [
    ("chameleon", {"players": 3}, 1),
    ("chameleon", {"players": 3, "probe_schedule": "every_clue"}, 3),
    ("undercover", {"players": 3, "rounds": 2}, 1),
    ("undercover", {"players": 3, "rounds": 2, "probe_schedule": "every_round"}, 2),
    ("undercover", {"players": 3, "rounds": 2, "probe_schedule": "every_clue"}, 6),
])
def test_a_replay_of_each_schedule_validates_and_scores(game_name, rules, points):
    raw = played(game_name, rules, seed=7)
    checked = check_bytes("g.jsonl", raw)  # derive: every built-in belief re-computed, every point asked
    assert checked.ok, [str(p) for p in checked.problems]
    assert checked.header["variant"].get("probe_schedule") == rules.get("probe_schedule")
    game = scored(raw)
    assert len({p["after"] for p in game.probes}) == points
    out = magic([game], {}, seed=1)
    assert all(a["reasoning"] is not None for a in out["agents"].values())
    # A probe point the schedule does not ask is refused, naming the line.
    if points > 1:
        lines = raw.decode().splitlines()
        first = next(i for i, line in enumerate(lines) if '"type":"probe"' in line)
        header = lines[0].replace(f',"probe_schedule":"{rules["probe_schedule"]}"', "")
        problems = check_bytes("g.jsonl", "\n".join([header, *lines[1:]]).encode() + b"\n", derive=False).problems
        assert [p.line for p in problems][:1] == [first + 1], [str(p) for p in problems]


def chameleon_game(gid, schedule, suspects):
    """X at seat 0 (a non-chameleon) names `suspects[k]` at the k-th probe point; the chameleon
    (seat 2) wins. Under "every_clue" the points follow clues 1, 2 and 3, else only clue 3."""
    setup = {"card": CARD, "secret": "apple", "chameleon": 2, "order": [0, 1, 2]}
    inputs, rules = [], dict(RULES)
    if schedule:
        rules["probe_schedule"] = schedule
    points = [0, 1, 2] if schedule == "every_clue" else [2]
    assert len(points) == len(suspects)
    for s, word in enumerate(["red", "green", "sweet"]):
        inputs.append(("act", s, {"clue": word}))
        if s in points:
            inputs.append(("probe", 0, "suspect", {"seat": suspects[points.index(s)]}))
    inputs += [("act", s, {"vote": v}) for s, v in enumerate([1, 0, 0])]
    return scored(replay("chameleon", setup, [X, B, B], inputs, game_id=gid, rules=rules))


def readings(games_):
    out = magic(games_, AGENTS, seed=1)
    return out["agents"][KX]["reasoning"], out["alternative"]["agents"][KX]["reasoning"]


def test_the_schedules_give_different_values_on_the_same_play():
    # Once before the vote, X names the chameleon (seat 2). Paper: 1 first-order unit, right; its
    # no suspect_of answers: 1/1. Reference: per point one first-order unit (right) and one
    # second-order unit, "right" because X's empty guess rows and the others' empty own rows are
    # all argmax seat 0: 2/2.
    paper, ref = readings([chameleon_game("once", None, [2])])
    assert (paper["value"], ref["value"]) == (1.0, 1.0)
    # After every clue X names seat 1, seat 1, then the chameleon. Paper: 1 of 3 first-order
    # units. Reference: first order 1/3, second order 3/3: 4/6.
    paper, ref = readings([chameleon_game("each", "every_clue", [1, 1, 2])])
    assert paper["value"] == pytest.approx(1 / 3) and paper["n"] == 3
    assert ref["value"] == pytest.approx(4 / 6) and ref["n"] == 6


def test_both_readings_weigh_a_game_by_its_probe_points():
    # One right answer in a one-point game, three wrong ones in an every-clue game. Pooled over
    # units (not averaged per game, which would give 1/2): paper 1/4; reference first order 1/4,
    # second order 4/4 (the empty-row artefact): 5/8.
    paper, ref = readings([chameleon_game("once", None, [2]), chameleon_game("each", "every_clue", [1, 1, 1])])
    assert paper["value"] == pytest.approx(1 / 4) and paper["games"] == 2
    assert ref["value"] == pytest.approx(5 / 8)


@pytest.mark.parametrize("game_name, rules, default", [
    ("chameleon", {"players": 3}, '"probe_schedule":"before_vote"'),
    ("undercover", {"players": 3}, '"probe_schedule":"before_vote"'),
    ("cost_sharing", {}, '"agreement":"same_proposer"'),
])
def test_a_default_option_written_into_the_variant_is_refused(game_name, rules, default):
    # The options' defaults are left out of `variant`, so replays of earlier runners keep their form;
    # a file that writes one out is not in normal form.
    lines = played(game_name, rules, seed=3).decode().splitlines()
    assert check_bytes("g.jsonl", ("\n".join(lines) + "\n").encode()).ok
    lines[0] = lines[0].replace('"variant":{', '"variant":{' + default + ",")
    problems = check_bytes("g.jsonl", ("\n".join(lines) + "\n").encode(), derive=False).problems
    assert [(p.line, p.field) for p in problems][:1] == [(1, "variant." + default.split('"')[1])]

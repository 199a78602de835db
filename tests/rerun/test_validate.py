"""Re-simulating replays: every tampering, illegal move and wrong header is caught and placed."""

from __future__ import annotations

import asyncio
import copy
import random
import sys
import types
from collections.abc import Callable
from functools import cache
from typing import Any

import pytest

from runner import games
from runner.agents.base import ProbeRequest, Request, ScriptedAgent
from runner.agents.builtin import make, strategies
from runner.games.base import (Action, Game, IllegalAction, Pending, Seat, State, action_fields, check_keys,
                               is_int, require)
from runner.play import Seating, rng_for
from runner.replay.format import encode
from runner.rerun.identity import expected_ids
from runner.rerun.validate import Checked, check_bytes
from tests.helpers import play_alone

Records = list[dict[str, Any]]


def replay(game: Game, agents: list[ScriptedAgent], seed: int = 1, variant: dict | None = None) -> Records:
    """The records of one game played to the end."""
    params = game.params(variant or {})
    setup = game.deal(params, rng_for(seed, "deal"))
    n = game.players(params)
    seating = Seating(agents, game.seat_names(params, setup), [game.role_of(params, setup, s) for s in range(n)])
    return asyncio.run(play_alone(game, params, setup, seating, seed=seed, tournament="v",
                                  created="2026-01-01"))


def check(records: Records, derive: bool = False) -> Checked:
    """The checked records. Most tests here tamper with a move, a draw or the deal to see the *rules*
    catch the inconsistency, so the seed's own check (runner/rerun/derive.py, tested below with
    `derive=True`) is off unless asked for: it would catch the same tampering a line earlier."""
    return check_bytes("r.jsonl", encode(records), derive=derive)


def problems(records: Records) -> list[tuple[int, str, str]]:
    return [(p.line, p.field, p.message) for p in check(records).problems]


def assert_problem(records: Records, line: int, field: str, *fragments: str) -> None:
    found = problems(records)
    assert any(p[0] == line and p[1] == field and all(f in p[2] for f in fragments) for p in found), found


def renumbered(records: Records) -> Records:
    n = 0
    for record in records:
        if record["type"] == "event":
            record["n"] = n
            n += 1
    return records


# -- Prisoner's Dilemma: line 1 header, lines 2-21 five rounds of 3 actions + 1 result, line 22 outcome

@pytest.fixture(scope="module")
def pd() -> Records:
    game = games.get("prisoners_dilemma")
    agents = [make(s, {}, rng_for(3, f"agent-{i}"), s, game.name) for i, s in
              enumerate(["prisoners_dilemma/tit_for_tat", "random", "prisoners_dilemma/always_defect"])]
    records = replay(game, agents, seed=3)
    assert check(records).ok
    return records


def other_winners(records: Records) -> list[int]:
    return [s for s in range(3) if s not in records[-1]["winners"]]


def edit(records: Records, mutate: Callable[[Records], Any]) -> Records:
    """A changed copy: `mutate` edits the copy in place or returns a new list of records."""
    records = copy.deepcopy(records)
    result = mutate(records)
    return result if isinstance(result, list) and all(isinstance(r, dict) for r in result) else records


def renumber_from_one(records: Records) -> None:
    for record in records:
        if record["type"] == "event":
            record["n"] += 1


def setitem(path: str, value: Any) -> Callable[[Records], None]:
    """Set a dotted path ("0.players.1.role") in the records."""
    def fn(records: Records) -> None:
        *parents, last = [int(p) if p.lstrip("-").isdigit() else p for p in path.split(".")]
        target: Any = records
        for part in parents:
            target = target[part]
        target[last] = value(target[last]) if callable(value) else value
    return fn


def swap(i: int, j: int) -> Callable[[Records], Records]:
    def fn(records: Records) -> Records:
        records[i], records[j] = records[j], records[i]
        return renumbered(records)
    return fn


PD_CASES = [
    # tampered results
    ("winners-changed", lambda r: r[-1].update(winners=other_winners(r)), 22, "winners",
     ["the claimed outcome differs from the rules"]),
    ("total-changed", setitem("-1.result.totals.0", lambda t: t + 1), 22, "result.totals[0]",
     ["the claimed outcome differs from the rules: expected"]),
    ("status-changed", setitem("-1.status", "invalid"), 22, "status", ['expected "complete", found "invalid"']),
    ("strict-winner-added", setitem("-1.result.extra", 1), 22, "result.extra", ['expected "(no such field)"']),
    ("info-total-changed", setitem("4.data.totals.1", lambda t: t + 10), 5, "data.totals[1]",
     ["does not match the rules: expected"]),
    ("info-points-as-text", setitem("4.data.points.0", lambda p: str(p)), 5, "data.points[0]", ["found \""]),
    ("legal-action-swapped", setitem("1.data.choice", lambda c: "cooperate" if c == "defect" else "defect"),
     5, "data.choices[0]", ["does not match the rules"]),
    ("action-vis-widened", setitem("1.vis", "all"), 2, "vis", ['expected [0], found "all"']),
    ("phase-renamed", setitem("1.phase", "vote"), 2, "phase", ['expected "choose", found "vote"']),
    ("event-removed", lambda r: r.pop(2), 3, "n", ["expected 1, found 2"]),
    ("action-removed-renumbered", lambda r: renumbered(r[:2] + r[3:]), 4, "kind",
     ["the rules produce no info event here", "seat 1 in phase 'choose'"]),
    ("info-removed-renumbered", lambda r: renumbered(r[:4] + r[5:]), 5, "kind",
     ["the rules produce an info event here (phase 'round_result'), not an action"]),
    ("info-moved-before-action", swap(3, 4), 4, "kind", ["the rules produce no info event here"]),
    ("numbering-from-one", renumber_from_one, 2, "n",
     ["must be numbered 0, 1, 2, ... in order; expected 0, found 1"]),
    ("numbering-repeated", setitem("3.n", 1), 4, "n", ["expected 2, found 1"]),
    ("last-info-removed", lambda r: r.pop(-2), 21, "type",
     ["the rules produce a further event before the end: info in phase 'round_result'"]),
    ("last-round-removed", lambda r: r[:-5] + r[-1:], 18, "type",
     ["the game is not over: the rules wait for an action of seat 0, 1, 2 in phase 'choose'"]),
    ("event-after-the-end", lambda r: r[:-1] + [dict(r[1], n=20)] + r[-1:], 22, "kind",
     ["the rules accept no action here: the game is over"]),
    ("forged-forfeit", setitem("1", {"type": "event", "n": 0, "kind": "forfeit", "phase": "choose", "seat": 0,
                                     "data": {"reason": "gave up"}, "vis": "all"}), 3, "kind",
     ["the rules accept no action here: the game is over"]),
    ("forfeit-without-reason", setitem("1", {"type": "event", "n": 0, "kind": "forfeit", "phase": "choose",
                                             "seat": 0, "data": {}, "vis": "all"}), 2, "data.reason",
     ["a forfeit needs its reason"]),
    ("chance-where-there-is-none", setitem("1", {"type": "event", "n": 0, "kind": "chance", "phase": "choose",
                                                "seat": None, "data": {"options": [0, 1], "outcome": 0},
                                                "vis": "all"}), 2, "kind", ["the rules do not draw by chance here"]),
    ("attempts-on-info", setitem("4.attempts", [{"action": {}, "raw": None, "error": "x"}]), 5, "attempts",
     ["only actions and forfeits have attempts"]),
    ("probe-where-none-is-asked", lambda r: r.insert(1, {"type": "probe", "seat": 0, "probe": "suspect",
                                                         "answer": {"seat": 1}}), 2, "probe",
     ["probe 'suspect' is not asked here: no probe is asked at this point"]),
    # illegal moves: the rule's own reason is given
    ("illegal-choice", setitem("1.data", {"choice": "betray"}), 2, "data",
     ["illegal action: choice must be one of ['cooperate', 'defect'], got 'betray'"]),
    ("illegal-extra-field", setitem("1.data", {"choice": "defect", "why": "x"}), 2, "data",
     ["illegal action: the action needs exactly the field(s) ['choice']"]),
    ("seat-acts-twice", setitem("2.seat", 0), 3, "seat",
     ["seat 0 is not to act here: the rules wait for an action of seat 1, 2 in phase 'choose'"]),
    ("action-without-seat", setitem("1.seat", None), 2, "seat", ["seat null is not to act here"]),
    # wrong header
    ("unknown-game", setitem("0.game", "chess"), 1, "game", ["unknown game 'chess'; the games are ",
                                                             "prisoners_dilemma"]),
    ("variant-not-normal", setitem("0.variant", {}), 1, "variant.rounds",
     ["must list every rule parameter in normal form (expected 5)"]),
    ("variant-out-of-range", setitem("0.variant", {"rounds": 0}), 1, "variant.rounds",
     ["must be an integer from 1 to 50"]),
    ("variant-unknown-rule", setitem("0.variant.speed", 2), 1, "variant", ["unknown field(s) ['speed']"]),
    ("too-few-players", lambda r: r[0]["players"].pop(), 1, "players",
     ["Prisoner's Dilemma with these rules has 3 players, the header lists 2"]),
    ("wrong-role", setitem("0.players.1.role", "spy"), 1, "players[1].role",
     ["the setup makes seat 1 the player, not the spy"]),
    ("players-out-of-order", lambda r: r[0]["players"].reverse(), 1, "players[0].seat",
     ["players must be listed by seat; expected seat 0"]),
    ("wrong-seat-name", setitem("0.players.2.name", "Mallory"), 1, "players[2].name",
     ['seat 2 is named "Player 3" by the rules']),
    ("setup-negative-payoff", setitem("0.setup.payoffs.cooperate", -1), 1, "setup.payoffs.cooperate",
     ["must be a non-negative number"]),
    ("setup-unknown-field", setitem("0.setup.bonus", 1), 1, "setup", ["unknown field(s) ['bonus']"]),
    # structure
    ("two-headers", lambda r: r.insert(1, r[0]), 2, "type", ["a second header"]),
    ("outcome-not-last", lambda r: r.insert(1, r.pop()), 2, "type", ["the outcome must be the last line"]),
    ("outcome-missing", lambda r: r.pop(), 21, "type", ["the file ends without an outcome line",
                                                        "truncated"]),
    ("header-missing", lambda r: r.pop(0), 1, "type", ["the first line must be the header, not 'event'"]),
]


@pytest.mark.parametrize("mutate, line, field, fragments", [c[1:] for c in PD_CASES], ids=[c[0] for c in PD_CASES])
def test_tampered_prisoners_dilemma_replays_are_caught_at_the_right_line(pd, mutate, line, field, fragments):
    records = edit(pd, mutate)
    assert_problem(records, line, field, *fragments)
    assert check(records).outcome is None and check(records).state is None


def test_a_valid_replay_recomputes_its_outcome(pd):
    checked = check(pd)
    assert checked.ok and checked.header == pd[0]
    expected = {k: v for k, v in pd[-1].items() if k != "type"}
    assert checked.outcome == expected


def test_swapping_two_simultaneous_actions_is_not_a_change_of_the_game(pd):
    # Seats of a simultaneous phase may act in any order: the rules reach the same state.
    assert check(edit(pd, swap(1, 2))).ok


def test_header_is_none_when_the_first_line_is_not_a_header_object():
    assert check_bytes("r.jsonl", b"[]\n").header is None
    assert check_bytes("r.jsonl", b'{"type": \n{"type": "header"}\n').header is None


def test_a_game_named_in_the_registry_but_absent_is_reported(pd, monkeypatch):
    monkeypatch.setitem(games.GAME_MODULES, "ghost", "tests_replay_no_such_module")
    assert_problem(edit(pd, setitem("0.game", "ghost")), 1, "game",
                   "the rules engine of 'ghost' cannot be loaded in this installation")


# -- a two-seat toy game with probes and a chance tie-break --------------------------------

class DuelState(State):
    """Both seats pick 1-3 at once; the higher number wins, a tie is drawn by chance."""

    def __init__(self, game: Game, params, setup):
        super().__init__(game, params, setup)
        self.picks: dict[Seat, int] = {}
        self.winner: Seat | None = None

    def _pending(self) -> Pending | None:
        if len(self.picks) < 2:
            return Pending("act", "pick", tuple(s for s in (0, 1) if s not in self.picks), simultaneous=True)
        if self.winner is None:
            return Pending("chance", "tie_break", options=(0, 1))
        return None

    def legal(self, seat: Seat) -> dict[str, Any]:
        return {"field": "number", "options": [1, 2, 3]}

    def _check(self, seat: Seat, phase: str, action: Action) -> Action:
        action_fields(action, ["number"])
        # Deliberately naive: an unhashable number raises TypeError, as a buggy engine might.
        if action["number"] not in {1, 2, 3}:
            raise IllegalAction("number must be 1, 2 or 3")
        return {"number": action["number"]}

    def _apply(self, seat: Seat, phase: str, action: Action) -> None:
        self.picks[seat] = action["number"]
        if len(self.picks) == 2:
            a, b = self.picks[0], self.picks[1]
            self._emit("info", "reveal", None, {"numbers": [a, b]}, "all")
            if a != b:
                self.winner = 0 if a > b else 1

    def _apply_chance(self, phase: str, outcome: Any) -> None:
        self.winner = outcome

    def probes(self) -> tuple[str, ...]:
        return ("suspect", "self_role") if not self.picks else ()

    def private(self, seat: Seat) -> dict[str, Any]:
        return {}

    def public(self) -> dict[str, Any]:
        return {"stake": self.params["stake"]}

    def _result(self) -> tuple[list[Seat], dict[str, Any]]:
        return [self.winner], {"numbers": [self.picks[0], self.picks[1]], "stake": self.params["stake"]}

    def random_action(self, seat: Seat, rng: random.Random) -> Action:
        return {"number": rng.choice((1, 2, 3))}

    def illegal_examples(self, seat: Seat) -> list[Any]:
        return [{"number": 4}]


class Duel(Game):
    name = "duel"
    title = "Duel"
    roles = ("duelist",)

    def params(self, raw):
        check_keys(raw, [], "params", optional=["stake"])
        stake = raw.get("stake", 1)
        require(is_int(stake) and 1 <= stake <= 10, "params.stake", "must be an integer from 1 to 10")
        return {"stake": stake}

    def players(self, params) -> int:
        return 2

    def deal(self, params, rng):
        return {"names": rng.sample(["Ann", "Bob", "Cy"], 2)}

    def check_setup(self, params, setup) -> None:
        check_keys(setup, ["names"], "setup")
        require(isinstance(setup["names"], list) and len(setup["names"]) == 2, "setup.names", "must list 2 names")

    def seat_names(self, params, setup) -> list[str]:
        return list(setup["names"])

    def role_of(self, params, setup, seat) -> str:
        return "duelist"

    def start(self, params, setup) -> State:
        return DuelState(self, params, setup)

    def counterfactuals(self, params, setup, seat, rng):
        return []


class Picker(ScriptedAgent):
    """Always picks the same number; suspects the other seat."""

    strategy = "duel/picker"
    defaults = {"number": 2}

    def decide(self, request: Request) -> dict[str, Any]:
        return {"number": self.params["number"]}

    def probe_answer(self, request: ProbeRequest) -> dict[str, Any] | None:
        return {"seat": 1 - request.seat} if request.kind == "suspect" else {"role": "duelist"}


@pytest.fixture
def duel(monkeypatch) -> Records:
    """A tied duel: header, 4 probes (lines 2-5), 2 picks (6-7), reveal (8), tie-break (9), outcome (10)."""
    module = types.ModuleType("tests_replay_duel")
    module.GAME = Duel()
    monkeypatch.setitem(sys.modules, module.__name__, module)
    monkeypatch.setitem(games.GAME_MODULES, "duel", module.__name__)
    agents = [Picker({}, random.Random(s), "picker") for s in range(2)]
    records = replay(module.GAME, agents, seed=5, variant={"stake": 3})
    assert [r["type"] for r in records] == ["header"] + ["probe"] * 4 + ["event"] * 4 + ["outcome"]
    assert records[8]["kind"] == "chance"
    return records


def test_a_duel_with_probes_and_a_tie_break_validates(duel):
    checked = check(duel)
    assert checked.ok, [str(p) for p in checked.problems]
    assert checked.outcome["winners"] == [duel[8]["data"]["outcome"]]


DUEL_CASES = [
    ("chance-outcome-not-an-option", setitem("8.data.outcome", 7), 9, "data.outcome",
     ["the chance outcome 7 is not one of the options [0, 1]"]),
    ("chance-outcome-true-for-1", setitem("8.data.outcome", True), 9, "data.outcome",
     ["the chance outcome true is not one of the options"]),
    ("chance-outcome-missing", lambda r: r[8]["data"].pop("outcome"), 9, "data.outcome",
     ["a chance event needs its outcome"]),
    ("chance-options-changed", setitem("8.data.options", [0, 1, 2]), 9, "data.options",
     ["does not match the rules"]),
    ("chance-outcome-flipped", setitem("8.data.outcome", lambda o: 1 - o), 10, "winners[0]",
     ["the claimed outcome differs from the rules"]),
    ("probe-answer-about-itself", setitem("1.answer.seat", 0), 2, "answer",
     ["probe field 'seat' must be another player's seat, got 0"]),
    ("probe-answer-unknown-role", setitem("2.answer.role", "king"), 3, "answer", ["probe role must be one of"]),
    ("probe-answered-twice", lambda r: r.insert(2, r[1]), 3, "probe",
     ["seat 0 already answered this 'suspect' probe here"]),
    ("probe-after-the-picks", lambda r: r.insert(8, r[1]), 9, "probe",
     ["probe 'suspect' is not asked here: no probe is asked at this point"]),
    ("probe-between-action-and-result", lambda r: r.insert(7, r[1]), 8, "type",
     ["a probe cannot come between an action and its consequences"]),
    ("probe-kind-not-asked-now", setitem("1.probe", "suspect_of"), 2, "probe",
     ["probe 'suspect_of' is not asked here: only 'suspect', 'self_role' here"]),
    ("probe-seat-out-of-range", setitem("1.seat", 9), 2, "seat", ["no such seat: the game has 2 seats"]),
    ("variant-not-normal", setitem("0.variant", {}), 1, "variant.stake",
     ["must list every rule parameter in normal form (expected 1)"]),
    ("seat-name-from-setup", setitem("0.setup.names", ["Zed", "Yan"]), 1, "players[0].name", ["is named \"Zed\""]),
    ("engine-type-error", setitem("5.data.number", [2]), 6, "",
     ["the rules engine failed on this line (TypeError: unhashable type: 'list')"]),
]


@pytest.mark.parametrize("mutate, line, field, fragments", [c[1:] for c in DUEL_CASES],
                         ids=[c[0] for c in DUEL_CASES])
def test_tampered_chance_draws_and_probes_are_caught(duel, mutate, line, field, fragments):
    assert_problem(edit(duel, mutate), line, field, *fragments)


def unanswered(line: int, version: int = 2, **extra: Any) -> Callable[[Records], None]:
    """Make probe `line` (0-based record index) an unanswered one, in a file of `version`."""
    def fn(records: Records) -> None:
        records[0]["version"] = version
        records[line].update(answer=None, error="Your reply has no ANSWER line", **extra)
    return fn


def test_an_unanswered_probe_validates_in_a_version_2_file(duel):
    checked = check(edit(duel, unanswered(1)))
    assert checked.ok, [str(p) for p in checked.problems]


VERSION_CASES = [
    ("unanswered-probe-in-version-1", unanswered(1, version=1), 2, "answer",
     ["an unanswered probe (answer null) needs replay format version 2; this file says version 1"]),
    ("unanswered-probe-without-reason", lambda r: (r[0].update(version=2), r[1].update(answer=None)), 2, "error",
     ["this required field is missing"]),
    ("unanswered-suspect-about-a-seat", unanswered(1, about=1), 2, "about",
     ["a 'suspect' probe is not about another seat"]),
    ("call-reasoning-in-version-1", lambda r: r[5].update(evidence={"calls": [{
        "messages": [], "reply": "x", "reasoning": "thinking"}]}), 6, "evidence.calls[0].reasoning",
     ["the call field 'reasoning' needs replay format version 2"]),
    ("agent-option-in-version-1", lambda r: r[0]["players"][0].update(agent={
        "name": "m", "kind": "llm", "provider": "openai", "model": "m", "structured_output": "json_schema"}), 1,
     "players[0].agent.structured_output", ["needs replay format version 2"]),
    ("unknown-version", setitem("0.version", 8), 1, "version", ["must be one of 1, 2, 3, 4, 5, 6, 7; got 8"]),
]


@pytest.mark.parametrize("mutate, line, field, fragments", [c[1:] for c in VERSION_CASES],
                         ids=[c[0] for c in VERSION_CASES])
def test_version_2_fields_need_a_version_2_file(duel, mutate, line, field, fragments):
    assert_problem(edit(duel, mutate), line, field, *fragments)


def test_version_1_files_of_older_runners_still_validate(duel):
    assert duel[0]["version"] == 1 and check(duel).ok  # nothing of version 2 in it: written as version 1


# -- every registered game ----------------------------------------------------------------

@cache
def random_replays(name: str) -> tuple[Records, ...]:
    """A few games of `name` between random agents (seeds 0-11)."""
    game = games.get(name)
    n = game.players(game.params({}))
    return tuple(replay(game, [make("random", {}, rng_for(seed, f"agent-{s}"), "random", name) for s in range(n)],
                        seed=seed) for seed in range(12))


def first_line(records: Records, kind: str) -> int:
    return next(i for i, r in enumerate(records) if r["type"] == "event" and r["kind"] == kind)


@pytest.fixture(params=games.available())
def played(request) -> tuple[Game, Records]:
    return games.get(request.param), copy.deepcopy(random_replays(request.param)[0])


def test_random_games_validate_and_a_changed_winner_is_caught(played):
    game, records = played
    assert check(records).ok, [str(p) for p in check(records).problems]
    records[-1]["winners"] = [s for s in range(game.players(game.params(records[0]["variant"])))
                              if s not in records[-1]["winners"]]
    assert_problem(records, len(records), "winners", "the claimed outcome differs from the rules")


def test_an_illegal_first_action_is_refused_with_the_rules_reason(played):
    game, records = played
    index = first_line(records, "action")
    state = game.start(game.params(records[0]["variant"]), records[0]["setup"])
    for record in records[1:index]:  # bring the rules to the first action
        if record["type"] == "event" and record["kind"] == "chance":
            state.chance(record["data"]["outcome"])
    seat = records[index]["seat"]
    illegal = next(a for a in state.illegal_examples(seat) if isinstance(a, dict))
    with pytest.raises(IllegalAction) as refusal:
        state.check(seat, illegal)
    records[index]["data"] = illegal
    assert_problem(records, index + 1, "data", "illegal action: ", str(refusal.value))


def test_changed_data_of_a_derived_event_is_caught(played):
    game, records = played
    index = first_line(records, "info")
    records[index]["data"]["forged"] = True
    assert_problem(records, index + 1, "data.forged", "does not match the rules")


def replay_with_a_chance_draw(game_name: str) -> list[dict]:
    """A copy of the first sample replay of the game with a chance draw (the test is skipped if none)."""
    with_chance = [r for r in random_replays(game_name) if any(e.get("kind") == "chance" for e in r)]
    if not with_chance:
        pytest.skip(f"{game_name}: no chance draw in the sample games")
    return copy.deepcopy(with_chance[0])


def test_a_chance_outcome_outside_its_options_is_caught(played):
    game, _ = played
    records = replay_with_a_chance_draw(game.name)
    index = first_line(records, "chance")
    records[index]["data"]["outcome"] = "not-an-option"
    assert_problem(records, index + 1, "data.outcome", 'the chance outcome "not-an-option" is not one of the options')


# -- what the seed already says: deal, chance draws, built-in moves ------------------------

def derived_problems(records: Records) -> list[tuple[int, str, str]]:
    return [(p.line, p.field, p.message) for p in check(records, derive=True).problems]


def test_games_played_by_the_runner_follow_from_their_seed(played):
    _, records = played
    assert check(records, derive=True).ok, derived_problems(records)


def test_a_deal_from_another_seed_is_refused_on_the_header(played):
    game, records = played
    params = game.params(records[0]["variant"])
    other = next(setup for k in range(1, 50)
                 if (setup := game.deal(params, rng_for(records[0]["seed"] + k, "deal"))) != records[0]["setup"])
    records[0]["setup"] = other
    line, field, message = derived_problems(records)[0]
    # Where the deal decides the roles (Werewolf), the header's roles disagree with it first.
    assert line == 1 and (field.startswith("setup") and "does not follow from the seed" in message
                          or field.endswith(".role"))


def test_a_copy_with_another_seed_is_refused(played):
    _, records = played
    records[0]["seed"] += 1
    assert derived_problems(records)


def _changed_move(game: Game, records: Records) -> tuple[int, Any]:
    """The index of the first action with another legal choice, and such a choice."""
    state = game.start(game.params(records[0]["variant"]), records[0]["setup"])
    produced = 0
    for index, record in enumerate(records[1:-1], start=1):
        if record["type"] != "event":
            continue
        if produced == len(state.events):
            if record["kind"] == "action":
                seat = record["seat"]
                for k in range(40):
                    other = state.random_action(seat, random.Random(k))
                    if state.check(seat, other) != state.check(seat, record["data"]):
                        return index, other
                state.act(seat, record["data"])
            elif record["kind"] == "chance":
                state.chance(record["data"]["outcome"])
        produced += 1
    raise AssertionError("no action with a choice")


def test_a_built_in_seat_that_did_not_make_its_move_is_refused(played):
    game, records = played
    index, other = _changed_move(game, records)
    records[index]["data"] = other
    line, field, message = derived_problems(records)[0]
    assert (line, field) == (index + 1, "data")
    assert f"seat {records[index]['seat']} plays the built-in random, which makes the move" in message


def test_a_built_in_seat_relabelled_as_another_strategy_is_refused(played):
    game, records = played
    seat = records[first_line(records, "action")]["seat"]
    for name, cls in sorted(strategies().items()):
        if name != "random" and name.startswith(f"{game.name}/"):
            records[0]["players"][seat]["agent"].update(strategy=name, params=dict(cls.defaults))
            break
    else:
        pytest.skip(f"{game.name}: no other built-in strategy")
    records[0]["game_id"] = next(expected_ids(records[0]))  # named as the runner would name that matchup
    found = derived_problems(records)
    assert found and any(f"seat {seat} plays the built-in {name}" in m or
                         f"seat {seat} claims the built-in {name}" in m for _, _, m in found), found


def test_a_strategy_that_does_not_exist_is_refused(played):
    _, records = played
    records[0]["players"][0]["agent"]["strategy"] = "chess/grandmaster"
    assert derived_problems(records) == [(1, "players[0].agent.strategy",
                                          "'chess/grandmaster' is not a built-in strategy (`gamenight agents` "
                                          "lists them)")]


def test_a_chance_draw_the_seed_did_not_make_is_refused(played):
    game, _ = played
    records = replay_with_a_chance_draw(game.name)
    index = first_line(records, "chance")
    data = records[index]["data"]
    data["outcome"] = next(o for o in data["options"] if o != data["outcome"])
    line, field, message = derived_problems(records)[0]
    assert (line, field) == (index + 1, "data.outcome")
    assert "the chance draw does not follow from the seed" in message


def test_a_built_in_belief_that_its_strategy_does_not_hold_is_refused():
    game = games.get("chameleon")
    agents = [make("chameleon/associative", {}, rng_for(3, f"agent-{s}"), "assoc", "chameleon") for s in range(4)]
    records = replay(game, agents, seed=3)
    assert check(records, derive=True).ok
    index = next(i for i, r in enumerate(records) if r["type"] == "probe" and r["probe"] == "suspect")
    answer = records[index]["answer"]
    answer["seat"] = next(s for s in range(4) if s not in (answer["seat"], records[index]["seat"]))
    line, field, message = derived_problems(records)[0]
    assert (line, field) == (index + 1, "answer") and "plays the built-in chameleon/associative" in message

"""Rules of simplified One Night Ultimate Werewolf: outcome and refusal tables, visibility, setups."""

from __future__ import annotations

import copy
import json
import random
from collections import Counter
from typing import Any

import pytest

from runner import content
from runner.games import IllegalAction, SetupError
from runner.games.werewolf import DECK, GAME, MAX_CHARS, MAX_WORDS, WerewolfState, winning_team
from runner.play import rng_for
from runner.replay.format import encode
from runner.rerun.validate import check_bytes

NAMES = ["Ada", "Bruno", "Chiara", "Dmitri", "Esme", "Farid", "Greta", "Hiro"]
# Seat:    0       1        2        3           4           5           6         7
ROLES = ["seer", "mason", "mason", "villager", "villager", "werewolf", "minion", "tanner"]
SETUP = {"roles": ROLES, "names": NAMES}
SEER, MASONS, VILLAGERS, WEREWOLF, MINION, TANNER = 0, (1, 2), (3, 4), 5, 6, 7
VILLAGE, WOLF_TEAM = [0, 1, 2, 3, 4], [5, 6]


def start(setup: dict[str, Any] | None = None) -> WerewolfState:
    state = GAME.start(GAME.params({}), setup or SETUP)
    assert isinstance(state, WerewolfState)
    return state


def night(state: WerewolfState, look: list[int] = (3, 4)) -> None:
    state.act(state.seer, {"look": list(look)})


def day(state: WerewolfState, statements: int = 24) -> None:
    """Speak `statements` statements in seat order (starting wherever the day stands)."""
    for _ in range(statements):
        seat = state.pending().seats[0]
        state.act(seat, {"text": f"I am {NAMES[seat]} and I have nothing to add."})


def cast(state: WerewolfState, votes: list[int]) -> None:
    for seat, target in enumerate(votes):
        state.act(seat, {"vote": target})


def to_vote(setup: dict[str, Any] | None = None) -> WerewolfState:
    state = start(setup)
    night(state)
    day(state)
    return state


def everyone_votes(target: int) -> list[int]:
    """All seats vote `target`; the target itself votes for its right-hand neighbour."""
    return [target if s != target else (s + 1) % 8 for s in range(8)]


# -- outcomes ---------------------------------------------------------------------------------
WINS = [
    pytest.param(WEREWOLF, "werewolf", "village", VILLAGE, id="werewolf-out-village-wins"),
    pytest.param(MINION, "minion", "werewolf", WOLF_TEAM, id="minion-out-werewolf-team-wins"),
    pytest.param(TANNER, "tanner", "tanner", [TANNER], id="tanner-out-tanner-wins"),
    pytest.param(3, "villager", "werewolf", WOLF_TEAM, id="villager-out-werewolf-team-wins"),
    pytest.param(SEER, "seer", "werewolf", WOLF_TEAM, id="seer-out-werewolf-team-wins"),
    pytest.param(2, "mason", "werewolf", WOLF_TEAM, id="mason-out-werewolf-team-wins"),
]


@pytest.mark.parametrize("out, role, team, winners", WINS)
def test_the_voted_out_role_decides_the_winning_team(out, role, team, winners):
    state = to_vote()
    votes = everyone_votes(out)
    cast(state, votes)
    assert state.terminal
    outcome = state.outcome()
    assert outcome["status"] == "complete"
    assert outcome["winners"] == winners
    tally = [0] * 8
    for target in votes:
        tally[target] += 1
    assert outcome["result"] == {"voted_out": out, "voted_out_role": role, "winning_team": team,
                                 "tie": False, "votes": votes, "tally": tally, "roles": ROLES}
    result_event = state.events[-1]
    assert result_event["phase"] == "result" and result_event["vis"] == "all"
    assert result_event["data"]["role"] == role and result_event["data"]["winners"] == winners


@pytest.mark.parametrize("role, team", [("werewolf", "village"), ("tanner", "tanner"),
                                        ("minion", "werewolf"), ("seer", "werewolf"),
                                        ("mason", "werewolf"), ("villager", "werewolf")])
def test_winning_team_of_each_role(role, team):
    assert winning_team(role) == team


# votes give a tie among `tied`; the draw picks `pick`.
TIES = [
    pytest.param([5, 5, 5, 7, 7, 7, 0, 1], [5, 7], WEREWOLF, "village", VILLAGE,
                 id="wolf-tanner-tie-drawn-onto-werewolf"),
    pytest.param([5, 5, 5, 7, 7, 7, 0, 1], [5, 7], TANNER, "tanner", [TANNER],
                 id="wolf-tanner-tie-drawn-onto-tanner"),
    pytest.param([6, 6, 3, 1, 3, 3, 0, 6], [3, 6], MINION, "werewolf", WOLF_TEAM,
                 id="tie-drawn-onto-minion"),
    pytest.param([6, 6, 3, 1, 3, 3, 0, 6], [3, 6], 3, "werewolf", WOLF_TEAM,
                 id="tie-drawn-onto-villager"),
    pytest.param([1, 0, 0, 1, 2, 2, 4, 4], [0, 1, 2, 4], SEER, "werewolf", WOLF_TEAM,
                 id="four-way-tie-drawn-onto-seer"),
    pytest.param([1, 0, 0, 1, 2, 2, 4, 4], [0, 1, 2, 4], 1, "werewolf", WOLF_TEAM,
                 id="four-way-tie-drawn-onto-mason"),
    pytest.param([1, 2, 3, 4, 5, 6, 7, 0], list(range(8)), WEREWOLF, "village", VILLAGE,
                 id="everyone-one-vote-drawn-onto-werewolf"),
]


@pytest.mark.parametrize("votes, tied, pick, team, winners", TIES)
def test_a_tie_is_drawn_among_the_top_voted(votes, tied, pick, team, winners):
    state = to_vote()
    cast(state, votes)
    pending = state.pending()
    assert pending.kind == "chance" and pending.phase == "tie_break"
    assert list(pending.options) == tied
    count = state.events[-1]
    assert count["phase"] == "count" and count["data"]["top"] == tied and count["vis"] == "all"
    assert state.probes() == ()
    with pytest.raises(IllegalAction):
        state.act(0, {"vote": 1})  # the vote is closed
    not_tied = next(s for s in range(8) if s not in tied) if len(tied) < 8 else None
    if not_tied is not None:
        with pytest.raises(IllegalAction, match="not one of"):
            state.chance(not_tied)
    state.chance(pick)
    assert state.events[-2]["kind"] == "chance"
    assert state.events[-2]["data"] == {"options": tied, "outcome": pick}
    outcome = state.outcome()
    assert outcome["winners"] == winners
    assert outcome["result"]["voted_out"] == pick and outcome["result"]["tie"] is True
    assert outcome["result"]["winning_team"] == team


def test_a_clear_majority_needs_no_draw():
    state = to_vote()
    cast(state, [5, 5, 5, 5, 7, 7, 7, 1])
    assert state.terminal and not any(ev["kind"] == "chance" for ev in state.events)
    assert state.outcome()["result"]["tie"] is False


# -- refusals ---------------------------------------------------------------------------------
def at_night() -> WerewolfState:
    return start()


def in_day() -> WerewolfState:
    state = start()
    night(state)
    day(state, 3)  # seat 3 is to speak
    return state


def in_vote() -> WerewolfState:
    state = to_vote()
    state.act(0, {"vote": 5})
    return state


def finished() -> WerewolfState:
    state = to_vote()
    cast(state, everyone_votes(WEREWOLF))
    return state


ILLEGAL = [
    pytest.param(at_night, SEER, {"look": [SEER, 3]}, "not yourself", id="seer-names-itself"),
    pytest.param(at_night, SEER, {"look": [3, 3]}, "two different", id="seer-names-same-twice"),
    pytest.param(at_night, SEER, {"look": [3]}, "exactly two", id="seer-names-one"),
    pytest.param(at_night, SEER, {"look": [1, 2, 3]}, "exactly two", id="seer-names-three"),
    pytest.param(at_night, SEER, {"look": [3, 8]}, "from 0 to 7", id="seer-names-no-such-seat"),
    pytest.param(at_night, SEER, {"look": ["3", 4]}, "from 0 to 7", id="seer-names-a-string"),
    pytest.param(at_night, SEER, {"look": [True, 4]}, "from 0 to 7", id="seer-names-a-boolean"),
    pytest.param(at_night, 3, {"look": [1, 2]}, "not to act", id="villager-acts-at-night"),
    pytest.param(at_night, SEER, {"text": "hello"}, "look", id="statement-at-night"),
    pytest.param(in_day, 3, {"text": " ".join(["wolf"] * (MAX_WORDS + 1))}, "at most 120 words",
                 id="statement-of-121-words"),
    pytest.param(in_day, 3, {"text": ""}, "empty", id="empty-statement"),
    pytest.param(in_day, 3, {"text": " \n\t "}, "empty", id="blank-statement"),
    pytest.param(in_day, 3, {"text": "a" * (MAX_CHARS + 1)}, "2000 characters",
                 id="statement-over-2000-characters"),
    pytest.param(in_day, 3, {"text": 42}, "string", id="statement-not-text"),
    pytest.param(in_day, 3, {"text": "hi", "vote": 1}, "exactly the field", id="statement-extra-field"),
    pytest.param(in_day, 4, {"text": "my turn?"}, "not to act", id="speaking-out-of-turn"),
    pytest.param(in_day, 3, {"vote": 5}, "exactly the field", id="vote-during-the-day"),
    pytest.param(in_vote, 1, {"vote": 1}, "not yourself", id="self-vote"),
    pytest.param(in_vote, 1, {"vote": 8}, "from 0 to 7", id="vote-for-no-such-seat"),
    pytest.param(in_vote, 1, {"vote": 5.0}, "from 0 to 7", id="vote-as-float"),
    pytest.param(in_vote, 1, {"vote": None}, "from 0 to 7", id="vote-for-nobody"),
    pytest.param(in_vote, 0, {"vote": 6}, "not to act", id="voting-twice"),
    pytest.param(in_vote, 1, {"text": "wait"}, "exactly the field", id="statement-during-vote"),
    pytest.param(finished, 0, {"vote": 5}, "over", id="acting-after-the-end"),
]


@pytest.mark.parametrize("make, seat, action, message", ILLEGAL)
def test_illegal_actions_are_refused_with_a_reason(make, seat, action, message):
    state = make()
    before = json.dumps(state.events)
    with pytest.raises(IllegalAction, match=message):
        state.act(seat, action)
    assert json.dumps(state.events) == before


LEGAL_TEXTS = [
    pytest.param(" ".join(["wolf"] * MAX_WORDS), " ".join(["wolf"] * MAX_WORDS), id="exactly-120-words"),
    pytest.param("Hi", "Hi", id="one-word"),
    pytest.param("  I am the Seer.\n", "I am the Seer.", id="outer-whitespace-trimmed"),
    pytest.param("a\tb\nc", "a\tb\nc", id="inner-whitespace-kept"),
]


@pytest.mark.parametrize("text, normalised", LEGAL_TEXTS)
def test_legal_statements_are_normalised(text, normalised):
    state = in_day()
    assert state.act(3, {"text": text}) == {"text": normalised}
    assert state.events[-1]["data"] == {"text": normalised} and state.events[-1]["vis"] == "all"


def test_the_seer_look_is_normalised_to_seat_order():
    state = start()
    assert state.act(SEER, {"look": [6, 2]}) == {"look": [2, 6]}


# -- who sees what ----------------------------------------------------------------------------
@pytest.mark.parametrize("look, among", [([3, 4], False), ([4, 5], True), ([5, 7], True),
                                         ([1, 6], False)])
def test_only_the_seer_sees_its_look_and_result(look, among):
    state = start()
    night(state, look)
    action, info = state.events
    assert action["vis"] == [SEER] and info["vis"] == [SEER]
    assert info["kind"] == "info" and info["data"] == {"looked": look, "werewolf_among": among}
    seer_log = state.observe(SEER)["log"]
    assert [ev["phase"] for ev in seer_log] == ["night", "night"]
    for seat in range(1, 8):
        assert state.observe(seat)["log"] == []


def test_only_masons_know_each_other():
    state = start()
    for seat in range(8):
        private = state.private(seat)
        assert private["role"] == ROLES[seat]
        if seat in MASONS:
            fellow = MASONS[1] if seat == MASONS[0] else MASONS[0]
            assert private["fellow_mason"] == fellow
        else:
            assert "fellow_mason" not in private
    # Nothing public depends on who holds which role.
    other = start({"roles": ["tanner", *ROLES[1:7], "seer"], "names": NAMES})
    assert state.public() == other.public()


def test_votes_stay_hidden_until_all_are_in():
    state = to_vote()
    before = [state.observe(s) for s in range(8)]
    votes = everyone_votes(WEREWOLF)
    for seat in range(7):
        state.act(seat, {"vote": votes[seat]})
        for other in range(8):
            log = state.observe(other)["log"]
            mine = [ev for ev in log if ev["phase"] == "vote"]
            if other <= seat:
                assert mine == [{"kind": "action", "phase": "vote", "seat": other,
                                 "data": {"vote": votes[other]}}]
            else:
                assert state.observe(other) == before[other]
    state.act(7, {"vote": votes[7]})
    for seat in range(8):
        log = state.observe(seat)["log"]
        count = next(ev for ev in log if ev["phase"] == "count")
        assert count["data"]["votes"] == votes
        assert log[-1]["phase"] == "result" and log[-1]["data"]["roles"] == ROLES


def test_roles_are_revealed_only_by_the_result():
    state = to_vote()
    cast(state, [5, 5, 5, 7, 7, 7, 0, 1])
    state.chance(7)
    for ev in state.events:
        if ev["phase"] != "result":
            assert "roles" not in ev["data"] and "role" not in ev["data"]
    assert GAME.reveal_phases == {"result"}


# -- probes -----------------------------------------------------------------------------------
def test_suspect_probes_come_after_each_round_of_statements():
    state = start()
    asked = [state.probes()]
    night(state)
    while state.pending().phase == "day":
        asked.append(state.probes())
        day(state, 1)
    asked.append(state.probes())  # before the first vote
    state.act(0, {"vote": 5})
    asked.append(state.probes())
    where = [i for i, kinds in enumerate(asked) if kinds]
    # asked[1 + k] is the point after k statements.
    assert where == [1 + 8, 1 + 16, 1 + 24]
    assert all(asked[i] == ("suspect", "suspected") for i in where)
    # The Werewolf is asked whom the others suspect; every other role whom it suspects.
    assert GAME.probe_roles["werewolf"] == {"suspected"}
    assert all(GAME.probe_roles[r] == {"suspect"} for r in GAME.roles if r != "werewolf")


# -- parameters and setups --------------------------------------------------------------------
PARAMS = [
    pytest.param({}, {"ties": "random"}, None, id="defaults"),
    pytest.param({"ties": "random"}, {"ties": "random"}, None, id="ties-random"),
    pytest.param({"players": 8}, {"ties": "random"}, None, id="eight-players-accepted"),
    pytest.param({"players": 7}, None, "params.players", id="seven-players-refused"),
    pytest.param({"players": "8"}, None, "params.players", id="players-as-text-refused"),
    pytest.param({"ties": "even"}, None, "params.ties", id="unknown-tie-rule"),
    pytest.param({"ties": ["random"]}, None, "params.ties", id="tie-rule-not-text"),
    pytest.param({"rounds": 2}, None, "params", id="unknown-parameter"),
]


@pytest.mark.parametrize("raw, expected, field", PARAMS)
def test_params(raw, expected, field):
    if field is None:
        assert GAME.params(raw) == expected
    else:
        with pytest.raises(SetupError) as err:
            GAME.params(raw)
        assert err.value.field == field


def _set(path: list[Any], value: Any):
    def change(setup: dict[str, Any]) -> None:
        target = setup
        for key in path[:-1]:
            target = target[key]
        target[path[-1]] = value
    return change


def _delete(key: str):
    return lambda setup: setup.pop(key)


BAD_SETUPS = [
    pytest.param(_delete("names"), "setup", id="names-missing"),
    pytest.param(_set(["extra"], 1), "setup", id="unknown-field"),
    pytest.param(_set(["roles"], "seer"), "setup.roles", id="roles-not-a-list"),
    pytest.param(_set(["roles"], ROLES[:7]), "setup.roles", id="seven-roles"),
    pytest.param(_set(["roles", 7], "wizard"), "setup.roles[7]", id="unknown-role"),
    pytest.param(_set(["roles", 7], 3), "setup.roles[7]", id="role-not-text"),
    pytest.param(_set(["roles", 7], "seer"), "setup.roles", id="two-seers-no-tanner"),
    pytest.param(_set(["roles", 6], "werewolf"), "setup.roles", id="two-werewolves-no-minion"),
    pytest.param(_set(["names"], NAMES[:7]), "setup.names", id="seven-names"),
    pytest.param(_set(["names", 3], ""), "setup.names[3]", id="empty-name"),
    pytest.param(_set(["names", 3], "   "), "setup.names[3]", id="blank-name"),
    pytest.param(_set(["names", 3], 5), "setup.names[3]", id="name-not-text"),
    pytest.param(_set(["names", 3], "x" * 41), "setup.names[3]", id="name-of-41-characters"),
    pytest.param(_set(["names", 3], " Dmitri"), "setup.names[3]", id="name-with-leading-space"),
    pytest.param(_set(["names", 3], "Dmi\ntri"), "setup.names[3]", id="name-with-newline"),
    pytest.param(_set(["names", 5], "Ada"), "setup.names[5]", id="duplicate-name"),
    pytest.param(_set(["names", 5], "aDA"), "setup.names[5]", id="duplicate-name-ignoring-case"),
]


@pytest.mark.parametrize("change, field", BAD_SETUPS)
def test_check_setup_names_the_bad_field(change, field):
    setup = copy.deepcopy(SETUP)
    change(setup)
    with pytest.raises(SetupError) as err:
        GAME.check_setup(GAME.params({}), setup)
    assert err.value.field == field


def test_a_setup_with_40_character_names_is_fine():
    setup = {"roles": ROLES, "names": [chr(65 + i) * 40 for i in range(8)]}
    GAME.check_setup(GAME.params({}), setup)


def test_names_content_is_usable():
    data = content.load("werewolf_names")
    assert set(data) == {"about", "names"} and isinstance(data["about"], str)
    names = data["names"]
    assert len(names) >= 16
    # Any eight of them make a valid setup (distinct ignoring case, short, clean).
    assert len({n.casefold() for n in names}) == len(names)
    GAME.check_setup(GAME.params({}), {"roles": ROLES, "names": names[:8]})
    GAME.check_setup(GAME.params({}), {"roles": ROLES, "names": names[-8:]})
    assert not {n.casefold() for n in names} & {"seer", "mason", "villager", "werewolf",
                                                  "minion", "tanner"}


def test_deal_draws_roles_and_names_from_the_seed():
    params = GAME.params({})
    pool = set(content.load("werewolf_names")["names"])
    seat_of_seer = Counter()
    for seed in range(300):
        setup = GAME.deal(params, rng_for(seed, "deal"))
        GAME.check_setup(params, json.loads(json.dumps(setup)))
        assert Counter(setup["roles"]) == Counter(DECK)
        assert set(setup["names"]) <= pool and len(set(setup["names"])) == 8
        assert GAME.seat_names(params, setup) == setup["names"]
        assert [GAME.role_of(params, setup, s) for s in range(8)] == setup["roles"]
        seat_of_seer[setup["roles"].index("seer")] += 1
    assert GAME.deal(params, rng_for(7, "deal")) == GAME.deal(params, rng_for(7, "deal"))
    assert GAME.deal(params, rng_for(7, "deal")) != GAME.deal(params, rng_for(8, "deal"))
    # Uniform deal: the Seer lands on every seat, none grossly over-represented (300 / 8 = 37.5).
    assert set(seat_of_seer) == set(range(8)) and max(seat_of_seer.values()) < 70


# -- counterfactuals --------------------------------------------------------------------------
@pytest.mark.parametrize("seat, fixed", [
    pytest.param(SEER, {SEER, WEREWOLF}, id="seer-keeps-the-werewolf"),
    pytest.param(1, {SEER, 1, 2}, id="mason-keeps-its-fellow"),
    pytest.param(3, {SEER, 3}, id="villager"),
    pytest.param(WEREWOLF, {SEER, WEREWOLF}, id="werewolf"),
    pytest.param(MINION, {SEER, MINION}, id="minion"),
    pytest.param(TANNER, {SEER, TANNER}, id="tanner"),
])
def test_counterfactuals_move_only_what_the_seat_cannot_know(seat, fixed):
    params = GAME.params({})
    variants = GAME.counterfactuals(params, SETUP, seat, random.Random(seat))
    assert variants
    moved: set[int] = set()
    for alt in variants:
        GAME.check_setup(params, alt)
        assert alt != SETUP and alt["names"] == NAMES
        assert all(alt["roles"][s] == ROLES[s] for s in fixed)
        moved |= {s for s in range(8) if alt["roles"][s] != ROLES[s]}
    assert moved and not moved & fixed


def test_a_moved_seer_is_invisible_to_the_others():
    """Beyond the conformance kit (which keeps the Seer put): other seats cannot tell who looked."""
    moved = {"roles": ["villager", "mason", "mason", "seer", "villager", "werewolf", "minion", "tanner"],
             "names": NAMES}
    a, b = start(), start(moved)
    a.act(a.seer, {"look": [5, 7]})
    b.act(b.seer, {"look": [5, 7]})
    for state in (a, b):
        day(state)
        cast(state, [5, 5, 5, 7, 7, 7, 0, 1])
    for seat in (1, 2, 4, 5, 6, 7):
        assert a.observe(seat) == b.observe(seat)


# -- a whole game through the replay validator ------------------------------------------------
def _records(state: WerewolfState, setup: dict[str, Any]) -> list[dict[str, Any]]:
    agent = {"name": "script", "kind": "builtin", "strategy": "random", "params": {}}
    header = {"type": "header", "format": "gamenight.replay", "version": 1, "game_id": "ww-test",
              "game": "werewolf", "variant": GAME.params({}), "seed": 1, "tournament": "test",
              "matchup": "scripted", "setup": setup, "max_attempts": 3,
              "players": [{"seat": s, "name": setup["names"][s], "role": setup["roles"][s],
                           "agent": agent} for s in range(8)],
              "provenance": {"runner": "gamenight", "runner_version": "test", "created": "2026-11-21"}}
    events = [{"type": "event", "n": i, **ev} for i, ev in enumerate(state.events)]
    return [header, *events, {"type": "outcome", **state.outcome()}]


@pytest.mark.parametrize("votes, draw", [([5, 5, 5, 7, 7, 7, 0, 1], 7), (everyone_votes(6), None)],
                         ids=["tie", "no-tie"])
def test_a_played_game_revalidates(votes, draw):
    state = to_vote()
    cast(state, votes)
    if draw is not None:
        state.chance(draw)
    records = _records(state, SETUP)
    checked = check_bytes("werewolf.jsonl", encode(records), derive=False)  # roles dealt by hand
    assert checked.ok, [str(p) for p in checked.problems]
    tampered = copy.deepcopy(records)
    tampered[-1]["winners"] = [TANNER] if draw != TANNER else [WEREWOLF]
    assert not check_bytes("werewolf.jsonl", encode(tampered), derive=False).ok

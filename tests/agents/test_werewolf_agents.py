"""Built-in One Night Werewolf strategies: claim parsing, honest and deceptive statements,
suspicion-based votes, and how the strategies fare over a few hundred seeded games."""

from __future__ import annotations

import asyncio
from collections import Counter
from functools import lru_cache
from typing import Any

import pytest

from runner.agents.base import ProbeRequest, Request
from runner.agents.builtin import make, strategies
from runner.agents.builtin.werewolf import Said, parse_statement
from runner.games.werewolf import GAME, MAX_WORDS, WerewolfState
from runner.play import Seating, rng_for
from runner.replay.format import encode
from runner.rerun.validate import check_bytes
from tests.helpers import play_alone

S, T, R = "werewolf/straightforward", "werewolf/strategic", "random"
VILLAGE = ("seer", "mason", "villager")
GAMES = 200


def lineup(village: str, werewolf: str, minion: str | None = None, tanner: str | None = None
           ) -> tuple[tuple[str, str], ...]:
    """Strategy per role, as a hashable matchup."""
    by_role = {role: village for role in VILLAGE}
    by_role.update(werewolf=werewolf, minion=minion or werewolf, tanner=tanner or werewolf)
    return tuple(sorted(by_role.items()))


def run(seed: int, matchup: tuple[tuple[str, str], ...], probes: bool = True,
        agent_params: tuple[tuple[str, tuple[tuple[str, Any], ...]], ...] = ()
        ) -> tuple[WerewolfState, list[tuple[int, int, dict[str, Any]]]]:
    """Play one game synchronously, as the runner does; the final state and the probe answers."""
    by_role, params_of = dict(matchup), {role: dict(p) for role, p in agent_params}
    params = GAME.params({})
    setup = GAME.deal(params, rng_for(seed, "deal"))
    state = GAME.start(params, setup)
    agents = [make(by_role[role], params_of.get(role, {}), rng_for(seed, f"agent-{s}"), role, "werewolf")
              for s, role in enumerate(setup["roles"])]
    chance = rng_for(seed, "chance")
    answers: list[tuple[int, int, dict[str, Any]]] = []
    while (pending := state.pending()) is not None:
        if probes and state.probes():
            for seat, agent in enumerate(agents):
                request = ProbeRequest("werewolf", seat, "suspect", state.observe(seat), GAME.roles)
                answer = agent.answer_probe(request)
                if answer is not None:
                    state.check_probe(seat, "suspect", answer)
                    answers.append((len(state.events), seat, answer))
        if pending.kind == "chance":
            state.chance(chance.choice(pending.options))
            continue
        decided = []
        for seat in pending.seats:  # simultaneous seats all decide before anyone acts
            request = Request("werewolf", seat, pending.phase, state.observe(seat), state.legal(seat),
                              sample=lambda rng, seat=seat: state.random_action(seat, rng))
            decided.append((seat, agents[seat].decide(request)))
        for seat, action in decided:
            state.act(seat, action)
    return state, answers


@lru_cache(maxsize=None)
def voted_out(matchup: tuple[tuple[str, str], ...], games: int = GAMES,
              agent_params: tuple = ()) -> Counter:
    """How often each role is voted out over seeded games (without probes: they change nothing)."""
    return Counter(run(seed, matchup, probes=False, agent_params=agent_params)[0]
                   .outcome()["result"]["voted_out_role"] for seed in range(games))


def statements(state: WerewolfState) -> list[Said]:
    names = tuple(state.setup["names"])
    return [parse_statement(ev["data"]["text"], ev["seat"], names)
            for ev in state.events if ev["phase"] == "day"]


# -- reading claims back ----------------------------------------------------------------------
NAMES = ("Ada", "Adam", "Bo", "Cy", "Dee", "Eve", "Fay", "Gus")
PARSES = [
    pytest.param("I am the Seer. I looked at Adam and Bo: the Werewolf is not among them.",
                 {"roles": ("seer",), "reports": (((1, 2), False),)}, id="seer-report-clear"),
    pytest.param("I looked at Eve and Dee and the werewolf is one of them!",
                 {"reports": (((4, 5), True),)}, id="seer-report-among-any-order"),
    pytest.param("i'm a mason; my fellow Mason is ada.", {"roles": ("mason",), "fellows": (0,)},
                 id="mason-lower-case"),
    pytest.param("I\u2019m the Tanner, honestly.", {"roles": ("tanner",)}, id="curly-apostrophe"),
    pytest.param("I suspect Adam. I will vote for Ada.", {"accused": (1, 0)}, id="accusations"),
    pytest.param("I suspect Adama and Bob.", {}, id="names-match-whole-words-only"),
    pytest.param("I am not the Werewolf, and Gus is not either.", {}, id="denial-is-no-claim"),
    pytest.param("Cy is lying! I am the real Seer.", {"roles": ("seer",), "liars": (3,)},
                 id="calling-a-liar"),
    pytest.param("I am a Villager. Actually, I am a Mason.", {"roles": ("villager", "mason")},
                 id="changed-story"),
    pytest.param("good luck everyone", {}, id="nothing"),
]


@pytest.mark.parametrize("text, expected", PARSES)
def test_statements_are_parsed_into_claims(text, expected):
    said = parse_statement(text, 6, NAMES)
    assert said == Said(6, **expected)


# -- crafted situations -----------------------------------------------------------------------
# Seats: 0 Ada seer, 1 Bruno mason, 2 Chiara mason, 3 Dmitri villager, 4 Esme villager,
# 5 Farid werewolf, 6 Greta minion, 7 Hiro tanner.
TABLE = {"roles": ["seer", "mason", "mason", "villager", "villager", "werewolf", "minion", "tanner"],
         "names": ["Ada", "Bruno", "Chiara", "Dmitri", "Esme", "Farid", "Greta", "Hiro"]}
PLAIN = "I am a Villager."
MASONS = {1: "I am a Mason; my fellow Mason is Chiara.", 2: "I am a Mason; my fellow Mason is Bruno."}


def situation(look: list[int], said: dict[int, str], upto: int = 8) -> WerewolfState:
    """The Seer looks at `look`; seats speak `said` (default: a Villager claim) for `upto` turns."""
    state = GAME.start(GAME.params({}), TABLE)
    state.act(0, {"look": look})
    for turn in range(upto):
        seat = turn % 8
        text = said.get(seat, PLAIN) if turn < 8 else "I have nothing to add."
        state.act(seat, {"text": text})
    return state


def ask(state: WerewolfState, seat: int, strategy: str, what: str) -> int:
    agent = make(strategy, {}, rng_for(0, "agent"), "probe", "werewolf")
    observation = state.observe(seat)
    if what == "probe":
        return agent.answer_probe(ProbeRequest("werewolf", seat, "suspect", observation, GAME.roles))["seat"]
    request = Request("werewolf", seat, state.pending().phase, observation, state.legal(seat))
    return agent.decide(request)["vote"]


CHANGER = {s: "I am a Villager. I suspect Hiro." for s in range(7)} | {7: "I am a Villager. I am a Mason."}
SEER_SAW_FARID = "I am the Seer. I looked at Bruno and Farid: the Werewolf is among them."
# expected: the seat the agent must pick; avoid: a seat it must not pick (expected None).
SITUATIONS = [
    pytest.param([1, 5], {0: SEER_SAW_FARID, **MASONS}, 3, T, "probe", 5, None,
                 id="villager-trusts-seer-pair-minus-confirmed-mason"),
    pytest.param([1, 5], {0: SEER_SAW_FARID, **MASONS}, 4, S, "probe", 5, None,
                 id="naive-villager-trusts-seer-too"),
    pytest.param([1, 5], {0: SEER_SAW_FARID, **MASONS,
                          7: "I am the Seer. I looked at Farid and Greta: the Werewolf is not among them."},
                 3, T, "probe", 5, None, id="of-two-seers-believe-the-one-a-confirmed-mason-backs"),
    pytest.param([1, 5], MASONS, 0, T, "probe", 5, None, id="seer-knows-werewolf-is-the-unconfirmed-one"),
    pytest.param([3, 4], {5: "I am the Seer. I looked at Dmitri and Esme: the Werewolf is among them."},
                 0, T, "probe", 5, None, id="seer-exposes-a-second-seer"),
    pytest.param([3, 4], {**MASONS, 7: "I am a Mason; my fellow Mason is Greta."}, 1, T, "probe", 7, None,
                 id="mason-exposes-a-third-mason"),
    pytest.param([3, 4], {6: "I am a Mason; my fellow Mason is Dmitri."}, 3, T, "probe", 6, None,
                 id="villager-named-as-mason-knows-a-liar"),
    pytest.param([3, 4], {5: "I am the Werewolf."}, 3, S, "probe", 5, None, id="naive-believes-werewolf-claim"),
    pytest.param([3, 4], CHANGER, 3, S, "vote", 7, None, id="naive-votes-the-accused-story-changer"),
    pytest.param([3, 4], CHANGER, 3, T, "vote", None, 7, id="wary-villager-spares-the-story-changer"),
    pytest.param([3, 4], {s: "I suspect Dmitri." for s in (0, 1, 2, 4)}, 5, T, "vote", 3, None,
                 id="werewolf-pushes-the-table-suspect"),
    pytest.param([3, 4], {s: "I suspect Farid." for s in (0, 1, 2, 3, 4)}, 5, T, "vote", None, 5,
                 id="werewolf-never-votes-itself"),
]


@pytest.mark.parametrize("look, said, seat, strategy, what, expected, avoid", SITUATIONS)
def test_suspicion_in_crafted_situations(look, said, seat, strategy, what, expected, avoid):
    state = situation(look, said, upto=8 if what == "probe" else 24)
    if what == "probe":
        assert state.probes() == ("suspect", "suspected")
    choice = ask(state, seat, strategy, what)
    assert choice != seat and 0 <= choice < 8
    if expected is not None:
        assert choice == expected
    else:
        assert choice != avoid


def test_the_tanner_votes_at_random_and_never_for_itself():
    state = situation([3, 4], {}, upto=24)
    choices = {make(T, {}, rng_for(seed, "agent-7"), "t", "werewolf").decide(
        Request("werewolf", 7, "vote", state.observe(7), state.legal(7)))["vote"] for seed in range(40)}
    assert 7 not in choices and len(choices) >= 4


# -- statements -------------------------------------------------------------------------------
@pytest.mark.parametrize("seed", range(6))
def test_straightforward_players_tell_the_truth(seed):
    state, _ = run(seed, lineup(S, S))
    roles, names = state.setup["roles"], state.setup["names"]
    said = statements(state)
    assert len(said) == 24
    for turn, claims in enumerate(said):
        text = state.events[2 + turn]["data"]["text"]
        assert len(text.split()) <= MAX_WORDS
        assert claims.roles == (roles[claims.seat],)
        if turn < 8 and roles[claims.seat] == "seer":
            looked, among = state.events[1]["data"]["looked"], state.events[1]["data"]["werewolf_among"]
            assert claims.reports == ((tuple(looked), among),)
        if turn < 8 and roles[claims.seat] == "mason":
            fellow = next(s for s, r in enumerate(roles) if r == "mason" and s != claims.seat)
            assert claims.fellows == (fellow,) and names[fellow] in text
        if turn >= 8:
            assert len(claims.accused) == 1 and claims.accused[0] != claims.seat


@pytest.mark.parametrize("seed", range(12))
def test_strategic_evil_players_lie_and_the_village_does_not(seed):
    state, _ = run(seed, lineup(T, T))
    roles = state.setup["roles"]
    for claims in statements(state):
        role = roles[claims.seat]
        claimed = set(claims.roles)
        if role in VILLAGE:
            assert claimed == {role}
        elif role == "werewolf":
            assert claimed in ({"villager"}, {"seer"})
        elif role == "minion":
            assert claimed == {"villager"}
    tanner = roles.index("tanner")
    tanner_claims = {r for c in statements(state) if c.seat == tanner for r in c.roles}
    # The Tanner baits votes: a false Seer claim or a story that changes.
    assert "seer" in tanner_claims or len(tanner_claims) > 1
    assert "tanner" not in tanner_claims


@pytest.mark.parametrize("rate, fakes", [(1.0, True), (0.0, False)])
def test_fake_claim_rate_controls_the_werewolf_fake_seer_report(rate, fakes):
    for seed in range(10):
        state, _ = run(seed, lineup(T, T), agent_params=(("werewolf", (("fake_claim_rate", rate),)),))
        roles = state.setup["roles"]
        wolf = roles.index("werewolf")
        first = next(c for c in statements(state) if c.seat == wolf)
        if fakes:
            assert first.roles == ("seer",) and len(first.reports) == 1
            pair, among = first.reports[0]
            assert among and wolf not in pair
        else:
            assert first.roles == ("villager",) and not first.reports


@pytest.mark.parametrize("params", [{"fake_claim_rate": 1.5}, {"fake_claim_rate": -0.1},
                                    {"fake_claim_rate": "often"}, {"fake_claim_rate": True},
                                    {"bluff": 1}])
def test_bad_strategy_parameters_are_refused(params):
    with pytest.raises(ValueError):
        make(T, params, rng_for(0, "a"), "x", "werewolf")


def test_strategies_are_registered_for_werewolf_only():
    assert {S, T} <= set(strategies())
    with pytest.raises(ValueError, match="plays werewolf"):
        make(S, {}, rng_for(0, "a"), "x", "prisoners_dilemma")


# -- determinism and probes -------------------------------------------------------------------
def test_same_seed_same_game_and_probes_change_nothing():
    for seed in range(4):
        with_probes, answers = run(seed, lineup(T, T))
        again, answers_again = run(seed, lineup(T, T))
        without, none = run(seed, lineup(T, T), probes=False)
        assert with_probes.events == again.events == without.events
        assert answers == answers_again and none == []
        # Every seat answers after each of the three rounds of statements.
        assert Counter(at for at, _, _ in answers) == {at: 8 for at in {a for a, _, _ in answers}}
        assert len(answers) == 24
    assert run(0, lineup(T, T))[0].events != run(1, lineup(T, T))[0].events


def test_naive_village_points_at_a_self_declared_werewolf():
    state, answers = run(3, lineup(S, S))
    wolf = state.setup["roles"].index("werewolf")
    last = max(at for at, _, _ in answers)
    for at, seat, answer in answers:
        if at == last and state.setup["roles"][seat] in VILLAGE:
            assert answer == {"seat": wolf}


# The built-in Werewolf has no belief about whom the others suspect, so it answers nothing.
@pytest.mark.parametrize("matchup, answering", [(lineup(S, S), 7), (lineup(T, T), 7), (lineup(T, R), 5)],
                         ids=["straightforward", "strategic", "strategic-village-vs-random"])
def test_builtin_games_through_the_runner_validate(matchup, answering):
    params, by_role = GAME.params({}), dict(matchup)
    for seed in range(3):
        setup = GAME.deal(params, rng_for(seed, "deal"))
        roles = setup["roles"]
        agents = [make(by_role[role], {}, rng_for(seed, f"agent-{s}"), role, "werewolf")
                  for s, role in enumerate(roles)]
        seating = Seating(agents, GAME.seat_names(params, setup), roles)
        records = asyncio.run(play_alone(GAME, params, setup, seating, seed=seed, tournament="t", created="2026-11-21"))
        checked = check_bytes(f"ww-{seed}.jsonl", encode(records))
        assert checked.ok, [str(p) for p in checked.problems]
        # Random agents answer no probes; the others answer after each of the three rounds.
        assert sum(r["type"] == "probe" for r in records) == 3 * answering
        # The runner's game is the one the synchronous driver above plays.
        assert [r for r in records if r["type"] == "outcome"][0]["result"] == \
            run(seed, matchup)[0].outcome()["result"]


# -- how the strategies fare (seeded, so these numbers are exact and stable) ------------------
def test_naive_village_catches_a_naive_werewolf_in_most_games():
    out = voted_out(lineup(S, S))
    assert out["werewolf"] >= 0.9 * GAMES


def test_a_strategic_werewolf_survives_far_more_often_than_a_straightforward_one():
    honest = voted_out(lineup(T, S, minion=T, tanner=T))
    sly = voted_out(lineup(T, T))
    honest_survival = 1 - honest["werewolf"] / GAMES
    sly_survival = 1 - sly["werewolf"] / GAMES
    assert honest_survival <= 0.2
    assert sly_survival >= honest_survival + 0.35


def test_a_strategic_tanner_gets_itself_voted_out_and_an_honest_one_does_not():
    assert voted_out(lineup(T, T))["tanner"] >= 0.1 * GAMES
    assert voted_out(lineup(T, T, tanner=S))["tanner"] <= 0.02 * GAMES


def test_a_strategic_village_beats_random_voting():
    random_rate = voted_out(lineup(R, R))["werewolf"] / GAMES
    village_rate = voted_out(lineup(T, R))["werewolf"] / GAMES
    assert random_rate <= 0.2
    assert village_rate >= random_rate + 0.15

"""Every game and design played by the LLM agent against a fake model that answers legally:
the replays validate, every phase has a prompt, and no prompt holds another player's secret."""

from __future__ import annotations

import asyncio
import random
import re

import pytest
from llm_fakes import legal_model

from runner import games
from runner.agents.base import ProbeRequest, Request
from runner.agents.llm import DESIGNS, PROMPT_VERSION, make_llm_agent
from runner.agents.llm.agent import decision_messages, probe_messages, scene_of
from runner.agents.llm.designs import Notes
from runner.agents.llm.render import observation
from runner.games import IllegalAction
from runner.play import Seating, rng_for
from runner.replay.format import encode
from runner.rerun.validate import check_bytes
from tests.helpers import play_alone

GAMES = games.available()
SPEC = {"provider": "openai", "model": "fake-model", "temperature": 0.0, "max_tokens": 400, "seed": 7}


def play_llm(game_name, design="vanilla", rules=None, seed=1):
    """One game with an LLM agent in every seat; returns the replay records and each seat's fake."""
    game = games.get(game_name)
    params = game.params(rules or {})
    setup = game.deal(params, rng_for(seed, "deal"))
    n = game.players(params)
    models = [legal_model(random.Random(seed * 100 + s)) for s in range(n)]
    agents = [make_llm_agent({**SPEC, "design": design}, models[s], game=game_name, seat=s,
                             rng=rng_for(seed, f"agent-{s}"), name=f"llm-{s}") for s in range(n)]
    seating = Seating(agents, game.seat_names(params, setup), [game.role_of(params, setup, s) for s in range(n)])
    records = asyncio.run(play_alone(game, params, setup, seating, seed=seed, tournament="t", created="2026-11-21"))
    return records, models


@pytest.mark.parametrize("design", list(DESIGNS))
@pytest.mark.parametrize("game_name", GAMES)
def test_every_game_and_design_plays_to_a_valid_replay(game_name, design):
    records, _ = play_llm(game_name, design)
    checked = check_bytes("game.jsonl", encode(records))
    assert checked.ok, [str(p) for p in checked.problems]
    assert records[-1]["status"] == "complete"
    events = [r for r in records if r["type"] == "event" and r["kind"] == "action"]
    assert events and all(len(e["evidence"]["calls"]) >= 1 for e in events)
    assert not any("attempts" in e for e in events)  # the fake's legal answers are read at once
    for player in records[0]["players"]:
        agent = player["agent"]
        assert agent["design"] == design and agent["model_reported"] == "fake-model-2025"
        assert agent["prompt_version"] == PROMPT_VERSION
    probes = {r["probe"] for r in records if r["type"] == "probe"}
    expected = {"chameleon": {"suspect", "suspect_of", "secret"}, "undercover": {"suspect", "suspect_of", "self_role"},
                "werewolf": {"suspect", "suspected"}}.get(game_name, set())
    assert probes == expected  # every probe the game asks is answered in a readable form
    game = games.get(game_name)
    roles = {p["seat"]: p["role"] for p in records[0]["players"]}
    assert all(game.asks(roles[r["seat"]], r["probe"]) for r in records if r["type"] == "probe")


@pytest.mark.parametrize("game_name, rules", [
    ("chameleon", {"clue": "sentence", "ties": "even", "players": 3}),
    ("chameleon", {"clue": "subset", "words": 20}),
    ("undercover", {"clue": "word", "players": 5, "rounds": 1}),
    ("cost_sharing", {"rounds": 2}),
    ("public_good", {"rounds": 1}),
])
def test_rule_variants_render_and_validate(game_name, rules):
    records, models = play_llm(game_name, rules=rules, seed=3)
    assert check_bytes("game.jsonl", encode(records)).ok
    system = models[0].calls[0][0].content
    if rules.get("clue") == "sentence":
        assert "1 to 30 words" in system
    if rules.get("ties") == "even":
        assert "the vote is even" in system
    if rules.get("clue") == "subset":
        assert "null" in system


def _lines_without(text, words):
    """`text` without the lines that list all the card words (where every word appears anyway)."""
    return "\n".join(line for line in text.splitlines() if not all(w in line for w in words))


def _mentions(word, text):
    return re.search(rf"(?<!\w){re.escape(word)}(?!\w)", text, re.IGNORECASE) is not None


def _seat_text(models, seat):
    return "\n".join(m.content for call in models[seat].calls for m in call)


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_the_chameleon_is_never_told_the_secret_word(seed):
    records, models = play_llm("chameleon", "pgm", seed=seed)
    setup = records[0]["setup"]
    secret, words = setup["secret"], setup["card"]["words"]
    for seat in range(len(models)):
        text = _lines_without(_seat_text(models, seat), words)
        if seat == setup["chameleon"]:
            assert not _mentions(secret, text)
        else:
            assert _mentions(secret, text)  # the informed players are told it


@pytest.mark.parametrize("seed", [1, 2])
def test_undercover_players_only_ever_see_their_own_word(seed):
    records, models = play_llm("undercover", "favor", seed=seed)
    setup = records[0]["setup"]
    for seat in range(len(models)):
        own, other = ("undercover", "civilian") if seat == setup["undercover"] else ("civilian", "undercover")
        text = _seat_text(models, seat)
        assert _mentions(setup["pair"][own], text) and not _mentions(setup["pair"][other], text)


@pytest.mark.parametrize("seed", [1, 2])
def test_werewolf_players_learn_only_their_own_role_and_night_information(seed):
    records, models = play_llm("werewolf", "strategy", seed=seed)
    roles = records[0]["setup"]["roles"]
    for seat, role in enumerate(roles):
        text = _seat_text(models, seat)
        # Only the final reveal could name others' roles, and nobody is asked anything after it.
        assert set(re.findall(r"Your role is (\w+)", text)) == {role.title()}
        assert ("Night result:" in text) == (role == "seer")
        assert ("Your fellow Mason is" in text) == (role == "mason")
        assert "The roles were" not in text


def _requests(state, seat, names):
    """What `seat` would be asked now: a decision if it is to act, else the probes allowed now."""
    pending = state.pending()
    observation = state.observe(seat)
    asked = []
    if pending is not None and pending.kind == "act" and seat in pending.seats:
        asked.append(Request(state.game.name, seat, pending.phase, observation, state.legal(seat), names=names))
    for kind in state.probes():
        about = (seat + 1) % len(names) if kind == "suspect_of" else None
        asked.append(ProbeRequest(state.game.name, seat, kind, observation, state.game.roles, about, names=names))
    return asked


def _prompts(request, names):
    scene = scene_of(request.game, request.seat, names, request.observation)
    build = decision_messages if isinstance(request, Request) else probe_messages
    return [m.content for m in build(scene, request, Notes(), None)]


@pytest.mark.parametrize("game_name", ["chameleon", "undercover", "werewolf"])
def test_prompts_are_the_same_in_every_setup_a_seat_cannot_tell_apart(game_name):
    game = games.get(game_name)
    compared = 0
    for seed in range(3):
        params = game.params({})
        setup = game.deal(params, rng_for(seed, "deal"))
        names = tuple(game.seat_names(params, setup))
        rng = random.Random(seed)
        inputs, state = [], game.start(params, setup)
        while (pending := state.pending()) is not None:
            if pending.kind == "chance":
                inputs.append(("chance", None, pending.options[0]))
                state.chance(pending.options[0])
            else:
                seat = pending.seats[0]
                action = state.random_action(seat, rng)
                inputs.append(("act", seat, action))
                state.act(seat, action)
        for seat in range(len(names)):
            for other in game.counterfactuals(params, setup, seat, random.Random(seed))[:2]:
                a, b = game.start(params, setup), game.start(params, other)
                for kind, who, value in [(None, None, None), *inputs]:
                    if kind == "chance":
                        a.chance(value)
                        b.chance(value)
                    elif kind == "act":
                        try:
                            b.check(who, value)
                        except IllegalAction:
                            break
                        a.act(who, value)
                        b.act(who, value)
                    if any(ev["phase"] in game.reveal_phases for ev in a.events + b.events):
                        break
                    for ra, rb in zip(_requests(a, seat, names), _requests(b, seat, names), strict=True):
                        assert _prompts(ra, names) == _prompts(rb, names)
                        compared += 1
    assert compared > 20


@pytest.mark.parametrize("game_name", GAMES)
def test_every_event_a_player_can_see_reads_as_a_sentence(game_name):
    game = games.get(game_name)
    kinds = set()
    for seed in range(12):
        params = game.params({})
        setup = game.deal(params, rng_for(seed, "deal"))
        names = tuple(game.seat_names(params, setup))
        state, rng = game.start(params, setup), random.Random(seed)
        while (pending := state.pending()) is not None:
            if pending.kind == "chance":
                state.chance(rng.choice(pending.options))
            else:
                state.act(pending.seats[0], state.random_action(pending.seats[0], rng))
        for seat in range(len(names)):
            text = observation(scene_of(game_name, seat, names, state.observe(seat)))
            assert "): {" not in text  # the raw-data fallback for events without a sentence
            kinds |= {(ev["kind"], ev["phase"]) for ev in state.observe(seat)["log"]}
    assert {phase for _, phase in kinds} >= SEEN_PHASES[game_name]  # the end of the game was rendered too


#: Phases whose events the twelve seeded random games show some seat (tie draws and guesses included).
SEEN_PHASES = {
    "chameleon": {"clue", "vote", "vote_result", "tie_break", "accusation", "guess", "end"},
    "undercover": {"clue", "vote", "vote_result"},
    "cost_sharing": {"propose", "proposals", "vote", "vote_result"},
    "prisoners_dilemma": {"choose", "round_result"},
    "public_good": {"contribute", "round_result", "payout"},
    "werewolf": {"night", "day", "vote", "count", "tie_break", "result"},
}


@pytest.mark.parametrize("game_name", [g for g in GAMES if games.facts_of(g).hidden])
def test_pgm_seats_record_suspicion_views_after_every_public_move(game_name):
    records, _ = play_llm(game_name, "pgm", seed=4)
    moves = [r for r in records if r["type"] == "event" and r["kind"] == "action"
             and r["phase"] in games.facts_of(game_name).hidden.talk]
    n = len(records[0]["players"])
    rated: dict[int, list[int]] = {seat: [] for seat in range(n)}
    for record in records:
        notes = (record.get("evidence") or {}).get("notes")
        if record["type"] not in ("event", "probe") or notes is None:
            continue
        assert notes["design"] == "pgm" and len(notes["views"]) == n
        for update in [*notes["updates"], {"views": notes["views"]}]:
            assert all(abs(sum(view) - 1.0) < 1e-9 and min(view) >= 0.0 for view in update["views"])
        rated[record["seat"]] += [u["after"] for u in notes["updates"]]
    # Each seat rated every public move it saw before its last question, each once, in order.
    for seat, afters in rated.items():
        assert afters == sorted(set(afters))
    assert max(len(a) for a in rated.values()) >= len(moves) - n
    assert records[0]["version"] == 2


def test_an_llm_picks_the_accused_when_drawn_under_002s_tie_rule():
    picked = 0
    for seed in range(1, 40):
        records, models = play_llm("chameleon", rules={"players": 4, "ties": "pick"}, seed=seed)
        picks = [r for r in records if r["type"] == "event" and r["phase"] == "tie_pick"]
        if not picks:
            continue
        checked = check_bytes("game.jsonl", encode(records))
        assert checked.ok, [str(p) for p in checked.problems]
        pick = picks[0]
        asked = [c["messages"][-1]["content"] for c in pick["evidence"]["calls"]]
        assert any("a random draw chose you to pick who is accused" in text for text in asked), asked
        tied = next(r for r in records if r["type"] == "event" and r["phase"] == "vote_result")["data"]["top"]
        assert pick["data"]["accuse"] in tied
        picked += 1
        if picked == 2:
            break
    assert picked, "no tie among these seeds"


def test_werewolf_strategy_judges_every_other_player_and_plans_before_each_speech_and_vote():
    records, models = play_llm("werewolf", "strategy", seed=3)
    decided = [r for r in records if r["type"] == "event" and r["kind"] == "action" and r["phase"] in ("day", "vote")]
    assert decided
    for record in decided:
        notes = record["evidence"]["notes"]
        assert notes["design"] == "strategy" and notes["phase"] == record["phase"]
        judged = notes["judgement"]
        assert sorted(j["seat"] for j in judged) == [s for s in range(8) if s != record["seat"]]
        assert all(0.0 < j["p"] <= 1.0 for j in judged)
        assert notes["plan"] and len(notes["plan"].split()) <= 80
        decision_prompt = record["evidence"]["calls"][-1]["messages"][-1]["content"]
        assert notes["plan"] in decision_prompt and "Follow it." in decision_prompt
    night = [r for r in records if r["type"] == "event" and r["kind"] == "action" and r["phase"] == "night"]
    assert all("notes" not in r["evidence"] for r in night)  # the Seer's look gets no strategy


@pytest.mark.parametrize("game_name", GAMES)
def test_the_strategy_design_has_notes_for_the_moves_of_every_game(game_name):
    """strategies.menu holds notes per game and move: a game it has none for would play the Strategy
    design without a single plan, and nothing else would say so."""
    records, _ = play_llm(game_name, "strategy", seed=2)
    planned = [r for r in records if r["type"] == "event" and r["kind"] == "action"
               and ((r.get("evidence") or {}).get("notes") or {}).get("plan")]
    assert planned, f"{game_name}: no strategy notes for any of its moves (runner/agents/llm/strategies.py)"


@pytest.mark.parametrize("game_name", [g for g in GAMES if not games.facts_of(g).hidden])
def test_pgm_seats_record_expected_next_moves_after_every_round(game_name):
    records, _ = play_llm(game_name, "pgm", seed=5)
    noted = [r["evidence"]["notes"] for r in records if (r.get("evidence") or {}).get("notes")]
    assert noted and all(n["design"] == "pgm" and n["about"] == "next move" for n in noted)
    updates = [u for n in noted for u in n["updates"]]
    assert updates and all(u["read"] for u in updates)  # the fake names a move for every player
    for views in [n["views"] for n in noted] + [u["views"] for u in updates]:
        for j, view in enumerate(views):
            assert view[j] is None  # a player's own next move is not a guess
            assert all(abs(sum(d) - 1) < 1e-9 for k, d in enumerate(view) if k != j)
    assert check_bytes("game.jsonl", encode(records)).ok

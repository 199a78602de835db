"""The LLM agent's conversations: one call per vanilla decision, the designs' extra calls in
order, re-asks that carry the refused reply and its reason, provider failures, descriptions."""

from __future__ import annotations

import asyncio
import json
import random

import pytest
from llm_fakes import FakeModel, legal_reply, reply, scripted

from runner import games
from runner.agents.base import ProbeRequest, Request
from runner.agents.builtin import make
from runner.agents.llm import PROMPT_VERSION, make_llm_agent
from runner.agents.llm.persona import _ADJECTIVES
from runner.errors import ProviderError
from runner.play import Seating
from runner.replay.format import encode, schema
from runner.rerun.validate import check_bytes
from tests.helpers import play_alone

SPEC = {"provider": "openai", "model": "gpt-test", "temperature": 0.2, "max_tokens": 300, "seed": 11}
PAYOFFS = {"cooperate": 3, "defect": 1, "one_defect": 5, "two_defect": 2}
CARD = {"id": "sports-4", "topic": "Sports", "words": ["golf", "tennis", "rugby", "polo"]}


def agent(model, design="vanilla", params=None, game="prisoners_dilemma", seat=0, seed=5):
    spec = {**SPEC, "design": design, **({"design_params": params} if params is not None else {})}
    return make_llm_agent(spec, model, game=game, seat=seat, rng=random.Random(seed), name="tester")


def dilemma(rounds=2):
    game = games.get("prisoners_dilemma")
    params = game.params({"rounds": rounds})
    return game.start(params, {"payoffs": PAYOFFS})


def chameleon(clues=0):
    """A 3-player Chameleon where Player 1 (seat 0) is the chameleon, after `clues` clues."""
    game = games.get("chameleon")
    state = game.start(game.params({"players": 3, "words": 4}),
                       {"card": CARD, "secret": "tennis", "chameleon": 0, "order": [1, 2, 0]})
    for word in ("racket", "court", "ball")[:clues]:
        state.act(state.pending().seats[0], {"clue": word})
    return state


def ask(state, seat, errors=()):
    pending = state.pending()
    names = tuple(state.game.seat_names(state.params, state.setup))
    return Request(state.game.name, seat, pending.phase, state.observe(seat), state.legal(seat), tuple(errors),
                   names=names)


def probe_of(state, seat, kind, about=None):
    names = tuple(state.game.seat_names(state.params, state.setup))
    return ProbeRequest(state.game.name, seat, kind, state.observe(seat), state.game.roles, about, names=names)


def run(coro):
    return asyncio.run(coro)


def roles(call):
    return [m.role for m in call]


def test_vanilla_makes_one_call_per_decision_and_records_it_as_evidence():
    model = scripted("Mutual cooperation pays 3 each.\nANSWER: {\"choice\": \"Cooperate\"}")
    llm = agent(model)
    decision = run(llm.act(ask(dilemma(), 0)))
    assert decision.action == {"choice": "cooperate"} and decision.error is None
    assert decision.raw.endswith('"Cooperate"}')
    assert len(model.calls) == 1 and roles(model.calls[0]) == ["system", "user"]
    [call] = decision.evidence["calls"]
    assert call["reply"] == decision.raw and call["finish_reason"] == "stop"
    assert call["input_tokens"] == 100 and call["output_tokens"] == 20 and call["latency_ms"] == 12.5
    assert call["messages"][1]["content"] == model.calls[0][1].content
    # Prompt set 4 describes the answer in words: no placeholder to copy.
    assert ('ANSWER: followed by a JSON object with one field, "choice": "cooperate" or "defect". Write nothing '
            "after that line.") in call["messages"][1]["content"]
    assert "<" not in call["messages"][1]["content"]
    assert llm.description["model_reported"] == "fake-model-2025"


def test_an_unreadable_reply_is_reported_and_the_reask_repeats_it_with_the_reason():
    model = scripted("I will defect, obviously.", "Sorry.\nANSWER: {\"choice\": \"defect\"}")
    llm = agent(model)
    state = dilemma()
    first = run(llm.act(ask(state, 0)))
    assert first.action is None and first.raw == "I will defect, obviously."
    assert "no ANSWER line" in first.error and len(first.evidence["calls"]) == 1
    second = run(llm.act(ask(state, 0, errors=[first.error])))
    assert second.action == {"choice": "defect"}
    call = model.calls[1]
    assert roles(call) == ["system", "user", "assistant", "user"]
    assert call[:2] == model.calls[0]
    assert call[2].content == "I will defect, obviously."
    assert first.error in call[3].content and 'ANSWER: followed by a JSON object with one field, "choice"' in call[3].content


def test_a_move_the_rules_refuse_is_asked_again_with_the_rules_reason_through_the_runner():
    game = games.get("public_good")
    params = game.params({"rounds": 1})
    setup = {"multiplier": 1.5, "endowment": 100}
    model = scripted("All in, and more!\nANSWER: {\"contribution\": 500}", "Fine.\nANSWER: {\"contribution\": 100}")
    llm = agent(model, game="public_good")
    others = [make("public_good/free_rider", {}, random.Random(s), f"b{s}", "public_good") for s in (1, 2)]
    seating = Seating([llm, *others], game.seat_names(params, setup), ["player"] * 3)
    records = run(play_alone(game, params, setup, seating, seed=1, tournament="t", created="2026-11-21"))
    # Dealt by hand for the scenario, so checked by the rules alone (not derived from the seed).
    assert check_bytes("x.jsonl", encode(records), derive=False).ok
    move = next(r for r in records if r["type"] == "event" and r["seat"] == 0)
    assert move["data"] == {"contribution": 100}
    [refused] = move["attempts"]
    assert refused["action"] == {"contribution": 500} and refused["raw"].startswith("All in")
    assert "100 points you have left" in refused["error"]
    assert len(move["evidence"]["calls"]) == 2
    assert refused["error"] in model.calls[1][3].content
    assert records[0]["players"][0]["agent"]["model_reported"] == "fake-model-2025"


def test_a_provider_failure_raises_so_the_game_is_abandoned_not_forfeited():
    model = scripted(reply(None, error="HTTP 503 from the provider after 2 retries"),
                     "ANSWER: {\"choice\": \"cooperate\"}")
    llm = agent(model)
    state = dilemma()
    with pytest.raises(ProviderError, match="HTTP 503") as raised:
        run(llm.act(ask(state, 0)))
    assert not raised.value.lasting
    assert "model_reported" not in llm.description  # nothing answered yet
    again = run(llm.act(ask(state, 0)))  # a later game asks afresh
    assert again.action == {"choice": "cooperate"}
    assert model.calls[1] == model.calls[0]


def test_a_lasting_provider_failure_says_so():
    model = scripted(reply(None, error="HTTP 401 authentication failed", lasting=True))
    with pytest.raises(ProviderError) as raised:
        run(agent(model).act(ask(dilemma(), 0)))
    assert raised.value.lasting


def test_model_reported_comes_from_the_first_successful_reply():
    model = scripted(reply("ANSWER: {\"choice\": \"defect\"}", model="model-a"),
                     reply("ANSWER: {\"choice\": \"defect\"}", model="model-b"))
    llm = agent(model)
    state = dilemma()
    run(llm.act(ask(state, 0)))
    run(llm.act(ask(state, 0)))
    assert llm.description["model_reported"] == "model-a"


def test_pgm_in_a_game_theory_game_expects_each_players_next_move_after_every_round():
    # Player 1 (seat 0) in a 2-round dilemma. No round has ended at its first choice: no update.
    model = scripted('ANSWER: {"choice": "defect"}',
                     'ANSWER: {"Player 1": {"Player 2": "cooperate", "Player 3": "defect"}, '
                     '"Player 2": {"Player 1": "defect", "Player 3": "defect"}}',      # Player 3's view left out
                     'ANSWER: {"choice": "cooperate"}')
    llm = agent(model, "pgm")
    state = dilemma(rounds=2)
    first = run(llm.act(ask(state, 0)))
    assert first.action == {"choice": "defect"} and len(first.evidence["calls"]) == 1
    assert "Player 2 cooperate 0.50 / defect 0.50; Player 3 cooperate 0.50 / defect 0.50" in model.calls[0][1].content
    assert first.evidence["notes"]["updates"] == [] and first.evidence["notes"]["moves"] == ["cooperate", "defect"]
    state.act(0, {"choice": "defect"})
    state.act(1, {"choice": "cooperate"})
    state.act(2, {"choice": "cooperate"})
    later = run(llm.act(ask(state, 0)))  # a round has ended: one update first
    assert later.action == {"choice": "cooperate"} and len(later.evidence["calls"]) == 2
    assert ('a field for each view listed above, named after the player whose view it is ("Player 1", "Player 2" '
            'and "Player 3"); each holds an object with a field for each player that view covers, named exactly as '
            'above, holding "cooperate" or "defect"') in model.calls[1][1].content
    notes = later.evidence["notes"]
    [update] = notes["updates"]
    assert update["read"] is True
    # By hand: the named move times 1.25, then renormalised: 0.625 / 1.125 and 0.5 / 1.125.
    up, down = 0.625 / 1.125, 0.5 / 1.125
    views = notes["views"]
    assert views[0][0] is None and views[0][1] == pytest.approx([up, down]) and views[0][2] == pytest.approx([down, up])
    assert views[1][0] == pytest.approx([down, up]) and views[1][2] == pytest.approx([down, up])
    assert views[2][0] == pytest.approx([0.5, 0.5])  # not named: unchanged
    assert "Use your expectations" in model.calls[2][1].content and "cooperate 0.56 / defect 0.44" in model.calls[2][1].content


def flat(views):
    return [p for view in views for p in view]


def ratings(**views):
    """A PGM update reply: view holder -> {player: word}."""
    return "ANSWER: " + json.dumps({k.replace("_", " "): v for k, v in views.items()})


def test_pgm_updates_suspicion_after_every_clue_by_the_stated_rule():
    # Seat 1 (Player 2) is not the chameleon. Its views start uniform over whom each can suspect:
    # its own [0.5, 0, 0.5]; Player 1's [0, 0.5, 0.5]; Player 3's [0.5, 0.5, 0].
    model = scripted(
        ratings(Player_2={"Player 1": "same", "Player 3": "same"},
                Player_1={"Player 2": "less", "Player 3": "same"},
                Player_3={"Player 1": "same", "Player 2": "less suspicious"}),   # after Player 2's clue
        ratings(Player_2={"Player 3": "less"}),                                   # after Player 3's clue
        "I cannot tell yet.",                                                      # after Player 1's: unread
        'ANSWER: {"seat": "Player 1"}', 'ANSWER: {"vote": "Player 1"}')
    llm = agent(model, "pgm", game="chameleon", seat=1)
    state = chameleon(clues=3)
    belief = run(llm.probe(probe_of(state, 1, "suspect")))
    assert belief.action == {"seat": 0} and len(belief.evidence["calls"]) == 4
    notes = belief.evidence["notes"]
    assert notes["design"] == "pgm" and notes["about"] == "chameleon" and notes["step"] == 1.25
    assert [(u["after"], u["read"]) for u in notes["updates"]] == [(0, True), (1, True), (2, False)]
    # By hand: a step is a factor 1.25; "less" divides, then each view is normalised.
    expected_first = [[0.0, 0.4 / 0.9, 0.5 / 0.9], [0.5, 0.0, 0.5], [0.5 / 0.9, 0.4 / 0.9, 0.0]]
    expected_last = [[0.0, 0.4 / 0.9, 0.5 / 0.9], [0.5 / 0.9, 0.0, 0.4 / 0.9], [0.5 / 0.9, 0.4 / 0.9, 0.0]]
    assert flat(notes["updates"][0]["views"]) == pytest.approx(flat(expected_first))
    assert notes["updates"][2]["views"] == notes["updates"][1]["views"]
    assert flat(notes["updates"][1]["views"]) == pytest.approx(flat(expected_last))
    assert flat(notes["views"]) == pytest.approx(flat(expected_last)) and notes["aim"] == 0
    for update in notes["updates"]:
        assert all(sum(view) == pytest.approx(1.0) for view in update["views"])
    first_prompt = model.calls[0][1].content
    assert "racket" in first_prompt and "court" not in first_prompt  # each move judged as the game stood then
    assert '- the view of Player 1 ("Player 1"): rate Player 2 (you), Player 3' in first_prompt
    assert 'holding "more", "less" or "same"' in first_prompt
    assert "- your own view: Player 1 0.50, Player 3 0.50\n- as you think Player 1 sees it: Player 2 (you) 0.50, " \
           "Player 3 0.50\n" in first_prompt
    assert "Player 1 0.56, Player 3 0.44" in model.calls[3][1].content  # the probe sees the numbers
    vote = run(llm.act(ask(state, 1)))  # nothing new since: no update call
    assert vote.action == {"vote": 0} and len(model.calls) == 5
    assert "Use your beliefs: make Player 1, the player you suspect most, stand out" in model.calls[4][1].content
    assert vote.evidence["notes"]["updates"] == [] and vote.evidence["notes"]["aim"] == 0


def test_the_chameleon_keeps_its_own_view_settled_and_aims_at_whoever_suspects_it_most():
    model = scripted(ratings(Player_2={"Player 1": "more", "Player 3": "same"},
                             Player_3={"Player 1": "same", "Player 2": "same"}),
                     ratings(Player_3={"Player 1": "same"}),
                     'ANSWER: {"clue": "sport"}')
    llm = agent(model, "pgm", game="chameleon", seat=0)
    state = chameleon(clues=2)  # Player 2 and Player 3 have given clues; the chameleon's turn
    run(llm.act(ask(state, 0)))
    first, decision = model.calls[0][1].content, model.calls[2][1].content
    assert '"Player 1": {' not in first  # its own view is not asked: it knows it is the chameleon
    views = llm.design._views
    assert views[0] == [1.0, 0.0, 0.0]
    assert views[1] == pytest.approx([0.625 / 1.125, 0.0, 0.5 / 1.125])
    assert "Use your beliefs: you are the chameleon. Player 2 suspects you most" in decision


def test_a_failed_belief_call_is_a_provider_failure_too():
    model = scripted(reply(None, error="timed out after 60 s"))
    with pytest.raises(ProviderError, match="timed out"):
        run(agent(model, "pgm").act(ask(dilemma(), 0)))


def test_b5p_puts_a_persona_from_the_trait_levels_in_every_system_prompt():
    levels = {"openness": 7, "conscientiousness": 4, "extraversion": 1}
    model = scripted("ANSWER: {\"choice\": \"cooperate\"}")
    llm = agent(model, "b5p", levels, seed=3)
    params = llm.description["design_params"]
    assert {k: params[k] for k in levels} == levels
    assert params["drawn"] == ["agreeableness", "neuroticism"]
    assert all(1 <= params[t] <= 7 for t in params["drawn"])
    run(llm.act(ask(dilemma(), 0)))
    assert len(model.calls) == 1
    system = model.calls[0][0].content
    persona = system.split("Your personality")[1].split("How to answer")[0]
    assert sum(word in persona for word in _ADJECTIVES["openness"][0]) == 3  # strength 3: three adjectives
    assert sum(word in persona for word in _ADJECTIVES["extraversion"][1]) == 3
    assert not any(word in persona for pole in _ADJECTIVES["conscientiousness"] for word in pole)  # neutral
    again = agent(scripted(), "b5p", levels, seed=3)
    assert again.description["design_params"] == params and again.design.persona() == llm.design.persona()


def test_favor_rates_the_others_after_each_turn_and_tells_the_levels_in_words():
    model = scripted("ANSWER: {\"choice\": \"cooperate\"}",
                     "Player 2 kept faith, Player 3 betrayed us.\nANSWER: {\"Player 2\": 10, \"Player 3\": 1}",
                     "ANSWER: {\"choice\": \"defect\"}", "ANSWER: {\"choice\": \"defect\"}")
    llm = agent(model, "favor")
    state = dilemma()
    run(llm.act(ask(state, 0)))
    assert len(model.calls) == 1  # nothing has happened yet: no rating call
    assert "You feel neutral about Player 2." in model.calls[0][1].content
    for seat, choice in ((0, "cooperate"), (1, "cooperate"), (2, "defect")):
        state.act(seat, {"choice": choice})
    decision = run(llm.act(ask(state, 0)))
    assert len(model.calls) == 3 and len(decision.evidence["calls"]) == 2
    rating_prompt = model.calls[1][1].content
    assert "(new) Round 1:" in rating_prompt
    assert ("a JSON object with a field for each player you rate, named exactly as the question names them, "
            "holding a whole number from 1 to 10") in rating_prompt
    prompt = model.calls[2][1].content
    assert "You rather like Player 2." in prompt and "You strongly dislike and distrust Player 3." in prompt
    run(llm.act(ask(state, 0)))  # asked again at the same point: nothing new, no rating call
    assert len(model.calls) == 4
    assert llm.description["design_params"] == {"initial": 50.0, "swing": 30.0}


def test_an_unreadable_favor_rating_keeps_the_levels():
    model = scripted("I like them all.", "ANSWER: {\"choice\": \"cooperate\"}")
    llm = agent(model, "favor", {"initial": 90})
    state = dilemma()
    for seat in range(3):
        state.act(seat, {"choice": "cooperate"})
    decision = run(llm.act(ask(state, 0)))
    assert decision.action == {"choice": "cooperate"} and len(decision.evidence["calls"]) == 2
    assert "You like and trust Player 2 a great deal." in model.calls[1][1].content


def test_strategy_judges_then_plans_before_speaking_or_voting_only():
    plan = "I will echo the sporty theme of the clues so far, stay broad, and avoid naming a single sport."
    model = scripted(
        'ANSWER: {"Player 2": {"role": "non-chameleon", "p": 0.9}, "Player 3": {"role": "non_chameleon", "p": 80}}',
        "Thinking.\nANSWER: " + json.dumps({"plan": plan}),
        'ANSWER: {"clue": "match"}',
        'ANSWER: {"seat": "Player 2"}',
        "I cannot judge yet.", "ANSWER: {\"plan\": \"" + "vote " * 90 + "\"}", 'ANSWER: {"vote": "Player 3"}',
        'ANSWER: {"guess": "golf"}')
    llm = agent(model, "strategy", game="chameleon")
    state = chameleon(clues=2)
    clue = run(llm.act(ask(state, 0)))
    assert clue.action == {"clue": "match"} and len(clue.evidence["calls"]) == 3
    judgement_prompt, plan_prompt, decision_prompt = (model.calls[k][1].content for k in range(3))
    assert "which role do you think they most likely have (chameleon, non-chameleon)" in judgement_prompt
    assert "- Player 2 has a 90% chance to be non-chameleon\n- Player 3 has a 80% chance to be non-chameleon" \
        in plan_prompt
    assert "Follow the theme of the clues already given" in plan_prompt and "at most 80 words" in plan_prompt
    assert "Give a clue that only someone who knows the secret word" not in plan_prompt  # not this role's notes
    assert f"Your strategy for this move, written just now:\n<<<\n{plan}\n>>>\nFollow it." in decision_prompt
    notes = clue.evidence["notes"]
    assert notes == {"design": "strategy", "phase": "clue", "plan": plan, "cut": False,
                     "judgement": [{"seat": 1, "role": "non_chameleon", "p": 0.9},
                                   {"seat": 2, "role": "non_chameleon", "p": 0.8}]}
    state.act(0, {"clue": "match"})
    run(llm.probe(probe_of(state, 0, "suspect")))
    assert len(model.calls) == 4  # probes get no judgement and no plan
    vote = run(llm.act(ask(state, 0)))
    assert vote.action == {"vote": 2} and len(vote.evidence["calls"]) == 3
    notes = vote.evidence["notes"]
    assert notes["judgement"] is None and notes["cut"] is True and len(notes["plan"].split()) == 80
    assert "Your judgement of the other players" not in model.calls[5][1].content  # it was unreadable
    for seat, target in ((0, 2), (1, 0), (2, 0)):
        state.act(seat, {"vote": target})
    guess = run(llm.act(ask(state, 0)))
    assert guess.action == {"guess": "golf"} and len(guess.evidence["calls"]) == 1  # a guess is not a vote
    assert "notes" not in guess.evidence


def test_a_werewolf_judgement_says_who_is_a_teammate():
    from runner.agents.llm.strategies import judgement_lines
    names = ("Ada", "Bo", "Cy")
    lines = judgement_lines({1: ("werewolf", 0.85), 2: ("villager", 0.1)}, names, "werewolf",
                            {"role": "seer", "team": "village"})
    assert lines == ["Bo has a 85% chance to be werewolf, who would be your opponent",
                     "Cy has a 10% chance to be villager, who would be your teammate"]


def test_an_unreadable_probe_is_recorded_unanswered_with_its_call_and_the_game_goes_on():
    def script(messages, i):
        if "A question about what you believe" in messages[-1].content:
            return "Hard to say."
        return legal_reply(messages, random.Random(i))

    game = games.get("chameleon")
    params = game.params({"players": 3, "words": 4})
    setup = {"card": CARD, "secret": "tennis", "chameleon": 0, "order": [1, 2, 0]}
    agents = [agent(FakeModel(script), game="chameleon", seat=s) for s in range(3)]
    records = run(play_alone(game, params, setup, Seating(agents, game.seat_names(params, setup),
                                                    ["chameleon", "non_chameleon", "non_chameleon"]),
                             seed=2, tournament="t", created="2026-11-21"))
    # Dealt by hand for the scenario, so checked by the rules alone (not derived from the seed).
    assert check_bytes("x.jsonl", encode(records), derive=False).ok
    probes = [r for r in records if r["type"] == "probe"]
    assert probes and all(p["answer"] is None and "no ANSWER line" in p["error"] for p in probes)
    assert all(len(p["evidence"]["calls"]) == 1 and p["evidence"]["calls"][0]["reply"] == "Hard to say."
               for p in probes)
    about = [p["about"] for p in probes if p["probe"] == "suspect_of"]
    assert about and all(isinstance(a, int) for a in about)
    assert records[-1]["status"] == "complete"


def test_the_description_follows_the_schema_and_holds_no_secret():
    spec = {**SPEC, "base_url": "http://127.0.0.1:8000/v1", "api_key_env": "OPENAI_API_KEY", "timeout_s": 30,
            "design": "strategy"}
    llm = make_llm_agent(spec, scripted(), game="werewolf", seat=3, rng=random.Random(1), name="gpt-strat")
    allowed = set(schema()["$defs"]["llmAgent"]["properties"])
    assert set(llm.description) <= allowed
    assert llm.description == {"name": "gpt-strat", "kind": "llm", "provider": "openai", "model": "gpt-test",
                               "base_url": "http://127.0.0.1:8000/v1", "temperature": 0.2, "max_tokens": 300,
                               "seed": 11, "design": "strategy", "design_params": {},
                               "prompt_version": PROMPT_VERSION}
    assert "OPENAI_API_KEY" not in json.dumps(llm.description)
    default = make_llm_agent({"provider": "anthropic", "model": "claude-test"}, scripted(), game="undercover",
                             seat=0, rng=random.Random(1), name="c")
    assert default.description["design"] == "vanilla" and "temperature" not in default.description


@pytest.mark.parametrize("spec, game, message", [
    ({"design": "tree_of_thought"}, "chameleon", "design: must be one of"),
    ({"design": "b5p", "design_params": {"openness": 9}}, "chameleon",
     "design_params.openness: must be a whole number"),
    ({"design": "b5p", "design_params": {"humour": 5}}, "chameleon", "unknown field(s) ['humour']"),
    ({"design": "pgm", "design_params": {"depth": 2}}, "chameleon", "design 'pgm' takes only 'step'"),
    ({"design": "pgm", "design_params": {"step": 1}}, "chameleon", "design_params.step: a number above 1"),
    ({"design": "favor", "design_params": {"swing": 0}}, "chameleon", "design_params.swing"),
    ({"design": "favor", "design_params": [1, 2]}, "chameleon", "design_params: must be a table"),
    ({"model": ""}, "chameleon", "model: a language-model agent needs"),
    ({}, "poker", "game: unknown game 'poker'"),
])
def test_bad_agent_tables_are_refused_naming_the_field(spec, game, message):
    with pytest.raises(ValueError) as caught:
        make_llm_agent({**SPEC, **spec}, scripted(), game=game, seat=0, rng=random.Random(0), name="x")
    assert message in str(caught.value)


@pytest.mark.parametrize("plan", ["<your strategy for this move, at most 80 words>",
                                  "Your strategy for this move, at most 80 words"])
def test_a_plan_that_copies_the_placeholder_is_no_plan(plan):
    from runner.agents.llm.formats import plan_format
    from runner.agents.llm.parse import ParseError, read_plan
    with pytest.raises(ParseError, match="placeholder"):
        read_plan({"plan": plan}, plan_format(), 80)
    assert read_plan({"plan": "Claim to be a villager."}, plan_format(), 80) == ("Claim to be a villager.", False)


def test_favor_judges_the_roles_first_in_games_that_hide_them_as_004s_favor_prompt_shows():
    model = scripted(
        'ANSWER: {"Player 1": {"role": "chameleon", "p": 0.7}, "Player 3": {"role": "non_chameleon", "p": 0.6}}',
        'ANSWER: {"Player 1": 2, "Player 3": 9}',
        'ANSWER: {"seat": "Player 1"}')
    llm = agent(model, "favor", game="chameleon", seat=1)
    state = chameleon(clues=3)
    belief = run(llm.probe(probe_of(state, 1, "suspect")))
    assert belief.action == {"seat": 0} and len(belief.evidence["calls"]) == 3
    favor_prompt = model.calls[1][1].content
    assert ("Your judgement of the other players, made just now:\n- Player 1 has a 70% chance to be chameleon\n"
            "- Player 3 has a 60% chance to be non-chameleon") in favor_prompt
    notes = belief.evidence["notes"]
    assert notes["design"] == "favor" and notes["updated"] is True
    assert notes["judgement"] == [{"seat": 0, "role": "chameleon", "p": 0.7},
                                  {"seat": 2, "role": "non_chameleon", "p": 0.6}]
    assert notes["levels"][1] is None and notes["levels"][0] < 50 < notes["levels"][2]

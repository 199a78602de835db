"""Clues and statements that copy the question (a placeholder, a template, the prompt's own
wording) are refused from prompt set 4 on, read from replies as real models write them; older
sets keep accepting them, as their replays recorded."""

from __future__ import annotations

import asyncio
import json
import random

import pytest
from llm_fakes import FakeModel, legal_reply, scripted

from runner import games
from runner.agents.base import Request
from runner.agents.builtin import make
from runner.agents.llm import make_llm_agent
from runner.agents.llm.copies import copy_of, words, wording
from runner.agents.llm.formats import FREE_TEXT
from runner.agents.llm.render import PromptSet, prompt_set
from runner.play import Seating, rng_for
from runner.replay.format import encode
from runner.rerun.validate import check_bytes
from tests.helpers import play_alone

SPEC = {"provider": "openai", "model": "gpt-test", "temperature": 0.2, "max_tokens": 300, "seed": 11}


def agent(model, game, version=None, seat=0):
    return make_llm_agent(SPEC, model, game=game, seat=seat, rng=random.Random(5), name="tester",
                          prompt_version=version)


def werewolf_day():
    """A Werewolf game at the first statement (seat 0 speaks first)."""
    game = games.get("werewolf")
    params = game.params({})
    state = game.start(params, game.deal(params, random.Random(4)))
    while state.pending().phase != "day":
        seat = state.pending().seats[0]
        state.act(seat, state.random_action(seat, random.Random(seat)))
    return state


def undercover_clue(clue="sentence"):
    game = games.get("undercover")
    params = game.params({"players": 4, "clue": clue})
    return game.start(params, game.deal(params, random.Random(2)))


def ask(state, errors=()):
    pending = state.pending()
    seat = pending.seats[0]
    names = tuple(state.game.seat_names(state.params, state.setup))
    return Request(state.game.name, seat, pending.phase, state.observe(seat), state.legal(seat), tuple(errors), names)


def act(state, reply, version=None):
    llm = agent(scripted(reply), state.game.name, version, seat=state.pending().seats[0])
    return asyncio.run(llm.act(ask(state)))


# -- what counts as a copy, derived from each set's own wording ---------------------------

def test_the_placeholders_are_read_from_each_sets_answer_forms():
    old = wording("3", "undercover").placeholders
    # What sets 2 and 3 showed between angle brackets (ANSWER: {"clue": "<your clue, one line>"}), and its parts.
    assert {"your clue one line", "your clue", "one line", "your one word clue", "your statement",
            "player name"} <= set(old)
    new = wording("4", "undercover").placeholders
    assert "your clue in your own words one line of text as a json string" in new and "your clue" in new
    assert not any(key in new for key in ("your one word clue", "player name"))  # set 4 has no such placeholder
    # Every free-text value's words are a placeholder of set 4, and no prompt of it holds a bracketed one.
    assert all(" ".join(words(value)) in new for value in FREE_TEXT.values())


@pytest.mark.parametrize("text, kind", [
    ("<your statement>", "template"),
    ("  <Your   Statement>  ", "template"),
    ("[Your statement here]", "template"),
    ("I think <player name> is the Werewolf.", "template"),
    ("your statement", "placeholder"),
    ("YOUR STATEMENT.", "placeholder"),
    ("your statement here", "placeholder"),
    ("Your statement, in your own words, as a JSON string", "placeholder"),
    ("It is your turn to speak to the group.", "instruction"),
    ("Round 1 of 2: it is your turn to speak to the group", "instruction"),
    ("Say in your own words what you want the others to hear", "instruction"),
])
def test_copies_of_the_werewolf_question(text, kind):
    copied = copy_of(text, "4", "werewolf")
    assert copied is not None and copied.kind == kind


@pytest.mark.parametrize("text", [
    "I am the Seer: Player 3 is not the Werewolf.",
    "Trust me, I am a villager.",
    "I agree with Player 2.",
    "Your statement is a lie, Player 4.",         # the placeholder's words, used in a sentence
    "The werewolf",                                 # two words of the rules are not a copied instruction
    "I <3 this village",
])
def test_statements_of_ones_own_are_not_copies(text):
    assert copy_of(text, "4", "werewolf") is None


def test_a_single_card_word_is_a_clue_even_though_the_prompt_shows_it():
    assert copy_of("tennis", "4", "chameleon") is None
    assert copy_of("the secret word", "4", "chameleon").kind == "instruction"


# -- the agent refuses them from set 4 on, read from replies as models write them ----------

@pytest.mark.parametrize("reply", [
    'ANSWER: {"text": "<your statement>"}',
    'I should speak now.\n\n**ANSWER:** {"text": "<your statement>"}',
    '```json\n{"text": "<Your Statement>"}\n```',
    '<think>The form wants my statement.\nANSWER: {"text": "I am the Seer."}</think>\nANSWER: {"text": "your   statement"}',
    '{"text": "  YOUR STATEMENT, in your own words  "}',
    'ANSWER: {"text": "I suspect <player name> of being the Werewolf."}',
    '> ANSWER: `{"text": "Say in your own words what you want the others to hear"}`',
])
def test_set_4_refuses_a_statement_that_copies_its_question(reply):
    state = werewolf_day()
    decision = act(state, reply)
    assert decision.error is not None and decision.error.startswith('"text" ')
    assert "instead of giving a statement of your own" in decision.error
    assert decision.error.endswith("Answer again with ANSWER: followed by " + FREE_TEXT_SHAPE)
    assert isinstance(decision.action["text"], str)  # the copied move is kept beside the reason


FREE_TEXT_SHAPE = f'a JSON object with one field, "text": {FREE_TEXT["text"]}'


def test_set_4_accepts_a_statement_of_its_own_and_set_3_accepts_the_copy_it_always_did():
    state = werewolf_day()
    own = act(state, 'ANSWER: {"text": "I am a villager and I trust nobody yet."}')
    assert own.error is None and own.action == {"text": "I am a villager and I trust nobody yet."}
    old = act(state, 'ANSWER: {"text": "<your statement>"}', version="3")
    assert old.error is None and old.action == {"text": "<your statement>"}


@pytest.mark.parametrize("clue, refused", [
    ("<your clue, one line>", True),
    ("<your clue>, one line>", True),          # as Gemma 3 270M wrote it 47 times in set 3
    ("your clue", True),
    ("Your clue, in your own words, one line of text as a JSON string", True),
    ("Something you sit on in the evening", False),
])
def test_set_4_refuses_a_copied_undercover_clue(clue, refused):
    decision = act(undercover_clue(), f"ANSWER: {json.dumps({'clue': clue})}")
    assert (decision.error is not None) is refused
    if refused:
        assert decision.error.startswith('"clue" ') and "clue of your own" in decision.error


def test_the_re_ask_tells_the_model_why_and_the_next_answer_is_taken():
    state = werewolf_day()
    model = scripted('{"text": "<your statement>"}', 'ANSWER: {"text": "Player 2 has been very quiet."}')
    llm = agent(model, "werewolf", seat=state.pending().seats[0])
    first = asyncio.run(llm.act(ask(state)))
    second = asyncio.run(llm.act(ask(state, [first.error])))
    assert second.error is None and second.action == {"text": "Player 2 has been very quiet."}
    reask = model.calls[1][-1].content
    assert reask.startswith("Your answer could not be used: \"text\" is a template in brackets")


def test_a_copied_plan_is_no_plan_from_set_4_on():
    state = werewolf_day()
    seat = state.pending().seats[0]
    plan = json.dumps({"plan": "your strategy for this move, in your own words"})
    model = scripted('{"Player 2": {"role": "villager", "p": 0.5}}', plan, 'ANSWER: {"text": "I am a villager."}')
    llm = make_llm_agent({**SPEC, "design": "strategy"}, model, game="werewolf", seat=seat, rng=random.Random(5),
                         name="tester")
    decision = asyncio.run(llm.act(ask(state)))
    assert decision.error is None and decision.evidence["notes"]["plan"] is None


# -- through the runner: refused, asked again, recorded, and derived again by the validator -

def _game_with(replies, max_attempts=3):
    """A Werewolf game, a scripted model in the seat that speaks first, built-ins elsewhere."""
    game = games.get("werewolf")
    params = game.params({})
    setup = game.deal(params, rng_for(7, "deal"))
    queue = list(replies)

    def script(messages, i):  # the scripted replies answer the statements; the rest is legal
        if queue and '"text":' in messages[-1].content:
            return queue.pop(0)
        return legal_reply(messages, random.Random(i))

    model = FakeModel(script)
    seats = game.players(params)
    agents = [make_llm_agent(SPEC, model, game="werewolf", seat=0, rng=rng_for(7, "agent-0"), name="model")]
    agents += [make("werewolf/strategic", {}, rng_for(7, f"agent-{s}"), "strategic", "werewolf") for s in range(1, seats)]
    seating = Seating(agents, game.seat_names(params, setup), [game.role_of(params, setup, s) for s in range(seats)])
    records = asyncio.run(play_alone(game, params, setup, seating, seed=7, tournament="t", created="2026-11-28",
                                     max_attempts=max_attempts, probes=False))
    return records


def _statements(records, seat=0):
    return [r for r in records if r["type"] == "event" and r["phase"] == "day" and r["seat"] == seat]


def test_a_copied_statement_is_asked_again_recorded_and_derived_by_the_validator():
    records = _game_with(['ANSWER: {"text": "<your statement>"}'])
    assert records[-1]["status"] == "complete"
    first = _statements(records)[0]
    [attempt] = first["attempts"]
    assert attempt["action"] == {"text": "<your statement>"} and attempt["raw"] == 'ANSWER: {"text": "<your statement>"}'
    assert attempt["error"].startswith('"text" is a template in brackets')
    assert first["data"]["text"] != "<your statement>"
    checked = check_bytes("game.jsonl", encode(records))
    assert checked.ok, [str(p) for p in checked.problems[:3]]


def test_a_model_that_only_copies_forfeits_and_the_replay_still_validates():
    records = _game_with(['ANSWER: {"text": "<your statement>"}'] * 3)
    assert records[-1]["status"] == "invalid"
    forfeit = next(r for r in records if r["type"] == "event" and r["kind"] == "forfeit")
    assert [a["error"][:32] for a in forfeit["attempts"]] == ['"text" is a template in brackets'] * 3
    assert check_bytes("game.jsonl", encode(records)).ok


def test_the_validator_refuses_a_copy_recorded_as_an_accepted_move():
    records = _game_with(['ANSWER: {"text": "<your statement>"}'])
    statement = _statements(records)[0]
    # Forged: the copied reply recorded as the move, with the call that gave it and no refused try.
    statement["data"] = {"text": "<your statement>"}
    statement["evidence"]["calls"] = statement["evidence"]["calls"][:1]
    del statement["attempts"]
    checked = check_bytes("forged.jsonl", encode(records))
    assert not checked.ok
    problem = str(checked.problems[0])
    assert "the recorded reply gives no legal move here" in problem and "is a template in brackets" in problem


def test_set_4_is_the_first_set_that_describes_answers():
    assert [prompt_set(v).describes_answers for v in ("2", "3", "4")] == [False, False, True]
    assert not PromptSet("1.f4a372105e", prompt_set("3").folder).describes_answers

"""A model that fills the answer form with the form's own words, played end to end through the
fake OpenAI server as llama-cpp-python's server answers (a bare JSON object under the schema):
each copy is refused, asked again and recorded with its reason; the games finish, `gamenight
validate` derives the same refusals, and no accepted clue or statement is a copy."""

from __future__ import annotations

import json
from pathlib import Path

from click.testing import CliRunner

from runner.agents.llm.copies import copy_of, free_texts
from runner.cli import main
from tests.llm.fakes import FakeOpenAI, chat_messages, constrained, copying_the_form
from tests.llm.test_tournament_llm import ENV, FAST_RETRIES, legal_reply, model_table

TOURNAMENT = '''name = "copies"
seed = 5
created = "2026-11-28"
{limits}
[agents.small]
{table}
[[matchups]]
game = "undercover"
games = 2
rules = {{ players = 4, clue = "sentence" }}
roles = {{ undercover = "undercover/associative", civilian = "small" }}
[[matchups]]
game = "werewolf"
games = 2
roles = {{ werewolf = "small", "*" = "werewolf/strategic" }}
'''


def _play(tmp_path: Path, script) -> tuple[list[list[dict]], FakeOpenAI]:
    with FakeOpenAI(script) as server:
        table = model_table("openai_compatible", server.base_url, extra='structured_output = "json_object"\n')
        plan = tmp_path / "plan.toml"
        plan.write_text(TOURNAMENT.format(limits=FAST_RETRIES, table=table), encoding="utf-8")
        out = tmp_path / "out"
        result = CliRunner().invoke(main, ["run", str(plan), "--out", str(out), "--parallel", "2"], env=ENV)
        assert result.exit_code == 0, result.output
    validated = CliRunner().invoke(main, ["validate", str(out)])
    assert validated.exit_code == 0, validated.output
    games = [[json.loads(line) for line in p.read_text(encoding="utf-8").splitlines()] for p in sorted(out.glob("*.jsonl"))]
    return games, server


def test_copies_of_the_form_are_refused_asked_again_and_validated(tmp_path):
    games, server = _play(tmp_path, copying_the_form(constrained(legal_reply, seed=3)))
    assert len(games) == 4 and all(g[-1]["status"] == "complete" for g in games)
    model_seats = {g[0]["game_id"]: {p["seat"] for p in g[0]["players"] if p["agent"]["kind"] == "llm"} for g in games}
    moves = [(g[0]["game"], r) for g in games for r in g[1:]
             if r.get("type") == "event" and r["kind"] == "action" and r["seat"] in model_seats[g[0]["game_id"]]]
    free = [(game, r) for game, r in moves if any(True for _ in free_texts(r["data"]))]
    assert {game for game, _ in free} == {"undercover", "werewolf"}
    assert all(len(r.get("attempts", ())) == 1 for _, r in free)  # every clue and statement: one copy first
    for game, record in free:
        [attempt] = record["attempts"]
        [(field, copied)] = free_texts(attempt["action"])
        assert copied.startswith("your ") and "in your own words" in copied  # the form's description, copied
        assert attempt["error"].startswith(f'"{field}" repeats the answer form\'s placeholder')
        assert copy_of(record["data"][field], "4", game) is None
    # Votes and beliefs are never re-asked; the re-ask carried the refusal to the model.
    assert not any(r.get("attempts") for game, r in moves if (game, r) not in free)
    reasks = [chat_messages(q.body) for q in server.requests if len(chat_messages(q.body)) == 4]
    assert len(reasks) == len(free)
    assert all(m[3]["content"].startswith("Your answer could not be used: \"") for m in reasks)

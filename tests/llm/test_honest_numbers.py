"""Numbers a model run produces mean what they say: a provider failure is never the model's
forfeit, a forfeit is charged to the agent that forfeited, and every call is counted.

Real SDKs over real HTTP to the fake servers of tests/llm/fakes.py, through the `gamenight`
commands a researcher types.
"""

from __future__ import annotations

import asyncio
import json
import re
import time
import tomllib
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner

from runner import games
from runner.agents.base import Agent, Decision
from runner.cli import main
from runner.play import Seating, play, rng_for
from runner.replay.format import encode, version_2_uses
from runner.run import forfeited_by_provider
from runner.tournament import from_dict
from tests.llm.fakes import REPLY_STYLES, Answer, FakeAnthropic, FakeOpenAI, Fault, Reply, always, chat_messages, styled
from tests.llm.test_tournament_llm import (ENV, FAST_RETRIES, KEY, assert_all_valid, legal_answer, legal_reply,
                                           model_table, replays, six_games)

SERVERS = {"openai": FakeOpenAI, "anthropic": FakeAnthropic}


def tournament(provider: str, base_url: str, *, games: int = 2, max_attempts: int = 3) -> str:
    """The LLM in three games: a Chameleon (with probes), a Prisoner's Dilemma, a Public Good."""
    return f'''name = "honest"
seed = 5
created = "2026-11-25"
max_attempts = {max_attempts}
{FAST_RETRIES}
[agents.m]
{model_table(provider, base_url)}
[[matchups]]
game = "chameleon"
games = {games}
rules = {{ players = 3, words = 16 }}
roles = {{ chameleon = "m", non_chameleon = "chameleon/trivial" }}
[[matchups]]
game = "prisoners_dilemma"
games = {games}
rules = {{ rounds = 2 }}
lineup = ["m", "prisoners_dilemma/tit_for_tat", "prisoners_dilemma/always_defect"]
[[matchups]]
game = "public_good"
games = {games}
rules = {{ rounds = 2 }}
lineup = ["m", "public_good/conditional", "public_good/free_rider"]
'''


def run_plan(tmp_path: Path, toml: str, env: dict[str, str] = ENV, *args: str):
    plan = tmp_path / "plan.toml"
    plan.write_text(toml, encoding="utf-8")
    out = tmp_path / "out"
    result = CliRunner().invoke(main, ["run", str(plan), "--out", str(out), "--parallel", "4", *args], env=env)
    return result, out


def stderr_lines(output: str, start: str) -> list[str]:
    return [line for line in output.splitlines() if line.startswith(start)]


@pytest.mark.parametrize("provider", ["openai", "anthropic"])
def test_a_wrong_key_writes_nothing_stops_with_one_message_and_the_right_key_plays_everything(tmp_path, provider):
    with SERVERS[provider](legal_reply, key=KEY) as server:
        url, toml = server.base_url, tournament(provider, server.base_url)
        wrong, out = run_plan(tmp_path, toml, {"TEST_LLM_KEY": "sk-wrong-0000000000000000"})
        refused, listed, written = server.calls, len(server.listings), out.exists()
        right, _ = run_plan(tmp_path, toml)
    assert wrong.exit_code == 1, wrong.output
    assert not written  # not one replay, nor the plan: no forfeit was invented
    # The key is checked by one model list before anything is played: no call was made.
    assert refused == 0 and listed == 1
    [stopped] = stderr_lines(wrong.output, "Error: cannot start:")
    assert "HTTP 401" in stopped and f"{provider} model 'test-model' at {url}" in stopped
    assert "refused the key in the environment variable TEST_LLM_KEY" in stopped
    assert "sk-wrong" not in wrong.output and "Traceback" not in wrong.output
    assert right.exit_code == 0, right.output
    assert len(list(out.glob("*.jsonl"))) == 6
    assert_all_valid(out)


def test_a_key_refused_in_the_middle_of_a_run_stops_it_and_writes_nothing_of_its_games(tmp_path):
    """A server that lists its models to anyone but refuses the calls (or a key revoked during the run)."""
    with FakeOpenAI(always(Fault(401, "Incorrect API key provided."))) as server:
        toml = tournament("openai_compatible", server.base_url).replace("TEST_LLM_KEY", "MY_SERVER_KEY")
        wrong, out = run_plan(tmp_path, toml, {"MY_SERVER_KEY": "sk-wrong-0000000000000000"})
    assert wrong.exit_code == 1, wrong.output
    assert not list(out.glob("*.jsonl"))
    [stopped] = stderr_lines(wrong.output, "stopped:")
    assert "the provider failed, not the model" in stopped and "HTTP 401" in stopped
    assert "'test-model'" in stopped and "check the key in the environment variable MY_SERVER_KEY" in stopped
    assert "sk-wrong" not in wrong.output
    assert "were not played" in wrong.output and "run the same command again" in wrong.output
    assert server.calls <= 4  # a 401 is never retried: one call per game in progress, then the run stops


def test_nothing_listening_stops_at_once_and_a_later_run_plays_the_games(tmp_path):
    with FakeOpenAI(legal_reply) as probe:
        port = probe.port  # a port that is free again once this server is gone
    toml = tournament("openai_compatible", f"http://127.0.0.1:{port}/v1")
    down, out = run_plan(tmp_path, toml)
    assert down.exit_code == 1, down.output
    assert not out.exists()
    [stopped] = stderr_lines(down.output, "Error: cannot start:")
    assert f"cannot connect to http://127.0.0.1:{port}/v1: connection refused" in stopped
    assert "'test-model'" in stopped and "Traceback" not in down.output
    with FakeOpenAI(legal_reply, port=port):
        up, _ = run_plan(tmp_path, toml)
    assert up.exit_code == 0, up.output
    assert len(list(out.glob("*.jsonl"))) == 6
    assert_all_valid(out)


def dilemma(name: str, url: str, games: int) -> str:
    """The model `name` against two scripted players in a Prisoner's Dilemma, asked twice per decision."""
    return f'''name = "{name}"
seed = 8
max_attempts = 2
{FAST_RETRIES}
[agents.{name}]
{model_table("openai", url)}
[[matchups]]
game = "prisoners_dilemma"
games = {games}
lineup = ["{name}", "prisoners_dilemma/tit_for_tat", "prisoners_dilemma/always_defect"]
'''


def test_a_model_that_never_answers_is_charged_its_forfeits_and_nobody_else(tmp_path):
    with FakeOpenAI(lambda body, n: "Hmm, that is a hard one. Let me think about it some more.") as server:
        result, out = run_plan(tmp_path, dilemma("mute", server.base_url, 3))
    assert result.exit_code == 0, result.output  # model failures are forfeits, recorded as such
    assert re.search(r"prisoners_dilemma\s+3\s+0\s+3", result.output)  # played, kept, forfeited
    scored = CliRunner().invoke(main, ["score", str(out), "--out", str(tmp_path / "results.json")])
    assert scored.exit_code == 0, scored.output
    results = json.loads((tmp_path / "results.json").read_text(encoding="utf-8"))
    rows = {r["label"]: r for r in results["leaderboards"]["prisoners_dilemma"]["agents"]}
    mute = rows["mute"]
    assert mute["seats"] == 3 and mute["win_rate"]["value"] == 0.0 and mute["win_rate"]["n"] == 3
    assert mute["forfeits"] == 3 and mute["forfeit_rate"]["value"] == 1.0
    low, high = mute["forfeit_rate"]["ci"]
    assert 0.3 < low < 1.0 and high == 1.0  # Wilson [0.44, 1] for 3 of 3
    assert mute["reask_rate"]["value"] == 1.0  # each forfeited decision was asked twice
    for scripted in ("prisoners_dilemma/tit_for_tat", "prisoners_dilemma/always_defect"):
        row = rows[scripted]
        assert row["forfeits"] == 0 and row["forfeit_rate"]["value"] == 0.0  # charged nothing
        assert row["left_out"] == 3 and row["seats"] == 0 and row["win_rate"] is None
    overall = {r["label"]: r for r in results["agents"]}
    assert overall["mute"]["forfeit_rate"]["value"] == 1.0
    rated = {r["label"]: r["rating"] for r in results["ratings"]["by_game"]["prisoners_dilemma"]["agents"]}
    assert set(rated) == set(rows) and rated["mute"] < min(v for k, v in rated.items() if k != "mute")


def bad_probes(body: dict[str, Any], call: int) -> Answer:
    """Plays legally, but answers every belief question with prose and no answer line."""
    messages = chat_messages(body)
    if "A question about what you believe" in messages[-1]["content"]:
        return "Honestly, I could not say who it is at this point."
    return legal_reply(body, call)


def test_calls_behind_unreadable_probes_are_kept_and_counted_everywhere(tmp_path):
    with FakeOpenAI(bad_probes) as server:
        toml = tournament("openai", server.base_url).replace(
            '[agents.m]', '[prices."test-model"]\ninput = 3.0\noutput = 15.0\n[agents.m]')
        result, out = run_plan(tmp_path, toml)
        served, usage = server.calls, list(server.usage)
    assert result.exit_code == 0, result.output
    assert_all_valid(out)
    records = [r for g in replays(out) for r in g["records"]]
    llm_seats = {(g["path"], p["seat"]) for g in replays(out) for p in g["records"][0]["players"]
                 if p["agent"]["kind"] == "llm"}
    probes = [r for g in replays(out) for r in g["records"] if r["type"] == "probe" and (g["path"], r["seat"]) in llm_seats]
    assert probes and all(p["answer"] is None and "no ANSWER line" in p["error"] and p["evidence"]["calls"]
                          for p in probes)
    calls = [c for r in records for c in (r.get("evidence") or {}).get("calls", [])]
    tokens_in, tokens_out = sum(c["input_tokens"] for c in calls), sum(c["output_tokens"] for c in calls)
    # The replays hold every call the server answered, with the tokens it reported...
    assert len(calls) == served
    assert (tokens_in, tokens_out) == (sum(u[0] for u in usage), sum(u[1] for u in usage))
    # ...and the run summary says the same, with the cost of exactly those tokens.
    line = next(x for x in result.output.splitlines() if x.strip().startswith("test-model"))
    numbers = [int(n.replace(",", "")) for n in re.findall(r"\b\d[\d,]*\b(?!\.)", line.split("test-model", 1)[1])]
    assert numbers[:4] == [served, 0, tokens_in, tokens_out]
    cost = (tokens_in * 3.0 + tokens_out * 15.0) / 1_000_000
    assert line.rstrip().endswith(f"{cost:.2f}")
    # The scorer counts them too.
    scored = CliRunner().invoke(main, ["score", str(out), "--out", str(tmp_path / "results.json")])
    assert scored.exit_code == 0, scored.output
    spent = json.loads((tmp_path / "results.json").read_text(encoding="utf-8"))["usage"]
    [entry] = spent.values()
    assert (entry["calls"], entry["input_tokens"], entry["output_tokens"]) == (served, tokens_in, tokens_out)


class _OldProviderForfeit(Agent):
    """How runner 0.1 recorded a provider failure: refused attempts with no reply."""

    description = {"name": "m", "kind": "llm", "provider": "openai", "model": "test-model"}

    async def act(self, request: Any) -> Decision:
        return Decision(None, raw=None, error="the model call failed: openai model 'test-model': HTTP 401 "
                                              "authentication failed")


class _OldModelForfeit(_OldProviderForfeit):
    """A model that did answer, unreadably: a true forfeit, which resume must keep."""

    async def act(self, request: Any) -> Decision:
        return Decision(None, raw="I would rather not say.", error="Your reply has no ANSWER line")


def _old_replay(planned: Any, agent: Agent) -> bytes:
    game = games.get(planned.matchup.game)
    params = dict(planned.matchup.rules)
    setup = game.deal(params, rng_for(planned.seed, "deal"))
    n = game.players(params)
    roles = [game.role_of(params, setup, s) for s in range(n)]
    seating = Seating([agent] * n, game.seat_names(params, setup), roles)
    records = asyncio.run(play(game, params, setup, seating, seed=planned.seed, game_id=planned.game_id,
                               tournament=planned.tournament, matchup=planned.matchup.label, created="2026-11-20"))
    return encode(records)


def test_a_forfeit_an_older_runner_wrote_for_a_provider_failure_is_played_again(tmp_path):
    with FakeOpenAI(legal_reply) as server:
        toml = tournament("openai", server.base_url, games=1)
        plan = from_dict(tomllib.loads(toml))
        out = tmp_path / "out"
        out.mkdir()
        provider_game, model_game = plan.plan()[1], plan.plan()[2]
        (out / f"{provider_game.game_id}.jsonl").write_bytes(_old_replay(provider_game, _OldProviderForfeit()))
        (out / f"{model_game.game_id}.jsonl").write_bytes(_old_replay(model_game, _OldModelForfeit()))
        assert forfeited_by_provider(out / f"{provider_game.game_id}.jsonl")
        assert not forfeited_by_provider(out / f"{model_game.game_id}.jsonl")
        result, _ = run_plan(tmp_path, toml)
    assert result.exit_code == 0, result.output
    assert "1 replay that an older runner wrote" in result.output.replace("replays", "replay")
    again = json.loads((out / f"{provider_game.game_id}.jsonl").read_text().splitlines()[-1])
    kept = json.loads((out / f"{model_game.game_id}.jsonl").read_text().splitlines()[-1])
    assert again["status"] == "complete" and kept["status"] == "invalid"
    assert re.search(r"total\s+2\s+1\s+0", result.output)  # played, kept, forfeited


def _styled_legal() -> Any:
    """Legal moves in every reply style of real models; prose for the calls that want prose."""
    return styled(lambda messages: legal_answer(messages) or Reply("As I see it, nobody has shown their hand."))


@pytest.mark.parametrize("provider", ["openai", "anthropic"])
def test_answers_wrapped_as_real_models_wrap_them_are_read_first_time(tmp_path, provider):
    with SERVERS[provider](_styled_legal()) as server:
        agents = {"m": model_table(provider, server.base_url), "p": model_table(provider, server.base_url, design="pgm")}
        result, out = run_plan(tmp_path, six_games(agents))
        served = server.calls
    assert result.exit_code == 0, result.output
    assert_all_valid(out)
    games = replays(out)
    assert len(games) == 8 and all(g["records"][-1]["status"] == "complete" for g in games)
    records = [r for g in games for r in g["records"]]
    # Every style was read as the answer it states: no decision needed a second attempt.
    assert not [r for r in records if r.get("attempts")]
    calls = [c for r in records for c in (r.get("evidence") or {}).get("calls", [])]
    assert len(calls) == served >= 7 * len(REPLY_STYLES)
    # Thinking sent apart from the reply is kept in the evidence, and its draft was never played.
    thought = [c for c in calls if c.get("reasoning")]
    assert thought and all("Draft: ANSWER" in c["reasoning"] for c in thought)
    for game in games:  # reasoning (like design notes and the newer probes) is a version-2 field
        has = next(version_2_uses(game["records"]), None) is not None
        assert game["records"][0]["version"] == (2 if has else 1)


def test_a_refusal_is_the_models_answer_not_a_provider_failure(tmp_path):
    refusal = Reply("I'm sorry, but I can't help with strategies for betraying others.", refusal=True)
    with FakeOpenAI(always(refusal)) as server:
        result, out = run_plan(tmp_path, dilemma("shy", server.base_url, 1))
    assert result.exit_code == 0, result.output
    [game] = replays(out)
    forfeit = next(r for r in game["records"] if r["type"] == "event" and r["kind"] == "forfeit")
    assert [a["raw"] for a in forfeit["attempts"]] == [refusal.text] * 2
    assert all("no ANSWER line" in a["error"] for a in forfeit["attempts"])


def test_calls_made_for_abandoned_games_are_still_reported(tmp_path):
    """The provider answers a few calls, then fails for good: the games under way are abandoned,
    but what was paid for them is printed (and kept in the cache for the next run)."""
    def failing_after(body: dict[str, Any], n: int) -> Answer:
        return legal_reply(body, n) if n < 5 else Fault(503, "The service is unavailable.")

    with FakeOpenAI(failing_after) as server:
        result, out = run_plan(tmp_path, tournament("openai", server.base_url))
        answered = len(server.usage)
    assert result.exit_code == 1, result.output
    recorded = sum(len((r.get("evidence") or {}).get("calls", [])) for g in replays(out) for r in g["records"])
    assert answered == 5 and recorded < answered
    match = re.search(r"test-model: (\d+) more call\(s\) .* for games that were abandoned and not written", result.output)
    assert match and int(match[1]) == answered - recorded
    assert "the endpoint looks down" in result.output

"""`gamenight run --suite`: the ranked suite with one command, through click's CliRunner."""

from __future__ import annotations

import json
import re
import tomllib
from pathlib import Path

import pytest
from click.testing import CliRunner

from runner.cli import main
from tests.llm.fakes import FakeOpenAI
from tests.llm.test_tournament_llm import legal_reply


def invoke(*args: str, env: dict[str, str] | None = None):
    return CliRunner().invoke(main, list(args), env=env)


def headers(out: Path) -> list[dict]:
    return [json.loads(p.read_text(encoding="utf-8").split("\n", 1)[0]) for p in sorted(out.glob("*.jsonl"))]


def test_a_model_plays_stage_one_then_more_stages_only_add_games(tmp_path):
    out = tmp_path / "row"
    cache = str(tmp_path / "cache")
    with FakeOpenAI(legal_reply) as server:
        model = f"openai_compatible:test-model@{server.base_url}"
        first = invoke("run", "--suite", "ranked", "--model", model, "--out", str(out), "--cache-dir", cache)
        assert first.exit_code == 0, first.output
        assert "tournament ranked-1-test-model: 23 games" in first.output
        calls = server.calls
        again = invoke("run", "--suite", "ranked", "--model", model, "--out", str(out), "--cache-dir", cache,
                       "--stages", "2")
        assert again.exit_code == 0, again.output
    assert re.search(r"total\s+23\s+23\s+\d+", again.output)  # 23 played now, 23 kept
    assert server.calls > calls
    plan = tomllib.loads((out / "tournament.toml").read_text(encoding="utf-8"))
    assert plan["suite"] == {"name": "ranked", "version": 1, "stages": 2, "model": "test-model"}
    assert plan["name"] == "ranked-1-test-model" and len(plan["matchups"]) == 46
    found = headers(out)
    assert len(found) == 46 and all(h["tournament"] == "ranked-1-test-model" for h in found)
    by_seed = {m["seed"]: m for m in plan["matchups"]}
    for header in found:  # the model sits exactly where the suite seats it, in one seat
        seat = by_seed[header["seed"]]["deal"]["seat"]
        assert [p["seat"] for p in header["players"] if p["agent"]["kind"] == "llm"] == [seat]
    assert invoke("validate", str(out)).exit_code == 0


def test_the_reference_rows_are_built_in_agents_in_the_candidates_seat(tmp_path):
    out = tmp_path / "ref"
    result = invoke("run", "--suite", "ranked", "--model", "builtin:scripted", "--out", str(out),
                    "--cache-dir", str(tmp_path / "cache"))
    assert result.exit_code == 0, result.output
    plan = tomllib.loads((out / "tournament.toml").read_text(encoding="utf-8"))
    assert plan["name"] == "ranked-1-builtin-scripted" and plan["suite"]["model"] == "builtin-scripted"
    werewolf = next(m for m in plan["matchups"] if m["game"] == "werewolf")
    assert werewolf["lineup"][werewolf["deal"]["seat"]] == "werewolf/strategic"
    validated = invoke("validate", str(out))
    assert validated.exit_code == 0 and "checked 23 replay(s): 23 accepted, 0 with problems" in validated.output
    # another row never writes into this one's folder
    same = invoke("run", "--suite", "ranked", "--model", "builtin:random", "--out", str(out))
    assert same.exit_code == 1 and "holds the replays of another tournament ('ranked-1-builtin-scripted'" in same.output


def test_a_smaller_stages_keeps_the_stages_the_folder_plans(tmp_path):
    out = tmp_path / "row"
    args = ("run", "--suite", "ranked", "--model", "builtin:random", "--out", str(out), "--cache-dir",
            str(tmp_path / "cache"))
    assert invoke(*args, "--stages", "2").exit_code == 0
    again = invoke(*args)
    assert again.exit_code == 0
    assert "already plans stages 1..2 of this row; keeping them all" in again.output
    assert re.search(r"total\s+0\s+46\s+", again.output)
    assert invoke("validate", str(out)).exit_code == 0


def test_the_dry_run_prints_calls_tokens_and_cost_per_stage(tmp_path):
    result = invoke("run", "--suite", "ranked", "--model", "openai:gpt-4o-mini", "--stages", "2", "--dry-run",
                    "--price", "0.15/0.60/0.075", env={})
    assert result.exit_code == 0, result.output
    assert "dry run of ranked-1-gpt-4o-mini: stages 1..2 of the suite ranked-1" in result.output
    rows = {line.split()[0]: line.split() for line in result.output.splitlines()
            if re.match(r"^\s*(1|2|total)\s+\d", line)}
    assert set(rows) == {"1", "2", "total"}
    assert rows["1"][1] == rows["2"][1] == "23" and rows["total"][1] == "46"
    calls = [int(rows[k][2].replace(",", "")) for k in ("1", "2", "total")]
    assert calls[0] > 23 and calls[0] + calls[1] == calls[2]
    cost, uncached = float(rows["total"][6]), float(rows["total"][7])
    assert 0 < cost <= uncached  # cached tokens are priced as such: never dearer than without the cache
    assert int(rows["total"][4].replace(",", "")) < int(rows["total"][3].replace(",", ""))
    unpriced = invoke("run", "--suite", "ranked", "--model", "openai:gpt-4o-mini", "--dry-run", env={})
    assert "n/a" in unpriced.output and "give --price IN/OUT" in unpriced.output
    assert not list(tmp_path.iterdir())  # nothing written


@pytest.mark.parametrize("args, message", [
    (("--suite", "ranked"), "--suite and --model go together"),
    (("--model", "openai:gpt-4o"), "--suite and --model go together"),
    (("--suite", "ranked", "--model", "openai:gpt-4o", "--games", "3"), "give no tournament file, --game, --games"),
    (("--suite", "ranked", "--model", "openai:gpt-4o", "--seed", "3"), "give no tournament file"),
    (("--suite", "ranked", "--model", "openai:gpt-4o", "--game", "werewolf"), "give no tournament file"),
    (("--suite", "ranked", "--model", "openai:gpt-4o", "--price", "cheap"), "--price 'cheap': give USD per million"),
    (("--suite", "ranked", "--model", "builtin:random", "--price", "1/2"), "--price: a built-in candidate costs nothing"),
    (("--suite", "ranked", "--model", "builtin:best"), "has no reference 'best'; its references: scripted"),
    (("--suite", "ranked", "--model", "gpt-4o"), "--model 'gpt-4o': name a model as provider:model"),
    (("--suite", "ranked-7", "--model", "openai:gpt-4o"), "--suite 'ranked-7': no such suite; shipped: ranked"),
])
def test_bad_suite_flags_get_one_clear_line(tmp_path, args, message):
    result = invoke("run", *args, "--out", str(tmp_path / "x"), "--dry-run")
    assert result.exit_code == 1 and message in result.output and "Traceback" not in result.output
    assert not (tmp_path / "x").exists()


def test_until_width_plays_the_stages_the_width_asks_for_whatever_the_results(tmp_path):
    """--until-width decides the stages from the suite and the width alone (the planning width of
    a row winning half of every game), so stopping tells nothing about the results: a strong and a
    weak row play the same stages, and each stage prints the row's own interval."""
    from runner import suite as suites
    from runner import suite_score

    suite = suites.find("ranked")
    per_stage = {g.game: g.deals_per_stage for g in suite.games}
    wanted = suites.stages_for_width(suite, 0.3, 1000)
    assert wanted == 2 and suite_score.planning_width(per_stage, 2) < 0.3 <= suite_score.planning_width(per_stage, 1)
    played = {}
    for model in ("builtin:scripted", "builtin:random"):
        out = tmp_path / model.replace(":", "-")
        result = invoke("run", "--suite", "ranked", "--model", model, "--out", str(out),
                        "--cache-dir", str(tmp_path / "cache"), "--until-width", "0.3")
        assert result.exit_code == 0, result.output
        assert "--until-width 0.3: 2 stages" in result.output and "stopped: the 2 stages" in result.output
        widths = [float(w) for w in re.findall(r"width (\d\.\d+),", result.output)]
        played[model] = len(widths)
        assert len(list(out.glob("*.jsonl"))) == 23 * len(widths)  # whole stages only
        plan = tomllib.loads((out / "tournament.toml").read_text(encoding="utf-8"))
        assert plan["suite"]["stages"] == len(widths)
    assert played == {"builtin:scripted": 2, "builtin:random": 2}
    capped = invoke("run", "--suite", "ranked", "--model", "builtin:scripted", "--out", str(tmp_path / "capped"),
                    "--cache-dir", str(tmp_path / "cache"), "--until-width", "0.01", "--stages", "2")
    assert capped.exit_code == 0 and "stopped: stage 2 (--stages) is played" in capped.output
    assert "no number of stages up to 2" in capped.output
    assert len(list((tmp_path / "capped").glob("*.jsonl"))) == 46


def test_a_budget_stops_before_the_stage_that_would_pass_it(tmp_path):
    out = tmp_path / "row"
    dry = invoke("run", "--suite", "ranked", "--model", "openai_compatible:test-model@http://127.0.0.1:9/v1",
                 "--price", "1/1", "--dry-run", env={})
    estimate = float(next(line.split()[-1] for line in dry.output.splitlines() if line.strip().startswith("1 ")))
    budget = round(estimate * 1.5, 4)  # room for stage 1 by the dry run, not for many more
    with FakeOpenAI(legal_reply) as server:
        model = f"openai_compatible:test-model@{server.base_url}"
        result = invoke("run", "--suite", "ranked", "--model", model, "--out", str(out), "--no-cache",
                        "--cache-dir", str(tmp_path / "cache"), "--price", "1/1", "--budget", str(budget))
    assert result.exit_code == 0, result.output
    spent = [float(x) for x in re.findall(r"spent by this command: USD ([\d.]+)", result.output)]
    stages = len(spent)
    assert stages >= 1 and len(list(out.glob("*.jsonl"))) == 23 * stages  # whole stages only
    last = spent[-1] - (spent[-2] if stages > 1 else 0.0)
    assert spent[-1] + last > budget and "would pass the budget" in result.output


def test_a_budget_needs_a_price(tmp_path):
    result = invoke("run", "--suite", "ranked", "--model", "openai:gpt-4o", "--budget", "5", "--out",
                    str(tmp_path / "x"))
    assert result.exit_code == 1 and "--budget needs the model's --price IN/OUT" in result.output
    result = invoke("run", "--suite", "ranked", "--model", "openai:gpt-4o", "--until-width", "0.1", "--dry-run")
    assert result.exit_code == 1 and "--dry-run prices stages 1..--stages instead" in result.output


def test_a_budget_too_small_for_one_stage_plays_nothing(tmp_path):
    with FakeOpenAI(legal_reply) as server:  # the model's server is checked before the stage is priced
        result = invoke("run", "--suite", "ranked", "--model", f"openai_compatible:test-model@{server.base_url}",
                        "--price", "1000/1000", "--budget", "0.5", "--out", str(tmp_path / "x"), env={})
    assert result.exit_code == 0, result.output
    assert server.calls == 0 and len(server.listings) == 1
    assert re.search(r"stopped: stage 1 \(about USD [\d,.]+ by the dry run\) would pass the budget of USD 0.50",
                     result.output)
    assert not list((tmp_path / "x").glob("*.jsonl"))


def test_a_model_with_its_settings_comes_from_a_tournament_files_agent(tmp_path):
    """`file.toml#agent`: the agent as that file sets it up (here structured outputs, which a small
    model needs to play legal moves), its row named after the agent."""
    plan = tmp_path / "agents.toml"
    with FakeOpenAI(legal_reply) as server:
        plan.write_text(f'name = "mine"\nseed = 1\n\n[agents.small-json]\nprovider = "openai_compatible"\n'
                        f'base_url = "{server.base_url}"\nmodel = "small"\nstructured_output = "json_object"\n',
                        encoding="utf-8")
        out = tmp_path / "row"
        played = invoke("run", "--suite", "ranked", "--model", f"{plan}#small-json", "--out", str(out),
                        "--cache-dir", str(tmp_path / "cache"))
        assert played.exit_code == 0, played.output
    assert "tournament ranked-1-small-json: 23 games" in played.output
    seated = {h["players"][h["suite"]["seat"]]["agent"]["name"] for h in headers(out)}
    assert seated == {"small-json"}
    assert all(h["players"][h["suite"]["seat"]]["agent"]["structured_output"] == "json_object" for h in headers(out))
    missing = invoke("run", "--suite", "ranked", "--model", f"{plan}#nope", "--dry-run")
    assert missing.exit_code != 0 and "has no language-model agent 'nope' (its models: small-json)" in missing.output
    assert "Traceback" not in missing.output

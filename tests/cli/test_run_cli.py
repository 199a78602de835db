"""`gamenight run`, `games` and `agents` through click's CliRunner."""

from __future__ import annotations

import click
from click.testing import CliRunner

import runner.run
from runner.cli import main

PD = ["--game", "prisoners_dilemma", "--lineup",
      "prisoners_dilemma/tit_for_tat,prisoners_dilemma/always_defect,random"]


def invoke(*args):
    return CliRunner().invoke(main, list(args))


def test_run_by_flags_writes_replays_and_prints_a_summary(tmp_path):
    result = invoke("run", *PD, "--games", "3", "--name", "cli", "--out", str(tmp_path))
    assert result.exit_code == 0, result.output
    assert len(list(tmp_path.glob("cli-prisoners_dilemma-*.jsonl"))) == 3
    assert "prisoners_dilemma" in result.output and "total" in result.output
    assert "prisoners_dilemma/always_defect" in result.output
    again = invoke("run", *PD, "--games", "3", "--name", "cli", "--out", str(tmp_path))
    assert again.exit_code == 0
    assert "      0       3" in again.output  # nothing played, three kept
    assert invoke("validate", str(tmp_path)).exit_code == 0


def test_a_run_counts_its_games_on_stderr_the_first_line_before_the_first_game(tmp_path, monkeypatch):
    playing = runner.run.play_planned

    async def play_planned(*args, **options):  # says in the output where each game starts
        click.echo("a game starts")
        return await playing(*args, **options)

    monkeypatch.setattr(runner.run, "play_planned", play_planned)
    result = invoke("run", *PD, "--games", "3", "--name", "counted", "--out", str(tmp_path))
    assert result.exit_code == 0, result.output
    said = result.output.splitlines()
    assert said[1:3] == ["playing: 0/3 games (0%)", "a game starts"]
    assert said.count("a game starts") == 3
    assert [line for line in result.stderr.splitlines() if line.startswith("playing")][-1].startswith(
        "playing: 3/3 games, done in ")
    again = invoke("run", *PD, "--games", "4", "--name", "counted", "--out", str(tmp_path))  # three kept, one new
    assert again.exit_code == 0, again.output
    assert [line for line in again.stderr.splitlines() if line.startswith("playing")][-1].startswith(
        "playing: 4/4 games, done in ")
    assert again.output.count("a game starts") == 1


def test_run_with_rules_and_roles(tmp_path):
    result = invoke("run", "--game", "prisoners_dilemma", "--role", "player=random", "--rule", "rounds=2",
                    "--games", "2", "--out", str(tmp_path))
    assert result.exit_code == 0, result.output
    replay = next(tmp_path.glob("*.jsonl")).read_text(encoding="utf-8")
    assert '"variant":{"rounds":2}' in replay


def test_tournament_file(tmp_path):
    plan = tmp_path / "t.toml"
    plan.write_text('name = "filed"\nseed = 3\n[agents.grim]\nbuiltin = "prisoners_dilemma/grim_trigger"\n'
                    '[[matchups]]\ngame = "prisoners_dilemma"\ngames = 2\n'
                    'lineup = ["grim", "random", "random"]\n', encoding="utf-8")
    result = invoke("run", str(plan), "--out", str(tmp_path / "out"), "--games", "4")
    assert result.exit_code == 0, result.output
    assert len(list((tmp_path / "out").glob("filed-*.jsonl"))) == 4


def test_bad_flags_give_a_clear_error_and_no_traceback(tmp_path):
    cases = [
        (["run", "--game", "chess", "--lineup", "a,b"], "unknown game 'chess'"),
        (["run", "--game", "prisoners_dilemma", "--lineup", "random,random"], "seats 3 agents"),
        (["run", "--game", "prisoners_dilemma", "--role", "player"], "expected ROLE=AGENT"),
        (["run", "--game", "prisoners_dilemma", "--lineup", "random,random,random", "--rule", "rounds"],
         "expected KEY=VALUE"),
        (["run", "--lineup", "random,random,random"], "go with --game"),
        (["run", str(tmp_path / "missing.toml")], "cannot read"),
        (["run", "--game", "prisoners_dilemma", "--lineup", "random,random,random", "--games", "0"],
         "--games"),
    ]
    for args, message in cases:
        result = invoke(*args)
        assert result.exit_code != 0, args
        assert message in result.output, (args, result.output)
        assert "Traceback" not in result.output


def test_games_and_agents_are_listed():
    games = invoke("games")
    assert games.exit_code == 0 and "prisoners_dilemma" in games.output and '"rounds": 5' in games.output
    agents = invoke("agents")
    assert agents.exit_code == 0 and "prisoners_dilemma/tit_for_tat" in agents.output and "random" in agents.output
    # The options whose default the variant leaves out are listed with their values.
    assert "option probe_schedule: before_vote | every_clue (default before_vote" in games.output
    assert "option probe_schedule: before_vote | every_round | every_clue" in games.output
    assert "option agreement: same_proposer | same_split (default same_proposer" in games.output


def test_dry_run_plays_nothing_and_counts_no_calls_for_scripted_agents(tmp_path):
    result = invoke("run", "--dry-run", "--out", str(tmp_path / "out"))
    assert result.exit_code == 0, result.output
    assert "dry run of tournament builtin: 892 games in 28 matchup(s)" in result.output
    total = next(line for line in result.output.splitlines() if line.strip().startswith("total"))
    assert total.split()[1:] == ["892", "0", "0", "0", "0.00"]
    assert not (tmp_path / "out").exists()


def test_llm_agents_in_a_file_refuse_secrets_before_anything_runs(tmp_path):
    plan = tmp_path / "t.toml"
    plan.write_text('name = "s"\n[agents.m]\nprovider = "openai"\nmodel = "gpt-4o"\napi_key = "sk-live-abcdef"\n'
                    '[[matchups]]\ngame = "prisoners_dilemma"\nlineup = ["m", "random", "random"]\n',
                    encoding="utf-8")
    for extra in ([], ["--dry-run"]):
        result = invoke("run", str(plan), "--out", str(tmp_path / "out"), *extra)
        assert result.exit_code != 0 and "agents.m.api_key" in result.output and "api_key_env" in result.output
        assert "sk-live-abcdef" not in result.output and "Traceback" not in result.output
    assert not (tmp_path / "out").exists()


def test_games_leaves_a_matchup_with_its_own_seed_at_one_game(tmp_path):
    """A matchup's own seed is one deal and one game id: --games raises the other matchups only."""
    plan = tmp_path / "t.toml"
    plan.write_text('name = "seeded"\n'
                    '[[matchups]]\ngame = "prisoners_dilemma"\nseed = 12345\nlineup = ["random", "random", "random"]\n'
                    '[[matchups]]\ngame = "public_good"\nlineup = ["random", "random", "random"]\n', encoding="utf-8")
    result = invoke("run", str(plan), "--games", "3", "--out", str(tmp_path / "out"))
    assert result.exit_code == 0, result.output
    assert "tournament seeded: 4 games" in result.output  # the seeded deal once, not three times over one id
    assert invoke("validate", str(tmp_path / "out")).exit_code == 0  # the plan written beside them reads again
    assert len(list((tmp_path / "out").glob("seeded-prisoners_dilemma-*.jsonl"))) == 1
    assert len(list((tmp_path / "out").glob("seeded-public_good-*.jsonl"))) == 3

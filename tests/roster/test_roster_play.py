"""site_builder/roster/play.py: playing the plan item by item within the budget, and what the pull
request may carry.

`gamenight verify` is not on this branch yet (helper-verify builds it): its step is tested here with
a stand-in runner that answers as its interface says (the last line `verdict: exact|consistent|
inconsistent`, exit 0, 1, or 2 when refused) and writes replays with recorded model calls; the
stages are played for real against the fake servers in tests/workflows/test_maintainers_run.py.
"""

from __future__ import annotations

import json
import subprocess
from collections.abc import Mapping, Sequence
from pathlib import Path

import pytest

from site_builder import sources
from site_builder.roster import play as roster_play
from site_builder.roster.plan import STAGE, VERIFY, Item, RosterPlan

PRICE = {"input": 1.0, "output": 1.0, "cached_input": None, "cache_write_input": None}


def replay(tokens: int, cached: bool = False) -> str:
    """A replay whose one model call used `tokens` input tokens (USD tokens/1e6 at PRICE)."""
    call = {"input_tokens": tokens, "output_tokens": 0, **({"cached": True} if cached else {})}
    return "\n".join(json.dumps(r) for r in (
        {"type": "header", "players": [{"seat": 0, "agent": {"kind": "llm", "model": "m"}}]},
        {"type": "event", "seat": 0, "evidence": {"calls": [call]}},
        {"type": "outcome", "status": "complete", "winners": [0]})) + "\n"


class StandIn:
    """Answers each command as `gamenight run` or `gamenight verify` would: writes replays into the
    item's folder and says its last line."""

    def __init__(self, answers: Mapping[str, tuple[int, str, list[int]]]):
        self.answers = answers  # the command ("run" or "verify") -> (exit status, last line, tokens per replay written)
        self.calls: list[list[str]] = []
        self.envs: list[Mapping[str, str]] = []

    def __call__(self, argv: Sequence[str], cwd: Path, env: Mapping[str, str]) -> tuple[int, str]:
        self.calls.append(list(argv))
        self.envs.append(env)
        command = argv[3]
        answer = self.answers[command]  # one answer for every call, or one per call in turn
        code, last, tokens = answer.pop(0) if isinstance(answer, list) else answer
        target = Path(argv[argv.index("--out") + 1]) if command == "run" else Path(argv[4]).with_name(
            "verify-" + Path(argv[4]).name)
        target.mkdir(parents=True, exist_ok=True)
        for n, count in enumerate(tokens):
            (target / f"g{len(self.calls)}-{n}.jsonl").write_text(replay(count), encoding="utf-8")
        return code, last


def item(kind: str, row: str, usd: float, n: int = 1, **extra) -> Item:
    return Item(kind, row, extra.pop("model", "openai:gpt-x"), "ranked-1", "OPENAI_API_KEY", PRICE, usd,
                stage=n if kind == STAGE else 0, label=row.removeprefix("ranked-1-") if kind == STAGE else "",
                deals=6 if kind == VERIFY else 0, kept=True, **extra)


def played(tmp_path: Path, budget: float, items: list[Item], answers) -> tuple[roster_play.RunResult, StandIn]:
    replays = tmp_path / "replays"
    replays.mkdir(exist_ok=True)
    stand_in = StandIn(answers)
    result = roster_play.play(RosterPlan("r", "ranked-1", budget, items), replays, runner=stand_in,
                              gamenight=("python", "-m", "runner"), environ={"PATH": "/usr/bin"})
    return result, stand_in


def test_a_verification_calls_verify_with_the_row_model_deals_and_key(tmp_path):
    result, stand_in = played(tmp_path, 1.0, [item(VERIFY, "ranked-1-bob", 0.1, model="openai:gpt-4o")],
                              {"verify": (0, "verdict: consistent (held-out 0.41, claimed 0.44; p = 0.62)", [20_000])})
    assert stand_in.calls == [["python", "-m", "runner", "verify", str(tmp_path / "replays" / "ranked-1-bob"),
                               "--model", "openai:gpt-4o", "--deals", "6", "--key-env", "OPENAI_API_KEY"]]
    outcome = result.outcomes[0]
    assert (outcome.status, outcome.games, round(outcome.cost, 6)) == ("played", 1, 0.02)
    assert outcome.said.startswith("verdict: consistent")
    assert result.files == ["replays/verify-ranked-1-bob/g1-0.jsonl"]


@pytest.mark.parametrize("code, last, status, kept", [
    (0, "verdict: exact (12 of 12 replies matched byte for byte)", "played", True),
    (1, "verdict: inconsistent (held-out 0.12, claimed 0.81; p < 0.001)", "inconsistent", True),
    (2, "Error: cannot start: the server refused the key", "refused", False),
    (0, "done", "failed", False),                 # no verdict: not a verification
    (1, "verdict: consistent", "failed", False),  # a verdict that contradicts its exit status
])
def test_a_verdict_is_read_from_the_last_line_and_the_exit_status(tmp_path, code, last, status, kept):
    result, _ = played(tmp_path, 1.0, [item(VERIFY, "ranked-1-bob", 0.1)], {"verify": (code, last, [1000])})
    assert result.outcomes[0].status == status
    assert bool(result.files) == kept  # an inconsistent verdict is evidence: it is proposed too


def test_a_stage_is_run_with_its_budget_price_and_key(tmp_path):
    result, stand_in = played(tmp_path, 1.0, [item(STAGE, "ranked-1-gpt-x", 0.3, n=2)], {"run": (0, "ok", [1000])})
    assert stand_in.calls == [["python", "-m", "runner", "run", "--suite", "ranked-1", "--model", "openai:gpt-x",
                               "--label", "gpt-x", "--stages", "2", "--out", str(tmp_path / "replays" / "ranked-1-gpt-x"),
                               "--budget", "1.000000", "--price", "1/1", "--parallel", "4", "--key-env", "OPENAI_API_KEY"]]
    assert result.outcomes[0].status == "played"
    env = stand_in.envs[0]  # the run's git user is the bot: it knows the rows the bot's merged pull requests added
    done = subprocess.run(["git", "config", "user.email"], env=dict(env), capture_output=True, text=True, check=False)
    assert done.stdout.strip() == sources.ACTIONS_BOT_EMAIL


def test_the_run_stops_before_the_budget_is_passed(tmp_path):
    """The dry run said 0.1 for the first stage; it cost 0.45, so the next (0.1) would pass 0.5."""
    items = [item(STAGE, "ranked-1-a", 0.1), item(STAGE, "ranked-1-b", 0.1), item(STAGE, "ranked-1-c", 0.04)]
    result, stand_in = played(tmp_path, 0.5, items, {"run": [(0, "ok", [450_000]), (0, "ok", [30_000])]})
    assert [o.status for o in result.outcomes] == ["played", "not played", "played"]
    assert result.outcomes[1].said == "its USD 0.10 would pass the budget (USD 0.45 spent)"
    assert "--budget" in stand_in.calls[1] and stand_in.calls[1][stand_in.calls[1].index("--budget") + 1] == "0.050000"
    assert result.spent == pytest.approx(0.48) and len(stand_in.calls) == 2


def test_a_failed_stage_is_left_out_of_the_pull_request_with_its_rows_later_stages(tmp_path):
    items = [item(STAGE, "ranked-1-a", 0.1, n=1), item(STAGE, "ranked-1-a", 0.1, n=2)]
    result, stand_in = played(tmp_path, 1.0, items, {"run": (1, "stopped: the provider failed", [1000, 1000])})
    assert [(o.status, o.said) for o in result.outcomes] == [
        ("failed", "exit 1: stopped: the provider failed"), ("not played", "an earlier stage of its row failed")]
    assert len(stand_in.calls) == 1 and result.files == []
    assert result.outcomes[0].cost == pytest.approx(0.002)  # what it spent is counted all the same


def test_calls_the_response_cache_answered_cost_nothing(tmp_path):
    folder = tmp_path / "replays" / "ranked-1-a"
    folder.mkdir(parents=True)
    (folder / "old.jsonl").write_text(replay(10**6, cached=True), encoding="utf-8")
    written = [folder / "old.jsonl"]
    assert roster_play._cost(written, item(STAGE, "ranked-1-a", 0.1)) == 0.0


def export_of(tmp_path: Path, files: dict[str, str], branch: str = "maintainers-run/2026-12-01-7") -> Path:
    folder = tmp_path / "export"
    folder.mkdir(parents=True, exist_ok=True)
    for relative, text in files.items():
        (folder / relative).parent.mkdir(parents=True, exist_ok=True)
        (folder / relative).write_text(text, encoding="utf-8")
    request = {"branch": branch, "title": "t", "body": "b", "files": list(files), "base": "main"}
    (folder / "pull-request.json").write_text(json.dumps(request), encoding="utf-8")
    return folder


@pytest.mark.parametrize("files, branch, message", [
    ({"README.md": "x"}, "maintainers-run/2026-12-01-7", "'README.md' is not a file of a replay folder"),
    ({"replays/../runner/cli.py": "x"}, "maintainers-run/2026-12-01-7", "is not a file of a replay folder"),
    ({"replays/a/b.py": "x"}, "maintainers-run/2026-12-01-7", "is not a file of a replay folder"),
    ({"replays/a/b.jsonl": "x"}, "main", "branch: 'main' is not a maintainers' run's branch"),
])
def test_the_pull_request_carries_replay_folders_only(tmp_path, files, branch, message):
    folder = export_of(tmp_path, files, branch)
    with pytest.raises(roster_play.PullRequestError, match=message.replace("(", r"\(")):
        roster_play.read_export(folder)


def test_a_link_in_the_export_is_refused(tmp_path):
    folder = export_of(tmp_path, {"replays/a/b.jsonl": "x"})
    (folder / "replays/a/b.jsonl").unlink()
    (folder / "replays/a/b.jsonl").symlink_to("/etc/passwd")
    with pytest.raises(roster_play.PullRequestError, match="missing, a link or too large"):
        roster_play.read_export(folder)


def test_the_push_reads_the_token_through_gh_for_this_command_only():
    env = roster_play.credential_environment({"GIT_CONFIG_COUNT": "1", "GIT_CONFIG_KEY_0": "a.b",
                                              "GIT_CONFIG_VALUE_0": "c", "GH_TOKEN": "t"})
    assert env["GIT_CONFIG_COUNT"] == "3" and env["GIT_CONFIG_KEY_0"] == "a.b"
    assert [env[f"GIT_CONFIG_VALUE_{n}"] for n in (1, 2)] == ["", "!gh auth git-credential"]
    assert all("t" != v for k, v in env.items() if k.startswith("GIT_CONFIG_"))  # the token is never config


def test_the_commands_say_what_is_wrong_in_one_line(tmp_path):
    from click.testing import CliRunner

    from site_builder.roster.cli import roster

    bad = CliRunner().invoke(roster, ["run", str(tmp_path / "nothing.json")])
    assert bad.exit_code == 1 and "nothing.json: not a roster plan" in bad.output and "Traceback" not in bad.output
    empty = export_of(tmp_path, {})
    said = CliRunner().invoke(roster, ["open-pull-request", str(empty), "--dry-run"])
    assert said.exit_code == 0 and said.output.strip() == "nothing to propose: no pull request is opened"
    hostile = export_of(tmp_path / "h", {"replays/../x.jsonl": "x"})
    refused = CliRunner().invoke(roster, ["branch", str(hostile), "--checkout", str(tmp_path)])
    assert refused.exit_code == 1 and "is not a file of a replay folder" in refused.output

"""The maintainers' run end to end: .github/workflows/maintainers-run.yml's own steps, job by job
(tests/workflows/actions.py plays GitHub's runner), against the fake OpenAI and Anthropic servers
(the real SDKs over real HTTP), in a repository whose main holds a row a pull request contributed.

A roster of two fake models and a budget that fits one stage of one of them and nothing else: the
plan's budget line says so, the play step writes that stage, the pull-request job commits it on a
branch of the bot's and checks it as the submission check does, and the last step (the only one that
talks to GitHub) is run dry, printing the push and the `gh pr create` it would run. Merged as GitHub
squash-merges it, the games are the maintainers'; and the next run grows the same row.
"""

from __future__ import annotations

import json
import re
import shutil
import subprocess
import time
from pathlib import Path

import pytest
import yaml
from click.testing import CliRunner

from runner.cli import main as gamenight
from site_builder import sources
from tests.llm.fakes import FakeAnthropic, FakeOpenAI
from tests.llm.test_tournament_llm import legal_reply
from tests.workflows.actions import ROOT, Runner

pytestmark = pytest.mark.skipif(shutil.which("git") is None, reason="git is not installed")

WORKFLOW = yaml.safe_load((ROOT / ".github" / "workflows" / "maintainers-run.yml").read_text(encoding="utf-8"))
#: Long enough to be masked as secrets in replays (runner/llm/redact.py), shaped like no real key.
OPENAI_KEY = "fake-openai-secret-3f9a1c77d2e04b5a"
ANTHROPIC_KEY = "fake-anthropic-secret-8b2e6d41a9c0f713"
#: Not the open epoch's secret (nobody has that but the maintainers).
HOLDOUT_SECRET = "fake-holdout-secret-7c1e9a0b4d2f6e83"
ALICE = "alice <5001+alice@users.noreply.github.com>"
MAINTAINER = "Maintainer <maintainer@example.org>"
BOT = f"{sources.ACTIONS_BOT_LOGIN} <{sources.ACTIONS_BOT_EMAIL}>"
CONTRIBUTED = "ranked-1-gemma3-270m"  # the shipped Gemma row, here as a pull request's


def git(repo: Path, *args: str, author: str | None = None) -> str:
    name, _, email = (author or MAINTAINER).partition(" <")
    env = {"GIT_AUTHOR_NAME": name, "GIT_AUTHOR_EMAIL": email.rstrip(">"), "GIT_COMMITTER_NAME": "Maintainer",
           "GIT_COMMITTER_EMAIL": "maintainer@example.org", "GIT_CONFIG_NOSYSTEM": "1", "GIT_CONFIG_GLOBAL": "/dev/null",
           "PATH": "/usr/bin:/bin"}
    done = subprocess.run(["git", "-C", str(repo), "-c", "commit.gpgsign=false", *args], capture_output=True,
                          text=True, env=env, check=True)
    return done.stdout.strip()


def commit_all(repo: Path, message: str, author: str | None = None) -> str:
    git(repo, "add", "-A")
    git(repo, "commit", "-q", "-m", message, author=author)
    return git(repo, "rev-parse", "HEAD")


def roster_text(openai_url: str, anthropic_url: str, gpt_stages: int = 1, budget: str = "0.50",
                models: bool = True) -> str:
    kept = (f'''fake-gpt = {{ model = "openai:fake-gpt@{openai_url}", key_env = "OPENAI_API_KEY", stages = {gpt_stages}, price = "1/5" }}
fake-claude = {{ model = "anthropic:fake-claude@{anthropic_url}", key_env = "ANTHROPIC_API_KEY", stages = 1, price = "1/5" }}
''' if models else "")
    return f'''suite = "ranked"
budget_usd = {budget}

[models]
{kept}
[verify]
deals = 12
[verify.models]
"openai_compatible:gemma-3-270m-q4_k_m" = {{ model = "openai_compatible:gemma-3-270m-q4_k_m@{openai_url}", key_env = "OPENAI_API_KEY", price = "50/50" }}
'''


def files_holding(root: Path, text: str) -> list[Path]:
    return [p for p in root.rglob("*") if p.is_file() and ".git" not in p.parts and text.encode() in p.read_bytes()]


def dry_last_step(step) -> str:
    """The one step that talks to GitHub runs dry here: it prints what it would run."""
    if step.name == "Open the pull request":
        return step.script + " --dry-run"
    return step.script


def installs(script: str) -> bool:
    return script.startswith("python -m pip install")  # this checkout's code runs, on PYTHONPATH


def workflow_run(root: Path, origin: Path, run_id: str) -> Runner:
    return Runner(root, origin, {"OPENAI_API_KEY": OPENAI_KEY, "ANTHROPIC_API_KEY": ANTHROPIC_KEY},
                  {"sha": git(origin, "rev-parse", "HEAD"), "run_id": run_id, "repository": "gamenight/gamenight",
                   "server_url": "https://github.com", "token": "fake-github-token-for-the-test"})


def squash_merge(origin: Path, clone: Path, branch: str, subject: str, author: str) -> None:
    """What GitHub's "Squash and merge" leaves on main: one commit of the pull request's author."""
    git(origin, "fetch", "-q", str(clone), f"{branch}:{branch}")
    git(origin, "merge", "-q", "--squash", branch)
    commit_all(origin, subject, author=author)


def main_with_a_contributed_row(origin: Path) -> Path:
    """A repository whose main holds the project and the row pull request #5 of alice added."""
    origin.mkdir()
    git(origin, "init", "-q", "-b", "main")
    (origin / "README.md").write_text("# gamenight\n", encoding="utf-8")
    commit_all(origin, "The project")
    shutil.copytree(ROOT / "replays" / CONTRIBUTED, origin / "replays" / CONTRIBUTED)
    commit_all(origin, f"Add {CONTRIBUTED} (#5)", author=ALICE)  # squash-merged pull request #5 of alice
    return origin


@pytest.fixture(scope="module")
def runs(tmp_path_factory: pytest.TempPathFactory) -> dict:
    """Two runs of the workflow: the first plays stage 1 of fake-gpt and proposes it; a maintainer
    squash-merges the pull request and asks for stage 2 in the roster; the second plays stage 2."""
    tmp_path = tmp_path_factory.mktemp("maintainers-run")
    origin = main_with_a_contributed_row(tmp_path / "origin")
    with FakeOpenAI(legal_reply, key=OPENAI_KEY) as openai, FakeAnthropic(legal_reply, key=ANTHROPIC_KEY) as claude:
        (origin / "runner").mkdir()
        roster = origin / "runner" / "roster.toml"
        roster.write_text(roster_text(openai.base_url, claude.base_url), encoding="utf-8")
        commit_all(origin, "The roster")
        started = time.monotonic()
        first = workflow_run(tmp_path / "first", origin, "4242")
        first.run_job(WORKFLOW, "play", skip=installs)
        first.run_job(WORKFLOW, "pull-request", skip=installs, before_run=dry_last_step)
        elapsed = time.monotonic() - started
        keys = ({r.headers.get("authorization") for r in (*openai.requests, *openai.listings)},
                {r.headers.get("x-api-key") for r in (*claude.requests, *claude.listings)})
        calls = (openai.calls, claude.calls)
        claude_before = claude.calls
        request = json.loads((first.root / "runners" / "play" / "temp" / "maintainers-run" / "pull-request.json")
                             .read_text(encoding="utf-8"))
        squash_merge(origin, first.checkout("pull-request"), request["branch"], f"{request['title']} (#9)", BOT)
        roster.write_text(roster_text(openai.base_url, claude.base_url, gpt_stages=2, budget="1.00"), encoding="utf-8")
        commit_all(origin, "fake-gpt: two stages; a budget of two")
        second = workflow_run(tmp_path / "second", origin, "4243")
        second.run_job(WORKFLOW, "play", skip=installs)
        claude_played = claude.calls - claude_before
    return {"claude_played": claude_played, "origin": origin, "first": first, "second": second, "request": request, "elapsed": elapsed,
            "keys": keys, "calls": calls}


def budget_line(summary: str) -> str:
    return next(line for line in summary.splitlines() if line.startswith("**USD"))


def test_the_plan_comes_first_and_fits_one_stage_of_one_model(runs):
    summary = runs["first"].summaries["play"]
    line = budget_line(summary)
    shape = re.fullmatch(r"\*\*USD (0\.\d\d) of 0\.50: 1 stage of 1 model, 0 verifications; left out: verification of "
                         r"ranked-1-gemma3-270m \(USD (\d+\.\d\d)\), stage 1 of fake-claude \(USD (0\.\d\d)\)\*\*", line)
    assert shape, line
    stage, verification, other = map(float, shape.groups())
    assert stage <= 0.50 < stage + other and 0.50 < stage + verification  # it fits, and only it
    assert summary.index("the plan") < summary.index("what was played")
    assert "| 1 | stage 1 of fake-gpt | played | 23 |" in summary
    request = runs["request"]
    print(f"\nmaintainers' run end to end: {runs['elapsed']:.1f} s; {len(request['files']) - 1} games; {line}; "
          f"branch {request['branch']}; title {request['title']!r}; {len(request['files'])} files")


def test_the_play_step_writes_that_stage_whole_and_valid(runs):
    first, request = runs["first"], runs["request"]
    assert first.outputs["play"] == {"files": "24"}
    assert len(request["files"]) == 24 and all(f.startswith("replays/ranked-1-fake-gpt/") for f in request["files"])
    assert "replays/ranked-1-fake-gpt/tournament.toml" in request["files"]
    openai_calls, claude_calls = runs["calls"]
    assert openai_calls > 23 and claude_calls == 0  # the model left out was never asked
    validated = CliRunner().invoke(gamenight, ["validate", "--quiet", str(first.checkout("pull-request") / "replays" /
                                                                         "ranked-1-fake-gpt")])
    assert validated.exit_code == 0, validated.output


def test_the_pull_request_it_would_open(runs):
    first, request = runs["first"], runs["request"]
    assert re.fullmatch(r"maintainers-run/\d{4}-\d\d-\d\d-4242", request["branch"])
    assert re.fullmatch(r"Maintainers' run \d{4}-\d\d-\d\d: 1 stage of 1 model, 0 verifications, 23 games",
                        request["title"])
    assert "[the workflow run 4242](https://github.com/gamenight/gamenight/actions/runs/4242)" in request["body"]
    assert budget_line(first.summaries["play"]) in request["body"]
    dry = first.steps[-1]
    assert dry.name == "Open the pull request" and dry.script.endswith("--dry-run")
    push, gh = (json.loads(line) for line in dry.output.strip().splitlines())
    assert push == ["git", "push", "origin", f"HEAD:refs/heads/{request['branch']}"]
    body = first.root / "runners" / "pull-request" / "temp" / "maintainers-run" / "pull-request.md"
    assert gh == ["gh", "pr", "create", "--base", "main", "--head", request["branch"], "--title", request["title"],
                  "--body-file", str(body)]
    assert body.read_text(encoding="utf-8") == request["body"] + "\n"
    work = first.checkout("pull-request")
    assert git(work, "log", "-1", "--format=%an <%ae>|%s") == f"{BOT}|{request['title']}"
    assert sorted(git(work, "diff", "--name-only", "main", "HEAD").splitlines()) == sorted(request["files"])
    # The submission check, run by the job as the bot: accepted, as the maintainers' games.
    report = first.summaries["pull-request"]
    assert "✅ accepted: 23 new replay(s)" in report and "the maintainers (their run" in report, report


def test_no_key_reaches_anything_but_the_play_step_and_the_models(runs):
    openai_keys, claude_keys = runs["keys"]
    assert openai_keys == {f"Bearer {OPENAI_KEY}"} and claude_keys <= {ANTHROPIC_KEY}
    for run in (runs["first"], runs["second"]):
        assert {s.name for s in run.steps if OPENAI_KEY in s.env.values() or ANTHROPIC_KEY in s.env.values()} == {"Play"}
        for key in (OPENAI_KEY, ANTHROPIC_KEY):
            assert not files_holding(run.root, key) and all(key not in s.output for s in run.steps)
    assert not files_holding(runs["origin"], OPENAI_KEY) and not files_holding(runs["origin"], ANTHROPIC_KEY)


def test_merged_as_github_squash_merges_it_the_games_are_the_maintainers(runs):
    origin, request = runs["origin"], runs["request"]
    merged = sources.sources([origin / f for f in request["files"] if f.endswith(".jsonl")])
    assert {s.kind for s in merged.values()} == {"maintainers"}
    theirs = sources.sources(sorted((origin / "replays" / CONTRIBUTED).glob("*.jsonl"))[:3])
    assert {(s.kind, s.author) for s in theirs.values()} == {("pull_request", "alice")}


def test_the_next_run_grows_the_row_its_merged_pull_request_added(runs):
    """Stage 1 of the model not yet on the board first, then stage 2 of the row the merged pull
    request added (the runner takes the bot's merged games as this run's own)."""
    second = runs["second"]
    line = budget_line(second.summaries["play"])
    assert re.fullmatch(r"\*\*USD 0\.\d\d of 1\.00: 2 stages of 2 models, 0 verifications; left out: verification of "
                        r"ranked-1-gemma3-270m \(USD \d+\.\d\d\)\*\*", line), line
    played = second.summaries["play"]
    assert "| 1 | stage 1 of fake-claude | played | 23 |" in played and "| 2 | stage 2 of fake-gpt | played | 23 |" in played
    assert runs["claude_played"] > 23  # through the Anthropic SDK, to the fake Anthropic server
    assert second.outputs["play"] == {"files": "48"}  # each row: 23 new games and its plan


@pytest.fixture(scope="module")
def verifying(tmp_path_factory: pytest.TempPathFactory) -> dict:
    """A run whose budget fits the pending verification of the contributed row and whose roster
    keeps no model: the play step runs `gamenight verify` on it, which without the open epoch's
    secret is refused before anything is played (never a verdict), and nothing is proposed."""
    tmp_path = tmp_path_factory.mktemp("maintainers-verify")
    origin = main_with_a_contributed_row(tmp_path / "origin")
    with FakeOpenAI(legal_reply, key=OPENAI_KEY) as openai:
        (origin / "runner").mkdir()
        text = roster_text(openai.base_url, openai.base_url, budget="50.00", models=False)  # the verification alone
        (origin / "runner" / "roster.toml").write_text(text, encoding="utf-8")
        commit_all(origin, "The roster")
        run = workflow_run(tmp_path / "run", origin, "4244")
        run.secrets = {**run.secrets, "GAMENIGHT_HOLDOUT_SECRET": HOLDOUT_SECRET}
        run.run_job(WORKFLOW, "play", skip=installs, failing="Play")  # an item refused: the job says so
        calls = openai.calls
    return {"run": run, "calls": calls}


def test_a_verification_without_the_epochs_secret_is_refused_not_judged(verifying):
    run = verifying["run"]
    summary = run.summaries["play"]
    line = budget_line(summary)
    assert re.fullmatch(r"\*\*USD \d+\.\d\d of 50\.00: 0 stages of 0 models, 1 verification; left out: nothing\*\*", line), line
    played = summary[summary.index("what was played"):]
    row = next(row for row in played.splitlines() if "verification of ranked-1-gemma3-270m" in row)
    # Refused, naming why (no open epoch in this checkout's runner/holdout.toml, or the secret is not its).
    assert "| refused: exit 2: refused: " in row and "epoch" in row and "| 0 | 0.00 |" in row, row
    assert verifying["calls"] == 0  # refused before any model call
    assert run.outputs["play"] == {"files": "0"}
    assert not files_holding(run.root, HOLDOUT_SECRET) and all(HOLDOUT_SECRET not in s.output for s in run.steps)

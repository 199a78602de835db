"""`gamenight verify`: rows played by the fake servers (the real SDKs over HTTP), verified by the
command against a server that answers as the row's model (deterministically, or honestly at
random) or as another model, and against servers that cannot be reached.

Each row lives in a git repository of its own (the held-out deals depend on a row's merge commit),
with an epoch whose commitment is committed there; `holdout.shipped` reads the lab's
runner/holdout.toml, as `gamenight validate` reads the installed package's. What would vary from
run to run is pinned (tests/pinned.py: the commits' dates, the servers' ports, the replays' clock
readings) and the fake models answer each prompt as a function of the prompt alone, so a row's
merge commit, and so its held-out deals and its verdict, are the same on every run.
"""

from __future__ import annotations

import json
import os
import random
import re
import shutil
import subprocess
import tomllib
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner

from runner import holdout
from runner.cli import main
from runner.rerun.validate import check_file
from tests import pinned
from tests.llm.fakes import FakeOpenAI, answer_text, chat_messages
from tests.llm.test_tournament_llm import legal_answer, legal_reply

SECRET = "5e" * 32
ENV = {holdout.SECRET_ENV: SECRET}
#: Where the rows' models are served when they are played, and when they are verified (another
#: port: a verification of a model on this machine ignores the port; one resumes at the same one).
ROW_PORT, VERIFY_PORT = pinned.VERIFY_CLI_PORTS


def naive_answer(messages: list[dict[str, str]]) -> dict[str, Any] | None:
    """Another model: it cooperates in the Prisoner's Dilemma and gives everything to the public good."""
    answer = legal_answer(messages)
    if answer is None:
        return None
    if answer.get("choice") == "defect":
        return {"choice": "cooperate"}
    if "contribution" in answer:
        found = re.search(r"whole number from (\d+) to (\d+)", "\n".join(m["content"] for m in messages))
        return {"contribution": int(found.group(2))} if found else answer
    return answer


def naive_reply(body: dict[str, Any], call: int) -> str:
    answer = naive_answer(chat_messages(body))
    return "Nothing to add." if answer is None else answer_text(answer)


def honest(seed: int):
    """A model that plays at random between the two ways above, call by call (an honest, noisy model).
    Each call's way is drawn from the seed and the conversation, not from the order in which the
    games played at once reach the server, so that a row is the same on every run."""

    def script(body: dict[str, Any], call: int) -> str:
        conversation = json.dumps(chat_messages(body), ensure_ascii=False, sort_keys=True)
        draw = random.Random(f"{seed}\n{conversation}").random()
        return legal_reply(body, call) if draw < 0.5 else naive_reply(body, call)
    return script


class Lab:
    """Rows of the ranked suite, each in a git repository of its own (rows/<label>/) holding the
    epoch's commitment and the row, so that a row's merge commit depends on its own games alone,
    not on which rows other tests added before it; and the epochs file the verifications read."""

    def __init__(self, root: Path, secret: str = SECRET):
        self.root = root
        self.epochs = holdout.commitment_lines(secret, 1, "2026-12-01")
        (root / "runner").mkdir()
        (root / "runner" / "holdout.toml").write_text(self.epochs)

    @staticmethod
    def git(folder: Path, *args: str) -> str:
        """git in the repository holding `folder`, as pinned.GIT_IDENTITY, dated by pinned.commit_env."""
        env = {**os.environ, **pinned.GIT_IDENTITY, **pinned.commit_env(folder)}
        return subprocess.run(["git", "-C", str(folder), "-c", "commit.gpgsign=false", *args], capture_output=True,
                              text=True, env=env, check=True).stdout.strip()

    def row(self, name: str, model: str, script, stages: int = 1) -> Path:
        """A suite row `ranked-1-<name>` played with `model` against `script` in a repository of its
        own whose first commit is the epoch's, committed (its clock readings pinned) as its merge."""
        repo = self.root / "rows" / name
        (repo / "runner").mkdir(parents=True)
        (repo / "runner" / "holdout.toml").write_text(self.epochs)
        self.git(repo, "init", "-q", "-b", "main")
        self.git(repo, "add", "-A")
        self.git(repo, "commit", "-qm", "epoch 1")
        out = self.folder(name)
        with pinned.serving(script, ROW_PORT) as server:
            result = invoke("run", "--suite", "ranked", "--model", self.model(model, server.base_url), "--label", name,
                            "--stages", str(stages), "--out", str(out), "--no-cache")
        assert result.exit_code == 0, result.output
        pinned.pin_clock_readings(out)
        self.git(repo, "add", "-A")
        self.git(repo, "commit", "-qm", f"Add ranked-1-{name} (#2)")
        return out

    def folder(self, name: str) -> Path:
        """Where `row(name, ...)` plays its row."""
        return self.root / "rows" / name / "replays" / f"ranked-1-{name}"

    def commit_of(self, row: Path) -> str:
        """The row's merge commit: the last commit that changed its folder (its plan or its games)."""
        return self.git(row, "log", "-1", "--format=%H", "--", ".")

    def model(self, model: str, url: str) -> str:
        """`model` served at `url`: a compact model, or the agent `det` of a models file there."""
        if model != "det":
            return model.format(url=url)
        path = self.root / "models.toml"
        path.write_text(f'name = "models"\n[agents.det]\nprovider = "openai_compatible"\nmodel = "det-model"\n'
                        f'base_url = "{url}"\ntemperature = 0\n')
        return f"{path}#det"


def invoke(*args: str, env: dict[str, str] | None = None):
    return CliRunner().invoke(main, list(args), env=env)


@pytest.fixture(scope="module")
def lab(tmp_path_factory: pytest.TempPathFactory):
    found = Lab(tmp_path_factory.mktemp("lab"))
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(holdout, "shipped", lambda: holdout.load(found.root / "runner" / "holdout.toml"))
        yield found


def verify(lab: Lab, row: Path, model: str, deals: int, script, *extra: str, env: dict[str, str] | None = ENV,
           port: int = VERIFY_PORT, out: Path | None = None):
    """`gamenight verify` of `row` with `model` served at `port` (0: any free one) answering by `script`."""
    with pinned.serving(script, port) if port else FakeOpenAI(script) as server:
        return invoke("verify", str(row), "--model", lab.model(model, server.base_url), "--deals", str(deals),
                      "--out", str(out or lab.root / "replays" / f"verify-{row.name}"), "--no-cache", *extra, env=env)


def last_line(result) -> str:
    return result.stdout.strip().splitlines()[-1]


def figures(line: str) -> dict[str, float]:
    """The verdict line's scores, z and p ("p < 0.001" read as its bound, 0.001)."""
    found = re.search(r"score ([\d.]+)% .* claimed ([\d.]+)% .* z ([-+\d.]+), p (?:< )?([\d.]+):", line)
    assert found, line
    return dict(zip(("held_out", "claimed", "z", "p"), map(float, found.groups())))


def assert_consistent(result, deals: int) -> None:
    """A verdict of consistent on `deals` held-out deals (its line printed: -rP shows it)."""
    assert result.exit_code == 0, result.output
    line = last_line(result)
    print(line)
    assert line.startswith(f"verdict: consistent: {deals} held-out deals"), line
    assert figures(line)["p"] >= 0.01


def test_a_deterministic_model_is_verified_exact(lab):
    row = lab.row("det", "det", legal_reply)
    result = verify(lab, row, "det", 23, legal_reply)  # another port: the same model on this machine
    assert result.exit_code == 0, result.output
    line = last_line(result)
    print(line)
    assert line.startswith("verdict: exact: 23 held-out deals"), line
    assert "23 of the row's deals played again: 23 matched reply for reply" in line
    out = lab.root / "replays" / f"verify-{row.name}"
    plan = tomllib.loads((out / "tournament.toml").read_text())
    assert plan["verify"]["row"] == "ranked-1-det" and plan["verify"]["deals"] == 23 and plan["verify"]["replays"] == 23
    assert plan["verify"]["commit"] == lab.commit_of(row)
    headers = [json.loads(p.read_text().split("\n", 1)[0]) for p in sorted(out.glob("*.jsonl"))]
    held = [h for h in headers if "held_out" in h["verify"]]
    assert len(held) == 23 and len(headers) == 46
    assert {h["verify"]["held_out"]["commitment"] for h in held} == {holdout.commitment_of(SECRET)}
    assert SECRET not in "".join(p.read_text() for p in out.iterdir())  # never in a replay or the plan
    assert SECRET not in result.output
    row_seeds = {m["seed"] for m in tomllib.loads((row / "tournament.toml").read_text())["matchups"]}
    assert not {h["seed"] for h in held} & row_seeds  # held-out deals are none of the suite's
    assert invoke("validate", str(out)).exit_code == 0


def test_a_row_committed_with_its_clock_readings_pinned_passes_the_submission_check(lab, tmp_path):
    """tests/pinned.py sets the latencies and the day of the row's replays before it is committed:
    the row is still valid, and accepted as a contributor's pull request (its epoch commit the base)."""
    from site_builder.submission.cli import submission_check

    row = lab.folder("det")
    assert invoke("validate", str(row)).exit_code == 0
    headers = [json.loads(p.read_text().split("\n", 1)[0]) for p in sorted(row.glob("*.jsonl"))]
    assert {h["provenance"]["created"] for h in headers} == {pinned.PINNED_DAY}
    summary = tmp_path / "summary.md"
    result = CliRunner().invoke(submission_check, ["HEAD~1", "HEAD", "--repo", str(row.parents[1]), "--author", "alice",
                                                   "--summary", str(summary), "--cache", str(tmp_path / "scores.sqlite")])
    assert result.exit_code == 0, result.output
    assert summary.read_text().startswith("## Replay submission check: ✅ accepted: 23 new replay(s), every check passed")


def test_the_maintainers_run_may_propose_a_verification_and_nobody_else(lab, tmp_path):
    """The maintainers' run opens its pull request as the GitHub Actions bot: the exact verification
    of the det row, whose deals played again are the row's games reply for reply, is accepted from
    it (told apart from the row's games by its claim) and refused from anyone else."""
    from site_builder.submission.cli import submission_check

    done = lab.root / "replays" / "verify-ranked-1-det"
    assert (done / "tournament.toml").is_file(), "test_a_deterministic_model_is_verified_exact runs first"
    repo = tmp_path / "repo"
    subprocess.run(["git", "clone", "-q", str(lab.folder("det").parents[1]), str(repo)], check=True)
    shutil.copytree(done, repo / "replays" / done.name)
    pinned.pin_clock_readings(repo / "replays" / done.name)
    Lab.git(repo, "add", "-A")
    Lab.git(repo, "commit", "-qm", "Maintainers' run: verification of ranked-1-det (#3)")

    def check(author: str, author_id: str) -> tuple[int, str]:
        summary = tmp_path / f"{author}.md"
        result = CliRunner().invoke(submission_check, ["HEAD~1", "HEAD", "--repo", str(repo), "--author", author,
                                                       "--author-id", author_id, "--summary", str(summary),
                                                       "--cache", str(tmp_path / "scores.sqlite")])
        return result.exit_code, summary.read_text()

    code, summary = check("github-actions[bot]", "41898282")
    assert code == 0 and summary.startswith("## Replay submission check: ✅ accepted: 46 new replay(s)"), summary
    code, summary = check("bob", "99")
    assert code == 1 and "the maintainers' verifications of suite rows" in summary and "a submission may not add one" in summary


def test_a_row_played_again_from_scratch_has_the_same_merge_commit(lab, tmp_path):
    """What the held-out deals are drawn from is the same on every run: the det row played again in
    a new lab has the same merge commit, byte for byte the same replays (tests/pinned.py)."""
    again = Lab(tmp_path)
    row = again.row("det", "det", legal_reply)
    assert again.commit_of(row) == lab.commit_of(lab.folder("det"))


def test_the_honest_model_answers_a_prompt_whatever_order_the_prompts_come_in():
    prompts = [{"model": "m", "messages": [{"role": "system", "content": f"You are Player {i}."},
                                           {"role": "user", "content": 'Reply with one line: ANSWER: {"choice": '
                                                                       '<one of "cooperate", "defect">}'}]}
               for i in range(40)]
    first = [honest(7)(body, n) for n, body in enumerate(prompts)]
    script = honest(7)
    backwards = [script(body, n) for n, body in reversed(list(enumerate(prompts)))][::-1]
    assert first == backwards and len(set(first)) == 2  # the same answers, and both ways of playing among them


#: The model the made-up row claims: served by the fake server, it plays naively.
BIG_MODEL = "openai_compatible:big-model@{url}"


def made_up_row(lab: Lab) -> Path:
    """A row of 4 stages that claims big-model, whose replies came from a sharper player (`legal_reply`)."""
    row = lab.folder("big-model")
    return row if row.is_dir() else lab.row("big-model", BIG_MODEL, legal_reply, stages=4)


# The figures of the next three tests are in docs/benchmarks.md ("Verification"): their verdict
# lines are printed (`pytest -rP -k "made_up or same_model"` shows them), the same on every run
# (the row's merge commit, which the held-out deals are drawn from, is pinned: tests/pinned.py).
# Four stages and 92 held-out deals, chosen by the power over draws of the deals
# (tests/cli/bench_verify_power.py, 8 secrets): 4 stages and 92 deals found this forgery every time
# with z from +4.12 to +5.89 (this draw: +4.69), where 2 stages and 46 deals missed it once in 8,
# too near the level's 2.58 for the deals a test happens to draw.

def test_a_made_up_row_is_found_inconsistent_by_the_model_it_claims(lab):
    result = verify(lab, made_up_row(lab), BIG_MODEL, 92, naive_reply)
    assert result.exit_code == 1, result.output
    line = last_line(result)
    print(line)
    assert line.startswith("verdict: inconsistent: 92 held-out deals"), line
    found = figures(line)
    assert found["held_out"] < found["claimed"] and found["p"] < 0.01, found
    assert "played again" not in line  # not a deterministic model: held-out deals only


def test_an_honest_row_of_the_same_model_is_found_consistent(lab):
    row = lab.row("big-model-honest", BIG_MODEL, naive_reply, stages=4)  # big-model's own games
    assert_consistent(verify(lab, row, BIG_MODEL, 92, naive_reply), 92)


def test_a_made_up_row_played_again_agrees_with_its_model_on_no_reply(lab):
    """With --exact (the server answers a prompt the same way each time), the verification also plays
    23 of the made-up row's own deals again: none of them gives the row's replies, and only some of
    the moves agree. Not exact, whatever the 23 held-out deals say (the test has little power there)."""
    out = lab.root / "exact" / "verify-ranked-1-big-model"
    result = verify(lab, made_up_row(lab), BIG_MODEL, 23, naive_reply, "--exact", out=out)
    line = last_line(result)
    print(line)
    assert result.exit_code == (1 if line.startswith("verdict: inconsistent") else 0), result.output
    assert line.startswith(("verdict: inconsistent: 23 held-out deals", "verdict: consistent: 23 held-out deals")), line
    again = re.search(r"; 23 of the row's deals played again: 0 matched reply for reply, (\d+) of (\d+) replies the "
                      r"same before the first difference, moves agreed (\d+) of (\d+)$", line)
    assert again, line
    first_same, replies, agreed, moves = map(int, again.groups())
    assert first_same < replies and 0 < agreed < moves


def test_an_honest_row_is_found_consistent(lab):
    row = lab.row("honest", "openai_compatible:honest-model@{url}", honest(1), stages=2)
    assert_consistent(verify(lab, row, "openai_compatible:honest-model@{url}", 46, honest(2)), 46)


def test_verifying_again_resumes_and_keeps_the_deals(lab):
    row = lab.folder("honest")
    out = lab.root / "replays" / "verify-ranked-1-honest"
    before = sorted(p.name for p in out.glob("*.jsonl"))
    moved = verify(lab, row, "openai_compatible:honest-model@{url}", 23, honest(3), port=0)  # another address
    assert moved.exit_code == 2 and "serve the same model there to resume it" in moved.stderr, moved.output
    result = verify(lab, row, "openai_compatible:honest-model@{url}", 23, honest(3))
    assert result.exit_code == 0, result.output
    assert sorted(p.name for p in out.glob("*.jsonl")) == before  # 46 kept: a verification never shrinks
    assert "games: 0 played now, 46 kept, 0 forfeited" in result.stdout


@pytest.mark.parametrize("model, env, message", [
    ("openai_compatible:honest-model@http://127.0.0.1:9/v1", ENV, "cannot connect"),
    ("openai_compatible:other-model@{url}", ENV, "--model is not the row's model: the row plays model 'honest-model'"),
    ("openai_compatible:honest-model@{url}", {}, f"environment variable {holdout.SECRET_ENV} is not set"),
    ("openai_compatible:honest-model@{url}", {holdout.SECRET_ENV: "ab" * 32},
     f"the secret in {holdout.SECRET_ENV} is not epoch 1's"),
], ids=["unreachable", "another model", "no secret", "wrong secret"])
def test_no_verdict_when_the_model_or_the_secret_is_not_there(lab, model, env, message):
    row = lab.folder("honest")
    out = lab.root / "refused" / "verify-ranked-1-honest"
    result = verify(lab, row, model, 23, honest(4), env=env, out=out)
    assert result.exit_code == 2, result.output
    assert "verdict:" not in result.stdout
    assert result.stderr.startswith("refused: ") and message in result.stderr, result.stderr
    assert len(result.stderr.strip().splitlines()) == 1
    assert not out.exists()  # nothing is written before the model and the secret are checked


def test_a_key_the_server_refuses_is_a_refusal_naming_its_variable(lab):
    row = lab.folder("honest")
    with FakeOpenAI(honest(5), key="sk-good-0123456789abcdef") as server:
        result = invoke("verify", str(row), "--model", f"openai_compatible:honest-model@{server.base_url}",
                        "--deals", "23", "--key-env", "VERIFY_KEY", "--out", str(lab.root / "scratch"),
                        env={**ENV, "VERIFY_KEY": "sk-bad-0123456789abcdef"})
    assert result.exit_code == 2 and "VERIFY_KEY" in result.stderr and "verdict:" not in result.stdout
    assert not (lab.root / "scratch").exists()


def test_the_dry_run_prices_the_deals_without_key_or_secret(lab):
    row = lab.folder("det")
    result = invoke("verify", str(row), "--model", lab.model("det", "http://127.0.0.1:9/v1"), "--deals", "23", "--dry-run",
                    "--out", str(lab.root / "dry"), "--price", "1/2", env={})
    assert result.exit_code == 0, result.output
    assert "23 held-out deals and 23 of the row's deals played again" in result.stdout
    total = re.search(r"^total\s+46\s+([\d,]+)\s+([\d,]+)\s+([\d,]+)\s+([\d.,]+)$", result.stdout, re.MULTILINE)
    assert total and float(total.group(4).replace(",", "")) > 0, result.stdout
    assert not (lab.root / "dry").exists()


def test_a_row_that_is_not_a_suite_row_is_refused(lab, tmp_path):
    (tmp_path / "tournament.toml").write_text("name = 'x'\n[[matchups]]\ngame = 'chameleon'\n"
                                              "lineup = ['random', 'random', 'random', 'random']\n")
    result = invoke("verify", str(tmp_path), "--model", "openai:gpt-4o", "--deals", "1", env=ENV)
    assert result.exit_code == 2 and "not a suite's row" in result.stderr


def test_the_commitment_is_checked_once_the_secret_is_published(lab, monkeypatch):
    """Rotation: epoch 1's secret is published and epoch 2 opened; every held-out seed of epoch 1
    is derived again, and a verification dealt from another secret under epoch 1's commitment is
    refused for every held-out deal."""
    out = lab.root / "replays" / "verify-ranked-1-det"
    published = lab.root / "published.toml"
    published.write_text(f"[[epochs]]\nepoch = 1\ncommitment = \"{holdout.commitment_of(SECRET)}\"\nsince = 2026-12-01\n"
                         f"secret = \"{SECRET}\"\n\n" + holdout.commitment_lines("c3" * 32, 2, "2027-01-01"))
    monkeypatch.setattr(holdout, "shipped", lambda: holdout.load(published))
    assert invoke("validate", str(out)).exit_code == 0  # the honest seeds: every one derived again
    files = sorted(out.glob("*.jsonl"))
    assert all(check_file(p).ok for p in files)
    # A forger who deals "held-out" deals from a secret of their own, under epoch 1's commitment.
    forged = _forged_verification(lab, lab.folder("det"), lab.root / "forged")
    result = invoke("validate", str(forged / "verify-ranked-1-det"))
    assert result.exit_code == 1
    assert "matchups[0].seed: held-out werewolf deal 0 of ranked-1-det in epoch 1 is dealt with seed" in result.output
    single = next(p for p in sorted((forged / "verify-ranked-1-det").glob("*.jsonl"))
                  if "held_out" in json.loads(p.read_text().split("\n", 1)[0])["verify"])
    alone = check_file(single)  # without its plan: the header's claim is checked
    assert not alone.ok and any(p.field == "seed" and "HMAC of the epoch's published secret" in p.message
                                for p in alone.problems), [str(p) for p in alone.problems]


def _forged_verification(lab: Lab, row: Path, where: Path) -> Path:
    """A verification of `row` whose held-out seeds come from another secret, played by the runner."""
    import asyncio

    from runner import suite as suites
    from runner import verify as verifying
    from runner.rerun.plans import read_plan
    from runner.run import run

    plan = read_plan(str(row / "tournament.toml"), row.name, (row / "tournament.toml").read_bytes()).tournament
    suite = suites.shipped("ranked", 1)
    agent = verifying.candidate_of(plan)
    epoch = holdout.Epoch(1, holdout.commitment_of(SECRET), "2026-12-01")
    commit = lab.commit_of(row)
    tournament = verifying.tournament_for(suite, plan, agent, epoch=epoch, commit=commit, secret="77" * 32, deals=6,
                                          replays=0)
    with FakeOpenAI(legal_reply) as server:
        spec = {**agent.spec, "base_url": server.base_url}
        tournament = verifying.tournament_for(suite, plan, type(agent)(agent.name, spec), epoch=epoch, commit=commit,
                                              secret="77" * 32, deals=6, replays=0)
        summary = asyncio.run(run(tournament, where / tournament.name, 2))
    assert summary.ok
    return where

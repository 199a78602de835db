"""`gamenight verify`: rows played by the fake servers (the real SDKs over HTTP), verified by the
command against a server that answers as the row's model (deterministically, or honestly at
random) or as another model, and against servers that cannot be reached.

The rows live in a git repository of the test's own (the held-out deals depend on a row's merge
commit), with an epoch whose commitment is committed there; `holdout.shipped` reads that
repository's runner/holdout.toml, as `gamenight validate` reads the installed package's.
"""

from __future__ import annotations

import json
import random
import re
import socket
import subprocess
import tomllib
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner

from runner import holdout
from runner.cli import main
from runner.rerun.validate import check_file
from tests.llm.fakes import FakeOpenAI, answer_text, chat_messages
from tests.llm.test_tournament_llm import legal_answer, legal_reply

SECRET = "5e" * 32
ENV = {holdout.SECRET_ENV: SECRET}


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
    """A model that plays at random between the two ways above, call by call (an honest, noisy model)."""
    rng = random.Random(seed)

    def script(body: dict[str, Any], call: int) -> str:
        return legal_reply(body, call) if rng.random() < 0.5 else naive_reply(body, call)
    return script


class Lab:
    """A git repository with an epoch committed and rows added to it."""

    def __init__(self, root: Path, secret: str = SECRET):
        self.root = root
        self.git("init", "-q", "-b", "main")
        self.git("config", "user.email", "maintainers@example.org")
        self.git("config", "user.name", "maintainers")
        (root / "runner").mkdir()
        (root / "runner" / "holdout.toml").write_text(holdout.commitment_lines(secret, 1, "2026-12-01"))
        self.git("add", "-A")
        self.git("commit", "-qm", "epoch 1")

    def git(self, *args: str) -> str:
        return subprocess.run(["git", "-C", str(self.root), *args], capture_output=True, text=True,
                              check=True).stdout.strip()

    def row(self, name: str, model: str, script, stages: int = 1) -> Path:
        """A suite row `ranked-1-<name>` played with `model` against `script`, committed as its merge."""
        out = self.root / "replays" / f"ranked-1-{name}"
        with FakeOpenAI(script) as server:
            result = invoke("run", "--suite", "ranked", "--model", self.model(model, server.base_url), "--label", name,
                            "--stages", str(stages), "--out", str(out), "--no-cache")
        assert result.exit_code == 0, result.output
        self.git("add", "-A")
        self.git("commit", "-qm", f"Add ranked-1-{name} (#{len(self.git('log', '--format=%H').split())})")
        return out

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


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


#: Where the honest model is served when its row is verified (a verification resumes at the same address).
HONEST_PORT = free_port()


def verify(lab: Lab, row: Path, model: str, deals: int, script, *extra: str, env: dict[str, str] | None = ENV,
           port: int = 0, out: Path | None = None):
    with FakeOpenAI(script, port=port) as server:
        return invoke("verify", str(row), "--model", lab.model(model, server.base_url), "--deals", str(deals),
                      "--out", str(out or lab.root / "replays" / f"verify-{row.name}"), "--no-cache", *extra, env=env)


def last_line(result) -> str:
    return result.stdout.strip().splitlines()[-1]


def figures(line: str) -> dict[str, float]:
    found = re.search(r"score ([\d.]+)% .* claimed ([\d.]+)% .* z ([-+\d.]+), p ([\d.]+)", line)
    assert found, line
    return dict(zip(("held_out", "claimed", "z", "p"), map(float, found.groups())))


def test_a_deterministic_model_is_verified_exact(lab):
    row = lab.row("det", "det", legal_reply)
    result = verify(lab, row, "det", 23, legal_reply)  # another port: the same model on this machine
    assert result.exit_code == 0, result.output
    line = last_line(result)
    assert line.startswith("verdict: exact: 23 held-out deals"), line
    assert "23 of the row's deals played again: 23 matched reply for reply" in line
    out = lab.root / "replays" / f"verify-{row.name}"
    plan = tomllib.loads((out / "tournament.toml").read_text())
    assert plan["verify"]["row"] == "ranked-1-det" and plan["verify"]["deals"] == 23 and plan["verify"]["replays"] == 23
    assert plan["verify"]["commit"] == lab.git("log", "-1", "--format=%H", "--", f"replays/{row.name}/tournament.toml")
    headers = [json.loads(p.read_text().split("\n", 1)[0]) for p in sorted(out.glob("*.jsonl"))]
    held = [h for h in headers if "held_out" in h["verify"]]
    assert len(held) == 23 and len(headers) == 46
    assert {h["verify"]["held_out"]["commitment"] for h in held} == {holdout.commitment_of(SECRET)}
    assert SECRET not in "".join(p.read_text() for p in out.iterdir())  # never in a replay or the plan
    assert SECRET not in result.output
    row_seeds = {m["seed"] for m in tomllib.loads((row / "tournament.toml").read_text())["matchups"]}
    assert not {h["seed"] for h in held} & row_seeds  # held-out deals are none of the suite's
    assert invoke("validate", str(out)).exit_code == 0


#: The model the made-up row claims: served by the fake server, it plays naively.
BIG_MODEL = "openai_compatible:big-model@{url}"


def made_up_row(lab: Lab) -> Path:
    """A row of 4 stages that claims big-model, whose replies came from a sharper player (`legal_reply`)."""
    row = lab.root / "replays" / "ranked-1-big-model"
    return row if row.is_dir() else lab.row("big-model", BIG_MODEL, legal_reply, stages=4)


# The figures of the next three tests are in docs/benchmarks.md ("Verification"): their verdict
# lines are printed (`pytest -rP -k "made_up or same_model"` shows them). Four stages and 92
# held-out deals: against a row of 2 stages, 46 held-out deals found this forgery with z from 2.9 to
# 3.9 in seven runs (the deals differ with the row's merge commit), too near the level's 2.58 for a
# test that must not fail by chance; here z ran from 4.6 to 5.9.

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
    result = verify(lab, row, BIG_MODEL, 92, naive_reply)
    assert result.exit_code == 0, result.output
    line = last_line(result)
    print(line)
    assert line.startswith("verdict: consistent: 92 held-out deals"), line
    assert figures(line)["p"] >= 0.01


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
    result = verify(lab, row, "openai_compatible:honest-model@{url}", 46, honest(2), port=HONEST_PORT)
    assert result.exit_code == 0, result.output
    line = last_line(result)
    assert line.startswith("verdict: consistent: 46 held-out deals"), line
    assert figures(line)["p"] >= 0.01


def test_verifying_again_resumes_and_keeps_the_deals(lab):
    row = lab.root / "replays" / "ranked-1-honest"
    out = lab.root / "replays" / "verify-ranked-1-honest"
    before = sorted(p.name for p in out.glob("*.jsonl"))
    moved = verify(lab, row, "openai_compatible:honest-model@{url}", 23, honest(3))
    assert moved.exit_code == 2 and "serve the same model there to resume it" in moved.stderr, moved.output
    result = verify(lab, row, "openai_compatible:honest-model@{url}", 23, honest(3), port=HONEST_PORT)
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
    row = lab.root / "replays" / "ranked-1-honest"
    out = lab.root / "refused" / "verify-ranked-1-honest"
    result = verify(lab, row, model, 23, honest(4), env=env, out=out)
    assert result.exit_code == 2, result.output
    assert "verdict:" not in result.stdout
    assert result.stderr.startswith("refused: ") and message in result.stderr, result.stderr
    assert len(result.stderr.strip().splitlines()) == 1
    assert not out.exists()  # nothing is written before the model and the secret are checked


def test_a_key_the_server_refuses_is_a_refusal_naming_its_variable(lab):
    row = lab.root / "replays" / "ranked-1-honest"
    with FakeOpenAI(honest(5), key="sk-good-0123456789abcdef") as server:
        result = invoke("verify", str(row), "--model", f"openai_compatible:honest-model@{server.base_url}",
                        "--deals", "23", "--key-env", "VERIFY_KEY", "--out", str(lab.root / "scratch"),
                        env={**ENV, "VERIFY_KEY": "sk-bad-0123456789abcdef"})
    assert result.exit_code == 2 and "VERIFY_KEY" in result.stderr and "verdict:" not in result.stdout
    assert not (lab.root / "scratch").exists()


def test_the_dry_run_prices_the_deals_without_key_or_secret(lab):
    row = lab.root / "replays" / "ranked-1-det"
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
    forged = _forged_verification(lab, lab.root / "replays" / "ranked-1-det", lab.root / "forged")
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
    commit = lab.git("log", "-1", "--format=%H", "--", f"replays/{row.name}/tournament.toml")
    tournament = verifying.tournament_for(suite, plan, agent, epoch=epoch, commit=commit, secret="77" * 32, deals=6,
                                          replays=0)
    with FakeOpenAI(legal_reply) as server:
        spec = {**agent.spec, "base_url": server.base_url}
        tournament = verifying.tournament_for(suite, plan, type(agent)(agent.name, spec), epoch=epoch, commit=commit,
                                              secret="77" * 32, deals=6, replays=0)
        summary = asyncio.run(run(tournament, where / tournament.name, 2))
    assert summary.ok
    return where

"""A repository whose ranked board has the maintainers' rows and three contributed rows, one
verified exact, one inconsistent with its verification and one self-reported, every game played
through `gamenight run --suite ranked` and `gamenight verify` against the fake OpenAI server (the
real SDK over HTTP), for the tests of how the board shows a row's status.

- **small-model** (@alice, 1 stage): a model that answers the same prompt the same way, with
  temperature 0 on this machine; the maintainers verify it on 23 held-out deals and 23 of its own
  deals played again, which it answers reply for reply: **verified exact**.
- **famous-model** (@bob, 4 stages): made up. Its replies came from a sharper player than the model
  it names, which plays naively when the maintainers play it on 92 held-out deals:
  **inconsistent** (a gap of about 25 points, z above 4 on these many deals), and none of its
  deals played again gives the row's replies.
- **new-model** (@carol, 1 stage): the sharper player under its own name, not verified yet:
  **self-reported**.

The held-out deals need an epoch committed in the repository's runner/holdout.toml (its secret:
SECRET) and read as the installed package's (`holdout.shipped`, patched by the caller). They are
drawn from each row's merge commit, so what would vary from run to run is pinned
(tests/pinned.py): every commit's date, the fake server's port, the replays' clock readings; the
fake models answer a prompt as a function of the prompt alone. The repository, and so every
verdict, is the same on every run.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from click.testing import CliRunner

from runner import holdout
from runner.cli import main as gamenight
from tests import pinned
from tests.cli.test_verify_cli import naive_reply
from tests.llm.test_tournament_llm import legal_reply
from tests.submission.submission_repos import GitRepo
from tests.submission.suite_corpus import maintainers_corpus

SECRET = "4b" * 32
#: Each contributed row: (label, model, its owner's squash-merge author, stages).
VERIFIED = ("small-model", "small-model", "alice <1234+alice@users.noreply.github.com>", 1)
INCONSISTENT = ("famous-model", "famous-model", "bob <2345+bob@users.noreply.github.com>", 4)
SELF_REPORTED = ("new-model", "new-model", "carol <3456+carol@users.noreply.github.com>", 1)
#: Held-out deals the maintainers play for each verified row (a stage's worth, and four).
DEALS = {"small-model": 23, "famous-model": 92}


def row_name(label: str) -> str:
    return f"ranked-1-{label}"


def models_file(folder: Path, url: str) -> Path:
    """The agents of the rows: each model served at `url` with temperature 0 (the verified and the
    made-up row's models, which a verification plays again exactly) or at the provider's default."""
    path = folder / "models.toml"
    path.write_text('name = "models"\n'
                    + "".join(f'[agents.{m}]\nprovider = "openai_compatible"\nmodel = "{m}"\nbase_url = "{url}"\n'
                              + ("temperature = 0\n" if m != SELF_REPORTED[1] else "")
                              for m in (VERIFIED[1], INCONSISTENT[1], SELF_REPORTED[1])), encoding="utf-8")
    return path


def invoke(*args: str, env: dict[str, str] | None = None):
    return CliRunner().invoke(gamenight, list(args), env=env)


def play_row(repo: GitRepo, work: Path, label: str, model: str, stages: int, script) -> Path:
    """The row `ranked-1-<label>`, `stages` stages of `model` answered by `script`."""
    out = repo.path / "replays" / row_name(label)
    with pinned.serving(script, pinned.RANKED_STATUSES_PORT) as server:
        played = invoke("run", "--suite", "ranked", "--model", f"{models_file(work, server.base_url)}#{model}",
                        "--label", label, "--stages", str(stages), "--out", str(out), "--no-cache")
    assert played.exit_code == 0, played.output
    pinned.pin_clock_readings(out)
    return out


def verify_row(repo: GitRepo, work: Path, label: str, model: str, script) -> str:
    """`gamenight verify` of the row with its model answered by `script`; its stdout."""
    row = repo.path / "replays" / row_name(label)
    out = repo.path / "replays" / f"verify-{row.name}"
    with pinned.serving(script, pinned.RANKED_STATUSES_PORT) as server:
        done = invoke("verify", str(row), "--model", f"{models_file(work, server.base_url)}#{model}",
                      "--deals", str(DEALS[label]), "--out", str(out), "--no-cache", env={holdout.SECRET_ENV: SECRET})
    assert done.exit_code in (0, 1), done.output  # a verdict (1: inconsistent), never a refusal
    pinned.pin_clock_readings(out)
    return done.stdout


def build_repository(root: Path, monkeypatch: pytest.MonkeyPatch) -> tuple[GitRepo, dict[str, str]]:
    """The repository (root/repo) and each verification's output by row label. Its history: the
    maintainers' corpus and the epoch, each contributed row squash-merged from its owner's pull
    request, then the maintainers' verifications as their own commit. `holdout.shipped` reads the
    repository's epochs from then on (as `gamenight validate` reads the installed package's):
    `monkeypatch` undoes it."""
    work = root / "work"
    work.mkdir(parents=True)
    repo = GitRepo(root / "repo", cache=root / "scores.sqlite", pinned_dates=True)
    repo.write("README.md", "# gamenight\n")
    repo.write(holdout.EPOCHS_PATH, holdout.commitment_lines(SECRET, 1, "2026-12-01"))
    repo.write_all(maintainers_corpus())
    repo.commit("base and epoch 1")
    monkeypatch.setattr(holdout, "shipped", lambda: holdout.load(repo.path / holdout.EPOCHS_PATH))
    for number, (label, model, author, stages) in enumerate((VERIFIED, INCONSISTENT, SELF_REPORTED), start=10):
        play_row(repo, work, label, model, stages, legal_reply)
        repo.commit(f"Add {label} to the ranked board (#{number})", author=author)
    found = {VERIFIED[0]: verify_row(repo, work, VERIFIED[0], VERIFIED[1], legal_reply),
             INCONSISTENT[0]: verify_row(repo, work, INCONSISTENT[0], INCONSISTENT[1], naive_reply)}
    repo.commit("Verify small-model and famous-model")  # a pushed commit: the maintainers' (sources.py)
    return repo, found


"""A release page names each game's leaders from the maintainers' rows, as the home page does
(issue 41): a made-up row merged from a pull request is placed in the rating tables by its
rating, but no check proves that a submitted model played its games, so it never leads."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest

from site_builder import releases
from site_builder.scoring import board, owners
from site_builder.scoring.corpus import load
from tests.scoring.test_board import MAINTAINERS, attack, sample

pytestmark = pytest.mark.skipif(shutil.which("git") is None, reason="git is not installed")

MAINTAINER = ("Maintainer", "m@example.org")
MALLORY = ("Mallory", "7+mallory@users.noreply.github.com")  # a squash merge of her pull request


def git(repo: Path, *args: str, who: tuple[str, str] = MAINTAINER) -> None:
    env = {"GIT_AUTHOR_NAME": who[0], "GIT_AUTHOR_EMAIL": who[1], "GIT_COMMITTER_NAME": "Maintainer",
           "GIT_COMMITTER_EMAIL": "m@example.org", "GIT_AUTHOR_DATE": "2026-11-20T10:00:00+00:00",
           "GIT_COMMITTER_DATE": "2026-11-20T10:00:00+00:00", "HOME": str(repo), "GIT_CONFIG_NOSYSTEM": "1",
           "PATH": "/usr/bin:/bin:/usr/local/bin"}
    subprocess.run(["git", "-C", str(repo), *args], check=True, capture_output=True, env=env)


def add(repo: Path, files: list[Path], root: Path) -> None:
    for f in files:
        target = repo / "replays" / f.relative_to(root)
        target.parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(f, target)


@pytest.fixture(scope="module")
def released(tmp_path_factory: pytest.TempPathFactory) -> tuple[dict, list[Path]]:
    """main: the maintainers' sample, then Mallory's made-up games squash-merged (#7), tagged v1."""
    root = tmp_path_factory.mktemp("release-leaders")
    repo = root / "repo"
    (repo / "replays").mkdir(parents=True)
    git(repo, "init", "-q", "-b", "main")
    shipped = sample()
    add(repo, shipped, shipped[0].parents[1])
    git(repo, "add", "-A")
    git(repo, "commit", "-q", "-m", "The maintainers' games")
    made = attack(root / "made")
    add(repo, made, root / "made")
    git(repo, "add", "-A")
    git(repo, "commit", "-q", "-m", "Add Mallory's tournaments (#7)", who=MALLORY)
    git(repo, "tag", "-a", "v1", "-m", "Version one")
    found = releases.snapshots([repo / "replays"], cache_path=None, seed=7, derive=False)
    [snapshot] = found["releases"]
    return snapshot, made


def test_the_made_up_rows_would_lead_a_game_if_every_row_counted(released):
    """The attack is real: among every row of the rating tables, Mallory's take some game's top three."""
    snapshot, made = released
    assert snapshot["games"] > len(made)
    files = [str(p) for p in sample()] + [str(p) for p in made]
    owner_of = {**{str(p): MAINTAINERS for p in sample()},
                **{str(p): owners.Owner("7", "@mallory", "2026-11-20") for p in made}}
    corpus = owners.separate(load(files, derive=False, owner_of={p: o.id for p, o in owner_of.items()}), owner_of)
    rated = board.rating_board(corpus, {o.id: o.label for o in owner_of.values()}, seed=7, resamples=0)
    tops = [r for table in rated["ratings"]["by_game"].values() for r in table["agents"][:releases.LEADERS]]
    assert any(releases._contributed(r) for r in tops)


def test_a_release_names_its_leaders_from_the_maintainers_rows_only(released):
    snapshot, _ = released
    leaders = [r for rows in snapshot["leaders"].values() for r in rows]
    assert leaders and not [r for r in leaders if releases._contributed(r)]
    assert all(len(rows) <= releases.LEADERS for rows in snapshot["leaders"].values())
    mallorys = [r for r in snapshot["ranked"] if r.get("owner")]
    assert all(r["owner"]["label"] == "@mallory" for r in mallorys)  # her rows stay hers where they are shown

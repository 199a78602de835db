"""The site builder's `score` and `build` commands through click's CliRunner (not a terminal): their
progress in plain lines on stderr, the first before any replay is read, the counts those of the
files, merges, pages and games."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import types
from pathlib import Path

import click
import pytest
from click.testing import CliRunner

from runner.cli import main as gamenight
from site_builder import build
from site_builder.scoring import corpus


def test_score_says_its_progress_before_the_work_with_the_counts_of_the_files(tmp_path, monkeypatch):
    replays = tmp_path / "replays"
    played = CliRunner().invoke(gamenight, ["run", "--game", "prisoners_dilemma", "--lineup", "random,random,random",
                                            "--games", "4", "--name", "scored", "--out", str(replays)])
    assert played.exit_code == 0, played.output
    loading = corpus.load

    def load(*args, **options):  # says in the output where the replays start to be read
        click.echo("loading the corpus")
        return loading(*args, **options)

    monkeypatch.setattr(corpus, "load", load)
    args = ["score", str(replays), "--out", str(tmp_path / "results.json"), "--cache", str(tmp_path / "c.sqlite")]
    for run in ("cold", "warm"):  # re-simulated, then answered by the cache: the same counts
        result = CliRunner().invoke(gamenight, args)
        assert result.exit_code == 0, result.output
        said = result.output.splitlines()
        assert said[:2] == ["checking replays: 0/4 replays (0%)", "loading the corpus"], run
        progress = result.stderr.splitlines()
        assert progress[0] == "checking replays: 0/4 replays (0%)"
        assert progress[1].startswith("checking replays: 4/4 replays, done in "), run
        assert progress[2] == "scoring the boards ..."
        assert said[-2].startswith("scored 4 game(s) from 4 file(s) (" + ("4" if run == "cold" else "0") + " re-simulated")


def git(repo: Path, *args: str) -> None:
    env = {**os.environ, "GIT_AUTHOR_NAME": "t", "GIT_AUTHOR_EMAIL": "t@example.org", "GIT_COMMITTER_NAME": "t",
           "GIT_COMMITTER_EMAIL": "t@example.org", "GIT_CONFIG_NOSYSTEM": "1", "GIT_CONFIG_GLOBAL": os.devnull}
    subprocess.run(["git", "-C", str(repo), "-c", "commit.gpgsign=false", *args], check=True, capture_output=True,
                   env=env)


@pytest.mark.skipif(shutil.which("git") is None, reason="git is not installed")
def test_build_says_each_phase_with_the_replays_merges_pages_and_games_counted(tmp_path, monkeypatch):
    repo = tmp_path / "repo"
    replays = repo / "replays"
    played = CliRunner().invoke(gamenight, ["run", "--game", "prisoners_dilemma", "--lineup", "random,random,random",
                                            "--games", "3", "--name", "built", "--out", str(replays)])
    assert played.exit_code == 0, played.output
    git(repo, "init", "-q", "-b", "main")
    git(repo, "add", "-A")
    git(repo, "commit", "-q", "-m", "three games")  # one merge of replays: a point of the board over time
    building = build.build_site

    def build_site(*args, **options):  # says in the output where the build starts
        click.echo("the build starts")
        return building(*args, **options)

    class Importing(types.ModuleType):  # says in the output where the builder is imported
        def __getattr__(self, name: str):
            if name.startswith("__"):
                raise AttributeError(name)  # the import system's own questions (__path__)
            click.echo(f"importing {name}")
            return getattr(build, name)

    monkeypatch.setattr(build, "build_site", build_site)
    monkeypatch.setitem(sys.modules, "site_builder.build", Importing("site_builder.build"))
    monkeypatch.chdir(repo)
    site, cache = tmp_path / "site", tmp_path / "c.sqlite"
    result = CliRunner().invoke(gamenight, ["build", "replays", "--site", str(site), "--cache", str(cache)])
    assert result.exit_code == 0, result.output
    first = f"building the site into {site} from the replays under replays (cache {cache})"
    loading = "loading the site builder and the scorer ..."
    # said before the import (seconds of numpy, scipy and the embedder in a fresh process) and the build
    assert result.output.splitlines()[:3] == [first, loading, "importing BuildError"]
    assert "the build starts" in result.output.splitlines()
    pages = len(list((site).rglob("index.html")))
    said = result.stderr.splitlines()
    ended = [line for line in said if ", done in " in line or ": done in " in line]
    assert [line for line in said if line not in ended] == [
        first,
        loading,
        "reading where each replay came from (git) ...",
        "checking replays: 0/3 replays (0%)",
        "scoring the boards ...",
        "scoring the board at each merge: 0/1 merges (0%)",
        "scoring the releases ...",
        "rendering the pages ...",
        f"writing pages (mkdocs build): 0/{pages} pages (0%)",
        "writing the replay viewer's data: 0/3 games (0%)",
    ], result.stderr
    for done in ("checking replays: 3/3 replays", "scoring the board at each merge: 1/1 merges",
                 f"writing pages (mkdocs build): {pages}/{pages} pages", "writing the replay viewer's data: 3/3 games"):
        assert any(line.startswith(done + ", done in ") for line in ended), (done, result.stderr)
    assert result.stdout.splitlines()[-1].startswith(f"built {pages} page(s) and ")

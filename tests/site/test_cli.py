"""The site builder's `score` command through click's CliRunner (not a terminal): its progress in
plain lines on stderr, the first before any replay is read, the counts those of the files."""

from __future__ import annotations

import click
from click.testing import CliRunner

from runner.cli import main as gamenight
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

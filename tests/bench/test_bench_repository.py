"""The repository-size benchmark: a corpus committed in pull-request-sized folders, then packed."""

from __future__ import annotations

import json
import shutil
import subprocess
from pathlib import Path

from site_builder.bench import repository as bench_repository

BUILTIN = Path(__file__).resolve().parents[2] / "replays" / "builtin"


def test_the_corpus_is_committed_in_folders_of_one_kind_and_its_pack_measured(tmp_path, capsys):
    bots = tmp_path / "bots"
    bots.mkdir()
    for path in sorted(BUILTIN.glob("*.jsonl"))[:40]:
        shutil.copy(path, bots)
    shutil.copy(BUILTIN / "tournament.toml", bots)
    assert bench_repository.main(["--corpus", str(bots), "--per-commit", "8", "--keep", str(tmp_path / "k")]) == 0
    figures = json.loads(capsys.readouterr().out.splitlines()[0])
    assert (figures["games"], figures["model_games"], figures["bot_games"]) == (40, 20, 20)
    assert figures["commits"] == 6  # 20 model games in folders of 8, and 20 bot games: 3 + 3
    assert 0 < figures["packed_bytes"] < figures["tree_bytes"]
    repo = tmp_path / "k" / "repository"
    folders = subprocess.run(["git", "-C", str(repo), "ls-tree", "--name-only", "HEAD", "replays/"],
                             capture_output=True, text=True, check=True).stdout.split()
    assert len(folders) == 6
    for folder in folders:  # one kind per folder, each with the plan beside its games
        names = sorted(p.name for p in (repo / folder).iterdir())
        assert "tournament.toml" in names
        kinds = {bench_repository.is_model_game(repo / folder / n) for n in names if n.endswith(".jsonl")}
        assert len(kinds) == 1

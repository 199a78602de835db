"""The history benchmark commits a corpus as merges and builds it cold and from the kept points:
the two sites are the same, file for file."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

from site_builder.bench import history

SHIPPED = Path(__file__).resolve().parents[2] / "replays" / "builtin"


def small_corpus(folder: Path, games: int = 24) -> Path:
    folder.mkdir(parents=True)
    for path in sorted(SHIPPED.glob("*.jsonl"))[:games]:
        shutil.copy(path, folder / path.name)
    return folder


def test_a_corpus_is_committed_as_that_many_merges_one_a_day(tmp_path):
    repo = tmp_path / "repo"
    repo.mkdir()
    assert history.commit_as_merges(small_corpus(tmp_path / "corpus", 10), repo, 4) == 4
    dates = subprocess.run(["git", "-C", str(repo), "log", "--first-parent", "--format=%cI"], capture_output=True,
                           text=True, check=True).stdout.split()
    assert dates == [f"2026-01-0{d}T00:00:00Z" for d in (4, 3, 2, 1)] or dates == [
        f"2026-01-0{d}T00:00:00+00:00" for d in (4, 3, 2, 1)]
    assert len(list((repo / "replays").glob("*.jsonl"))) == 10


def test_the_build_from_kept_points_is_the_cold_build_file_for_file(tmp_path):
    rows = history.measure(small_corpus(tmp_path / "corpus"), 3, tmp_path)
    cold, kept = rows
    assert cold["merges"] == kept["merges"] == 3 and cold["games"] == kept["games"] == 24
    assert kept["note"] == "site = cold build's, file for file"
    assert {"board over time", "releases"} <= set(kept["phases"]) and kept["peak_mb"] > 0
    assert (tmp_path / "cache-3-kept" / "scores-history.sqlite").is_file()
    table = history.table([{"corpus": "small", **row} for row in rows])
    assert table.count("\n") == 3 and "| small | 24 | 3 | cold: every point fitted |" in table


def test_cold_only_builds_the_cold_site_alone(tmp_path):
    rows = history.measure(small_corpus(tmp_path / "corpus", 6), 2, tmp_path, kept=False)
    assert [row["build"] for row in rows] == ["cold: every point fitted"] and rows[0]["merges"] == 2
    assert not (tmp_path / "site-2-kept").exists() and (tmp_path / "site-2-cold" / "index.html").is_file()

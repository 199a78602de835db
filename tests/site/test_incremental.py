"""Incremental builds: a warm rebuild makes only what changed, and gives the site a cold build gives."""

from __future__ import annotations

import json
import shutil
import sqlite3
from pathlib import Path

import pytest
from click.testing import CliRunner

from runner.cli import main as gamenight
from site_builder.build import build_site
from site_builder.scoring.corpus import load
from site_builder.viewer import write
from site_builder.viewer.files import CALLS_DIR, DATA_DIR, LIST_DIR
from site_builder.viewer.shards import MANIFEST, bucket_count, read_packed, shard_hash, shard_name
from tests.helpers import relabelled


def play(folder: Path, games: int, seed: int) -> Path:
    done = CliRunner().invoke(gamenight, ["run", "--games", str(games), "--seed", str(seed), "--out", str(folder)])
    assert done.exit_code == 0, done.output
    return folder


def tree(site: Path) -> dict[str, bytes]:
    """Every file of a built site by relative path (the sitemap's gzip copy carries a time stamp)."""
    return {str(p.relative_to(site)): p.read_bytes() for p in sorted(site.rglob("*"))
            if p.is_file() and p.name != "sitemap.xml.gz"}


@pytest.fixture(scope="module")
def corpora(tmp_path_factory):
    root = tmp_path_factory.mktemp("incremental")
    return root, play(root / "first", 1, 11), play(root / "more", 1, 12)


def test_a_warm_rebuild_after_new_replays_equals_a_cold_build(corpora, tmp_path):
    root, first, more = corpora
    cache = tmp_path / "cache.sqlite"
    warm = tmp_path / "warm"
    before = build_site([first], warm, cache_path=cache, seed=5)
    assert before.replay_files_written == before.replay_files  # nothing to keep the first time
    assert before.replay_games_rendered == before.games
    again = build_site([first], warm, cache_path=cache, seed=5)
    listed = len(list((warm / LIST_DIR).iterdir()))
    # only the list and the shards' manifest are made again
    assert again.replay_games_rendered == 0 and again.replay_files_written == listed + 1
    added = build_site([first, more], warm, cache_path=cache, seed=5)
    new_games = added.games - before.games
    assert new_games > 0 and added.replay_games_rendered == new_games  # the others are copied from old shards
    cold = build_site([first, more], tmp_path / "cold", seed=5)
    assert cold.replay_files_written == cold.replay_files
    assert tree(warm) == tree(tmp_path / "cold")


def test_removed_replays_lose_their_data_files(corpora, tmp_path):
    root, first, more = corpora
    cache = tmp_path / "cache.sqlite"
    site = tmp_path / "site"
    build_site([first, more], site, cache_path=cache, seed=5)
    build_site([more], site, cache_path=cache, seed=5)
    assert tree(site) == tree(build_site([more], tmp_path / "cold", seed=5).results.parents[1])


def test_a_changed_label_remakes_the_data_of_that_agents_games(corpora, tmp_path):
    root, first, _ = corpora
    folder = tmp_path / "replays"
    shutil.copytree(first, folder)
    cache = tmp_path / "cache.sqlite"
    site = tmp_path / "site"
    build_site([folder], site, cache_path=cache, seed=5)
    # Three more games naming the built-in `random` agent "Dice": now its most used name.
    extra = play(tmp_path / "extra", 3, 13)
    renamed = 0
    for path in sorted(extra.glob("*.jsonl")):
        lines = path.read_text(encoding="utf-8").splitlines()
        header = json.loads(lines[0])
        renamed += sum(p["agent"]["name"] == "random" for p in header["players"])
        header = relabelled(header, "random", "Dice")
        (folder / f"{header['game_id']}.jsonl").write_text("\n".join([json.dumps(header), *lines[1:]]) + "\n",
                                                          encoding="utf-8")
    assert renamed
    build_site([folder], site, cache_path=cache, seed=5)
    old_game = next(p for p in first.glob("*.jsonl") if '"name":"random"' in p.read_text(encoding="utf-8"))
    game_id = json.loads(old_game.read_text(encoding="utf-8").splitlines()[0])["game_id"]
    data = read_packed(site, game_id)
    assert "Dice" in json.dumps(data) and tree(site) == tree(build_site([folder], tmp_path / "cold", seed=5).results.parents[1])


def test_a_damaged_cache_is_rebuilt_not_trusted(corpora, tmp_path):
    root, first, _ = corpora
    cache = tmp_path / "cache.sqlite"
    expected = load([first])
    load([first], cache)
    db = sqlite3.connect(cache)
    db.execute("UPDATE replays SET entry = CAST('{\"game\": {}}' AS BLOB)")  # checksum no longer holds
    db.commit()
    db.close()
    damaged = load([first], cache)
    assert damaged.resimulated == len(expected.games) and damaged.games == expected.games
    cache.write_bytes(b"not a database at all" * 100)
    assert load([first], cache).games == expected.games
    db = sqlite3.connect(cache)
    db.execute("UPDATE meta SET value = 'another scorer' WHERE key = 'version'")
    db.commit()
    db.close()
    assert load([first], cache).resimulated == len(expected.games)  # another version's entries are not read


def test_new_replays_rewrite_only_the_shards_they_fall_in(corpora, tmp_path, monkeypatch):
    root, first, more = corpora
    # Small shards, so that this small corpus spreads over many and most stay untouched.
    monkeypatch.setattr(write, "GAMES_PER_DATA_SHARD", 1)
    monkeypatch.setattr(write, "GAMES_PER_CALLS_SHARD", 1)
    before_corpus, after_corpus = load([first, more]), load([first, more])
    old_ids = {p.stem for p in first.glob("*.jsonl")}
    keep_games = [g for g in before_corpus.games if g.game_id in old_ids]
    # Same bucket count before and after: the "before" corpus is the full one less a few games.
    dropped = keep_games[:3]
    before_corpus.games = [g for g in before_corpus.games if g not in dropped]
    site, previous, manifest = tmp_path / "site", tmp_path / "previous", tmp_path / "manifest.json"
    write.write_data(before_corpus, site, manifest=manifest)
    buckets = json.loads((site / MANIFEST).read_text(encoding="utf-8"))["data"]
    if buckets != bucket_count(len(after_corpus.games), 1):
        pytest.skip("the three games changed the bucket count")
    old = {p.name: p.read_bytes() for p in (site / DATA_DIR).iterdir()}
    previous.mkdir()
    (site / DATA_DIR).rename(previous / "data")
    (site / CALLS_DIR).rename(previous / "calls")
    done = write.write_data(after_corpus, site, previous=previous, manifest=manifest)
    touched = {shard_name(shard_hash(g.game_id) % buckets) for g in dropped}
    assert done.rendered == len(dropped)
    listed = len(list((site / LIST_DIR).iterdir()))
    assert done.written == len(touched) + listed + 1  # built-in games have no exchanges
    now = {p.name: p.read_bytes() for p in (site / DATA_DIR).iterdir()}
    assert {name for name in now if now[name] != old.get(name)} <= touched | {"index.json"}
    cold = write.write_data(load([first, more]), tmp_path / "cold")
    assert tree(site / "replays") == tree(tmp_path / "cold" / "replays") and cold.rendered == len(after_corpus.games)


def test_the_manifest_is_trusted_only_for_the_shards_it_describes(corpora, tmp_path):
    """A site rebuilt without the manifest (no cache) between two cached builds has shards the
    manifest does not describe: the next cached build makes every game again rather than copy
    lines it does not know (here: the relabelled agent's name would stay in the old games' data)."""
    root, first, _ = corpora
    folder, site, cache = tmp_path / "replays", tmp_path / "site", tmp_path / "cache.sqlite"
    shutil.copytree(first, folder)
    build_site([folder], site, cache_path=cache, seed=5)
    added = []
    for path in sorted(play(tmp_path / "extra", 3, 13).glob("*.jsonl")):  # `random` named "Dice" thrice more
        lines = path.read_text(encoding="utf-8").splitlines()
        header = relabelled(json.loads(lines[0]), "random", "Dice")
        added.append(folder / f"{header['game_id']}.jsonl")
        added[-1].write_text("\n".join([json.dumps(header), *lines[1:]]) + "\n", encoding="utf-8")
    build_site([folder], site, seed=5)  # no cache: the manifest still describes the first build
    for path in added:
        path.unlink()
    again = build_site([folder], site, cache_path=cache, seed=5)
    assert again.replay_games_rendered == again.games
    assert tree(site) == tree(build_site([folder], tmp_path / "cold", seed=5).results.parents[1])

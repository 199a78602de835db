"""The results cut into parts for a static host: joined back equal, every part within the limit,
a changed or misnamed part refused with a message naming the file."""

from __future__ import annotations

import json
import random
from pathlib import Path

import pytest

from site_builder.scoring import results_split
from site_builder.scoring.results_split import PartsError


def synthetic_results(seed: int, agents: int) -> dict:
    """A results-shaped object: scalars, mappings keyed by (stranger's) agent keys, long lists,
    an entry too big for a part on its own."""
    rng = random.Random(seed)
    keys = [f"agent/{n}-{rng.randrange(10**6)}" for n in range(agents)]
    return {
        "format": "gamenight.results", "version": 9, "replay_set_hash": "ab" * 32,
        "agents": {key: {"label": key, "games": rng.randrange(100), "note": "x" * rng.randrange(300)} for key in keys},
        "ratings": {"overall": [{"key": key, "rating": rng.gauss(1000, 100)} for key in keys],
                    "per_game": {"chameleon": [[key, rng.random()] for key in keys]}},
        "history": [{"at": n, "board": [{"key": k, "v": rng.random()} for k in keys[: 1 + n % agents]]} for n in range(60)],
        "empty": {}, "nothing": [],
        "big": {"one": "y" * 5_000},
    }


@pytest.mark.parametrize("seed, agents, limit", [(1, 3, 10_000_000), (2, 40, 2_000), (3, 200, 700), (4, 120, 5_100)])
def test_parts_join_to_the_results_and_each_is_within_the_limit(tmp_path, seed, agents, limit):
    results = synthetic_results(seed, agents)
    written = results_split.write(results, tmp_path, limit=limit)
    assert written[0].name == results_split.INDEX_NAME
    back = results_split.read(tmp_path / results_split.INDEX_NAME)
    assert back == results and list(back) == list(results)
    index = json.loads((tmp_path / results_split.INDEX_NAME).read_text(encoding="utf-8"))
    assert index["scalars"] == {"format": "gamenight.results", "version": 9, "replay_set_hash": "ab" * 32}
    for entry, path in zip(index["parts"], written[1:]):
        assert entry["bytes"] == path.stat().st_size
        # Within the limit, except a single string over it (which nothing can cut).
        assert path.stat().st_size <= limit or entry["kind"] == "value" and isinstance(json.loads(path.read_text()), str)
    if limit < 10_000_000:
        assert len(index["parts"]) > len(results) - 3  # something was cut


def test_file_names_come_from_the_sections_never_from_a_key(tmp_path):
    results = synthetic_results(5, 300)
    results["agents"]["../../evil"] = {"label": "<script>"}
    results_split.write(results, tmp_path, limit=900)
    names = {p.name for p in tmp_path.iterdir()}
    sections = {k for k, v in results.items() if isinstance(v, (dict, list))}
    for name in names - {results_split.INDEX_NAME}:
        stem = name.removesuffix(".json")
        assert stem in sections or stem.rsplit("-", 1)[0] in sections and stem.rsplit("-", 1)[1].isdigit(), name
    assert results_split.read(tmp_path / results_split.INDEX_NAME) == results


def test_the_listing_says_which_section_and_which_part(tmp_path):
    _, parts = results_split.split(synthetic_results(6, 100), limit=2_000)
    listed = results_split.listing(parts)
    assert [row["file"] for row in listed] == [p.name for p in parts]
    agents = [row["what"] for row in listed if row["what"].startswith("agents")]
    assert len(agents) > 1 and agents[-1] == f"agents, part {len(agents)} of {len(agents)}"
    assert "empty" in [row["what"] for row in listed]


def test_a_changed_part_is_refused_naming_it(tmp_path):
    results_split.write(synthetic_results(7, 50), tmp_path, limit=1_500)
    index = json.loads((tmp_path / results_split.INDEX_NAME).read_text(encoding="utf-8"))
    victim = index["parts"][3]["file"]
    text = (tmp_path / victim).read_text(encoding="utf-8")
    (tmp_path / victim).write_text(text.replace("1", "2", 1), encoding="utf-8")
    with pytest.raises(PartsError, match=rf"part 4 \({victim}\): field 'sha256'"):
        results_split.read(tmp_path / results_split.INDEX_NAME)


@pytest.mark.parametrize("name", ["../results.json", "sub/agents.json", ".hidden.json", 7])
def test_a_part_outside_the_folder_is_refused(tmp_path, name):
    results_split.write(synthetic_results(8, 5), tmp_path)
    index_path = tmp_path / results_split.INDEX_NAME
    index = json.loads(index_path.read_text(encoding="utf-8"))
    index["parts"][0]["file"] = name
    index_path.write_text(json.dumps(index), encoding="utf-8")
    with pytest.raises(PartsError, match="part 1: field 'file'"):
        results_split.read(index_path)


def test_a_missing_part_and_a_wrong_version_are_named(tmp_path):
    results_split.write(synthetic_results(9, 5), tmp_path)
    index_path = tmp_path / results_split.INDEX_NAME
    index = json.loads(index_path.read_text(encoding="utf-8"))
    (tmp_path / index["parts"][1]["file"]).unlink()
    with pytest.raises(PartsError, match=rf"part 2 \({index['parts'][1]['file']}\)"):
        results_split.read(index_path)
    index["version"] = 99
    index_path.write_text(json.dumps(index), encoding="utf-8")
    with pytest.raises(PartsError, match="field 'version'"):
        results_split.read(index_path)


def test_a_whole_results_file_reads_as_it_is(tmp_path):
    results = synthetic_results(10, 4)
    (tmp_path / "results.json").write_text(json.dumps(results), encoding="utf-8")
    assert results_split.read(tmp_path / "results.json") == results
    (tmp_path / "broken.json").write_text("{", encoding="utf-8")
    with pytest.raises(PartsError, match="broken.json"):
        results_split.read(tmp_path / "broken.json")

"""The results file as a whole: reproducible, order- and name-independent, duplicates once."""

from __future__ import annotations

import copy
import csv
import hashlib
import io
import json
import random
import shutil
from pathlib import Path

import pytest
from click.testing import CliRunner

from runner.cli import main
from runner.rerun.validate import check_bytes
from site_builder.scoring import corpus as loader
from site_builder.scoring.corpus import Passed, load
from site_builder.scoring.results import assemble, csv_tables, dumps

CORPUS = Path(__file__).resolve().parents[2] / "replays" / "builtin"
pytestmark = pytest.mark.skipif(not CORPUS.is_dir(), reason="the shipped corpus replays/builtin is missing")


@pytest.fixture(scope="module")
def sample(tmp_path_factory) -> Path:
    """A small but varied copy of the shipped corpus: some games of every kind."""
    folder = tmp_path_factory.mktemp("sample")
    files = sorted(CORPUS.glob("*.jsonl"))
    by_game: dict[str, list[Path]] = {}
    for f in files:
        by_game.setdefault(f.name.split("-")[1], []).append(f)
    for paths in by_game.values():
        for f in paths[:25]:
            shutil.copy(f, folder / f.name)
    return folder


def scaled_values(node, path=""):
    """Every (path, value) of a "scaled" field anywhere in the results."""
    if isinstance(node, dict):
        for key, value in node.items():
            if key == "scaled" and value is not None:
                yield path, value
            yield from scaled_values(value, f"{path}.{key}")
    elif isinstance(node, list):
        for i, value in enumerate(node):
            yield from scaled_values(value, f"{path}[{i}]")


@pytest.fixture(scope="module")
def sample_results(sample) -> dict:
    return assemble(load([sample]))


def test_results_are_deterministic_and_every_scaled_metric_is_in_unit_range(sample, sample_results):
    first = dumps(sample_results)
    second = dumps(assemble(load([sample])))
    assert first == second
    results = json.loads(first)
    found = list(scaled_values(results))
    assert found, "the sample has composite metrics"
    assert all(0 <= v <= 1 for _, v in found), [p for p, v in found if not 0 <= v <= 1]


def test_renaming_and_reordering_files_changes_nothing(sample, sample_results, tmp_path):
    renamed = tmp_path / "renamed" / "nested"
    renamed.mkdir(parents=True)
    files = sorted(sample.glob("*.jsonl"))
    random.Random(4).shuffle(files)
    for i, f in enumerate(files):
        (renamed / f"{i:05d}-{f.name}").write_bytes(f.read_bytes())
    moved = assemble(load([tmp_path / "renamed"]))
    assert dumps(sample_results) == dumps(moved)


def test_a_duplicated_replay_counts_once_and_is_reported(sample, tmp_path):
    copy = tmp_path / "copy"
    shutil.copytree(sample, copy)
    victim = sorted(copy.glob("*.jsonl"))[3]
    (copy / "again.jsonl").write_bytes(victim.read_bytes())
    corpus = load([copy])
    assert len(corpus.duplicates) == 1
    assert {corpus.duplicates[0]["path"], corpus.duplicates[0]["same_as"]} == {str(victim), str(copy / "again.jsonl")}
    without = load([sample])
    assert corpus.games == without.games and corpus.agents == without.agents
    assert corpus.replay_set_hash == without.replay_set_hash


def test_a_tampered_replay_is_reported_and_not_counted(sample, tmp_path):
    copy = tmp_path / "tampered"
    shutil.copytree(sample, copy)
    target = next(f for f in sorted(copy.glob("*prisoners_dilemma*.jsonl")))
    lines = target.read_text(encoding="utf-8").splitlines()
    outcome = json.loads(lines[-1])
    outcome["winners"] = [0, 1, 2] if outcome["winners"] != [0, 1, 2] else [0]
    lines[-1] = json.dumps(outcome, separators=(",", ":"))
    target.write_text("\n".join(lines) + "\n", encoding="utf-8")
    corpus = load([copy])
    assert [bad["path"] for bad in corpus.invalid_replays] == [str(target)]
    assert "claimed outcome differs" in corpus.invalid_replays[0]["problems"][0]
    assert len(corpus.games) == len(load([sample]).games) - 1


def test_the_cache_reads_only_new_files(sample, tmp_path):
    folder = tmp_path / "grow"
    shutil.copytree(sample, folder)
    cache = tmp_path / "cache.sqlite"
    first = load([folder], cache)
    assert first.files_read == first.files and first.resimulated == first.files
    extra = sorted(CORPUS.glob("*.jsonl"))[-1]
    shutil.copy(extra, folder / extra.name)
    second = load([folder], cache)
    assert second.files == first.files + 1
    assert second.files_read == 1 and second.resimulated == 1
    fresh = load([folder])
    assert second.games == fresh.games and second.replay_set_hash == fresh.replay_set_hash


def test_a_replay_another_check_passed_is_not_checked_again_and_reads_the_same(sample, tmp_path, monkeypatch):
    """`load(passed=...)`: a file whose bytes the submission check already validated and re-simulated
    is taken from that check, never checked again, and is the same game as when read afresh."""
    folder = tmp_path / "some"
    folder.mkdir()
    chosen = sorted(sample.glob("*.jsonl"))[::25]  # one game of each kind
    for f in chosen:
        shutil.copy(f, folder / f.name)
    fresh = load([folder])
    passed = [Passed.of(check_bytes(str(f), f.read_bytes()), hashlib.sha256(f.read_bytes()).hexdigest())
              for f in chosen[:-1]]
    checked, real = [], loader.check_bytes
    monkeypatch.setattr(loader, "check_bytes", lambda path, raw, **kw: checked.append(path) or real(path, raw, **kw))
    again = load([folder], tmp_path / "cache.sqlite", passed=passed)
    assert checked == [str(folder / chosen[-1].name)]  # only the file no check passed
    assert again.resimulated == len(chosen)  # none was answered by the cache
    assert [g.to_json() for g in again.games] == [g.to_json() for g in fresh.games]
    assert again.agents == fresh.agents and again.replay_set_hash == fresh.replay_set_hash


def test_score_command_writes_results_and_csv(sample, tmp_path):
    out = tmp_path / "results.json"
    result = CliRunner().invoke(main, ["score", str(sample), "--out", str(out), "--csv-dir", str(tmp_path / "csv"),
                                       "--cache", str(tmp_path / "c.sqlite")])
    assert result.exit_code == 0, result.output
    results = json.loads(out.read_text(encoding="utf-8"))
    assert results["corpus"]["games"] == len(list(sample.glob("*.jsonl")))
    assert results["scorer_version"] and len(results["replay_set_hash"]) == 64
    for name in ("ratings.csv", "leaderboards.csv", "magic.csv", "chameleon_matchups.csv", "werewolf.csv"):
        text = (tmp_path / "csv" / name).read_text(encoding="utf-8")
        assert text.count("\n") >= 2, name
    assert "scored" in result.output


def test_csv_tables_have_one_row_per_agent(sample_results):
    results = sample_results
    tables = csv_tables(results)
    magic_rows = list(csv.reader(io.StringIO(tables["magic.csv"])))
    # One row per agent and MAgIC reading, the headline (paper) reading first.
    assert len(magic_rows) == 1 + 2 * len(results["magic"]["agents"])
    readings = [row[1] for row in magic_rows[1:]]
    assert readings == ["paper"] * len(results["magic"]["agents"]) + ["reference"] * len(results["magic"]["agents"])


def judge_key(model: str, prompts: str) -> str:
    return json.dumps({"kind": "llm", "model": model, "prompt_version": prompts, "provider": "openai_compatible"},
                      sort_keys=True)


def composite(value: float, n: int) -> dict:
    return {"raw": value * 2, "scaled": value, "ci": [value - 0.01, value + 0.01], "n": n}


def table(text: str) -> list[dict[str, str]]:
    return list(csv.DictReader(io.StringIO(text, newline="")))


def test_werewolf_csv_has_each_reading_beside_the_offline_one_named_by_embedder_and_judge(sample_results):
    results = copy.deepcopy(sample_results)
    ww = results["werewolf"]
    labels = {a["key"]: a["label"] for a in results["agents"]}
    first, second = sorted(ww["text_distance"]["agents"], key=lambda k: labels[k])[:2]
    ww["text_distance_neural"] = {"embedder": {"name": "all-MiniLM-L6-v2"},
                                  "agents": {first: {"distance": composite(0.4321, 3)}}, "all": None, "by_mix": {}}
    judge = judge_key("tiny-judge", "ewavm-3")
    read = {"judges": {judge: {"J": composite(0.4, 2), "undefined": {}, "games": 2}}, "unread": {}, "games": 2}
    ww["judgement_variation_llm"]["agents"][first] = read
    ww["judgement_variation_llm"]["all"] = read
    rows = table(csv_tables(results)["werewolf.csv"])
    llm_column = "judgement_variation J [LLM reading by tiny-judge (openai_compatible, prompts ewavm-3)]"
    assert list(rows[0])[:2] == ["scope", "agent"]
    assert {"text_distance [hashed-bow-v1]", "text_distance [all-MiniLM-L6-v2]",
            "judgement_variation J [probe reading]", llm_column, llm_column + " low", llm_column + " n"} <= set(rows[0])
    mine = next(r for r in rows if r["agent"] == labels[first])
    assert mine["scope"] == "agent" and float(mine["text_distance [all-MiniLM-L6-v2]"]) == 0.4321
    assert float(mine[llm_column]) == 0.4 and float(mine[llm_column + " high"]) == pytest.approx(0.41) and mine[llm_column + " n"] == "2"
    offline = ww["text_distance"]["agents"][first]["distance"]
    assert float(mine["text_distance [hashed-bow-v1]"]) == offline["scaled"]
    other = next(r for r in rows if r["agent"] == labels[second])
    assert other["text_distance [all-MiniLM-L6-v2]"] == "" and other[llm_column] == ""  # no value: empty
    assert rows[-1]["scope"] == "all games" and float(rows[-1][llm_column]) == 0.4


def test_werewolf_ewavm_csv_has_a_row_per_judge_never_pooled(sample_results):
    results = copy.deepcopy(sample_results)
    ew = results["werewolf"]["ewavm"]
    old, new = judge_key("tiny-judge", "ewavm-2"), judge_key("=cmd|' /C calc'!A0", "ewavm-3")
    empty = {d: None for d in ("wonder", "attraction", "variation", "memorability")}
    ew["all"] = {"judges": {old: {"engagement": composite(0.25, 2), **empty, "games": 2, "failed": {}},
                            new: {"engagement": composite(0.75, 5), **empty, "games": 5, "failed": {}}},
                 "unjudged": 0, "games": 7}
    rows = table(csv_tables(results)["werewolf_ewavm.csv"])
    assert [(r["scope"], r["judge"], r["games judged"], r["engagement"]) for r in rows[-2:]] == [
        ("all games", "'=cmd|' /C calc'!A0 (openai_compatible, prompts ewavm-3)", "5", "0.75"),
        ("all games", "tiny-judge (openai_compatible, prompts ewavm-2)", "2", "0.25")]
    assert rows[-1]["wonder"] == "" and "memorability raw" in rows[0]
    # A judge's name in a header is quoted like any cell a spreadsheet would run.
    ww = results["werewolf"]
    ww["judgement_variation_llm"]["all"] = {"judges": {new: {"J": composite(0.5, 1), "undefined": {}, "games": 1}},
                                            "unread": {}, "games": 1}
    header = next(csv.reader(io.StringIO(csv_tables(results)["werewolf.csv"])))
    assert "judgement_variation J [LLM reading by =cmd|' /C calc'!A0 (openai_compatible, prompts ewavm-3)]" in header
    assert not any(h.startswith(("=", "+", "@")) for h in header)


def test_score_can_headline_the_reference_reading(sample, sample_results, tmp_path):
    out = tmp_path / "results.json"
    result = CliRunner().invoke(main, ["score", str(sample), "--out", str(out), "--no-cache",
                                       "--magic-reading", "reference"])
    assert result.exit_code == 0, result.output
    swapped = json.loads(out.read_text(encoding="utf-8"))["magic"]
    paper = json.loads(dumps(sample_results))["magic"]
    assert (paper["reading"], paper["alternative"]["reading"]) == ("paper", "reference")
    assert (swapped["reading"], swapped["alternative"]["reading"]) == ("reference", "paper")
    assert swapped["agents"] == paper["alternative"]["agents"]
    assert swapped["alternative"]["agents"] == paper["agents"]
    bad = CliRunner().invoke(main, ["score", str(sample), "--out", str(out), "--magic-reading", "code"])
    assert bad.exit_code == 2 and "--magic-reading" in bad.output


@pytest.mark.parametrize("name", ["=HYPERLINK(\"http://x\",\"y\")", "+1+1", "-2", "@SUM(A1)", "\tTAB"])
def test_csv_cells_that_a_spreadsheet_would_run_are_quoted(sample_results, name):
    results = copy.deepcopy(sample_results)
    results["agents"][0]["label"] = name
    results["ratings"]["overall"]["agents"][0]["agent"] = results["agents"][0]["key"]
    rows = list(csv.reader(io.StringIO(csv_tables(results)["ratings.csv"], newline="")))
    assert ["'" + name] in [row[:1] for row in rows]
    assert not any(cell.startswith(("=", "+", "@", "\t", "\r")) for row in rows[1:] for cell in row[:1])
    numbers = [row[1] for row in rows[1:]]
    assert all(float(n) == float(n) for n in numbers)  # numbers stay numbers, negative ones too


def test_a_carriage_return_in_a_name_stays_in_its_row(sample_results):
    results = copy.deepcopy(sample_results)
    results["agents"][0]["label"] = "\rCR"
    results["ratings"]["overall"]["agents"][0]["agent"] = results["agents"][0]["key"]
    rows = list(csv.reader(io.StringIO(csv_tables(results)["ratings.csv"], newline="")))
    assert ["\\rCR"] in [row[:1] for row in rows] and all(len(row) == len(rows[0]) for row in rows)


def test_a_symbolic_link_in_the_corpus_is_reported_not_read(sample, tmp_path):
    from site_builder.scoring.corpus import load

    corpus_dir = tmp_path / "c"
    corpus_dir.mkdir()
    real = next(sample.rglob("*.jsonl"))
    (corpus_dir / real.name).symlink_to(real)
    corpus = load([corpus_dir])
    assert corpus.games == [] and corpus.invalid_replays == [
        {"path": str(corpus_dir / real.name),
         "problems": [f"{corpus_dir / real.name}: a symbolic link; a replay must be a regular file"]}]


def test_a_replay_gone_or_unreadable_while_scoring_is_reported_not_a_crash(sample, tmp_path, monkeypatch):
    from site_builder.scoring import corpus as corpus_module

    real = next(sample.rglob("*.jsonl"))
    gone = tmp_path / "gone.jsonl"  # listed, then deleted before it was read
    monkeypatch.setattr(corpus_module, "iter_replay_files", lambda paths: iter([real, gone]))
    corpus = corpus_module.load([tmp_path])
    assert len(corpus.games) == 1
    assert corpus.invalid_replays == [
        {"path": str(gone), "problems": [f"{gone}: cannot read the file: No such file or directory"]}]
    # The same in a checking worker, for a file gone between its hashing and its check.
    content_hash, entry, embedded = corpus_module._check((str(gone), True, None, 1))
    assert content_hash is None and b"cannot read the file" in entry and embedded == {}

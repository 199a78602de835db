"""The duplicate-deals bench: its copies change only the deals, its widths are the scorer's, and a
tiny run (one stage, one replicate) gives a report of the right shape with consistent figures."""

from __future__ import annotations

import json
import math

import numpy as np
import pytest

from runner import suite as suites
from runner import suite_score
from site_builder.bench import suite as bench_suite


def test_a_copy_changes_every_seed_and_nothing_else(tmp_path):
    shipped, text = bench_suite.suite_text("ranked")
    copy = suites.load(bench_suite.write_copy(tmp_path, text, "bench-x", 3))
    assert (copy.name, copy.version) == ("bench-x", 3)
    assert copy.games == shipped.games and copy.references == shipped.references
    assert copy.max_attempts == shipped.max_attempts and copy.probes == shipped.probes
    ours, theirs = suites.deals(copy, 1), suites.deals(shipped, 1)
    assert [(d.game.game, d.index, d.seat, d.role) for d in ours] == [(d.game.game, d.index, d.seat, d.role)
                                                                      for d in theirs]
    assert not {d.seed for d in ours} & {d.seed for d in theirs}


def test_first_stages_keeps_a_games_first_deals():
    deals = {"chameleon": {i: 1.0 for i in range(8)}, "public_good": {i: 0.0 for i in range(6)}}
    kept = bench_suite.first_stages(deals, {"chameleon": 4, "public_good": 3}, 1)
    assert kept == {"chameleon": {0: 1.0, 1: 1.0, 2: 1.0, 3: 1.0}, "public_good": {0: 0.0, 1: 0.0, 2: 0.0}}


def _rows(rng: np.random.Generator, deals: int) -> tuple[dict, dict, dict]:
    """A, B on A's deals (B wins where A does, and sometimes elsewhere), and B on other deals."""
    a = {g: {d: float(rng.random() < 0.5) for d in range(deals)} for g in ("chameleon", "werewolf")}
    b_same = {g: {d: max(v, float(rng.random() < 0.2)) for d, v in a[g].items()} for g in a}
    b_other = {g: {d: float(rng.random() < 0.6) for d in range(deals)} for g in a}
    return a, b_same, b_other


def test_unpaired_is_the_two_own_widths_combined_and_pairing_cancels_shared_luck():
    a, b_same, b_other = _rows(np.random.default_rng(1), 400)
    own = [bench_suite.width(suite_score.score(r)["ci"]) for r in (a, b_other)]
    apart = bench_suite.unpaired(a, b_other)
    # Independent estimates: the variances add, so the width is about the root of the squares' sum.
    assert bench_suite.width(apart["ci"]) == pytest.approx(math.hypot(*own), rel=0.1)
    means = {name: np.mean([np.mean(list(r[g].values())) for g in r]) for name, r in (("a", a), ("b", b_other))}
    assert apart["difference"] == pytest.approx(means["a"] - means["b"])
    figures = bench_suite.replicate_figures(a, b_same, b_other)
    assert 0 < figures["duplicate"] < 0.8 * figures["independent"]  # B's results follow A's on the same deals
    assert figures["ratio"] == pytest.approx(figures["duplicate"] / figures["independent"])
    assert all(g["correlation"] > 0.3 for g in figures["by_game"].values())
    same = bench_suite.replicate_figures(a, a, b_other)
    # A row against itself, deal by deal: no difference, and only Jeffreys' terms for width.
    assert same["difference_duplicate"] == 0 and same["duplicate"] < 0.05 * same["independent"]


def test_a_tiny_run_reports_consistent_widths(tmp_path, capsys):
    out = tmp_path / "figures.json"
    bench_suite.main(["--stages", "1", "--replicates", "1", "--work", str(tmp_path / "work"), "--out", str(out)])
    result = json.loads(out.read_text(encoding="utf-8"))
    assert (result["a"], result["b"], result["stages"], result["replicates"]) == (
        "builtin:scripted", "builtin:random", [1], 1)
    one = result["by_stages"]["1"]
    assert one["games"] == 23 and set(one["by_game"]) == {g.game for g in suites.find("ranked").games}
    for figure in ("duplicate", "independent", "a_own", "b_own"):
        assert 0 < one[figure]["min"] <= one[figure]["mean"] <= one[figure]["max"] <= 2, figure
    assert one["ratio"]["mean"] == pytest.approx(one["duplicate"]["mean"] / one["independent"]["mean"])
    (row,) = result["per_replicate"]
    assert row["rows"] == ["bench-1-builtin-scripted", "bench-1-builtin-random", "bench-b-1-builtin-random"]
    printed = capsys.readouterr().out
    assert "| stages | games a row |" in printed and "| chameleon |" in printed

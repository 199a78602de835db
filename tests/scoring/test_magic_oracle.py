"""The reference reading against the MAgIC reference script's own numbers on the shipped 3-player games.

`oracle/magic_reference_e66dd73.json` is the output of `tools/magic_oracle.py`, which runs the
unchanged `metrics_release.py` of cathyxl/MAgIC at e66dd73 on `gamenight export magic` of
replays/builtin and replays/local-cpu-pgm (docs/metrics/magic.md, "Checking against the
reference script", says how to make it again). This test exports the same games, scores each
exported agent's games with our reference reading, and compares metric by metric: equal to the
script's 3 decimals where it gives a number, and a stated reason where it stops with an error.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner

from runner.cli import main
from site_builder.scoring.corpus import load
from site_builder.scoring.magic import magic

ROOT = Path(__file__).resolve().parents[2]
CORPORA = [ROOT / "replays" / "builtin", ROOT / "replays" / "local-cpu-pgm"]
ORACLE = json.loads((Path(__file__).parent / "oracle" / "magic_reference_e66dd73.json").read_text(encoding="utf-8"))
pytestmark = pytest.mark.skipif(not all(c.is_dir() for c in CORPORA), reason="the shipped corpora are missing")

# The script's metric -> (our reference entry, the field its number is).
METRICS = {"Judgement": ("judgement", "value"), "Deception": ("deception", "raw"), "Reasoning": ("reasoning", "value"),
           "Self-Awareness": ("self_awareness", "value"), "Cooperation": ("cooperation", "value"),
           "Coordination": ("coordination", "value"), "Rationality": ("rationality", "value")}
ROLES = {"as_chameleon": "chameleon", "as_non_chameleon": "non_chameleon", "as_undercover": "undercover",
         "as_non_undercover": "civilian", "prisoner": "prisoners_dilemma", "public_good": "public_good",
         "airportfee": "cost_sharing"}


@pytest.fixture(scope="module")
def exported(tmp_path_factory, shipped_scores):
    """The export of the shipped 3-player games, and their corpus. The replays' checks come from the
    run's one check of every shipped replay (tests/conftest.py, `shipped_scores`), as a warm
    `export magic` reads them from its cache."""
    out = tmp_path_factory.mktemp("export") / "magic"
    cache = shipped_scores(out.parent / "cache")
    result = CliRunner().invoke(main, ["export", "magic", str(out), *map(str, CORPORA), "--cache", str(cache)])
    assert result.exit_code == 0, result.output
    corpus = load(CORPORA, cache)  # answered from the export's cache
    return json.loads((out / "manifest.json").read_text(encoding="utf-8")), corpus


def test_the_reference_reading_equals_the_reference_scripts_numbers(exported):
    manifest, corpus = exported
    assert sorted(manifest["agents"]) == sorted(ORACLE)
    games = {g.game_id: g for g in corpus.games}
    compared = stopped = 0
    for name, entry in manifest["agents"].items():
        oracle = ORACLE[name]
        assert oracle["label"] == entry["label"]
        mine = [games[i] for ids in entry["game_ids"].values() for i in dict.fromkeys(ids)]
        ours = magic(list({g.game_id: g for g in mine}.values()), corpus.agents, seed=1)
        reference = ours["alternative"]["agents"][entry["agent"]]
        for metric, (key, field) in METRICS.items():
            if metric in oracle["metrics"]:
                assert reference[key] is not None, (name, metric)
                assert round(reference[key][field], 3) == oracle["metrics"][metric], (name, metric)
                compared += 1
            elif metric in oracle["errors"]:
                # The script stops: ours is null with the reason, or the formula's value with the reason.
                assert key in reference["reasons"], (name, metric, oracle["errors"][metric])
                stopped += 1
        for setting, score in oracle["role_scores"].items():
            if "error" in score:
                continue
            role = reference["roles"][ROLES[setting]]
            n = score["num_of_game"]
            # The script divides a Chameleon or Undercover role's credits by min(files, 20)
            # (metrics_release.py lines 35-38, 69-72); we by the games.
            capped = min(n, 20) / n if setting.startswith("as_") else 1
            assert role["value"] == pytest.approx(score["score"] * capped), (name, setting)
            assert role["n"] == n
            compared += 1
    assert compared >= 30 and stopped >= 5

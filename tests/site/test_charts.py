"""The chart files (site_builder/pages/charts.py): radar, Chameleon heatmaps. `results` is the built-in
tournament's (tests/site/conftest.py)."""

from __future__ import annotations

from site_builder.pages import charts, labels
from site_builder.pages.site import render


def test_radar_data_has_seven_axes_per_agent(results):
    radar = charts.radar_data(results, labels.agent_refs(results))
    assert len(radar["axes"]) == 7
    assert radar["agents"] and all(len(a["values"]) == 7 for a in radar["agents"].values())


def test_chameleon_heatmaps_are_chameleon_by_non_chameleon(results):
    data = charts.chameleon_data(results, labels.agent_refs(results))
    assert data["variants"]
    for variant in data["variants"]:
        for metric in charts.MATCHUP_METRICS:
            z = variant["metrics"][metric]["z"]
            assert len(z) == len(variant["chameleon"])
            assert all(len(row) == len(variant["non_chameleon"]) for row in z)


def test_a_heatmap_draws_the_most_played_agents_when_there_are_too_many(results, monkeypatch):
    refs = labels.agent_refs(results)
    full = charts.chameleon_data(results, refs)
    variant = max(full["variants"], key=lambda v: len(v["chameleon"]))
    assert len(variant["chameleon"]) > 2 and variant["chameleon_total"] == len(variant["chameleon"])
    monkeypatch.setattr(charts, "MAX_HEATMAP_AGENTS", 2)
    cut = next(v for v in charts.chameleon_data(results, refs)["variants"] if v["key"] == variant["key"])
    assert len(cut["chameleon"]) == 2 and cut["chameleon_total"] == len(variant["chameleon"])
    assert all(len(cut["metrics"][m]["z"]) == 2 for m in charts.MATCHUP_METRICS)
    games = {}
    for cell in results["chameleon"]["matchups"]["cells"]:
        if cell["key"] == variant["key"]:
            label = charts._label_of(cell["chameleon"], results["chameleon"]["matchups"]["labels"], refs)
            games[label] = games.get(label, 0) + cell["games"]
    assert min(games[k] for k in cut["chameleon"]) >= max(v for k, v in games.items() if k not in cut["chameleon"])
    assert cut["chameleon"] == [k for k in variant["chameleon"] if k in cut["chameleon"]]  # the order kept
    page = render(results).markdown["studies/chameleon.md"]
    assert f"the 2 of {len(variant['chameleon'])} chameleon agents" in page

"""The build's results are made once, from its stages' values (site_builder/build.py `site_results`)."""

from __future__ import annotations

import copy
import json

from site_builder import build, sources
from site_builder.scoring import history


def _scored() -> dict:
    """A scorer's results, cut down to the sections `site_results` adds to."""
    return {"version": 1, "corpus": {"games": 2, "by_game": {"chameleon": 2}},
            "agents": [{"key": "a", "kind": "builtin"}, {"key": "b", "kind": "model"}],
            "ratings": {"overall": {}}}


def _found() -> build.Provenance:
    summary = {"games": 2, "unmerged": []}
    return build.Provenance(of_game={}, summary=summary,  # type: ignore[arg-type]
                            by_agent={"a": [{"label": "maintainers", "kind": sources.MAINTAINERS, "games": 2}]},  # type: ignore[list-item]
                            merged={"g1": history.Merge("c" * 40, "2026-01-01T00:00:00+00:00")})


def test_the_scorers_results_are_left_as_they_are() -> None:
    scored = _scored()
    before = copy.deepcopy(scored)
    build.site_results(scored, _found(), {"points": []}, {"releases": []})  # type: ignore[arg-type,typeddict-item]
    assert scored == before


def test_sources_history_and_releases_join_where_the_results_file_keeps_them() -> None:
    made = build.site_results(_scored(), _found(), {"points": []}, {"releases": []})  # type: ignore[arg-type,typeddict-item]
    assert list(made) == ["version", "corpus", "agents", "ratings", "history", "releases"]
    assert list(made["corpus"]) == ["games", "by_game", "sources"]
    assert made["corpus"]["sources"] == {"games": 2, "unmerged": []}
    assert [a.get("sources") for a in made["agents"]] == [
        [{"label": "maintainers", "kind": sources.MAINTAINERS, "games": 2}], []]
    assert list(made["agents"][0]) == ["key", "kind", "sources"]
    assert made["history"] == {"points": []} and made["releases"] == {"releases": []}
    json.dumps(made, allow_nan=False)  # plain JSON, as results.dumps writes it

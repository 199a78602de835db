"""Accessibility properties of the rendered pages, checked in their HTML for every page a build
makes (tests/site/test_axe.py runs axe-core itself over one page of each kind in a browser)."""

from __future__ import annotations

import copy
import re
from pathlib import Path

import pytest
from click.testing import CliRunner

from runner.cli import main as gamenight
from site_builder.pages import labels
from site_builder.pages.site import render
from site_builder.scoring.corpus import load
from site_builder.scoring.results import assemble
from site_builder.viewer import pages as viewer_pages

ASSETS = Path(__file__).resolve().parents[2] / "site_builder" / "assets"
BARE = {"", "&mdash;", "—", "-", "&ndash;", "–"}


@pytest.fixture(scope="module")
def results(tmp_path_factory) -> dict:
    """The built-in tournament with two games per matchup."""
    out = tmp_path_factory.mktemp("replays")
    played = CliRunner().invoke(gamenight, ["run", "--games", "2", "--out", str(out)])
    assert played.exit_code == 0, played.output
    return assemble(load([out]), seed=1)


def section(markdown: str, heading: str) -> str:
    """The text under `## heading` up to the next second-level heading ('' if absent)."""
    parts = re.split(r"^## ", markdown, flags=re.M)
    return next((p for p in parts if p.startswith(heading)), "")


def cells(html: str) -> list[str]:
    """Each cell's text, without the "i" beside a reason (its explanation is a tap away)."""
    return [re.sub(r"<[^>]+>", "", re.sub(r"<button\b.*?</button>", "", c, flags=re.S)).strip()
            for c in re.findall(r"<td[^>]*>(.*?)</td>", html, flags=re.S)]


def test_every_chart_is_a_named_figure_never_an_image(results):
    """Plotly draws buttons inside a chart, and an element with role="img" may not hold
    interactive content (axe: nested-interactive)."""
    site = render(results, replays=viewer_pages.pages({}), recent={})
    charts = 0
    for path, text in site.markdown.items():
        assert 'role="img"' not in text, path
        for tag in re.findall(r"<div [^>]*data-gn-chart=[^>]*>", text):
            charts += 1
            assert 'role="figure"' in tag, (path, tag)
            label = re.search(r'aria-label="([^"]*)"', tag)
            assert label and label.group(1).strip(), (path, tag)
    kinds = {re.search(r'data-gn-chart="(\w+)"', t).group(1)
             for text in site.markdown.values() for t in re.findall(r"<div [^>]*data-gn-chart=[^>]*>", text)}
    assert {"wins", "heatmap", "entropy", "topk", "bounds", "measured", "radar"} <= kinds and charts > 10
    for script in ASSETS.glob("gamenight/*.js"):  # nor does a script make one an image later
        if script.name != "plotly.min.js":
            assert not re.search(r"""role["']?\s*,\s*["']img""", script.read_text()), script


@pytest.mark.parametrize("has_replays", [True, False])
def test_agent_tables_say_why_a_value_is_missing(results, has_replays):
    site = render(results, replays=viewer_pages.pages({}) if has_replays else (), recent={})
    refs = labels.agent_refs(results)
    seen = {"no score in this game": 0, "not counted here": 0, "no judged game": 0, "not published": 0}
    for ref in refs.values():
        page = site.markdown[ref.page]
        for heading in ("Results by game", "Results by role", "Werewolf talk"):
            shown = cells(section(page, heading))
            assert not [c for c in shown if c in BARE], (ref.page, heading, shown)
            for words in seen:
                seen[words] += shown.count(words)
    # The built-in games include won-or-lost games, roles without strict wins and no judge lines.
    assert seen["no score in this game"] and seen["not counted here"] and seen["no judged game"]
    assert bool(seen["not published"]) is not has_replays


def test_missing_werewolf_talk_values_are_explained(results):
    """An agent with a Text Distance but no suspicion probes and a judged game lacking a dimension."""
    changed = copy.deepcopy(results)
    ww = changed["werewolf"]
    key = next(iter(ww["text_distance"]["agents"]))
    ww["judgement_variation"]["agents"].pop(key, None)
    score = {"raw": 6.5, "scaled": 0.61, "ci": [0.5, 0.7], "raw_ci": [5.5, 7.3], "n": 2}
    ww["ewavm"]["agents"][key] = {"judges": {"judge-1": {
        "engagement": score, "wonder": score, "attraction": None, "variation": None, "memorability": None,
        "games": 2, "failed": {}}}, "unjudged": 0, "games": 2}
    ref = labels.agent_refs(changed)[key]
    talk = section(render(changed).markdown[ref.page], "Werewolf talk")
    shown = cells(talk)
    assert not [c for c in shown if c in BARE]
    assert shown.count("no suspicion probes") == 1 and shown.count("undefined in its games") == 3
    assert shown.count("not read by a judge") == 1  # the LLM reading of J: no judge read its games
    # The reason stands for the value and its games; so does the judge's count of games judged.
    assert talk.count('colspan="2"') == 5 + 1


def test_no_table_cell_anywhere_is_a_bare_dash(results):
    """A value that is missing says why in words on every page (a role never played, a row not
    rated), never a dash that a screen reader reads as "dash" and a reader cannot interpret."""
    site = render(results, replays=viewer_pages.pages({}), recent={})
    bare = {path: [c for c in cells(text) if c in BARE - {""}] for path, text in site.markdown.items()}
    assert not {path: found for path, found in bare.items() if found}
    game = site.markdown["games/werewolf.md"]
    assert "not played" in cells(game)  # built-in agents that never sit in a role say so

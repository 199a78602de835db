"""axe-core over one page of every kind, at a phone's and a desktop's width, in both palettes.

axe-core's own engine (the copy bundled by the axe-playwright-python package, pinned in the test
extras) runs in headless Chromium over a site built from the built-in tournament, and over the
play page during a vote; every rule axe applies by default must find nothing. tools/axe_site.py
runs the same engine over every page of a built site, by hand.
"""

from __future__ import annotations

import contextlib
import json
import shutil
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from runner.table import Person, deal
from site_builder.pages import labels
from site_builder.build import build_site
from site_builder.viewer.shards import packed_ids
from tests.site.play_helpers import playing
from tests.site.test_history_pages import git
from tests.site.test_xss import DRAW_CHARTS

WIDTHS = (390, 1366)
#: The browser's preferred scheme, and the palette of Material it must select.
SCHEMES = {"light": "default", "dark": "slate"}
#: The play page's background in each scheme (play.css).
PLAY_BACKGROUND = {"light": "rgb(255, 255, 255)", "dark": "rgb(30, 33, 41)"}
TIMEOUT = 45_000  # ms, as the other browser tests: a shared machine may be slow
#: A shipped Werewolf game the LLM judges annotated (memorable statements: links to their events).
JUDGED_REPLAY = Path(__file__).resolve().parents[2] / "replays" / "builtin" / "builtin-werewolf-001df066adae.jsonl"


@contextlib.contextmanager
def axe_tab(browser: Any, width: int, scheme: str) -> Iterator[Any]:
    """A page at `width` in the browser's `scheme`, which may run axe although the site's
    Content-Security-Policy forbids injected scripts; closed when the `with` block ends."""
    context = browser.new_context(viewport={"width": width, "height": 900}, color_scheme=scheme, bypass_csp=True)
    try:
        tab = context.new_page()
        tab.set_default_timeout(TIMEOUT)
        yield tab
    finally:
        context.close()


@pytest.fixture(scope="module")
def axe_script() -> str:
    from axe_playwright_python.base import AXE_SCRIPT

    return AXE_SCRIPT


@pytest.fixture(scope="module")
def served(tmp_path_factory, serve, small_corpus) -> tuple[Path, str]:
    """The built-in tournament, two games per matchup, and a stage of the ranked suite (the
    session's `small_corpus`), and 40 Chameleon games of one lopsided pair, built into a site served
    locally."""
    root = tmp_path_factory.mktemp("axe-site")
    shutil.copytree(small_corpus, root / "replays")
    # A shipped Werewolf game with LLM judges' notes: the viewer's outcome links to their events.
    (root / "replays" / "judged").mkdir()
    shutil.copy(JUDGED_REPLAY, root / "replays" / "judged")
    # A pair lopsided enough for a matrix to shade (30-10 of 40 decided: sure after Holm's
    # correction); the two games a matchup of the small corpus never are.
    lopsided = subprocess.run([sys.executable, "-m", "runner", "run", "--game", "chameleon",
                               "--role", "chameleon=chameleon/associative", "--role", "*=random", "--games", "40",
                               "--out", str(root / "replays" / "lopsided")], capture_output=True, text=True, check=False)
    assert lopsided.returncode == 0, lopsided.stderr
    # in git, so the board over time has points to draw and a release has its page
    git(root, "init", "-q", "-b", "main")
    git(root, "add", "replays")
    git(root, "reset", "-q", "replays/ranked")  # the ranked stage comes in a second merge
    git(root, "commit", "-q", "-m", "built-in games", date="2026-01-01T10:00:00+00:00")
    git(root, "tag", "-a", "board-axe", "-m", "a release", date="2026-01-01T11:00:00+00:00")
    git(root, "add", "replays/ranked")
    git(root, "commit", "-q", "-m", "a ranked stage", date="2026-01-02T10:00:00+00:00")
    site = root / "site"
    site.mkdir()
    base = serve(site)
    build_site([root / "replays"], site, seed=5, site_url=base + "/", cache_path=root / "cache" / "scores.sqlite")
    return site, base


def page_kinds(site: Path) -> dict[str, str]:
    """One address of each kind of page the site has."""
    results = json.loads((site / "downloads" / "results.json").read_text(encoding="utf-8"))
    agent = next(a["key"] for a in results["agents"] if a["label"] == "random")
    werewolf_game = sorted(i for i in packed_ids(site) if "werewolf" in i)[0]
    kinds = {
        "home": "/", "exhibition": "/exhibition/", "game": "/games/werewolf/",
        "game with shaded head-to-head cells": "/games/chameleon/", "agent": f"/agents/{labels.agent_slug(agent)}/",
        "agents index": "/agents/", "MAgIC metric": "/magic/deception/", "Chameleon study": "/studies/chameleon/",
        "Werewolf study": "/studies/werewolf/", "methodology (code blocks)": "/methodology/llm/",
        "methodology (formulas wider than a phone)": "/methodology/metrics/werewolf/",
        "rules": "/methodology/games/cost_sharing/", "replays list": "/replays/",
        "viewer": f"/replays/viewer/?id={werewolf_game}",
        "viewer, a player's view, Next pressed": f"/replays/viewer/?id={werewolf_game}&pov=2&step=3",
        "viewer, the outcome with the judges' notes": f"/replays/viewer/?id={JUDGED_REPLAY.stem}&step=999",
        "cost": "/cost/", "not found": "/404.html",
        "board over time": "/history/", "releases": "/releases/", "release": "/releases/board-axe/",
    }
    for path in kinds.values():  # each is a page of this build (a renamed page must not pass unseen)
        file = path.split("?")[0].lstrip("/")
        assert (site / (file if file.endswith(".html") else file + "index.html")).is_file(), path
    return kinds


def violations(tab, axe_script: str) -> list[str]:
    """axe-core's violations on the page as it stands: one line per rule and failing node."""
    tab.evaluate(axe_script)
    found = tab.evaluate("async () => (await axe.run(document)).violations")
    return [f"{v['id']}: {node['target']} {node.get('failureSummary', '')!r}"[:400]
            for v in found for node in v["nodes"]]


def scheme_of(tab) -> str | None:
    return tab.evaluate("() => document.body.getAttribute('data-md-color-scheme')")


@pytest.mark.parametrize("scheme", list(SCHEMES))
@pytest.mark.parametrize("width", WIDTHS)
def test_axe_finds_nothing_on_any_kind_of_page(browser, served, axe_script, width, scheme):
    site, base = served
    found: dict[str, list[str]] = {}
    with axe_tab(browser, width, scheme) as tab:
        for kind, path in page_kinds(site).items():
            tab.goto(base + path, wait_until="networkidle")
            if kind.startswith("viewer"):
                tab.wait_for_selector("[data-ready]")
            if kind == "viewer, a player's view, Next pressed":  # pressed, it keeps the focus: its colours then
                tab.locator(".gn-next").click()
                tab.locator(".gn-next").focus()
                assert tab.locator(".gn-badge").count() > 0  # the "you" badge
            if kind == "viewer, the outcome with the judges' notes":
                tab.locator("details").evaluate_all("ds => ds.forEach(d => { d.open = true; })")
                assert tab.locator(".gn-judge .gn-link").count() > 0  # "event N" links
            if kind == "board over time":  # every chart drawn, and the tables under them open
                tab.evaluate(DRAW_CHARTS)
            tab.wait_for_timeout(200)  # charts draw after their data arrives
            assert scheme_of(tab) == SCHEMES[scheme], (kind, "the palette of the browser's preference")
            if kind == "game with shaded head-to-head cells":  # their intervals sit on a tint
                assert tab.locator(".gn-h2h-ahead .gn-ci, .gn-h2h-behind .gn-ci").count() > 0
            found[kind] = violations(tab, axe_script)
    assert not {kind: lines for kind, lines in found.items() if lines}


@pytest.mark.parametrize("scheme", list(SCHEMES))
@pytest.mark.parametrize("width", WIDTHS)
def test_axe_finds_nothing_on_the_play_page_during_a_vote(browser, tmp_path, axe_script, width, scheme):
    """The play page with a vote chosen and waiting for its confirmation, and the rules open."""
    table = deal("chameleon", {"players": 3}, 4, [Person("Ann", seat=0)], probes=False)
    with axe_tab(browser, width, scheme) as tab, playing(table, tmp_path, probes=False) as (session, links):
        tab.goto(links[0])
        tab.wait_for_selector("[data-gn-play][data-state=asked] .gn-ask input[type=text]")
        tab.locator(".gn-ask input[type=text]").fill("puddle")
        tab.locator(".gn-ask input[type=text]").press("Enter")
        tab.wait_for_selector(".gn-ask .gn-choices button")
        tab.locator(".gn-ask .gn-choices button").first.click()
        tab.wait_for_selector(".gn-ask .gn-confirm")
        tab.locator(".gn-rules summary").click()  # the rules' text open too
        background = tab.evaluate("() => getComputedStyle(document.body).backgroundColor")
        assert background == PLAY_BACKGROUND[scheme]  # the page follows the browser's preference
        assert not violations(tab, axe_script)


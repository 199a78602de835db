"""Replays from strangers cannot inject markup or script into the site.

The site is built by build_site from replays whose every free-text field is a payload (agent
names and labels, models, matchups, seat names, card words, clues, statements, prompts,
replies, errors, refused attempts, judges; see payloads.py). Every page that shows them is
loaded in Chromium: the payloads must appear as literal text, no dialog may open (the `page`
fixture fails the test on one), no flag set by a payload may exist, and no link may lead to
`javascript:`.
"""

from __future__ import annotations

import re
from pathlib import Path
from urllib.parse import quote, urlencode

import pytest

from site_builder.viewer.shards import read_packed
from tests.site import payloads
from tests.site.payloads import (
    PAYLOAD_CHAMELEON,
    PAYLOAD_INVALID,
    PAYLOAD_WEREWOLF,
    SHORT,
    TEXT,
)

VIEWER = "[data-gn-viewer]"
LIST = "[data-gn-replays]"
READY_LIST = "[data-gn-replays][data-ready=true]"  # the rows of the latest filters are drawn
#: Markup a payload would leave in a page if it were ever inserted as HTML.
INJECTED = """() => {
    const found = [];
    for (const el of document.querySelectorAll("*")) {
        for (const attr of el.attributes) {
            const value = attr.value.replace(/\\s+/g, "").toLowerCase();
            if (attr.name.startsWith("on") && /alert|gnpwned/.test(value)) found.push(el.tagName + " " + attr.name);
            const link = ["href", "src", "action", "formaction", "xlink:href"].includes(attr.name);
            if (link && value.startsWith("javascript:")) {
                found.push(el.tagName + " " + attr.name + "=" + attr.value);
            }
        }
        if (el.matches("img[src='x'], iframe[srcdoc], svg[onload]")) found.push(el.outerHTML.slice(0, 80));
        if (el.tagName === "SCRIPT" && /alert\\(1\\)|gnPwned/.test(el.textContent)) {
            found.push("script: " + el.textContent.slice(0, 80));
        }
    }
    return {found: found, flag: window.gnPwned === undefined ? null : String(window.gnPwned)};
}"""


#: Scroll every chart of a page into view (they draw when seen) and wait until each is drawn;
#: how many there are, and those that failed to draw.
DRAW_CHARTS = """async () => {
    document.querySelectorAll("details").forEach(d => { d.open = true; });  // sections a reader opens
    const failed = [], charts = document.querySelectorAll("[data-gn-chart]");
    for (const chart of charts) {
        chart.scrollIntoView();
        for (let waited = 0; !chart.hasAttribute("data-gn-rendered"); waited += 25) {
            if (chart.querySelector(".gn-chart-error") || waited > 10000) { failed.push(chart.textContent); break; }
            await new Promise(resolve => setTimeout(resolve, 25));
        }
    }
    return {charts: charts.length, failed: failed};
}"""


@pytest.fixture(scope="module")
def site(tmp_path_factory, serve):
    return payloads.built_site(tmp_path_factory, serve)


def assert_clean(page) -> None:
    """Nothing a payload could have added is in the page, and its flag is unset."""
    result = page.evaluate(INJECTED)
    assert result == {"found": [], "flag": None}


def open_viewer(page, site, game_id: str, **params) -> None:
    page.goto(f"{site[1]}/replays/viewer/?{urlencode({'id': game_id, **params})}")
    page.wait_for_selector(f"{VIEWER}[data-ready]")


def viewer_text(page) -> str:
    return page.locator(VIEWER).evaluate("el => el.textContent")


def test_built_pages_hold_payloads_only_as_escaped_text(site):
    pages = sorted(site[0].rglob("*.html"))
    assert len(pages) > 10
    raw_markup = re.compile(r"<img src=x|<script>alert|<script>window\.gnPwned|<svg onload|<iframe srcdoc|"
                            r"(?:href|src)\s*=\s*[\"']?\s*javascript:", re.IGNORECASE)
    for path in pages:
        text = path.read_text(encoding="utf-8")
        assert not raw_markup.search(text), (path, raw_markup.search(text).group())
    escaped = [p for p in pages if "&lt;img src=x onerror=alert(1)&gt;" in p.read_text(encoding="utf-8")]
    assert escaped, "the payload labels should be shown (escaped) on the leaderboard pages"


def test_viewer_shows_every_payload_as_text(page, site):
    data_steps = len(_data(site, PAYLOAD_WEREWOLF)["steps"])
    open_viewer(page, site, PAYLOAD_WEREWOLF, step=4)
    names = page.locator(f"{VIEWER} .gn-players tbody th").all_inner_texts()
    assert names == list(SHORT)
    assert page.locator(f"{VIEWER} .gn-step q").inner_text() == f"statement 1: {TEXT}"
    assert page.locator(f"{VIEWER} .gn-attempts li").inner_text().endswith(f"refused: unreadable: {TEXT}")
    page.locator("details.gn-raw summary").click()
    page.locator(".gn-msg-reply pre").first.wait_for()
    assert page.locator(".gn-msg-system pre").first.inner_text() == f"system 1: {TEXT}"
    assert page.locator(".gn-msg-thinking pre").first.inner_text() == f"thinking 1: {TEXT}"  # the API's reasoning
    assert page.locator(".gn-call .gn-error").first.inner_text() == f"Error: {SHORT[2]}"
    text = viewer_text(page)
    for payload in (*SHORT, *payloads.FLAGGING, payloads.description(0)["name"], " ".join(SHORT)[:200]):
        assert payload in text, payload
    assert_clean(page)
    page.locator(".gn-last").click()  # the outcome, with the judges' notes
    assert page.locator(f"{VIEWER}").get_attribute("data-step") == str(data_steps + 1)
    assert TEXT[:120] in page.locator(".gn-judge").inner_text()
    page.locator(".gn-judge button").click()  # a memorable statement: back to its step
    assert page.locator(f"{VIEWER} .gn-step q").inner_text().startswith("statement ")
    assert_clean(page)


@pytest.mark.parametrize(("game_id", "pov"), [(PAYLOAD_WEREWOLF, 0), (PAYLOAD_CHAMELEON, 2), (PAYLOAD_INVALID, 3)])
def test_viewer_in_every_view_and_step_stays_clean(page, site, game_id, pov):
    data = _data(site, game_id)
    first = 1 + next(i for i, s in enumerate(data["steps"]) if "c" in s and s["s"] == pov)
    open_viewer(page, site, game_id, pov=pov, step=first)
    page.locator("details.gn-raw summary").click()  # stays open from step to step
    page.locator(".gn-msg-reply pre").first.wait_for()
    assert_clean(page)
    for _ in data["steps"]:
        page.keyboard.press("ArrowRight")
    assert page.locator(VIEWER).get_attribute("data-step") == str(len(data["steps"]) + 1)
    page.locator("details.gn-result summary").click()
    assert_clean(page)
    page.select_option(".gn-pov", "all")
    page.locator(".gn-first").click()
    assert_clean(page)


def test_chameleon_card_of_payload_words_is_shown_as_text(page, site):
    data = _data(site, PAYLOAD_CHAMELEON)
    open_viewer(page, site, PAYLOAD_CHAMELEON, step=len(data["steps"]) + 1)
    setup = page.locator(".gn-setup").inner_text()
    assert all(word in setup for word in data["setup"]["card"]["words"])
    assert page.locator(".gn-players tbody td:nth-child(4)").first.inner_text() == payloads.LINE  # the clue
    assert_clean(page)


def test_replay_list_filtered_by_a_payload_label(page, site):
    label = payloads.description(1)["name"]
    page.goto(f"{site[1]}/replays/?game=chameleon&agent={quote(label)}")
    page.wait_for_selector(READY_LIST)
    assert page.locator(f"{LIST} select[name=agent]").input_value() == label
    cells = page.locator(f"{LIST} tbody td:nth-child(4)").all_inner_texts()
    assert cells and all(label in cell for cell in cells)
    options = page.locator(f"{LIST} select[name=agent] option").all_inner_texts()
    assert {payloads.description(i)["name"] for i in range(3)} <= set(options)
    for href in page.locator(f"{LIST} tbody a").evaluate_all("links => links.map(a => a.getAttribute('href'))"):
        assert re.fullmatch(r"/replays/viewer/\?id=[A-Za-z0-9._-]+", href), href
    assert_clean(page)


def test_a_hostile_address_is_not_a_way_in(page, site):
    hostile = quote(SHORT[0] + SHORT[2])
    page.goto(f"{site[1]}/replays/viewer/?id={hostile}&step={hostile}&pov={hostile}")
    page.locator(f"{VIEWER} .gn-message a").wait_for()
    page.goto(f"{site[1]}/replays/?game={hostile}&agent={hostile}&outcome={hostile}&page={hostile}")
    page.wait_for_selector(READY_LIST)
    assert page.locator(f"{LIST} select[name=agent]").input_value() == SHORT[0] + SHORT[2]
    assert page.locator(f"{LIST} .gn-message").inner_text() == "No replay matches these filters."
    assert_clean(page)


def pages_showing_payloads(site_dir: Path) -> list[str]:
    """Site paths of the pages (other than the replay pages) whose HTML, or a JSON file next to
    them that their scripts fetch, holds a payload."""
    found = set()
    for path in site_dir.rglob("*"):
        relative = path.relative_to(site_dir).as_posix()
        if path.suffix not in (".html", ".json") or relative.startswith(("replays/", "search/", "downloads/")):
            continue
        if "onerror=alert(1)" not in path.read_text(encoding="utf-8", errors="replace"):
            continue
        if path.suffix == ".html":
            found.add(relative.removesuffix("index.html"))
    return sorted(found)


def test_other_pages_that_show_payloads_stay_clean(page, site):
    shown = pages_showing_payloads(site[0])
    assert "exhibition/" in shown and "agents/" in shown  # the exhibition board and the agents' list
    # Every kind of page once: agent pages all look alike, so only a payload agent's own page.
    own = next(p for p in shown if p.startswith("agents/") and p != "agents/"
               and "onerror" in (site[0] / p / "index.html").read_text(encoding="utf-8").split("<h1", 1)[1][:300])
    charts = 0
    for path in [p for p in shown if not p.startswith("agents/") or p == "agents/"] + [own]:
        page.goto(f"{site[1]}/{path}")
        drawn = page.evaluate(DRAW_CHARTS)  # Plotly labels hold payloads too
        assert drawn["failed"] == [], path
        charts += drawn["charts"]
        text = page.locator("body").inner_text()
        assert SHORT[1] in text or SHORT[0] in text, path
        assert_clean(page)
    assert charts > 0


def test_site_search_shows_payloads_as_text(page, site):
    page.goto(f"{site[1]}/")
    page.locator("input.md-search__input").click()
    page.keyboard.type("onerror", delay=20)  # Material searches as keys are typed
    page.locator(".md-search-result__item").first.wait_for()
    assert "<img src=x onerror=alert(1)>" in page.locator(".md-search-result").inner_text()
    assert_clean(page)


def _data(site, game_id: str) -> dict:
    return read_packed(site[0], game_id)

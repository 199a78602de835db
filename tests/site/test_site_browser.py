"""The built site in headless Chromium: sorting, filters, radar, heatmaps, dark mode, instant navigation."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from site_builder.pages import charts, labels
from site_builder.build import build_site
from site_builder.viewer.shards import packed_ids

TIMEOUT = 45_000  # ms: Plotly is 4.6 MB and a shared CI machine may be busy (20 s timed out once under load)


@pytest.fixture(scope="module")
def served(tmp_path_factory, serve, small_corpus) -> tuple[Path, str]:
    """A site built from the built-in tournament with two games per matchup and a stage of the ranked
    suite (the session's `small_corpus`), and its URL.

    The server starts first: Material's instant navigation needs the site built for its own URL.
    """
    root = tmp_path_factory.mktemp("browser-site")
    shutil.copytree(small_corpus, root / "replays")
    site = root / "site"
    site.mkdir()
    base = serve(site)
    build_site([root / "replays"], site, seed=5, site_url=base + "/")
    return site, base


@pytest.fixture(scope="module")
def site(served) -> Path:
    return served[0]


@pytest.fixture(scope="module")
def base(served) -> str:
    return served[1]


@pytest.fixture
def tab(page):
    """The conftest page, also failing on console errors (e.g. a script or style the CSP refused)."""
    errors: list[str] = []
    page.on("console", lambda message: errors.append(message.text) if message.type == "error" else None)
    page.set_default_timeout(TIMEOUT)
    yield page
    assert not errors, errors


def agent_page(site: Path, label: str) -> str:
    """The URL path of the page of the agent with this label."""
    results = json.loads((site / "downloads" / "results.json").read_text(encoding="utf-8"))
    key = next(a["key"] for a in results["agents"] if a["label"] == label)
    return f"/agents/{labels.agent_slug(key)}/"


def column(tab, index: int) -> list[str]:
    return tab.eval_on_selector_all(
        "#gn-overall tbody tr:not([hidden])", f"rows => rows.map(r => r.cells[{index}].dataset.sort)")


def test_leaderboard_sorts_on_click(tab, base):
    tab.goto(base + "/exhibition/")
    tab.wait_for_selector("#gn-overall th.gn-sortable")
    before = column(tab, 3)
    games_header = tab.locator("#gn-overall thead th").nth(3)
    games_header.click()
    descending = column(tab, 3)
    assert [float(v) for v in descending] == sorted((float(v) for v in before), reverse=True)
    assert descending != before
    assert games_header.get_attribute("aria-sort") == "descending"
    games_header.click()
    assert [float(v) for v in column(tab, 3)] == sorted(float(v) for v in before)
    assert games_header.get_attribute("aria-sort") == "ascending"
    agent_header = tab.locator("#gn-overall thead th").nth(1)
    agent_header.press("Enter")  # keyboard works too; text sorts ascending first
    names = [v.lower() for v in column(tab, 1)]
    expected = tab.evaluate("names => [...names].sort((a, b) => a.localeCompare(b, undefined, {numeric: true}))", names)
    assert names == expected and agent_header.get_attribute("aria-sort") == "ascending"
    # Rows without a rating stay last in both directions.
    rating_header = tab.locator("#gn-overall thead th").nth(2)
    for _ in range(2):
        rating_header.click()
        ratings = column(tab, 2)
        present = [v for v in ratings if v]
        assert ratings == present + [""] * (len(ratings) - len(present))


def test_leaderboard_filters_by_game_and_keeps_the_filter_in_the_address(tab, base):
    tab.goto(base + "/exhibition/")
    tab.wait_for_selector("[data-gn-count]:not(:empty)")
    total = len(column(tab, 1))
    tab.select_option("select[data-gn-filter=game]", "werewolf")
    shown = tab.eval_on_selector_all("#gn-overall tbody tr:not([hidden])", "rows => rows.map(r => r.dataset.game)")
    assert shown and len(shown) < total
    assert all("werewolf" in games.split() for games in shown)
    assert "game=werewolf" in tab.url
    assert tab.text_content("[data-gn-count]") == f"{len(shown)} of {total} agents"
    tab.goto(base + "/?game=chameleon")  # the table's old address goes on to its page, filter and all
    tab.wait_for_selector("[data-gn-count]:not(:empty)")
    assert tab.url == base + "/exhibition/?game=chameleon"
    assert tab.input_value("select[data-gn-filter=game]") == "chameleon"
    assert all("chameleon" in g.split() for g in tab.eval_on_selector_all(
        "#gn-overall tbody tr:not([hidden])", "rows => rows.map(r => r.dataset.game)"))


def test_radar_draws_the_polygon_overlays_a_comparison_and_follows_dark_mode(tab, base, site):
    tab.goto(base + agent_page(site, "random"))
    chart = "#gn-radar-chart[data-gn-rendered]"
    tab.wait_for_selector(chart)
    assert tab.locator(f"{chart} svg.main-svg").count() >= 1
    assert tab.locator(f"{chart} .scatterlayer .trace").count() == 1
    values = json.loads((site / "data" / "radar.json").read_text(encoding="utf-8"))["agents"]
    axes = next(a for a in values.values() if a["label"] == "random")["values"]
    measured = [v for v in axes if v is not None]
    # One marker per measured axis (the first again, closing the loop); an unmeasured one is a gap,
    # so the shape is not filled across it.
    assert tab.locator(f"{chart} .scatterlayer .trace .point").count() == len(measured) + (axes[0] is not None)
    assert tab.locator(f"{chart} .scatterlayer .trace path.js-fill").count() == (1 if len(measured) == 7 else 0)
    tab.select_option("select[data-gn-compare]", index=1)
    tab.wait_for_function(
        "() => document.querySelectorAll('#gn-radar-chart .scatterlayer .trace').length === 2")
    assert "random" in tab.text_content(f"{chart} .legend")
    # Light/dark: the chart is drawn again with the palette's text colour, both ways.
    text = "#gn-radar-chart .angularaxistick text"
    assert tab.get_attribute("#gn-radar-chart", "data-gn-scheme") == "default"
    light = tab.eval_on_selector(text, "e => getComputedStyle(e).fill")
    tab.click("label[title='Switch to dark mode']")
    tab.wait_for_selector("#gn-radar-chart[data-gn-scheme=slate]")
    dark = tab.eval_on_selector(text, "e => getComputedStyle(e).fill")
    assert light != dark
    assert tab.locator("#gn-radar-chart .scatterlayer .trace").count() == 2  # the comparison is kept
    tab.click("label[title='Switch to light mode']")
    tab.wait_for_selector("#gn-radar-chart[data-gn-scheme=default]")
    assert tab.eval_on_selector(text, "e => getComputedStyle(e).fill") == light


def test_the_radar_offers_every_other_agent_from_the_chart_data(tab, base, site):
    path = agent_page(site, "random")
    served = (site / path.strip("/") / "index.html").read_text(encoding="utf-8")
    assert served.count("<option") <= 2  # nobody, and at most the default comparison: not every agent
    tab.goto(base + path)
    tab.wait_for_selector("#gn-radar-chart[data-gn-rendered]")
    radar = json.loads((site / "data" / "radar.json").read_text(encoding="utf-8"))["agents"]
    own = tab.get_attribute("#gn-radar-chart", "data-agent")
    offered = tab.eval_on_selector_all("select[data-gn-compare] option", "os => os.map(o => [o.value, o.textContent])")
    expected = sorted(((slug, a["label"]) for slug, a in radar.items() if slug != own), key=lambda p: (p[1], p[0]))
    assert offered == [["", "nobody"]] + [list(pair) for pair in expected]


def visible_agents(tab) -> list[str]:
    return tab.eval_on_selector_all("#gn-agents tbody tr:not([hidden])", "rows => rows.map(r => r.textContent)")


def test_the_agents_index_finds_agents_as_you_type(tab, base):
    tab.goto(base + "/agents/")
    tab.wait_for_selector("[data-gn-agent-search][data-gn-ready]:not([hidden])")
    total = len(visible_agents(tab))
    box = "[data-gn-agent-search] input[type=search]"
    tab.fill(box, "Werewolf")
    shown = visible_agents(tab)
    assert 0 < len(shown) < total and all("werewolf" in row.lower() for row in shown)
    assert tab.text_content("[data-gn-agent-search] [data-gn-count]") == f"{len(shown)} of {total} agents"
    assert "find=Werewolf" in tab.url
    tab.fill(box, "werewolf strategic")  # every word must be in the row
    narrower = visible_agents(tab)
    assert 0 < len(narrower) < len(shown) and all("strategic" in row.lower() for row in narrower)
    tab.fill(box, "no agent is called this")
    assert visible_agents(tab) == [] and tab.text_content("[data-gn-count]") == f"0 of {total} agents"
    tab.fill(box, "")
    assert len(visible_agents(tab)) == total and "find=" not in tab.url
    tab.goto(base + "/agents/?find=random")
    tab.wait_for_selector("[data-gn-agent-search][data-gn-ready]")
    assert tab.input_value(box) == "random" and all("random" in r.lower() for r in visible_agents(tab))
    # `?q=` would be the theme's: it opens the site search over the page.
    assert not tab.is_checked("#__search")


def test_without_javascript_the_agents_index_is_the_plain_list(new_tab, base):
    with new_tab(java_script_enabled=False) as tab:
        tab.goto(base + "/agents/")
        assert tab.locator("[data-gn-agent-search]").is_hidden()  # a box that would do nothing is not shown
        rows = tab.locator("#gn-agents tbody tr")
        assert rows.count() > 10 and rows.count() == tab.locator("#gn-agents tbody tr:visible").count()


def test_chameleon_heatmaps_render(tab, base):
    tab.goto(base + "/studies/chameleon/")
    heatmaps = tab.locator("[data-gn-chart=heatmap]")
    assert heatmaps.count() >= 4 and heatmaps.count() % 4 == 0
    for index in range(4):
        heatmaps.nth(index).scroll_into_view_if_needed()
    tab.wait_for_function(
        "() => [...document.querySelectorAll('[data-gn-chart=heatmap]')].slice(0, 4)"
        ".every(e => e.hasAttribute('data-gn-rendered'))")
    # The valid-game ratio is defined for every matchup played, so its squares are drawn.
    assert tab.locator("[data-gn-chart=heatmap][data-metric=valid_ratio] .heatmaplayer .hm image").count() >= 1
    titles = tab.eval_on_selector_all("[data-gn-chart=heatmap][data-gn-rendered] .gtitle",
                                      "nodes => nodes.map(n => n.textContent)")
    assert titles[:4] == list(charts.MATCHUP_METRICS.values())
    # The theory charts further down render too.
    measured = tab.locator("[data-gn-chart=measured]").first
    measured.scroll_into_view_if_needed()
    tab.wait_for_selector("[data-gn-chart=measured][data-gn-rendered] .scatterlayer")


def test_instant_navigation_initialises_the_next_page(tab, base, site):
    tab.goto(base + "/exhibition/")
    tab.wait_for_selector("#gn-overall th.gn-sortable")
    tab.evaluate("() => { window.gnSamePage = true; }")
    tab.click("#gn-overall a:text-is('random')")
    # Charts draw when they come near the viewport; instant navigation may keep the scroll offset
    # of the long home page, so bring the radar into view first.
    tab.wait_for_selector("#gn-radar-chart")
    tab.locator("#gn-radar-chart").scroll_into_view_if_needed()
    tab.wait_for_selector("#gn-radar-chart[data-gn-rendered]")
    assert tab.evaluate("() => window.gnSamePage === true")  # no full reload: Material swapped the page
    # Material's anchor tracking may carry the last heading scrolled past as a fragment; the page is what counts.
    assert tab.url.split("#")[0].endswith(agent_page(site, "random"))
    games_header = tab.locator("table[data-gn-sortable] thead th.gn-sortable").first
    assert games_header.count() == 1


@pytest.mark.parametrize("path", ["/", "/agents/", "/games/werewolf/", "/games/cost_sharing/", "/studies/werewolf/",
                                  "/magic/deception/",
                                  "/methodology/metrics/chameleon/", "/downloads/", "/replays/"])
def test_pages_load_without_console_errors(tab, base, path):
    tab.goto(base + path)
    tab.wait_for_load_state("load")
    tab.wait_for_timeout(300)
    assert tab.locator("h1").count() >= 1


CONTRAST = """selector => {
  const node = document.querySelector(selector);
  const fg = getComputedStyle(node).color;
  let el = node, bg = "rgba(0, 0, 0, 0)";
  while (el && (bg === "rgba(0, 0, 0, 0)" || bg === "transparent")) { bg = getComputedStyle(el).backgroundColor; el = el.parentElement; }
  const rgb = s => s.match(/[\\d.]+/g).slice(0, 3).map(Number);
  const lum = c => { const [r, g, b] = c.map(v => { v /= 255; return v <= 0.03928 ? v / 12.92 : Math.pow((v + 0.055) / 1.055, 2.4); });
                     return 0.2126 * r + 0.7152 * g + 0.0722 * b; };
  const a = lum(rgb(fg)), b = lum(rgb(bg));
  return (Math.max(a, b) + 0.05) / (Math.min(a, b) + 0.05);
}"""


@pytest.mark.parametrize("scheme", ["light", "dark"])
def test_buttons_and_links_read_at_wcag_aa_contrast_in_both_palettes(new_tab, base, site, scheme):
    with new_tab(color_scheme=scheme) as tab:
        tab.goto(base + agent_page(site, "random"))
        tab.wait_for_selector(".md-typeset .md-button")
        for selector in (".md-typeset .md-button", ".md-typeset h1", ".md-typeset table.gn-table td a"):
            ratio = tab.evaluate(CONTRAST, selector)
            assert ratio >= 4.5, (scheme, selector, ratio)


@pytest.mark.parametrize("width", [390, 1366])
def test_a_tap_or_a_key_on_a_header_question_mark_explains_it_without_sorting(new_tab, base, width):
    with new_tab(viewport={"width": width, "height": 844}) as tab:
        tab.goto(base + "/exhibition/")
        tab.wait_for_selector("#gn-overall th.gn-sortable")
        header = tab.locator("#gn-overall thead th").nth(2)
        help_button = header.locator(".gn-help")
        before = header.get_attribute("aria-sort")
        help_button.click()
        box = tab.locator(".gn-help-box")
        assert box.is_visible() and box.inner_text().startswith("A skill rating")
        assert help_button.get_attribute("aria-expanded") == "true"
        assert header.get_attribute("aria-sort") == before  # explaining is not sorting
        left, right = tab.evaluate("() => { const r = document.querySelector('.gn-help-box').getBoundingClientRect();"
                                   " return [r.left, r.right]; }")
        assert 0 <= left and right <= width  # on the screen, also on a phone
        tab.keyboard.press("Escape")
        assert not box.is_visible() and help_button.get_attribute("aria-expanded") == "false"
        help_button.focus()
        tab.keyboard.press("Enter")  # reachable by keyboard too
        assert box.is_visible() and header.get_attribute("aria-sort") == before
        tab.locator("h1").first.click()  # a press elsewhere closes it
        assert not box.is_visible()


WIDER_THAN_BOX = """() => [...document.querySelectorAll("article table, article .gn-chart")]
  .filter(e => e.offsetParent !== null)  // shown (a closed section's content is fitted when it opens)
  .filter(e => !e.closest("[data-gn-scrolls]"))  // a desktop's wide table scrolls in its box (checked apart)
  .map(e => ({what: e.tagName + "." + e.className, width: e.scrollWidth,
              box: (e.closest(".gn-scroll") || e.parentElement).clientWidth}))
  .filter(e => e.width > e.box + 1)"""

#: Boxes that scroll a wide table sideways, unless each is a named region the keyboard can focus.
UNREACHABLE_SCROLLS = """() => [...document.querySelectorAll("article [data-gn-scrolls]")]
  .filter(box => !(box.tabIndex === 0 && box.getAttribute("role") === "region"
                   && (box.getAttribute("aria-label") || "").endsWith("(scrolls sideways)")
                   && box.getAttribute("aria-label").length > 20 && getComputedStyle(box).overflowX === "auto"))
  .map(box => box.outerHTML.slice(0, 120))"""


@pytest.mark.parametrize("width", [390, 1366])
def test_no_table_or_chart_is_wider_than_its_box(tab, base, site, width):
    tab.set_viewport_size({"width": width, "height": 900})
    paths = sorted({str(p.parent.relative_to(site)) for p in site.rglob("index.html")})
    paths = [p for p in paths if not p.startswith(("replays/viewer", "assets", "search", "404"))]
    assert len(paths) > 20 and "replays" in paths
    stacked = scrolled = 0
    for path in paths:
        tab.goto(f"{base}/{'' if path == '.' else path + '/'}")
        tab.wait_for_function("() => document.querySelectorAll('article table.gn-table').length === 0"
                              " || document.querySelector('article table[data-gn-labelled]') !== null")
        if path == "replays":
            tab.wait_for_selector(".gn-rows tr")
        assert tab.evaluate(WIDER_THAN_BOX) == [], path
        assert tab.evaluate(UNREACHABLE_SCROLLS) == [], path
        # The page itself never scrolls sideways: what a box scrolls (screen-reader text too) stays in it.
        assert tab.evaluate("() => document.documentElement.scrollWidth") <= width, path
        stacked += tab.locator("table.gn-stacked").count()
        # a head-to-head matrix (data-gn-grid) reads only as a grid: it scrolls in its box at any width
        scrolled += tab.locator("[data-gn-scrolls]:not(:has(> table[data-gn-grid]))").count()
        assert tab.locator("table[data-gn-grid].gn-stacked").count() == 0, path
        # Opening every section fits what it holds too.
        tab.evaluate("() => document.querySelectorAll('details').forEach(d => { d.open = true; })")
        tab.wait_for_timeout(50)
        assert tab.evaluate(WIDER_THAN_BOX) == [], path + " (sections open)"
    # The viewer's players table too, at every step of a game.
    game_id = sorted(i for i in packed_ids(site) if "werewolf" in i)[0]
    tab.goto(f"{base}/replays/viewer/?id={game_id}")
    tab.wait_for_selector("[data-ready]")
    for _ in range(4):
        assert tab.evaluate(WIDER_THAN_BOX) == [], "viewer"
        tab.locator(".gn-next").click()
    if width == 390:
        assert stacked > 0 and scrolled == 0  # the wide tables are stacked on a phone, one block per row
    else:
        assert stacked == 0 and scrolled > 0  # on a desktop they scroll in their box (the Werewolf board)


#: Pieces of link text (between spaces, hyphens, slashes and underscores) drawn over more than one line.
BROKEN_WORDS = """() => {
  const broken = [];
  for (const link of document.querySelectorAll("article table a")) {
    if (link.offsetParent === null) continue;
    const walker = document.createTreeWalker(link, NodeFilter.SHOW_TEXT);
    for (let node = walker.nextNode(); node; node = walker.nextNode()) {
      for (const piece of node.data.matchAll(/[^\\s\\-\\/_]+/g)) {
        const range = document.createRange();
        range.setStart(node, piece.index);
        range.setEnd(node, piece.index + piece[0].length);
        const lines = new Set([...range.getClientRects()].filter(r => r.width > 0).map(r => Math.round(r.top)));
        if (lines.size > 1) broken.push(piece[0]);
      }
    }
  }
  return broken;
}"""


@pytest.mark.parametrize("path", ["/exhibition/", "/games/werewolf/", "/agents/"])
def test_no_name_in_a_table_breaks_inside_a_word_on_a_phone(tab, base, path):
    """Game and agent names wrap between words, or after a slash, hyphen or underscore, never mid-word
    ("Und/erc/ove/r"), in tight tables and stacked ones alike."""
    tab.set_viewport_size({"width": 390, "height": 844})
    tab.goto(base + path)
    tab.wait_for_selector("article table[data-gn-labelled]")
    assert tab.locator("article table a").count() > 2
    assert tab.evaluate(BROKEN_WORDS) == []


@pytest.mark.parametrize("width, height", [(390, 844), (1366, 768)])
def test_the_home_pages_headline_fits_the_first_screen(new_tab, base, width, height):
    """The reading of the ranked board and its whole compact table, with the sentence on tiers, are
    on the first screen at a phone's and a laptop's size; an old link to a game's board lands on
    that game's line."""
    with new_tab(viewport={"width": width, "height": height}) as tab:
        tab.goto(base + "/")
        tab.wait_for_selector(".gn-ranked-headline[data-gn-labelled]")
        for part in (".gn-reading", ".gn-ranked-headline", ".gn-tiers"):
            bottom = tab.evaluate(f"() => document.querySelector('{part}').getBoundingClientRect().bottom")
            assert 0 < bottom <= height, (part, bottom)
        assert not tab.evaluate("() => document.querySelector('.gn-ranked-headline').classList.contains('gn-stacked')")
        tab.goto(base + "/#board-werewolf")
        line = tab.locator("#board-werewolf")
        assert line.is_visible() and line.locator("a[href$='games/werewolf/']").count() == 1


@pytest.mark.parametrize("width", [390, 1366])
def test_the_head_to_head_matrix_scrolls_in_its_box_on_a_phone_too(new_tab, base, width):
    with new_tab(viewport={"width": width, "height": 844}) as tab:
        tab.goto(base + "/games/werewolf/")
        tab.wait_for_selector("table.gn-matrix[data-gn-labelled]")
        matrix = tab.locator("table.gn-matrix")
        assert not matrix.evaluate("t => t.classList.contains('gn-stacked')")
        box = tab.locator(".gn-matrix-box")
        page_width = tab.evaluate("() => document.documentElement.scrollWidth")
        assert page_width <= width  # the page itself never scrolls sideways
        if matrix.evaluate("t => t.scrollWidth > t.parentElement.clientWidth + 1"):
            assert box.get_attribute("tabindex") == "0" and "scrolls sideways" in box.get_attribute("aria-label")


@pytest.mark.parametrize("width", [390, 1366])
def test_the_other_magic_reading_is_one_tap_away(new_tab, base, site, width):
    """On a metric page and an agent page, one tap on "a tap away" opens the other reading's table."""
    with new_tab(viewport={"width": width, "height": 844}) as tab:
        for path in ("/magic/reasoning/", agent_page(site, "random")):
            tab.goto(base + path)
            details = tab.locator("details#other-reading")
            assert not details.evaluate("d => d.open")
            assert not tab.locator("details#other-reading table").is_visible()
            tab.locator(".gn-readings a", has_text="a tap away").click()
            assert details.evaluate("d => d.open"), path
            assert tab.locator("details#other-reading table").is_visible()
            caption = tab.locator("details#other-reading caption").inner_text()
            assert caption.endswith("reference-code reading (the MAgIC authors' script)"), caption
        # A permalink to the other reading opens it too.
        tab.goto(base + "/magic/deception/#other-reading")
        assert tab.locator("details#other-reading").evaluate("d => d.open")


@pytest.mark.parametrize("width, game", [(390, "prisoners_dilemma"), (1366, "werewolf")])
def test_a_box_that_scrolls_sideways_shows_that_it_does(new_tab, base, width, game):
    """A line above it says so, and the side hiding columns fades out, following the scroll: a
    table cut at the screen's edge is never taken for the whole table (the Werewolf board at 1366
    px; on a phone the Prisoner's Dilemma matrix, the widest of the small corpus: Werewolf's
    three-agent matrix fits 390 px once tightened)."""
    with new_tab(viewport={"width": width, "height": 844}) as tab:
        tab.goto(base + f"/games/{game}/")
        tab.wait_for_selector("article table[data-gn-labelled]")
        boxes = tab.locator("article [data-gn-scrolls]")
        assert boxes.count() > 0
        assert tab.locator("article .gn-scroll-hint").count() == boxes.count()  # one line per scrolling box
        for i in range(boxes.count()):
            box = boxes.nth(i)
            assert box.evaluate("b => b.previousElementSibling.matches('.gn-scroll-hint[aria-hidden=true]')")
            assert "scroll" in box.evaluate("b => b.previousElementSibling.textContent")
            more = lambda: box.get_attribute("data-gn-more")  # noqa: E731
            assert more() == "right" and box.evaluate("b => getComputedStyle(b).maskImage") != "none"
            box.evaluate("b => { b.scrollLeft = (b.scrollWidth - b.clientWidth) / 2; }")
            tab.wait_for_function("b => b.getAttribute('data-gn-more') === 'both'", arg=box.element_handle())
            box.evaluate("b => { b.scrollLeft = b.scrollWidth; }")
            tab.wait_for_function("b => b.getAttribute('data-gn-more') === 'left'", arg=box.element_handle())
            box.focus()  # focused, the box drops the fade that would hide its outline
            assert box.evaluate("b => getComputedStyle(b).maskImage") in ("none", "")
        # A table that fits its box says nothing of scrolling.
        tab.set_viewport_size({"width": 2400, "height": 844})
        tab.wait_for_timeout(300)
        fitting = tab.evaluate("() => [...document.querySelectorAll('article .gn-scroll')].filter(b => "
                               "b.scrollWidth <= b.clientWidth + 1).length")
        assert fitting > 0 and tab.locator("article .gn-scroll-hint").count() == \
            tab.locator("article [data-gn-scrolls]").count()

"""The replay viewer and the replay list in headless Chromium, on a site built by build_site."""

from __future__ import annotations

import contextlib
import json
import shutil
from pathlib import Path
from urllib.parse import parse_qs, urlencode, urlparse

import pytest

from site_builder.viewer import listing
from site_builder.viewer.files import DATA_DIR
from site_builder.viewer.listing import ListedGame, list_files, write_list
from site_builder.viewer.pages import ASSETS, INDEX_PAGE, pages
from site_builder.viewer.shards import MANIFEST, pack, read_packed, shard_hash, shard_name, unpack
from tests.site import payloads
from tests.site.payloads import PAYLOAD_CHAMELEON, PAYLOAD_INVALID, PAYLOAD_WEREWOLF, SAMPLES

VIEWER = "[data-gn-viewer]"
LIST = "[data-gn-replays]"
READY_LIST = "[data-gn-replays][data-ready=true]"  # the rows of the latest filters are drawn


@pytest.fixture(scope="module")
def site(tmp_path_factory, serve):
    """The site of one shipped replay per game plus the payload replays (with LLM evidence)."""
    return payloads.built_site(tmp_path_factory, serve)


@pytest.fixture(scope="module")
def warm_context(browser):
    context = browser.new_context()
    yield context
    context.close()


@pytest.fixture
def page(warm_context):
    """conftest's `page` (the test fails on any JavaScript error or dialog), opened in a context
    shared by this module's tests: Material's scripts then load once, not once per test."""
    tab = warm_context.new_page()
    errors: list[str] = []
    tab.on("pageerror", lambda exc: errors.append(str(exc)))
    tab.on("dialog", lambda dialog: (errors.append(f"dialog: {dialog.message}"), dialog.dismiss()))
    yield tab
    if tab.url.startswith("http"):
        tab.evaluate("localStorage.clear(); sessionStorage.clear()")  # e.g. the palette choice
    tab.close()
    assert not errors, errors


def data_of(site, game_id: str) -> dict:
    return read_packed(site[0], game_id)


def open_viewer(page, site, game_id: str, **params) -> None:
    page.goto(f"{site[1]}/replays/viewer/?{urlencode({'id': game_id, **params})}")
    page.wait_for_selector(f"{VIEWER}[data-ready]")


def state(page) -> tuple[int, str]:
    """The viewer's step and point of view, as it reports them."""
    root = page.locator(VIEWER)
    return int(root.get_attribute("data-step")), root.get_attribute("data-pov")


def address(page) -> dict[str, str]:
    return {k: v[0] for k, v in parse_qs(urlparse(page.url).query).items()}


SNAPSHOT = """root => ({
    step: Number(root.dataset.step),
    text: root.textContent,
    terms: Array.from(root.querySelectorAll("dt"), dt => dt.textContent),
    table: Array.from(root.querySelectorAll(".gn-players tbody tr"), tr => Array.from(tr.cells, c => c.textContent)),
})"""


def snapshot(page) -> dict:
    """The viewer in one round trip: its step, all its text (hidden parts included: closed
    details, clipped history), the setup's field names, and the players' table."""
    return page.locator(VIEWER).evaluate(SNAPSHOT)


def test_steps_by_keys_and_buttons(page, site):
    game_id = SAMPLES["chameleon"]
    last = len(data_of(site, game_id)["steps"]) + 1
    open_viewer(page, site, game_id)
    assert state(page) == (0, "all")
    moves = [("key", "ArrowRight", 1), ("click", ".gn-next", 2), ("click", ".gn-next", 3), ("click", ".gn-prev", 2),
             ("key", "ArrowLeft", 1), ("click", ".gn-last", last), ("key", "ArrowRight", last),
             ("click", ".gn-first", 0), ("key", "ArrowLeft", 0)]
    for how, what, expected in moves:
        page.keyboard.press(what) if how == "key" else page.click(what)
        assert state(page)[0] == expected, (how, what)
        assert address(page) == {"id": game_id, "step": str(expected)}
    assert page.locator(".gn-first").is_disabled() and page.locator(".gn-prev").is_disabled()


def test_the_current_step_says_who_did_what(page, site):
    game_id = SAMPLES["chameleon"]
    data = data_of(site, game_id)
    first = data["steps"][0]
    speaker, clue = data["players"][first["s"]]["name"], first["d"]["clue"]
    open_viewer(page, site, game_id, step=1)
    says = page.locator(".gn-step .gn-says")
    assert says.inner_text() == f"{speaker} gives the clue {clue}" and says.locator("q").inner_text() == clue
    assert page.locator(".gn-history li").count() == 1


def test_slider(page, site):
    game_id = SAMPLES["werewolf"]
    total = len(data_of(site, game_id)["steps"])
    open_viewer(page, site, game_id)
    page.locator(".gn-slider").evaluate("s => { s.value = '5'; s.dispatchEvent(new Event('input', {bubbles: true})); }")
    assert state(page)[0] == 5
    assert page.locator(".gn-position").inner_text() == f"Step 5 of {total}"
    page.locator(".gn-slider").focus()
    page.keyboard.press("ArrowRight")  # the slider's own key: one step, not two
    assert state(page)[0] == 6 and address(page)["step"] == "6"


def test_the_chameleon_never_sees_the_secret_word_before_the_reveal(page, site):
    game_id = SAMPLES["chameleon"]
    data = data_of(site, game_id)
    chameleon, secret, reveal = data["setup"]["chameleon"], data["setup"]["secret"], data["reveal"]["setup"]
    other = (chameleon + 1) % len(data["players"])
    open_viewer(page, site, game_id, pov=other)
    assert page.locator(".gn-setup dt", has_text="secret").count() == 1
    assert page.locator(".gn-setup dt:text-is('secret') + dd").inner_text() == secret
    open_viewer(page, site, game_id, pov=chameleon)
    view = snapshot(page)
    roles = [row[1] for row in view["table"]]
    assert roles == ["chameleon" if seat == chameleon else "?" for seat in range(len(roles))]
    while view["step"] < reveal:
        assert "secret" not in view["terms"] and "secret word was" not in view["text"]
        page.keyboard.press("ArrowRight")
        view = snapshot(page)
    assert view["step"] == reveal
    assert f"The secret word was {secret}" in page.locator(".gn-step").inner_text()
    assert page.locator(".gn-setup dt:text-is('secret') + dd").inner_text() == secret


def test_an_undercover_civilian_sees_no_roles_until_the_vote_result(page, site):
    game_id = SAMPLES["undercover"]
    data = data_of(site, game_id)
    civilian = next(seat for seat, p in enumerate(data["players"]) if p["role"] == "civilian")
    reveal = data["reveal"]["roles"]
    open_viewer(page, site, game_id, pov=civilian)
    view = snapshot(page)
    while view["step"] < reveal:
        assert [row[1] for row in view["table"]] == ["?"] * len(data["players"])
        words = [row[3] for row in view["table"]]
        assert words == [data["private"][civilian]["word"] if s == civilian else "?" for s in range(len(words))]
        # (the civilian's own agent is named with its strategy, "undercover/associative": no role in that)
        cells = [cell.replace("undercover/", "") for row in view["table"] for cell in row]
        assert not any("undercover" in cell or "civilian" in cell for cell in cells)
        page.keyboard.press("ArrowRight")
        view = snapshot(page)
    assert view["step"] == reveal
    assert [row[1] for row in view["table"]] == [p["role"] for p in data["players"]]


def test_werewolf_views_show_only_what_each_seat_knew(page, site):
    game_id = SAMPLES["werewolf"]
    data = data_of(site, game_id)
    roles = [p["role"] for p in data["players"]]
    seer, mason, villager = roles.index("seer"), roles.index("mason"), roles.index("villager")
    fellow = data["private"][mason]["fellow_mason"]
    votes = next(i + 1 for i, s in enumerate(data["steps"]) if s["p"] == "count")
    for pov, sees_night in ((seer, True), (villager, False)):
        open_viewer(page, site, game_id, pov=pov, step=votes)
        history = page.locator(".gn-history").inner_text()
        assert ("learns that the Werewolf" in history) is sees_night
        own_steps = sum(1 for s in data["steps"][:votes]
                        if s["v"] != "all" and pov in s["v"] and s["k"] != "probe")  # probes hidden by default
        public_steps = sum(1 for s in data["steps"][:votes] if s["v"] == "all")
        assert page.locator(".gn-history li").count() == own_steps + public_steps
    open_viewer(page, site, game_id, pov=mason, step=1)
    shown = page.locator(".gn-players tbody td:nth-child(2)").all_inner_texts()
    assert shown == ["mason" if seat in (mason, fellow) else "?" for seat in range(len(roles))]


def test_a_permalink_restores_the_step_and_the_point_of_view(page, site):
    game_id = SAMPLES["werewolf"]
    open_viewer(page, site, game_id, step=7, pov=2)
    assert state(page) == (7, "2") and page.locator(".gn-pov").input_value() == "2"
    assert page.locator("tr.gn-you th").inner_text().startswith(data_of(site, game_id)["players"][2]["name"])
    page.keyboard.press("ArrowRight")
    moved = state(page)
    assert address(page) == {"id": game_id, "step": str(moved[0]), "pov": "2"}
    page.goto(page.url)
    page.wait_for_selector(f"{VIEWER}[data-ready]")
    assert state(page) == moved
    page.select_option(".gn-pov", "all")
    assert state(page) == (moved[0], "all") and "pov" not in address(page)
    statement = next(s for s in data_of(site, game_id)["steps"] if s["p"] == "day" and s["n"] > 20)
    open_viewer(page, site, game_id, event=statement["n"])  # a link to an event by its number
    assert state(page)[0] == 1 + data_of(site, game_id)["steps"].index(statement)
    assert address(page)["step"] == str(state(page)[0])


def test_a_step_hidden_from_the_chosen_player_opens_at_the_last_step_it_saw(page, site):
    game_id = SAMPLES["werewolf"]
    data = data_of(site, game_id)
    hidden = next(i + 1 for i, s in enumerate(data["steps"]) if s["v"] != "all" and 0 not in s["v"])
    open_viewer(page, site, game_id, step=hidden, pov=0)
    seen = state(page)[0]
    assert seen < hidden and all(data["steps"][i - 1]["v"] != "all" for i in range(seen + 1, hidden + 1))
    assert address(page)["step"] == str(seen)
    # One number for a moment: the step shown is the step in the address, in every point of view.
    shown = lambda n: "The deal" if n == 0 else f"Step {n} of {len(data['steps'])}"  # noqa: E731
    assert page.locator(".gn-position").inner_text() == shown(seen)
    page.keyboard.press("ArrowRight")
    now = state(page)[0]
    assert now > seen and all(data["steps"][i - 1]["v"] != "all" and 0 not in data["steps"][i - 1]["v"]
                              for i in range(seen + 1, now))  # the steps it skipped were hidden
    assert page.locator(".gn-position").inner_text() == shown(now)
    assert address(page)["step"] == str(now) and "event " not in page.locator(".gn-step").inner_text()


def test_llm_raw_exchanges_are_shown_on_demand_and_only_to_their_seat(page, site):
    data = data_of(site, PAYLOAD_CHAMELEON)
    index = next(i for i, s in enumerate(data["steps"]) if "c" in s and s["v"] == "all")
    seat = data["steps"][index]["s"]
    open_viewer(page, site, PAYLOAD_CHAMELEON, step=index + 1)
    raw = page.locator("details.gn-raw")
    assert raw.count() == 1 and not raw.locator(".gn-calls").is_visible()
    raw.locator("summary").click()
    replies = page.locator(".gn-msg-reply pre")
    replies.first.wait_for()
    assert replies.count() == 2 and all(t.startswith(f"reply {seat}: ") for t in replies.all_inner_texts())
    assert page.locator(".gn-msg-system pre").first.inner_text().startswith(f"system {seat}: ")
    assert "c" in data["steps"][index + 1]
    page.keyboard.press("ArrowRight")  # the next decision's exchanges open by themselves
    assert page.locator("details.gn-raw[open]").count() == 1
    next_seat = data["steps"][index + 1]["s"]
    page.locator(f".gn-msg-reply pre:text-matches('^reply {next_seat}: ')").first.wait_for()
    open_viewer(page, site, PAYLOAD_CHAMELEON, step=index + 1, pov=(seat + 1) % len(data["players"]))
    assert page.locator("details.gn-raw").count() == 0 and page.locator(".gn-attempts").count() == 0
    open_viewer(page, site, PAYLOAD_CHAMELEON, step=index + 1, pov=seat)
    assert page.locator("details.gn-raw").count() == 1 and page.locator(".gn-attempts li").count() == 1


def test_a_game_that_ended_invalid_says_who_forfeited(page, site):
    data = data_of(site, PAYLOAD_INVALID)
    open_viewer(page, site, PAYLOAD_INVALID, step=len(data["steps"]) + 1)
    text = page.locator(".gn-step").inner_text()
    forfeit = data["outcome"]["result"]["forfeit"]
    assert "The game ended in a forfeit:" in text and data["players"][forfeit["seat"]]["name"] in text


@pytest.mark.parametrize(("query", "message"), [
    ("", "No replay is chosen."),
    ("?id=..%2Fsecrets", "This address does not name a replay."),
    ("?id=no-such-game", "could not be loaded (not found)"),
])
def test_a_bad_address_says_what_is_wrong(page, site, query, message):
    page.goto(f"{site[1]}/replays/viewer/{query}")
    status = page.locator(f"{VIEWER} .gn-message")
    status.locator("a").wait_for()
    assert message in status.inner_text()
    assert status.locator("a").get_attribute("href").endswith("/replays/")


def follow_nav_link(page, ending: str) -> None:
    """Click the navigation's link to a page (wherever the nav tucks it away): Material's
    instant navigation takes it from there."""
    page.locator(f"nav a.md-nav__link[href$='{ending}']").first.evaluate("a => a.click()")


def test_instant_navigation_to_the_viewer_and_away(page, site):
    page.goto(f"{site[1]}/")
    page.evaluate("window.gnSamePage = true")
    follow_nav_link(page, "replays/")
    page.wait_for_selector(READY_LIST)
    assert page.evaluate("window.gnSamePage") is True
    page.locator(f"{LIST} tbody a").first.click()
    page.wait_for_selector(f"{VIEWER}[data-ready]")
    assert page.evaluate("window.gnSamePage") is True  # Material swapped the page, no reload
    page.keyboard.press("ArrowRight")
    assert state(page)[0] == 1
    follow_nav_link(page, "replays/")  # away: the viewer's key listener goes
    page.wait_for_selector(READY_LIST)
    page.keyboard.press("ArrowRight")
    page.locator(f"{LIST} tbody a").first.click()
    page.wait_for_selector(f"{VIEWER}[data-ready]")
    page.keyboard.press("ArrowRight")
    assert state(page)[0] == 1  # one listener: one step per key press
    page.go_back()
    page.wait_for_selector(READY_LIST)
    assert page.evaluate("window.gnSamePage") is True


def test_light_and_dark_schemes_restyle_the_viewer(page, site):
    open_viewer(page, site, SAMPLES["public_good"], step=3)
    panel = page.locator(".gn-step")
    look = "el => [getComputedStyle(el).color, getComputedStyle(el).backgroundColor]"
    light = panel.evaluate(look)
    page.locator("label[for='__palette_1']").click()
    page.wait_for_function("document.body.getAttribute('data-md-color-scheme') === 'slate'")
    dark = panel.evaluate(look)
    assert light[0] != dark[0] and light[1] != dark[1]


def test_the_light_or_dark_choice_carries_over_between_the_viewer_and_the_other_pages(page, site):
    scheme = "() => document.body.getAttribute('data-md-color-scheme')"
    open_viewer(page, site, SAMPLES["public_good"], step=3)  # the viewer's own toggle: no Material bundle
    assert page.evaluate("window.document$") is None
    assert page.locator("label[for='__palette_0']").is_hidden()
    page.locator("label[for='__palette_1']").click()
    assert page.evaluate(scheme) == "slate" and page.locator("label[for='__palette_1']").is_hidden()
    page.goto(f"{site[1]}/replays/")  # a page of the whole theme reads the choice
    page.wait_for_selector(READY_LIST)
    assert page.evaluate(scheme) == "slate"
    page.locator("label[for='__palette_0']").click()
    page.wait_for_function("document.body.getAttribute('data-md-color-scheme') === 'default'")
    open_viewer(page, site, SAMPLES["public_good"], step=3)
    assert page.evaluate(scheme) == "default" and page.locator("label[for='__palette_1']").is_visible()


def test_readable_on_a_phone(browser, site):
    context = browser.new_context(viewport={"width": 375, "height": 740}, is_mobile=True, has_touch=True)
    page = context.new_page()
    errors = []
    page.on("pageerror", lambda exc: errors.append(str(exc)))
    try:
        open_viewer(page, site, SAMPLES["werewolf"], step=12)
        assert page.evaluate("document.documentElement.scrollWidth <= window.innerWidth")
        for control in (".gn-prev", ".gn-next", ".gn-slider", ".gn-pov"):
            box = page.locator(control).bounding_box()
            assert box["x"] >= 0 and box["x"] + box["width"] <= 375, control
        state_box, setup_box = page.locator(".gn-state").bounding_box(), page.locator(".gn-setup").bounding_box()
        assert state_box["x"] == setup_box["x"] and setup_box["y"] > state_box["y"]  # one column
        page.locator(".gn-next").tap()
        assert state(page)[0] == 13
    finally:
        context.close()
    assert not errors


def rows(page) -> list[list[str]]:
    """The list's rows: replay link, game, date, players, outcome (hidden cells included)."""
    return page.locator(f"{LIST} tbody tr").evaluate_all(
        "trs => trs.map(tr => Array.from(tr.cells, td => td.textContent))")


def test_replay_list_filters_by_game_agent_and_outcome_from_the_address(page, site):
    base = site[1]
    page.goto(f"{base}/replays/")
    page.wait_for_selector(READY_LIST)
    assert len(rows(page)) == len(SAMPLES) + 3
    page.goto(f"{base}/replays/?game=chameleon")
    page.wait_for_selector(READY_LIST)
    assert {r[1] for r in rows(page)} == {"The Chameleon"} and len(rows(page)) == 3
    assert not page.locator(f"{LIST} tbody td:nth-child(2)").first.is_visible()  # one game: no game column
    label = payloads.description(1)["name"]
    page.select_option(f"{LIST} select[name=agent]", label)
    page.wait_for_selector(READY_LIST)
    assert address(page) == {"game": "chameleon", "agent": label}
    assert len(rows(page)) == 2 and all(label in r[3] for r in rows(page))
    page.select_option(f"{LIST} select[name=outcome]", "invalid")
    page.wait_for_selector(READY_LIST)
    assert address(page) == {"game": "chameleon", "agent": label, "outcome": "invalid"}
    assert [r[4] for r in rows(page)] == ["invalid"]
    link = page.locator(f"{LIST} tbody a")
    assert parse_qs(urlparse(link.get_attribute("href")).query) == {"id": [PAYLOAD_INVALID]}
    page.click(f"{LIST} button[type=reset]")
    page.wait_for_selector(READY_LIST)
    assert address(page) == {} and len(rows(page)) == len(SAMPLES) + 3


def list_site(tmp_path, monkeypatch) -> tuple[Path, list]:
    """A site of the list page alone, over 120 Undercover and 30 Chameleon games, 100 rows a shard."""
    site_dir = tmp_path / "site"
    (site_dir / "replays").mkdir(parents=True)
    shutil.copytree(ASSETS, site_dir / "assets" / "viewer")
    (site_dir / "replays" / "index.html").write_text(
        "<!doctype html><meta charset=utf-8>" + {p.path: p.text for p in pages({})}[INDEX_PAGE].split("# Replays", 1)[1],
        encoding="utf-8")
    listed = [ListedGame(f"u-{i:04d}", "undercover", f"2026-01-{1 + i % 28:02d}T00:00:00Z",
                                 ("a" if i % 2 else "b", "b", "b"), ("undercover", "civilian", "civilian"), (1, 2),
                                 "civilians win" if i % 3 else "undercover wins", True, 7) for i in range(120)]
    listed += [ListedGame(f"c-{i:04d}", "chameleon", f"2026-02-{1 + i:02d}T00:00:00Z", ("a", "c", "c"),
                                  ("chameleon", "non_chameleon", "non_chameleon"), (0,), "chameleon not caught",
                                  True, 4) for i in range(30)]
    monkeypatch.setattr(listing, "SHARD_ROWS", 100)
    write_list(site_dir, list_files(listed, {"a": "a", "b": "b", "c": "c"}))
    newest = sorted(sorted(listed, key=lambda g: g.game_id), key=lambda g: g.created, reverse=True)
    return site_dir, newest


def test_replay_list_loads_only_the_shards_of_the_rows_it_shows(page, tmp_path, serve, monkeypatch):
    site_dir, newest = list_site(tmp_path, monkeypatch)
    fetched: list[str] = []
    page.on("request", lambda request: fetched.append(request.url.rsplit("/", 1)[1])
            if "/replays/list/" in request.url else None)

    def shown(url_or_action):
        fetched.clear()
        if isinstance(url_or_action, str):
            page.goto(url_or_action)
        else:
            url_or_action()
        page.wait_for_selector(READY_LIST)
        return page.locator(f"{LIST} tbody a").evaluate_all("links => links.map(a => a.title)")

    base = serve(site_dir)
    ids = [g.game_id for g in newest]
    # A first screen: the index, the stream's counts and one shard.
    assert shown(f"{base}/replays/?page=2") == ids[50:100]
    assert fetched == ["index.json", "all.json", "all-0.json.gz"]
    assert page.locator(".gn-page").inner_text() == "Page 2 of 3"
    assert page.locator(f"{LIST} .gn-message").inner_text() == "Showing 51–100 of 150 replays."
    # The next page is in the next shard, fetched then.
    assert shown(lambda: page.click(".gn-page-next")) == ids[100:150]
    assert fetched == ["all-1.json.gz"] and address(page) == {"page": "3"}
    assert page.locator(f"{LIST} .gn-message").inner_text() == "Showing 101–150 of 150 replays."
    assert shown(lambda: page.click(".gn-page-prev")) == ids[50:100] and fetched == []  # kept
    # A game: its own stream; counts and rows right, the first page from one shard.
    undercover = [g.game_id for g in newest if g.game == "undercover"]
    assert shown(lambda: page.select_option(f"{LIST} select[name=game]", "undercover")) == undercover[:50]
    assert fetched == ["g-undercover.json", "g-undercover-0.json.gz"]
    assert page.locator(f"{LIST} .gn-message").inner_text() == "Showing 1–50 of 120 replays."
    # ... and an outcome within it: the same stream, filtered, counted from the counts.
    caught = [g.game_id for g in newest if g.game == "undercover" and g.outcome == "undercover wins"]
    assert shown(lambda: page.select_option(f"{LIST} select[name=outcome]", "undercover wins")) == caught
    assert fetched == ["g-undercover-1.json.gz"]  # the 40 matching rows span both of the game's shards
    assert page.locator(f"{LIST} .gn-message").inner_text() == f"Showing 1–{len(caught)} of 40 replays."
    # An agent: its stream, whatever the game.
    assert shown(lambda: page.click(f"{LIST} button[type=reset]")) == ids[:50]
    played_a = [g.game_id for g in newest if "a" in g.agents]
    assert shown(lambda: page.select_option(f"{LIST} select[name=agent]", "a")) == played_a[:50]
    assert fetched == ["a0.json", "a0-0.json.gz"] and address(page) == {"agent": "a"}
    assert page.locator(f"{LIST} .gn-message").inner_text() == f"Showing 1–50 of {len(played_a)} replays."
    assert rows(page)[0][3] == "a (chameleon), c ×2 (non-chameleon)"
    # A permalink of a filtered page.
    later = [g for g in newest if "a" in g.agents and g.game == "undercover"]
    assert shown(f"{base}/replays/?game=undercover&agent=a&page=2") == [g.game_id for g in later][50:]
    assert fetched == ["index.json", "a0.json", "a0-0.json.gz"]  # a's 90 rows: one shard
    assert page.locator(f"{LIST} .gn-message").inner_text() == f"Showing 51–{len(later)} of {len(later)} replays."
    assert rows(page)[0][3] == "a (undercover), b ×2 (civilian)"
    assert shown(f"{base}/replays/?agent=nobody") == [] and fetched == ["index.json"]
    assert page.locator(f"{LIST} .gn-message").inner_text() == "No replay matches these filters."


@contextlib.contextmanager
def edited_replay(browser, site, game_id: str, change):
    """A fresh browser page (its own cache: the data file changes between tests) on a site whose data
    file of `game_id` was passed through `change(data)`; the file is put back after, and the page
    must raise no error."""
    buckets = json.loads((site[0] / MANIFEST).read_text(encoding="utf-8"))["data"]
    path = site[0] / DATA_DIR / shard_name(shard_hash(game_id) % buckets)
    original = path.read_bytes()
    lines = unpack(original)
    data = json.loads(lines[game_id])
    change(data)
    context = browser.new_context()
    page = context.new_page()
    errors: list[str] = []
    page.on("pageerror", lambda exc: errors.append(str(exc)))
    try:
        path.write_bytes(pack({**lines, game_id: json.dumps(data)}))
        yield page
        assert not errors, errors
    finally:
        context.close()
        path.write_bytes(original)


@pytest.mark.parametrize("url, linked", [("https://github.com/o/r/pull/7", True), ("javascript:alert(1)", False),
                                         ("data:text/html,<b>x</b>", False)])
def test_the_viewer_names_the_games_source_as_text(browser, site, url, linked):
    game_id = SAMPLES["prisoners_dilemma"]
    label = "pull request #7 by <img src=x onerror=alert(1)>"

    def change(data):
        data["source"] = {"kind": "pull_request", "label": label, "url": url}

    with edited_replay(browser, site, game_id, change) as page:
        open_viewer(page, site, game_id)
        meta = page.locator(".gn-meta")
        assert meta.inner_text().endswith(f" \u00b7 source: {label}")
        assert meta.locator("img").count() == 0
        links = meta.locator(".gn-source a")
        assert links.count() == (1 if linked else 0)
        if linked:
            assert links.get_attribute("href") == url


def test_pgm_beliefs_are_a_collapsed_table_seen_only_from_their_seat(browser, site):
    game_id = SAMPLES["chameleon"]
    data = data_of(site, game_id)
    index, step = next((i, s) for i, s in enumerate(data["steps"]) if s["k"] == "action")
    seat, n = step["s"], len(data["players"])
    views = [[round(1.0 / n, 3)] * n for _ in range(n)]
    views[seat] = [0.0 if k == seat else round(1.0 / (n - 1), 3) for k in range(n)]

    def change(data):
        data["steps"][index]["b"] = {"about": "chameleon", "aim": (seat + 1) % n, "views": views, "rated": 1,
                                     "unread": 0}

    with edited_replay(browser, site, game_id, change) as page:
        open_viewer(page, site, game_id, step=index + 1)
        assert page.locator("details.gn-beliefs").count() == 0  # hidden with the probes by default
        open_viewer(page, site, game_id, step=index + 1, probes=1)
        details = page.locator("details.gn-beliefs")
        assert details.count() == 1 and details.get_attribute("open") is None  # collapsed
        assert "PGM beliefs of" in details.locator("summary").inner_text()
        rows = details.locator("tbody tr")
        assert rows.count() == n and rows.first.locator("th").text_content() == "own view"
        assert rows.first.locator("td.gn-aim").count() == 1
        other = (seat + 1) % n
        open_viewer(page, site, game_id, step=index + 1, pov=other, probes=1)  # another seat never sees them
        assert page.locator("details.gn-beliefs").count() == 0
        open_viewer(page, site, game_id, step=index + 1, pov=seat, probes=1)
        assert page.locator("details.gn-beliefs").count() == 1


def test_a_strategy_plan_is_text_collapsed_and_seen_only_from_its_seat(browser, site):
    game_id = SAMPLES["werewolf"]
    data = data_of(site, game_id)
    index, step = next((i, s) for i, s in enumerate(data["steps"]) if s["k"] == "action" and s["p"] == "day")
    other = (step["s"] + 1) % len(data["players"])
    plan = "Claim to be a villager <img src=x onerror=alert(1)> and watch who accuses me."

    def change(data):
        data["steps"][index]["st"] = {"plan": plan, "judgement": [[other, "werewolf", 0.85]], "cut": False}

    with edited_replay(browser, site, game_id, change) as page:
        open_viewer(page, site, game_id, step=index + 1, probes=1)
        details = page.locator("details.gn-beliefs")
        assert details.count() == 1 and details.get_attribute("open") is None
        assert details.locator("blockquote.gn-plan").text_content() == plan and details.locator("img").count() == 0
        assert details.locator("li").text_content().endswith(": werewolf, 85%")
        open_viewer(page, site, game_id, step=index + 1, pov=other, probes=1)
        assert page.locator("details.gn-beliefs").count() == 0


def test_belief_probes_are_hidden_until_asked_for(page, site):
    game_id = SAMPLES["chameleon"]
    data = data_of(site, game_id)
    probe = next(i + 1 for i, s in enumerate(data["steps"]) if s["k"] == "probe")
    total = len(data["steps"])
    probes = sum(1 for s in data["steps"] if s["k"] == "probe")
    open_viewer(page, site, game_id, step=probe - 1)
    assert not page.locator(".gn-probes").is_checked()
    page.keyboard.press("ArrowRight")  # the probes are skipped
    assert data["steps"][state(page)[0] - 1]["k"] != "probe" and state(page)[0] > probe
    assert int(page.locator(".gn-slider").get_attribute("max")) == total + 1 - probes
    assert "probes" not in address(page)
    page.locator(".gn-probes").check()
    assert address(page).get("probes") == "1"
    assert int(page.locator(".gn-slider").get_attribute("max")) == total + 1
    open_viewer(page, site, game_id, step=probe)  # a permalink to a probe shows the probes
    assert state(page)[0] == probe and page.locator(".gn-probes").is_checked()
    assert "(asked privately)" in page.locator(".gn-step").inner_text()


def test_the_header_names_the_matchup_and_the_result_once_roles_are_no_secret(browser, site):
    game_id = SAMPLES["chameleon"]
    data = data_of(site, game_id)
    page = browser.new_page(viewport={"width": 390, "height": 844})
    try:
        open_viewer(page, site, game_id)
        meta = page.locator(".gn-meta").inner_text()
        assert meta.startswith(f"result: {data['outcome']['summary']} \u00b7 {data['tournament']} \u00b7 {data['matchup']}")
        page.select_option(".gn-pov", "0")  # a player's view at the deal: roles are still hidden
        assert "result:" not in page.locator(".gn-meta").inner_text()
    finally:
        page.close()


def test_the_history_follows_the_step_to_the_outcome(browser, site):
    game_id = SAMPLES["werewolf"]  # the longest game: its history scrolls
    page = browser.new_page(viewport={"width": 1366, "height": 900})
    try:
        open_viewer(page, site, game_id, probes=1)
        history = page.locator(".gn-history")
        page.locator(".gn-last").click()
        assert history.evaluate("h => h.scrollHeight > h.clientHeight")  # long enough to scroll
        # At the outcome the last move stays in view instead of the list jumping back to its top.
        assert history.evaluate("h => h.scrollTop + h.clientHeight >= h.scrollHeight - 2")
        page.locator(".gn-first").click()
        page.locator(".gn-next").click()
        assert history.evaluate("h => h.scrollTop") == 0
    finally:
        page.close()


def test_an_equal_split_agreement_names_every_airline_whose_proposal_was_agreed(browser, site):
    # Cost Sharing under agreement = "same_split": the last vote named the equal proposals of two
    # airlines; the step says so and the board says the game was agreed (not "No agreement.").
    game_id = SAMPLES["cost_sharing"]

    def change(data):
        data["variant"]["agreement"] = "same_split"
        last = [s for s in data["steps"] if s["p"] == "vote_result"][-1]
        last["d"].update(votes=[0, 1, 0], agreed_proposer=None, agreed_proposers=[0, 1],
                         agreed_split=[40, 30, 30], costs=[40, 30, 30])

    with edited_replay(browser, site, game_id, change) as page:
        data = data_of(site, game_id)
        names = [p["name"] for p in data["players"]]
        step = [i for i, s in enumerate(data["steps"], 1) if s["p"] == "vote_result"][-1]
        open_viewer(page, site, game_id, step=step)
        says = page.locator(".gn-step .gn-says").inner_text()
        assert f"Agreed on the equal proposals of {names[0]} and {names[1]}: {names[0]} pays 40" in says
        assert "No agreement" not in says


def test_judge_annotations_say_what_each_is_and_which_judge_made_it(page, site):
    """Each judge is named once with its model and prompt version (two prompt versions: two
    judges); a suspicion says whom each statement points at, a failed evaluation why, and no entry
    is a bare label."""
    data = data_of(site, PAYLOAD_WEREWOLF)
    names = [p["name"] for p in data["players"]]
    open_viewer(page, site, PAYLOAD_WEREWOLF, step=len(data["steps"]) + 1)
    judges = page.locator(".gn-judge .gn-judge-one")
    assert judges.count() == 2
    first, second = (judges.nth(i).locator("p").first.inner_text() for i in range(2))
    assert "judge prompts not recorded" in first and "judge prompts {% raw %}" in second
    entries = page.locator(".gn-judge li").all_inner_texts()
    assert len(entries) == 5 and not [e for e in entries if e.rstrip().endswith(":")]
    suspicion = next(e for e in entries if e.startswith("suspicion (round 1): "))
    assert "points at as the Werewolf" in suspicion
    assert f"{names[0]} \u2192 {names[5]}" in suspicion and f"{names[1]} \u2192 nobody" in suspicion
    assert "variation (round 1): no player's role named in the statements" in entries
    assert "wonder: not evaluated (the judge declined)" in entries
    assert "memorability: the most memorable statements: event " in " ".join(entries)


def test_a_phone_shows_the_players_as_a_compact_list(browser, site):
    """Eight Werewolf players were 48 stacked rows at 390 px, mostly "?": now a line or two each,
    with what the view does not know said in words, and the table on a wider screen."""
    game_id, data = SAMPLES["werewolf"], data_of(site, SAMPLES["werewolf"])
    seer = next(seat for seat, p in enumerate(data["players"]) if p["role"] == "seer")
    context = browser.new_context(viewport={"width": 390, "height": 844})
    tab = context.new_page()
    try:
        open_viewer(tab, site, game_id, pov=seer, step=3)
        assert tab.locator(".gn-players table").is_hidden()
        items = tab.locator(".gn-player-list li")
        assert items.count() == len(data["players"]) == 8
        line = tab.evaluate("() => parseFloat(getComputedStyle(document.querySelector('.gn-player-list li')).lineHeight)")
        assert all(item.bounding_box()["height"] <= 3.5 * line for item in items.all())  # two lines, three at most
        mine = tab.locator(".gn-player-list li.gn-you")
        assert mine.locator(".gn-badge").inner_text() == "you" and "seer" in mine.inner_text()
        assert data["players"][seer]["agent"] in mine.inner_text()
        others = [items.nth(s).inner_text() for s in range(8) if s != seer]
        assert all("not known" in text and "?" not in text for text in others)
        assert tab.locator(".gn-unknown-note").is_hidden()  # no "?" to explain on a phone
        assert tab.evaluate("() => document.documentElement.scrollWidth") <= 390
        tab.set_viewport_size({"width": 1366, "height": 900})
        tab.locator(".gn-players table").wait_for()
        assert tab.locator(".gn-player-list").is_hidden()
        assert tab.locator(".gn-unknown-note").inner_text().startswith("?: not known to")
    finally:
        context.close()


def test_nothing_in_the_viewer_lives_only_in_a_title(page, site):
    """A phone cannot show a title: the agent's model or strategy is written out, "?" explained in a
    line; only the step buttons keep a title (their names are their aria-labels and symbols)."""
    game_id, data = SAMPLES["werewolf"], data_of(site, SAMPLES["werewolf"])
    open_viewer(page, site, game_id)
    titled = page.evaluate("() => [...document.querySelectorAll('[data-gn-viewer] [title]')]"
                           ".filter(e => !(e.matches('button[data-go]') && e.getAttribute('aria-label')))"
                           ".map(e => e.outerHTML.slice(0, 80))")
    assert titled == []
    about = data["players"][0]["about"]
    assert about.split(" (")[-1].rstrip(")") in page.locator(".gn-players tbody tr").first.inner_text()


def test_past_statements_are_cut_to_two_lines_and_shown_in_full_on_demand(page, site):
    game_id = PAYLOAD_WEREWOLF  # statements of every payload: long
    open_viewer(page, site, game_id, step=999)
    history = page.locator(".gn-history")
    clamped = "() => [...document.querySelectorAll('.gn-history li:not(.gn-current) .gn-jump')]" \
              ".filter(b => b.scrollHeight > b.clientHeight + 1).length"
    assert page.evaluate(clamped) > 0  # cut to two lines
    page.locator(".gn-full").check()
    assert "gn-history-full" in history.get_attribute("class") and page.evaluate(clamped) == 0
    page.locator(".gn-full").uncheck()
    assert page.evaluate(clamped) > 0

"""What a first visit to a replay's permalink transfers, measured in Chromium against a server that
compresses text as GitHub Pages does, and the benchmark's count of it (bench.first_visit)."""

from __future__ import annotations

import time

import pytest

from site_builder.bench import scale as bench
from site_builder.viewer.files import CALLS_DIR, LIST_DIR
from site_builder.viewer.shards import read_packed
from tests.site import payloads
from tests.site.payloads import PAYLOAD_CHAMELEON

READY = "[data-gn-viewer][data-ready=true]"
#: The issue's target for opening one game on a first visit, and for its exchanges on top.
FIRST_VISIT_LIMIT = 60_000
EXCHANGES_LIMIT = 30_000


@pytest.fixture(scope="module")
def site(tmp_path_factory, serve):
    return payloads.built_site(tmp_path_factory, serve)[0]


def wait_for_quiet(sent: list, seconds: float = 0.5, limit: float = 10.0) -> None:
    """Until the server has sent nothing for `seconds` (late requests: the icon)."""
    deadline = time.monotonic() + limit
    count, since = len(sent), time.monotonic()
    while time.monotonic() < deadline:
        time.sleep(0.05)
        if len(sent) != count:
            count, since = len(sent), time.monotonic()
        elif time.monotonic() - since >= seconds:
            return


def test_a_first_visit_transfers_what_the_bench_counts_and_under_60_kb(new_tab, site, serve_like_pages):
    base, sent = serve_like_pages(site)
    data = read_packed(site, PAYLOAD_CHAMELEON)
    step = next(i + 1 for i, s in enumerate(data["steps"]) if "c" in s and s["v"] == "all")  # a model's move
    with new_tab() as tab:  # empty cache: a first visit
        tab.goto(f"{base}/replays/viewer/?id={PAYLOAD_CHAMELEON}&step={step}")
        tab.wait_for_selector(READY)
        wait_for_quiet(sent)
        measured = {path.lstrip("/").removesuffix("/") + ("/index.html" if path.endswith("/") else ""): size
                    for path, size in sent}
        assert len(measured) == len(sent), f"a file was fetched twice: {sent}"
        print("\nfirst visit:\n" + "\n".join(f"{size:>8,} B  {path}" for path, size in sent) +
              f"\n{sum(measured.values()):>8,} B  in {len(sent)} requests")
        assert measured == bench.first_visit(site, PAYLOAD_CHAMELEON)
        assert sum(measured.values()) <= FIRST_VISIT_LIMIT
        # Nothing the page does not show: no search index, no theme bundle, no chart library.
        assert not any(part in path for path in measured for part in ("search", "bundle.", "plotly", "site.js"))

        # The model exchanges: one more shard, fetched when they are opened.
        before = len(sent)
        tab.locator("details.gn-raw summary").first.click()
        tab.locator("details.gn-raw[open] .gn-call").first.wait_for()
        wait_for_quiet(sent)
        exchanges = sent[before:]
        assert [path.rsplit("/", 1)[0] for path, _ in exchanges] == ["/" + CALLS_DIR], exchanges
        assert exchanges[0][1] == bench.wire_bytes(site / exchanges[0][0].lstrip("/")) <= EXCHANGES_LIMIT


def test_the_lists_first_screen_fetches_what_the_bench_counts(new_tab, site, serve_like_pages):
    base, sent = serve_like_pages(site)
    with new_tab() as tab:
        tab.goto(f"{base}/replays/")
        tab.wait_for_selector("[data-gn-replays][data-ready=true]")
        wait_for_quiet(sent)
        fetched = {path.lstrip("/"): size for path, size in sent if path.startswith("/" + LIST_DIR)}
        assert fetched == bench.list_first_screen(site)


def test_the_home_page_fetches_search_only_when_the_search_box_is_used(new_tab, site, serve_like_pages):
    base, sent = serve_like_pages(site)
    with new_tab(viewport={"width": 1366, "height": 900}) as tab:
        tab.goto(f"{base}/", wait_until="networkidle")
        wait_for_quiet(sent)
        measured = {path.lstrip("/") or "index.html": size for path, size in sent}
        assert len(measured) == len(sent), f"a file was fetched twice: {sent}"
        assert measured == bench.home_first_visit(site)
        assert not set(measured) & set(bench.search_on_first_use(site)), measured

        # The first use of the box fetches the index and the worker, once, and a query is answered.
        before = len(sent)
        box = tab.locator("input[data-md-component=search-query]")
        box.click()
        box.press_sequentially("werewolf")
        tab.locator(".md-search-result__item").first.wait_for()
        wait_for_quiet(sent)
        assert {path.lstrip("/"): size for path, size in sent[before:]} == bench.search_on_first_use(site)
        assert len(sent) - before == 2
        assert "werewolf" in tab.locator(".md-search-result__item").first.inner_text().lower()


def test_a_phone_opens_search_with_the_icon_and_gets_answers(new_tab, site, serve_like_pages):
    base, sent = serve_like_pages(site)
    with new_tab(viewport={"width": 390, "height": 844}, has_touch=True) as tab:
        tab.goto(f"{base}/games/werewolf/", wait_until="networkidle")
        wait_for_quiet(sent)
        assert not any(path.endswith("search_index.json") for path, _ in sent)
        tab.locator("label[for=__search]").first.tap()
        tab.locator("input[data-md-component=search-query]").press_sequentially("chameleon")
        tab.locator(".md-search-result__item").first.wait_for()
        assert sum(path.endswith("search_index.json") for path, _ in sent) == 1

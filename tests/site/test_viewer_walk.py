"""The viewer opens every shipped game, and every model exchange of those that have any.

One browser page walks the site built from `replays/`, by permalink (`viewer/?id=…`): each game
must render with no JavaScript error and no failed request; in a model game the exchanges of
every decision are opened (the first by a click, the next ones stay open while stepping). Every
50th game is a full page load; the others change page as Material's instant navigation does
(the address changes and the content is swapped in), which is twice as fast. Each game is opened
and stepped through by one script inside the page (WALK_GAME), one round trip per game.
"""

from __future__ import annotations

import time
from pathlib import Path
from urllib.parse import urlencode

import pytest

from site_builder.build import build_site
from site_builder.viewer.shards import packed_ids, read_packed, shard_hash

SHIPPED = Path(__file__).resolve().parents[2] / "replays"
READY = "[data-gn-viewer][data-ready=true]"
FULL_LOAD_EVERY = 50


@pytest.fixture(scope="module")
def shipped_site(tmp_path_factory, serve, shipped_scores):
    """The site of every shipped replay, served. Its replays' checks come from the run's one check
    of them (tests/conftest.py, `shipped_scores`): the site is the one a cold build makes."""
    root = tmp_path_factory.mktemp("shipped")
    site = root / "site"
    report = build_site([SHIPPED], site, seed=2026, cache_path=shipped_scores(root / "cache"))
    assert report.games > 1000 and not report.invalid_replays
    return site, serve(site)


def test_the_browser_finds_every_game_in_the_shard_python_put_it_in(new_tab, shipped_site):
    site, base = shipped_site
    ids = packed_ids(site)
    with new_tab() as tab:
        tab.goto(f"{base}/replays/viewer/")
        tab.wait_for_function("() => window.gamenightReplays !== undefined")
        hashes = tab.evaluate("ids => ids.map(window.gamenightReplays.shardHash)", ids)
    assert hashes == [shard_hash(game_id) for game_id in ids]


#: Stands in for Material's `document$` (the served bundle is empty, below): it tells the page's
#: scripts of a page change, as Material's instant navigation does, and keeps the viewer's
#: markup as it came from the server so a page change can bring in a fresh copy.
INSTANT_NAVIGATION = """
var changes = [];  // every script that subscribes is told of every page change
window.gnPageChanged = function () { changes.forEach(function (changed) { changed(); }); };
window.document$ = { subscribe: function (changed) {
  var first = function () {  // like Material's, the first page is announced once it is parsed
    if (!window.gnPristine) {
      var root = document.querySelector("[data-gn-viewer]");
      window.gnPristine = root && root.cloneNode(true);
    }
    changed();
  };
  changes.push(changed);
  if (document.readyState === "loading") document.addEventListener("DOMContentLoaded", first, { once: true });
  else first();
  return { unsubscribe: function () {} };
} };
"""


def without_material_bundle(route) -> None:
    """Material's own script is served empty: the viewer does not need it (common.js starts pages
    itself without it), and parsing it on each of a thousand page loads was most of the walk's time.
    tests/site/test_viewer_browser.py runs the viewer with it."""
    route.fulfill(status=200, content_type="application/javascript", body="")


#: Opens one game in the page and steps through its decisions with model calls, all inside the
#: browser: one round trip per game instead of one per key press and wait (the walk's time was
#: mostly those round trips). Returns what went wrong, empty if nothing did.
WALK_GAME = """async ({url, steps, instant}) => {
  const problems = [];
  const until = async (test, what) => {
    for (let waited = 0; waited < 15000; waited += 10) {
      if (test()) return true;
      await new Promise(done => setTimeout(done, 10));
    }
    problems.push("timed out waiting for " + what);
    return false;
  };
  if (instant) {
    history.replaceState(null, "", url);
    document.querySelector("[data-gn-viewer]").replaceWith(window.gnPristine.cloneNode(true));
    window.gnPageChanged();
  }
  if (!await until(() => document.querySelector('""" + READY + """'), "the viewer")) return problems;
  const message = document.querySelector("[data-gn-viewer] .gn-message");
  if (message && message.offsetParent !== null) problems.push("the loading message stays: " + message.textContent);
  for (let n = 0; n < steps.length; n++) {
    if (n === 0) document.querySelector("details.gn-raw summary").click();
    else {  // the exchanges stay open from step to step
      for (let i = 0; i < steps[n] - steps[n - 1]; i++)
        document.dispatchEvent(new KeyboardEvent("keydown", {key: "ArrowRight", bubbles: true}));
      if (!await until(() => new URLSearchParams(location.search).get("step") === String(steps[n]),
                       "step " + steps[n])) return problems;
    }
    if (!await until(() => document.querySelector("details.gn-raw[open] .gn-calls .gn-call"),
                     "the exchanges of step " + steps[n])) return problems;
    const calls = document.querySelector("details.gn-raw[open] .gn-calls");
    if (calls.textContent.includes("could not be loaded")) problems.push("step " + steps[n] + ": could not be loaded");
  }
  return problems;
}"""


def test_every_shipped_game_and_its_exchanges_open_without_error(browser, shipped_site):
    site, base = shipped_site
    ids = packed_ids(site)
    with_calls = set(packed_ids(site, calls=True))
    assert len(ids) > 1000 and len(with_calls) > 100
    context = browser.new_context()
    problems: list[str] = []
    try:
        tab = context.new_page()
        tab.route("**/assets/javascripts/bundle.*.min.js", without_material_bundle)
        tab.add_init_script(INSTANT_NAVIGATION)
        tab.on("pageerror", lambda exc: problems.append(f"{tab.url}: {exc}"))
        tab.on("console", lambda msg: problems.append(f"{tab.url}: {msg.text}") if msg.type == "error" else None)
        # (a request the browser drops on leaving a page is no fault: ERR_ABORTED)
        tab.on("requestfailed", lambda request: problems.append(f"{request.url}: {request.failure}")
               if "ERR_ABORTED" not in (request.failure or "") else None)
        tab.on("response", lambda response: problems.append(f"{response.url}: HTTP {response.status}")
               if response.status >= 400 else None)
        started = time.perf_counter()
        opened_calls = 0
        for number, game_id in enumerate(ids):
            data = read_packed(site, game_id)
            steps = [i + 1 for i, step in enumerate(data["steps"]) if "c" in step]
            assert (game_id in with_calls) == bool(steps) == data["llm"], game_id
            query = {"id": game_id, "step": steps[0] if steps else 0, "probes": 1}  # probes shown: none skipped
            url = f"{base}/replays/viewer/?{urlencode(query)}"
            # Every 50th game by a full page load; the others as Material's instant navigation.
            instant = bool(number % FULL_LOAD_EVERY)
            if not instant:
                tab.goto(url, wait_until="domcontentloaded")
            found = tab.evaluate(WALK_GAME, {"url": url, "steps": steps, "instant": instant})
            problems.extend(f"{game_id}: {problem}" for problem in found)
            opened_calls += len(steps)
        seconds = time.perf_counter() - started
    finally:
        context.close()
    assert not problems, problems[:10]
    print(f"walked {len(ids)} games and {opened_calls} decisions' exchanges in {seconds:.1f}s")

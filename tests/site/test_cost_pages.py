"""Cost on the site (site_builder/pages/cost.py): the cost frontier, the chart data, the "Cost /
game" cells and pages, a chart drawn in the browser with every name as text, and axe-core on the
cost page and a game page with its chart."""

from __future__ import annotations

import copy
import json
from pathlib import Path

import pytest

from runner.prices import PriceTable, from_dict
from site_builder.pages import boards, cost, labels
from site_builder.pages.games import titles as game_titles
from site_builder.pages.site import render
from site_builder.build import build_site
from site_builder.scoring.board import assemble_board
from site_builder.scoring.corpus import load
from tests.site.cost_corpus import PAYLOAD, USD_PER_CALL, write_cost_corpus
from tests.site.test_axe import SCHEMES, TIMEOUT, WIDTHS, axe_tab, scheme_of, violations

#: The shipped table's entries for the corpus' models, fixed here so a new list price moves no test.
TABLE = PriceTable(from_dict({"models": {
    "openai:gpt-4": {"input": 30.0, "output": 60.0, "read": "2026-11-28", "source": "https://example.org/gpt-4"},
    "anthropic:claude-sonnet-4-5": {"input": 3.0, "cached_input": 0.3, "cache_write_input": 3.75, "output": 15.0,
                                    "read": "2026-11-28", "source": "https://example.org/claude"},
    "anthropic:claude-haiku-4-5-20251001": {"input": 1.0, "output": 5.0, "read": "2026-11-28",
                                            "source": "https://example.org/haiku"},
}}, "test table"))
DECISIONS = 5  # one call per round, five rounds a game


@pytest.mark.parametrize("points, expected", [
    ([], []),
    ([(1.0, 10)], [True]),
    ([(1.0, 10), (2.0, 20), (3.0, 15)], [True, True, False]),   # dearer and weaker: beaten
    ([(3.0, 30), (1.0, 10), (2.0, 5)], [True, True, False]),     # order of the table does not matter
    ([(1.0, 10), (1.0, 12)], [False, True]),                     # as cheap and stronger beats it
    ([(1.0, 10), (2.0, 10)], [True, False]),                     # dearer and only as strong: beaten
    ([(0.5, 1), (1.0, 2), (2.0, 3), (4.0, 4)], [True] * 4),
])
def test_the_frontier_keeps_the_rows_no_cheaper_and_stronger_row_beats(points, expected):
    table = [{"label": f"r{i}", "cost": c, "value": v} for i, (c, v) in enumerate(points)]
    assert cost.frontier(table) == expected


@pytest.mark.parametrize("value, shown", [(None, "none"), (0, "$0"), (0.0043425, "$0.00434"), (0.102, "$0.102"),
                                          (0.5, "$0.500"), (1.5, "$1.50"), (1234.5, "$1,234.50")])
def test_dollars_keep_three_significant_digits_below_a_dollar(value, shown):
    assert cost.fmt_usd(value) == shown


@pytest.fixture(scope="module")
def results(tmp_path_factory):
    folder = tmp_path_factory.mktemp("cost-replays")
    write_cost_corpus(folder, rounds=2)
    return assemble_board(load([folder], derive=False), seed=1, prices=TABLE)


def by_label(results) -> dict[str, dict]:
    return {entry["label"]: entry for entry in results["cost"]["agents"].values()}


def test_each_row_costs_its_tokens_at_the_tables_prices(results):
    rows = by_label(results)
    for name, per_call in USD_PER_CALL.items():
        assert rows[name]["status"] == "priced"
        assert rows[name]["usd_per_game"] == pytest.approx(DECISIONS * per_call, rel=1e-12)
    assert rows["gemma-local"]["status"] == "local" and rows["gemma-local"]["usd_per_game"] is None
    assert rows["gemma-local"]["model_seconds_per_game"] == pytest.approx(DECISIONS * 1.5)
    assert set(results["cost"]["prices"]) == set(TABLE.entries)


def test_the_chart_data_marks_the_frontier_and_says_why_there_is_no_chart(results):
    refs = labels.agent_refs(results)
    data = cost.chart_data(results, refs, boards.ranked_rows(results, refs), list(game_titles()))
    overall = data["overall"]
    assert overall["why"] is None and len(overall["points"]) == 3  # the local row has no price: no point
    ratings = {r["agent"]: r["rating"] for r in results["ratings"]["overall"]["agents"]}
    for point in overall["points"]:
        key = next(k for k, r in refs.items() if r.display == point["label"])
        assert point["value"] == ratings[key]
        cheaper_stronger = [p for p in overall["points"] if p is not point and p["cost"] <= point["cost"]
                            and p["value"] >= point["value"]]
        assert point["frontier"] == (not cheaper_stronger)
    assert [p["cost"] for p in overall["points"]] == sorted(p["cost"] for p in overall["points"])
    assert data["ranked"]["why"].startswith("No cost chart: no ranked row has")  # no suite game here
    assert set(data["games"]) == {"prisoners_dilemma", "public_good"}
    one = cost._chart("rating", False, [{"label": "a", "cost": 1.0, "value": 1.0}], "agent of this game")
    assert one["why"].startswith("No cost chart: only one agent of this game") and "needs two" in one["why"]


def test_pages_show_cost_only_where_a_row_has_a_price(results):
    site = render(results)
    game = site.markdown["games/prisoners_dilemma.md"]
    assert "Cost / game" in game and 'data-gn-chart="cost"' in game and '">local<button' in game
    assert "$0.102" in game  # GPT-4: five calls of 600 input and 40 output tokens at 30/60
    # What a cost rests on, and why a row has none, is shown on tap (the i), never in a title alone.
    assert 'data-gn-help="mean over 12 games, at the list price of ' in game and "7.5 model-seconds per game\"" in game
    assert 'title="mean over' not in game and "title=\"loopback" not in game
    overall = site.markdown["exhibition.md"]  # the overall (exhibition) table
    assert overall.count("Cost / game") >= 1 and ">no calls</td>" in overall
    cost_page = site.markdown["cost.md"]
    assert "https://example.org/claude" in cost_page and "not listed" in cost_page
    assert "No cost chart: no ranked row" in cost_page and 'data-where="overall"' in cost_page
    assert site.data["data/cost.json"]["overall"]["points"]
    agents = {ref.display: ref for ref in labels.agent_refs(results).values()}
    local = site.markdown[agents["gemma-local"].page]
    assert "Local: no token price." in local and "7.5 model-seconds per game" in local
    priced = site.markdown[agents["sonnet"].page]
    assert "per game on average" in priced and "read 2026-11-28" in priced
    # Without a price anywhere, no column and no chart: one line says why.
    bare = copy.deepcopy(results)
    for entry in bare["cost"]["agents"].values():
        entry["usd_per_game"] = None
        for part in entry["by_game"].values():
            part["usd_per_game"] = None
    plain = render(bare)
    assert "Cost / game" not in plain.markdown["games/prisoners_dilemma.md"]
    assert "No cost chart: no agent of this game" in plain.markdown["games/prisoners_dilemma.md"]
    assert "Cost / game</th>" not in plain.markdown["exhibition.md"]


def test_tokens_and_model_time_are_charted_for_every_model_row_priced_or_local(results):
    refs = labels.agent_refs(results)
    data = cost.chart_data(results, refs, boards.ranked_rows(results, refs), list(game_titles()))
    costs = by_label(results)
    for measure in cost.USAGE:
        chart = data[measure]["overall"]
        assert chart["why"] is None and chart["measure"] == measure
        shown = {p["label"]: p["cost"] for p in chart["points"]}
        assert len(shown) == 4 and "gemma-local" in shown  # the local row too: it has no price, but tokens and time
        for point in chart["points"]:
            cheaper_stronger = [p for p in chart["points"] if p is not point and p["cost"] <= point["cost"]
                                and p["value"] >= point["value"]]
            assert point["frontier"] == (not cheaper_stronger)
    local = costs["gemma-local"]
    tokens = {p["label"]: p["cost"] for p in data["tokens"]["overall"]["points"]}
    assert tokens["gemma-local"] == pytest.approx((local["input_tokens"] + local["output_tokens"]) / local["games"])
    seconds = {p["label"]: p["cost"] for p in data["seconds"]["overall"]["points"]}
    assert seconds["gemma-local"] == pytest.approx(DECISIONS * 1.5)
    assert data["tokens"]["ranked"]["why"].startswith("No chart of tokens per game")  # no suite game here
    page = render(results).markdown["cost.md"]
    assert 'data-where="tokens.overall"' in page and 'data-where="seconds.overall"' in page
    assert "title=" not in page  # a phone cannot show a title: nothing is said only there


def test_the_cost_page_says_once_why_a_price_is_absent():
    local = {"status": "local", "usd_per_game": None, "why": "served from the machine that played its games"}
    rows = [{"cost": local}, {"cost": {"status": "priced", "usd_per_game": 0.1, "why": None}}, {"cost": local},
            {"cost": {"status": "unpriced", "usd_per_game": None, "why": "no price for x:y in the price table"}},
            {"cost": local}]
    assert cost.why_unpriced(rows) == [
        {"word": "local", "why": "served from the machine that played its games", "rows": 3},
        {"word": "no price", "why": "no price for x:y in the price table", "rows": 1}]


def test_the_ranked_table_has_a_cost_column_when_a_row_is_priced(results):
    ranked = copy.deepcopy(results)
    row = {"row": "ranked-1-gpt4", "suite": "ranked-1", "label": "gpt4", "agents": {}, "owner": None, "stages": 1,
           "forfeits": 0, "deals": {}, "place": 1, "best": 1, "worst": 1, "tier": 1, "wanted": None, "compared": {},
           "score": {"value": 0.5, "ci": [0.4, 0.6], "n": 23, "by_game": {}},
           "cost": {"status": "priced", "why": None, "price": "openai:gpt-4", "games": 23, "usd": 2.3,
                    "usd_per_game": 0.1, "model_seconds_per_game": 4.0}}
    ranked["ranked"] = {"rows": [row, {**row, "row": "ranked-1-b", "label": "b", "cost": None}],
                        "stage_deals": {"ranked-1": {"prisoners_dilemma": 23}}}
    site = render(ranked)
    board = site.markdown["index.md"].split("## Each game")[0]  # the ranked board's headline and full table
    assert "Cost / game" in board and "$0.100" in board and ">no calls</td>" in board
    assert site.data["data/cost.json"]["ranked"]["points"][0]["value"] == 0.5


@pytest.fixture(scope="module")
def served(tmp_path_factory, serve) -> tuple[Path, str]:
    """The cost corpus, its GPT-4 row named with a markup payload, built into a served site."""
    folder = tmp_path_factory.mktemp("cost-site-replays")
    write_cost_corpus(folder, rounds=2, payload=True)
    site = tmp_path_factory.mktemp("cost-site")
    base = serve(site)
    build_site([folder], site, seed=3, site_url=base + "/", derive=False, prices=TABLE)
    return site, base


def test_the_cost_charts_draw_with_every_name_as_text(page, served):
    site, base = served
    assert PAYLOAD not in (site / "cost" / "index.html").read_text(encoding="utf-8")  # escaped in the page
    data = json.loads((site / "data" / "cost.json").read_text(encoding="utf-8"))
    assert PAYLOAD in [p["label"] for p in data["overall"]["points"]]  # the data keeps the name as it is
    for path in ("/cost/", "/games/public_good/"):
        page.goto(base + path)
        chart = page.locator("[data-gn-chart='cost']").first
        chart.scroll_into_view_if_needed()
        page.wait_for_selector("[data-gn-chart='cost'][data-gn-rendered]", timeout=TIMEOUT)
        labels = chart.locator(".textpoint text").all_text_contents()
        assert len(labels) == 3 and any(label.startswith("<img src=x") for label in labels)  # shown, not run
        assert chart.locator(".scatterlayer .trace").count() == 3  # frontier + 2 groups
        assert page.evaluate("() => window.gnPwned") is None
    # The cost page's charts of tokens and of model time: the local row is a point too.
    page.goto(base + "/cost/")
    for where in ("tokens.overall", "seconds.overall"):
        chart = page.locator(f"[data-gn-chart='cost'][data-where='{where}']")
        chart.scroll_into_view_if_needed()
        page.wait_for_selector(f"[data-gn-chart='cost'][data-where='{where}'][data-gn-rendered]", timeout=TIMEOUT)
        assert chart.locator(".point").count() == 4
        assert "gemma-local" in chart.locator(".textpoint text").all_text_contents()
    assert page.evaluate("() => window.gnPwned") is None


@pytest.mark.parametrize("scheme", list(SCHEMES))
@pytest.mark.parametrize("width", WIDTHS)
def test_axe_finds_nothing_on_the_cost_page_and_a_game_page_with_its_chart(browser, served, width, scheme):
    from axe_playwright_python.base import AXE_SCRIPT

    site, base = served
    found: dict[str, list[str]] = {}
    with axe_tab(browser, width, scheme) as tab:
        for path in ("/cost/", "/games/prisoners_dilemma/", "/"):
            tab.goto(base + path, wait_until="networkidle")
            charts = tab.locator("[data-gn-chart='cost']")
            if charts.count():
                charts.first.scroll_into_view_if_needed()
                tab.wait_for_selector("[data-gn-chart='cost'][data-gn-rendered]")
            assert scheme_of(tab) == SCHEMES[scheme]
            found[path] = violations(tab, AXE_SCRIPT)
    assert not {path: lines for path, lines in found.items() if lines}


def test_score_takes_another_price_table_and_refuses_a_bad_one_naming_file_and_field(tmp_path):
    import shutil

    from click.testing import CliRunner

    from runner.cli import main as gamenight

    folder = tmp_path / "replays"
    folder.mkdir()
    shipped = Path(__file__).resolve().parents[2] / "replays" / "builtin"
    shutil.copy(shipped / "builtin-prisoners_dilemma-01006af207f6.jsonl", folder)
    bad = tmp_path / "bad.toml"
    bad.write_text('[models."openai:gpt-4"]\ninput = 30\noutput = "sixty"\nread = 2026-11-28\n'
                   'source = "https://example.org/gpt-4"\n', encoding="utf-8")
    out = tmp_path / "r.json"
    command = ["score", str(folder), "--no-cache", "--out", str(out), "--prices"]
    refused = CliRunner().invoke(gamenight, [*command, str(bad)])
    assert refused.exit_code == 1 and "Traceback" not in refused.output and not out.exists()
    assert f"{bad}: models.'openai:gpt-4'.output: must be USD per million tokens" in refused.output
    cheap = tmp_path / "cheap.toml"
    cheap.write_text('[models."openai:gpt-4"]\ninput = 1\noutput = 2\nread = 2026-11-28\n'
                     'source = "https://example.org/gpt-4"\n', encoding="utf-8")
    scored = CliRunner().invoke(gamenight, [*command, str(cheap)])
    assert scored.exit_code == 0, scored.output
    results = json.loads(out.read_text(encoding="utf-8"))
    assert list(results["cost"]["prices"]) == ["openai:gpt-4"]
    assert results["cost"]["prices"]["openai:gpt-4"]["input"] == 1
    assert results["cost"]["agents"] == {}  # scripted agents only: no model row to price

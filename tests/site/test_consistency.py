"""One source for each number: every win rate any page shows is the results file's, for the same
agent, game and role; and every column of win rates says where its numbers come from."""

from __future__ import annotations

import html.parser
import re

import pytest
from click.testing import CliRunner

from runner.cli import main as gamenight
from site_builder.pages import labels
from site_builder.pages.site import render
from site_builder.viewer import pages as viewer_pages
from site_builder.scoring.corpus import load
from site_builder.scoring.results import assemble


@pytest.fixture(scope="module")
def rendered(tmp_path_factory):
    out = tmp_path_factory.mktemp("replays")
    played = CliRunner().invoke(gamenight, ["run", "--games", "2", "--out", str(out)])
    assert played.exit_code == 0, played.output
    results = assemble(load([out]), seed=1)
    return results, render(results, replays=viewer_pages.pages({})).markdown


class Tables(html.parser.HTMLParser):
    """Every table of a page: its header texts and, per row, its cells (text and attributes)."""

    def __init__(self):
        super().__init__()
        self.tables: list[dict] = []
        self._cell: dict | None = None
        self._in_head = False

    def handle_starttag(self, tag, attrs):
        if tag == "table":
            self.tables.append({"head": [], "rows": []})
        elif tag == "thead":
            self._in_head = True
        elif tag == "tr" and self.tables and not self._in_head:
            self.tables[-1]["rows"].append([])
        elif tag in ("td", "th") and self.tables:
            self._cell = {"text": "", "attrs": dict(attrs)}

    def handle_endtag(self, tag):
        if tag == "thead":
            self._in_head = False
        elif tag in ("td", "th") and self._cell is not None and self.tables:
            table = self.tables[-1]
            if self._in_head:
                table["head"].append(self._cell["text"].strip())
            elif table["rows"]:
                table["rows"][-1].append(self._cell)
            self._cell = None

    def handle_data(self, data):
        if self._cell is not None:
            self._cell["text"] += data


def expected_entry(results: dict, source: str) -> dict | None:
    """The results file's entry that a `data-gn-win` source names (looked up here, not by the pages)."""
    kind, game, agent, role = source.split("|")
    if kind == "matchup":  # a Chameleon matchup: variant, chameleon agent, non-chameleon agent
        return next(c for c in results["chameleon"]["matchups"]["cells"]
                    if (c["key"], c["chameleon"], c["non_chameleon"]) == (game, agent, role))["non_chameleon_win"]
    if kind == "seat":
        row = next(r for r in results["leaderboards"][game]["agents"] if r["agent"] == agent)
        return row["roles"].get(role) if role else row["win_rate"]
    assert kind == "magic" and not game
    entry = results["magic"]["agents"][agent]
    return entry["roles"].get(role) if role else entry["win_rate"]


NUMBER = re.compile(r"-?\d+(?:\.\d+)?")


def test_every_win_rate_shown_is_the_results_files_value(rendered):
    results, markdown = rendered
    checked = 0
    for page, text in markdown.items():
        parser = Tables()
        parser.feed(text)
        for table in parser.tables:
            columns = [i for i, head in enumerate(table["head"]) if "win rate" in head.casefold()]
            for row in table["rows"]:
                for i in columns:
                    if i >= len(row) or "gn-absent" in row[i]["attrs"].get("class", ""):
                        continue
                    cell = row[i]
                    source = cell["attrs"].get("data-gn-win")
                    assert source, f"{page}: a win rate without its source: {cell['text']!r} in {table['head']}"
                    entry = expected_entry(results, source)
                    shown = cell["text"].split("[")[0].strip()
                    assert shown == labels.fmt_pct(entry["value"] if "value" in entry else entry["scaled"]), (page, source)
                    interval = " ".join(cell["text"][len(cell["text"].split("[")[0]):].split())
                    ci = labels.fmt_ci(entry)  # and the count it rests on, unless the interval names it
                    assert interval == (ci if "n = " in ci else f"{ci} n = {entry['n']:,}"), (page, source, interval)
                    checked += 1
    assert checked > 100  # the exhibition page, every game page and every agent page show some


def test_a_wrong_number_would_be_caught(rendered):
    # The check reads the results file, not the page code: change one value and it disagrees.
    results, markdown = rendered
    game = next(iter(results["leaderboards"]))
    row = results["leaderboards"][game]["agents"][0]
    source = f"seat|{game}|{row['agent']}|"
    entry = dict(expected_entry(results, source))
    entry["value"] = (entry["value"] + 0.5) % 1
    cell = re.search(rf'data-gn-win="{re.escape(source.replace(chr(34), "&#34;"))}">([^<]*)', markdown[f"games/{game}.md"])
    assert cell is not None
    assert cell.group(1).strip() != labels.fmt_pct(entry["value"])

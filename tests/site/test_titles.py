"""Nothing a visitor needs lives only in a `title` (issue #44): a phone shows none, and a keyboard's
focus shows none either. On a site built from the session's small corpus (the built-in tournament
and a stage of the ranked suite): no title on a page of the boards, games, agents, studies or
metrics says what the page's text does not; every rate shows its count, each game's score of a
ranked row its interval and deals, and a head-to-head cell how many games its pair met; the
reason of a cell without a value, and what an owner's tag means, are behind its "i".
"""

from __future__ import annotations

import copy
import html
import json
import re
from collections import Counter
from html.parser import HTMLParser
from pathlib import Path

import pytest

from site_builder.pages import labels
from site_builder.pages.games import titles as game_titles
from site_builder.pages.site import render
from site_builder.build import build_site
from site_builder.scoring.board import assemble_board
from site_builder.scoring.corpus import load
from tests.site.test_consistency import expected_entry
from tests.site.test_pages import DANGEROUS, PAYLOAD
from tests.submission.suite_corpus import rows_of

#: MkDocs' own link beside each heading: its title repeats the pilcrow's meaning.
HEADERLINK = "Permanent link"


class Article(HTMLParser):
    """What a reader sees of a page's article (no button, script or style), the `title` of each
    element in it, and the explanation behind each "i" or "?" button."""

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.depth = 0  # inside <article> when positive
        self.skip = 0  # inside a button, script or style
        self.text: list[str] = []
        self.titles: list[str] = []
        self.helps: list[str] = []

    def handle_starttag(self, tag: str, attrs) -> None:
        attrs = dict(attrs)
        if tag == "article":
            self.depth += 1
        elif not self.depth:
            return
        if tag in ("button", "script", "style"):
            self.skip += 1
            if "data-gn-help" in attrs:
                self.helps.append(attrs["data-gn-help"])
        if attrs.get("title") is not None:
            self.titles.append(attrs["title"])

    def handle_endtag(self, tag: str) -> None:
        if not self.depth:
            return
        if tag in ("button", "script", "style"):
            self.skip -= 1
        elif tag == "article":
            self.depth -= 1

    def handle_data(self, data: str) -> None:
        if self.depth and not self.skip:
            self.text.append(data)


def article(page: str) -> Article:
    parser = Article()
    parser.feed(page)
    return parser


def words(text: str) -> str:
    return " ".join(text.split()).casefold()


@pytest.fixture(scope="module")
def built(tmp_path_factory, small_corpus) -> tuple[Path, dict]:
    """The small corpus built into a site, and its results file."""
    root = tmp_path_factory.mktemp("titles")
    build_site([small_corpus], root / "site", seed=5, cache_path=root / "scores.sqlite")
    site = root / "site"
    return site, json.loads((site / "downloads" / "results.json").read_text(encoding="utf-8"))


def page(site: Path, path: str) -> str:
    return (site / path / "index.html").read_text(encoding="utf-8")


def content_pages(site: Path) -> list[Path]:
    """Every page the page templates make (the replay viewer's pages are drawn by its scripts)."""
    return [p for p in sorted(site.rglob("index.html"))
            if p.relative_to(site).parts[0] not in ("assets", "replays", "search")]


def test_no_title_says_what_the_page_does_not(built):
    site, _ = built
    seen = 0
    for path in content_pages(site):
        parsed = article(path.read_text(encoding="utf-8"))
        shown = words("".join(parsed.text))
        for title in parsed.titles:
            if title == HEADERLINK:
                continue
            seen += 1
            assert words(title) in shown, (str(path.relative_to(site)), title)
    # The only titles left repeat a note: the ranked board's "reference" tag, at least.
    assert seen


def test_no_page_keeps_a_count_or_a_reason_in_a_title(built):
    site, _ = built
    for path in content_pages(site):
        text = path.read_text(encoding="utf-8")
        for gone in ('title="n = ', 'title="they met', 'title="if its gap', " deals, 95%", 'title="Submitted by',
                     'title="A person', 'title="this site was built', 'title="no judge', 'title="Verified by'):
            assert gone not in text, (str(path.relative_to(site)), gone)


def test_every_rate_shows_its_count(built):
    site, results = built
    checked = 0
    for path in [f"games/{g}" for g in results["leaderboards"]] + ["exhibition"]:
        for cell in re.findall(r'<td class="gn-num" data-sort="[^"]*" data-gn-win="([^"]*)">(.*?)</td>', page(site, path)):
            source, inner = html.unescape(cell[0]), cell[1]
            entry = expected_entry(results, source)
            shown = " ".join(html.unescape(re.sub(r"<[^>]+>", " ", inner)).split())
            ci = labels.fmt_ci(entry)
            # The count after the interval, or in it where the interval is too short to say more.
            assert shown.endswith(f"{ci} n = {entry['n']:,}" if "n = " not in ci else ci), (path, source, shown)
            assert f"n = {entry['n']:,}" in shown or f"n = {entry['n']}" in shown
            checked += 1
    assert checked > 30
    werewolf = page(site, "games/werewolf")
    board = werewolf[werewolf.index("<caption>"):werewolf.index("</table>")]
    for row in rows_of(board):  # the forfeit and re-ask rates too, which name no source
        for column in ("Forfeit rate", "Re-ask rate"):
            assert re.search(r"\bn = \d", row[column]), (row["Agent"], column, row[column])


def test_each_games_score_of_a_ranked_row_shows_its_interval_and_deals(built):
    site, results = built
    home = page(site, "")
    full = home[home.index("<caption>The ranked board in full</caption>"):]
    full = "<table>" + full[:full.index("</table>")]
    (row,) = results["ranked"]["rows"]
    (shown,) = rows_of(full)
    titles = game_titles()
    assert row["score"]["by_game"]
    for game, v in row["score"]["by_game"].items():
        assert shown[titles[game]] == (f"{v['value'] * 100:.1f}% [{v['ci'][0] * 100:.1f}, {v['ci'][1] * 100:.1f}] "
                                       f"{v['n']} deal{'s' if v['n'] != 1 else ''}"), game
    assert shown["Wanted"] == "none" and '"none": told apart from every other row already' in words(home)


def test_the_wanted_stages_name_the_row_they_are_counted_against_escaped(small_corpus):
    results = assemble_board(load([small_corpus]), seed=1)
    first = results["ranked"]["rows"][0]
    other = {**copy.deepcopy(first), "row": "ranked-1-other", "label": PAYLOAD, "agents": {"x": "agent-x"},
             "wanted": None, "score": {**first["score"], "value": first["score"]["value"] - 0.01}}
    mine = {**first, "wanted": {"stages": 3, "against": "ranked-1-other"}}
    changed = {**results, "ranked": {**results["ranked"], "rows": [mine, other]}}
    home = render(changed).markdown["index.md"]
    full = home[home.index("<caption>The ranked board in full</caption>"):]
    rows = rows_of("<table>" + full[:full.index("</table>")])
    assert rows[0]["Wanted"] == f"3 stages vs {PAYLOAD}" and rows[1]["Wanted"] == "none"
    for bad in DANGEROUS:
        assert bad not in home


def test_a_head_to_head_cell_says_how_many_games_its_pair_met(built):
    site, results = built
    chameleon = page(site, "games/chameleon")
    matrix = chameleon[chameleon.index('<table class="gn-table gn-matrix"'):]
    matrix = matrix[:matrix.index("</table>")]
    shown = Counter()
    for inner in re.findall(r'<td class="gn-num[^"]*"[^>]*>(.*?)</td>', matrix):
        text = " ".join(html.unescape(re.sub(r"<[^>]+>", " ", inner)).split())
        decided = re.search(r"of ([\d,]+)(?: \(([\d,]+) met\))?$", text)
        none = re.fullmatch(r"none decided in ([\d,]+) games?", text)
        assert decided or none, text
        shown[(int(decided[1]), int(decided[2]) if decided[2] else None) if decided else (0, int(none[1]))] += 1
    expected = Counter()
    for pair in results["head_to_head"]["chameleon"]["pairs"]:
        n = pair["beats"]["n"] if pair["beats"] else 0
        expected[(n, pair["met"] if pair["met"] > n else None) if n else (0, pair["met"])] += 2  # both cells
    assert shown == expected and any(met for _, met in shown)  # some pair met in games that decided nothing


def test_a_cells_reason_and_an_owners_tag_are_behind_its_i(built):
    site, results = built
    refs = labels.agent_refs(results)
    ref = next(r for r in refs.values() if r.label == "random")
    parsed = article(page(site, ref.page.removesuffix(".md")))
    shown = words("".join(parsed.text))
    assert "no score in this game" in shown and "this game is won or lost; it has no score" not in shown
    assert "this game is won or lost; it has no score" in parsed.helps
    # An owner's tag: a contributor's row, rendered from the same results with an owner.
    owned = copy.deepcopy(results)
    agent = next(a for a in owned["agents"] if a["key"] == ref.key)
    agent["owner"] = {"id": "9", "label": "@someone"}
    game = render(owned).markdown["games/werewolf.md"]
    tag = re.search(r'<span class="gn-tag gn-owner">by @someone</span>(<button [^>]*>i</button>)', game)
    assert tag and "Submitted by @someone: this row comes from their games alone" in html.unescape(tag[1])

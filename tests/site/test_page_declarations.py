"""The pages declared once (site_builder/pages/page.py): the navigation and the pages left out of it
are read from the declarations, the shipped site's and made-up ones."""

from __future__ import annotations

import jinja2
import pytest

from site_builder.pages import agents, history, page
from site_builder.pages.page import Page
from site_builder.pages.site import render
from site_builder.viewer import pages as viewer_pages


def test_sections_gather_their_pages_where_the_first_one_stands():
    declared = [Page("index.md", nav=("Home",)), Page("games/a.md", nav=("Games", "A")),
                Page("agents/x.md"), Page("cost.md", nav=("Cost",)), Page("games/b.md", nav=("Games", "B")),
                Page("m/r.md", nav=("Methodology", "Rules", "R")), Page("m/f.md", nav=("Methodology", "F"))]
    assert page.navigation(declared) == [
        {"Home": "index.md"}, {"Games": [{"A": "games/a.md"}, {"B": "games/b.md"}]}, {"Cost": "cost.md"},
        {"Methodology": [{"Rules": [{"R": "m/r.md"}]}, {"F": "m/f.md"}]}]


def test_pages_out_of_the_nav_are_covered_by_a_pattern_per_folder():
    declared = [Page("agents/index.md", nav=("Agents", "All")), Page("agents/x.md"), Page("agents/y.md"),
                Page("releases/index.md", nav=("Releases",)), Page("releases/v1.md"), Page("cost.md", nav=("Cost",)),
                Page("stray.md")]
    assert page.not_in_nav(declared).split("\n") == [
        "/agents/*.md", "!/agents/index.md", "/releases/*.md", "!/releases/index.md", "/*.md", "!/cost.md"]
    assert page.not_in_nav([Page("cost.md", nav=("Cost",))]) == ""


def test_a_page_is_its_text_or_its_template_with_the_shared_variables_and_its_own():
    env = jinja2.Environment(loader=jinja2.DictLoader({"t.j2": "{{ page }} {{ site }} {{ own }}"}),
                             undefined=jinja2.StrictUndefined)
    pages = [Page("a.md", "t.j2", context={"own": 1}), Page("b.md", text="as it is")]
    assert page.render(pages, env, {"site": "s"}) == {"a.md": "a.md s 1", "b.md": "as it is"}
    with pytest.raises(ValueError, match="two pages are declared at a.md"):
        page.render([*pages, Page("a.md", text="again")], env, {"site": "s"})


def test_the_sites_nav_and_hidden_pages_come_from_the_families_and_the_viewer(results):
    site = render(results, replays=viewer_pages.pages({}))
    assert list(site.markdown) == [p.path for p in site.pages]
    listed = [p.path for p in site.pages if p.nav]

    def targets(entries):
        for entry in entries:
            for target in entry.values():
                yield from targets(target) if isinstance(target, list) else [target]

    assert list(targets(site.nav)) == listed
    assert {"Replays": [{"Replay index": viewer_pages.INDEX_PAGE},
                        {"Replay viewer": viewer_pages.VIEWER_PAGE}]} in site.nav
    hidden = [p.path for p in site.pages if not p.nav]
    assert hidden and all(p.startswith("agents/") and p != agents.INDEX for p in hidden)  # no release here
    assert site.not_in_nav == "/agents/*.md\n!/agents/index.md"
    assert [next(iter(e)) for e in site.nav] == [
        "Leaderboard", "Exhibition board", "Games", "Agents", "MAgIC metrics", "Studies", "Cost", "Board over time",
        "Releases", "Replays", "Glossary", "Downloads"]
    without = render(results)
    assert "Replays" not in [next(iter(e)) for e in without.nav] and viewer_pages.INDEX_PAGE not in without.markdown


def test_a_release_page_is_left_out_of_the_nav_and_its_index_is_in_it(results):
    snapshot = {"tag": "v1", "leaders": {}, "ranked": [], "agents": {}}
    released = {**results, "releases": {"releases": [snapshot], "skipped": [], "note": None}}
    declared = {p.path: p for p in history.pages({"results": released, "refs": {}, "games": {}})}
    assert declared["releases/index.md"].nav == ("Releases",) and declared["releases/v1.md"].nav == ()
    assert page.not_in_nav(list(declared.values())) == "/releases/*.md\n!/releases/index.md"

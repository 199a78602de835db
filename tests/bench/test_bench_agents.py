"""A site of many agents stays linear: no page lists every agent, an agent's page does not grow with them."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from site_builder.bench import agents as bench_agents
from site_builder.build import build_site
from site_builder.scoring.corpus import load

SMALL, LARGE = 50, 200


@pytest.fixture(scope="module")
def sites(tmp_path_factory) -> dict[int, Path]:
    """Sites of SMALL and LARGE added agents (one self-play game each; the small corpus is the
    first SMALL games of the large one), built on their own."""
    root = tmp_path_factory.mktemp("agents")
    games = root / f"agents-{LARGE}"
    bench_agents.play_agents(LARGE, games)
    small = root / f"agents-{SMALL}"
    small.mkdir()
    for path in sorted(games.glob("*.jsonl"))[:SMALL]:
        shutil.copy(path, small)
    built = {}
    for count, corpus in ((SMALL, small), (LARGE, games)):
        built[count] = root / f"site-{count}"
        build_site([corpus], built[count], seed=3)
    return built


def test_the_corpus_adds_one_valid_row_per_agent(sites, tmp_path):
    corpus = load([sites[LARGE].parent / f"agents-{LARGE}"])
    assert not corpus.invalid_replays and len(corpus.games) == LARGE
    assert len({s.agent for g in corpus.games for s in g.seats}) == LARGE
    assert len(bench_agents.agent_pages(sites[LARGE])) == LARGE


def test_no_page_navigation_lists_an_agent(sites):
    for site in sites.values():
        checked = 0
        for page in site.rglob("index.html"):
            folder = page.parent.relative_to(site).as_posix()
            if folder.startswith(("replays", "search")) or "<nav" not in page.read_text(encoding="utf-8"):
                continue  # the replay viewer's pages have their own light shell, without the theme's nav
            assert bench_agents.nav_agent_links(page.read_text(encoding="utf-8"), folder) == 0, page
            checked += 1
        assert checked > len(bench_agents.agent_pages(site))


def test_an_agent_page_does_not_grow_with_the_number_of_agents(sites):
    small, large = (bench_agents.page_figures(sites[n]) for n in (SMALL, LARGE))
    assert small["agent_pages"] == SMALL and large["agent_pages"] == LARGE
    # Before, each page held a nav entry and a radar option per agent: ~330 bytes each, 50 KB more here.
    assert abs(large["agent_page_bytes_median"] - small["agent_page_bytes_median"]) < 500
    assert large["agent_page_bytes_max"] - small["agent_page_bytes_max"] < 500


def test_the_agents_index_lists_every_agent_with_a_search_box(sites):
    index = (sites[LARGE] / "agents" / "index.html").read_text(encoding="utf-8")
    assert index.count('<tr><td data-sort="') == LARGE
    assert 'data-gn-agent-search="gn-agents" hidden' in index and 'id="gn-agents"' in index
    assert "agent-search.js" in index


def test_nav_links_are_counted_after_resolving_them_against_the_page():
    html = ('<nav class="md-nav md-nav--primary"><a href="../other-1a2b/">x</a><a href="../">All</a>'
            '<a href="../../games/chameleon/">g</a><a href="https://example.org/agents/x/">e</a></nav>'
            '<div class="md-content">')
    assert bench_agents.nav_agent_links(html, "agents/mine-9f8e") == 1
    assert bench_agents.nav_agent_links(html.replace("../other", "agents/other"), ".") == 1
    with pytest.raises(ValueError):
        bench_agents.nav_agent_links("<p>no nav</p>", ".")


def test_each_added_agent_is_its_own_row():
    plan = bench_agents.agents_tournament(8, rated=True)
    values = [bench_agents.specificity(i, 8) for i in range(8)]
    assert len(set(values)) == 8 and not {0.2, 0.5, 0.9} & set(values)
    assert plan.count("[[matchups]]") == 8 and plan.count('chameleon = "assoc"') == 8
    assert '"*" = "a00000"' in bench_agents.agents_tournament(3)


def test_many_agents_are_played_a_tournament_file_per_part(tmp_path, monkeypatch):
    # The runner reads at most 1 MiB of a tournament file: 10,000 agents are 2 MB in one.
    monkeypatch.setattr(bench_agents, "PER_PLAN", 3)
    out = tmp_path / "agents-7"
    bench_agents.play_agents(7, out)
    assert sorted(p.name for p in out.iterdir() if p.is_dir()) == ["part-0", "part-1", "part-2"]
    corpus = load([out], None)  # validated, re-simulated and derived: each part is a tournament of its own
    assert len(corpus.games) == 7 and not corpus.invalid_replays
    assert len({seat.agent for game in corpus.games for seat in game.seats}) == 7  # every agent its own row

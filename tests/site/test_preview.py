"""A preview tells the truth: `gamenight build --base main` of a branch not merged yet shows the
branch's games as the builder's rows, marked "not merged", never as the maintainers'.

main holds a sample of the shipped built-in corpus and stage 1 of the maintainers' three ranked
rows; the branch adds a contributor's ranked stage 1 (played against the fake OpenAI-compatible
server), most of it committed and a few files not. Without a base, the branch's commits would
read as the maintainers' and its row would take a place in the home page's headline.
"""

from __future__ import annotations

import json
import re
import shutil
from pathlib import Path

import pytest
from click.testing import CliRunner

from runner.cli import main as gamenight
from site_builder.build import build_site
from site_builder.viewer.shards import read_packed
from tests.submission.suite_corpus import STAGE_ROW, rows_of, stage_and_main

pytestmark = pytest.mark.skipif(shutil.which("git") is None, reason="git is not installed")

#: Files of the contributor's stage left uncommitted in the branch's working tree.
UNCOMMITTED = 3


@pytest.fixture(scope="module")
def sites(tmp_path_factory: pytest.TempPathFactory) -> dict:
    """The site of main, and the preview of the branch (`gamenight build --base main`)."""
    root = tmp_path_factory.mktemp("preview")
    stage, repo = stage_and_main(root)
    build_site([repo.path / "replays"], root / "main", cache_path=repo.cache)
    repo.git("checkout", "-q", "-b", "my-row")
    games = sorted(p for p in stage if p.endswith(".jsonl"))
    uncommitted = games[:UNCOMMITTED]
    repo.write_all({p: raw for p, raw in stage.items() if p not in uncommitted})
    repo.commit("My model's first stage")  # a plain commit: without a base it reads as the maintainers'
    repo.write_all({p: stage[p] for p in uncommitted})
    done = CliRunner().invoke(gamenight, ["build", str(repo.path / "replays"), "--site", str(root / "branch"),
                                          "--cache", str(repo.cache), "--base", "main"])
    assert done.exit_code == 0, done.output
    return {"main": root / "main", "branch": root / "branch", "output": done.output, "games": games,
            "uncommitted": uncommitted, "repo": repo}


def headline(site: Path) -> list[str]:
    """What the home page's headline says: the ranked board's reading and compact table, and each
    game's line (who leads it, and how surely), without the count of games each line starts with."""
    html = (site / "index.html").read_text(encoding="utf-8")
    parts = [re.search(r'<p class="gn-reading"><strong>Reading:</strong>.*?</p>', html, re.DOTALL),
             re.search(r'<table class="gn-table gn-ranked-table gn-ranked-headline".*?</table>', html, re.DOTALL),
             re.search(r'<ul class="gn-summaries">.*?</ul>', html, re.DOTALL)]
    assert all(parts), html
    return [re.sub(r'<span class="gn-dim">[0-9,]+ games</span>', "", p[0]) for p in parts]


def test_the_home_pages_headline_is_unchanged_by_the_branch(sites):
    main, branch = headline(sites["main"]), headline(sites["branch"])
    assert "builtin-scripted" in main[1] and "suite-model" not in "".join(branch)
    assert main == branch


def ranked_rows(site: Path) -> list[dict[str, str]]:
    html = (site / "index.html").read_text(encoding="utf-8")
    start = html.index("<caption>The ranked board in full</caption>")
    return rows_of(html[html.rindex("<table", 0, start):html.index("</table>", start)])


def test_the_branchs_row_is_the_builders_marked_not_merged(sites):
    rows = {r["Row"]: r for r in ranked_rows(sites["branch"])}
    assert "suite-model by you (not merged) self-reported" in rows, rows
    mine = rows["suite-model by you (not merged) self-reported"]
    # Not yet verified: listed under the maintainers' rows with the place it would take, in no tier.
    assert mine["Tier"] == "\u2013" and mine["Rank"].startswith("would be ") and mine["Held-out [95%]"] == "not yet"
    assert len(rows) == len(ranked_rows(sites["main"])) + 1
    exhibition = (sites["branch"] / "exhibition" / "index.html").read_text(encoding="utf-8")
    assert ">by you (not merged)</span>" in exhibition and "Not merged: this row comes from games of your" in exhibition
    home = (sites["branch"] / "index.html").read_text(encoding="utf-8")
    assert f"{len(sites['games'])} games not merged</strong> (commits not on main; not committed)" in home
    assert "Every merged game here was played by the maintainers" in home
    assert "commits not on main" in sites["output"] and "not merged" in sites["output"]


def test_the_agent_page_and_each_replay_say_not_merged(sites):
    pages = [p.read_text(encoding="utf-8") for p in (sites["branch"] / "agents").rglob("index.html")]
    mine = [p for p in pages if "<strong>Not merged</strong>: this row's games are on your branch" in p]
    assert len(mine) == 1 and "you, not merged (commits not on main)" in mine[0]
    committed, uncommitted = Path(sites["games"][-1]).stem, Path(sites["uncommitted"][0]).stem
    assert read_packed(sites["branch"], committed)["source"] == {"kind": "unmerged",
                                                                  "label": "you, not merged (commits not on main)"}
    assert read_packed(sites["branch"], uncommitted)["source"]["label"] == "you, not merged (not committed)"
    shown = json.loads((sites["branch"] / "downloads" / "results.json").read_text(encoding="utf-8"))
    owners = {r["row"]: (r.get("owner") or {}).get("label") for r in shown["ranked"]["rows"]}
    assert owners[STAGE_ROW] == "you (not merged)" and owners["ranked-1-builtin-random"] is None


def test_a_base_that_is_no_commit_is_a_clear_error(sites, tmp_path):
    done = CliRunner().invoke(gamenight, ["build", str(sites["repo"].path / "replays"), "--site", str(tmp_path / "s"),
                                          "--no-cache", "--base", "origin/nowhere"])
    assert done.exit_code != 0 and "Traceback" not in done.output
    assert "--base 'origin/nowhere' is not a commit of the repository" in done.output

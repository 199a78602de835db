"""The board over time and the release pages, built from a temporary git repository: two release
tags and a few replays (one per game, the payload replays whose names are markup, a stage of the
ranked suite), each release page showing the boards as they stood at its tag."""

from __future__ import annotations

import json
import re
import shutil
import subprocess
from pathlib import Path

import pytest

from site_builder import releases
from site_builder.pages import history as history_pages
from site_builder.pages.games import titles as game_titles
from site_builder.build import build_site
from site_builder.scoring import board, ratings
from site_builder.scoring.corpus import load
from tests.site import payloads
from tests.site.test_xss import DRAW_CHARTS, INJECTED

pytestmark = pytest.mark.skipif(shutil.which("git") is None, reason="git is not installed")

SUBJECT = 'The first board: <img src=x onerror=alert(1)> & "quotes"'
RANKED = payloads.REPO / "replays" / "ranked-1-builtin-scripted"


def git(repo: Path, *args: str, date: str = "2026-01-01T10:00:00+00:00") -> None:
    env = {"GIT_AUTHOR_NAME": "Maintainer", "GIT_AUTHOR_EMAIL": "m@example.org", "GIT_COMMITTER_NAME": "Maintainer",
           "GIT_COMMITTER_EMAIL": "m@example.org", "GIT_AUTHOR_DATE": date, "GIT_COMMITTER_DATE": date,
           "HOME": str(repo), "GIT_CONFIG_NOSYSTEM": "1", "PATH": "/usr/bin:/bin:/usr/local/bin"}
    subprocess.run(["git", "-C", str(repo), *args], check=True, capture_output=True, env=env)


def first_stage(folder: Path) -> list[Path]:
    """The shipped ranked row's games of stage 1 (23: every game of the suite)."""
    return sorted(p for p in folder.glob("*.jsonl") if json.loads(p.open().readline())["suite"]["stage"] == 1)


def commit(repo: Path, files: list[Path], message: str, date: str) -> None:
    for f in files:
        shutil.copyfile(f, repo / "replays" / f.name)
    git(repo, "add", "-A")
    git(repo, "commit", "-q", "-m", message, date=date)


@pytest.fixture(scope="module")
def repo(tmp_path_factory) -> Path:
    """main: the samples (tagged board-first), then the payload replays (a lightweight tag, and an
    annotated one whose name no address can hold), then a ranked stage (tagged v1.0); one local
    file not committed."""
    root = tmp_path_factory.mktemp("history")
    repo = root / "repo"
    (repo / "replays").mkdir(parents=True)
    git(repo, "init", "-q", "-b", "main")
    commit(repo, [payloads.BUILTIN / f"{g}.jsonl" for g in payloads.SAMPLES.values()], "Samples",
           "2026-01-01T10:00:00+00:00")
    git(repo, "tag", "-a", "board-first", "-m", SUBJECT, date="2026-01-01T12:00:00+00:00")
    made = payloads.write_payload_replays(root / "made")
    commit(repo, made[:2], "Payloads", "2026-02-01T03:00:00+05:00")  # 2026-01-31 22:00 UTC
    git(repo, "tag", "v2-light")
    git(repo, "tag", "-a", "board-x/y", "-m", "a name with a slash")
    commit(repo, first_stage(RANKED), "A ranked stage", "2026-02-02T00:00:00+00:00")
    git(repo, "tag", "-a", "v1.0", "-m", "Version one", date="2026-02-03T00:00:00+00:00")
    shutil.copyfile(made[2], repo / "replays" / made[2].name)  # local: not committed
    return repo


@pytest.fixture(scope="module")
def built(repo, tmp_path_factory, serve):
    root = tmp_path_factory.mktemp("history-site")
    site = root / "site"
    site.mkdir()
    base = serve(site)
    report = build_site([repo / "replays"], site, cache_path=root / "cache" / "scores.sqlite", seed=4,
                        derive=False, site_url=base + "/")
    return report, site, base, root


def results_of(report) -> dict:
    return json.loads(report.results.read_text(encoding="utf-8"))


def html(site: Path, path: str) -> str:
    return (site / path / "index.html").read_text(encoding="utf-8")


def test_the_history_has_a_point_per_merge_and_counts_the_local_file(built):
    history = results_of(built[0])["history"]
    assert [(p["date"][:10], p["added"], p["games"]) for p in history["points"]] == \
        [("2026-01-01", 6, 6), ("2026-02-01", 2, 8), ("2026-02-02", 23, 31)]
    assert history["unsourced"] == 1
    [row] = history["ranked"]
    assert row["row"] == "ranked-1-builtin-scripted" and [v is not None for v in row["values"]] == [False, False, True]
    ranked = results_of(built[0])["ranked"]["rows"][0]
    assert row["values"][-1]["score"] == ranked["score"]["value"] and row["values"][-1]["ci"] == ranked["score"]["ci"]
    page = html(built[1], "history")
    assert "3</strong> merges of replays" in page and "1 game has no git source" in page
    games = [name for name in history["ratings"] if name != "overall"]
    assert page.count('data-gn-chart="history"') == 1 + len(games)  # the ranked board, then each game's ratings


def test_releases_are_the_annotated_tags_newest_first_and_the_rest_say_why(built, repo):
    released = results_of(built[0])["releases"]
    assert [r["tag"] for r in released["releases"]] == ["v1.0", "board-first"]
    assert {s["tag"]: s["why"].split(":")[0] for s in released["skipped"]} == {
        "board-x/y": "its name holds characters an address cannot (a release's name", "v2-light": "a lightweight tag"}
    index = html(built[1], "releases")
    assert index.index('href="v1.0/"') < index.index('href="board-first/"')
    assert "2026-01-01" in index and "2026-02-03" in index
    assert "&lt;img src=x onerror=alert(1)&gt; &amp; &#34;quotes&#34;" in index and "<img src=x" not in index
    assert "board-x/y" in index and "There is no release yet" not in index


def test_a_release_page_shows_the_board_as_it_stood_at_its_tag(built):
    report, site, _, _ = built
    first = html(site, "releases/board-first")
    assert "<strong>6</strong> games" in first and "No game of the ranked suite had been played at this release" in first
    assert "onerror=alert(1)" not in first.split("<h1", 1)[1].split("Leaders of each game")[1]  # no payload yet
    v1 = html(site, "releases/v1.0")
    assert "<strong>31</strong> games" in v1
    ranked = results_of(report)["ranked"]["rows"][0]
    assert f"{ranked['score']['value'] * 100:.1f}%" in v1  # the ranked board then is today's (nothing merged since)
    assert "&lt;img src=x onerror=alert(1)&gt;" in v1  # the payload agents lead a table or two, escaped
    snapshot = next(r for r in results_of(report)["releases"]["releases"] if r["tag"] == "board-first")
    unrated = [title for name, title in game_titles().items()
               if not ratings.cooperative(name) and name not in snapshot["leaders"]]
    assert unrated and f"checks): {', '.join(unrated)}.</p>" in first  # a game without a table is named
    then = load([payloads.BUILTIN / f"{g}.jsonl" for g in payloads.SAMPLES.values()], derive=False)
    tables = board.rating_board(then, seed=4, resamples=0)["ratings"]["by_game"]
    assert snapshot["leaders"] and {name: [(r["agent"], round(r["rating"], 6)) for r in rows]
                                     for name, rows in snapshot["leaders"].items()} == \
        {name: [(r["agent"], round(r["rating"], 6)) for r in table["agents"][:3]]
         for name, table in tables.items() if table["agents"]}


def test_a_second_build_reads_the_releases_kept_beside_the_cache(built, repo, tmp_path):
    report, _, _, root = built
    kept = root / "cache" / "scores-releases.json"
    assert len(json.loads(kept.read_text())) == 2
    again = build_site([repo / "replays"], tmp_path / "site", cache_path=root / "cache" / "scores.sqlite", seed=4,
                       derive=False)
    assert results_of(again)["releases"] == results_of(report)["releases"]
    assert again.phases["releases"] < report.phases["releases"] / 3


def test_a_build_outside_git_says_there_is_no_history_and_no_release(tmp_path):
    folder = tmp_path / "replays"
    folder.mkdir()
    for game_id in list(payloads.SAMPLES.values())[:2]:
        shutil.copyfile(payloads.BUILTIN / f"{game_id}.jsonl", folder / f"{game_id}.jsonl")
    if releases._folders([folder]) is not None:
        pytest.skip("the temporary folder is inside a git checkout")
    report = build_site([folder], tmp_path / "site", seed=1)
    history = results_of(report)["history"]
    assert history["points"] == [] and history["unsourced"] == 2
    page = html(tmp_path / "site", "history")
    assert "No game here has a git source: 2 games came from files that are not committed" in page
    assert 'data-gn-chart="history"' not in page
    index = html(tmp_path / "site", "releases")
    assert "There is no release yet" in index and "git tag -a board-" in index


def test_the_history_page_draws_its_charts_and_shows_names_as_text(built, page):
    _, site, base, _ = built
    page.goto(f"{base}/history/")
    drawn = page.evaluate(DRAW_CHARTS)
    assert drawn["failed"] == [] and drawn["charts"] >= 5
    assert page.evaluate(INJECTED) == {"found": [], "flag": None}
    legend = page.locator("#history-werewolf svg .legend").first.text_content()
    assert "<img src=x onerror=alert(1)>" in legend  # the payload agent, as text in the chart
    table = page.locator("#history-werewolf table").inner_text()
    assert "<img src=x onerror=alert(1)>" in table
    for path in ("releases/", "releases/v1.0/", "releases/board-first/"):
        page.goto(f"{base}/{path}")
        assert page.evaluate(INJECTED) == {"found": [], "flag": None}


@pytest.mark.parametrize("values, kept", [
    ([[None, 1, 1, 2]], [1, 3]),              # from its first value, then where it moved
    ([[None, None], [None, None]], []),       # never had a value: nothing to draw
    ([[1, 1, 1], [None, None, 5]], [0, 2]),   # a newcomer moves the board
    ([[{"y": 1}, {"y": 1}], [{"y": 2}, {"y": 3}]], [0, 1]),
])
def test_a_board_keeps_the_merges_that_moved_it(values, kept):
    assert history_pages.changed([{"values": v} for v in values]) == kept


def titles(page: str) -> list[str]:
    """The title attributes of a page's article, but MkDocs' own "Permanent link" of each heading."""
    article = page.split("<article", 1)[1].split("</article>", 1)[0]
    return [t for t in re.findall(r'title="([^"]*)"', article) if t != "Permanent link"]


def test_what_each_merge_added_and_the_counts_behind_each_value_are_shown_not_in_titles(built):
    page = html(built[1], "history")
    assert not titles(page)  # a phone cannot show one
    merges = page.split("The merges: what each added, and from whom", 1)[1].split("</table>", 1)[0]
    assert merges.count("<tr>") == 1 + 3 and "the maintainers" in merges  # a heading row, then each merge
    assert "+6 games" in page and "+23 games" in page  # each point's column says what it added
    assert re.search(r"% <span class=\"gn-ci\">\[[\d.]+, [\d.]+\] of [\d,]+ deals</span>", page)  # a ranked value and its deals
    assert re.search(r"\d <span class=\"gn-ci\">of [\d,]+ games</span>", page)  # a rating and its games
    assert "not rated yet" in page or "not ranked yet" in page
    release = html(built[1], "releases/v1.0")
    assert not titles(release)
    assert re.search(r"<span class=\"gn-dim\">[\d,]+, [\d,]+ games</span>", release)
    assert "<caption>The ranked board at v1.0</caption>" in release and ">Ranked place " in release


def test_a_kept_release_copied_under_another_key_is_scored_again(built, repo, tmp_path, monkeypatch):
    """The kept releases may come from an earlier workflow run's cache: an entry that does not name
    the key it is stored under (a snapshot moved to another tag's key) is made again."""
    report, _, _, root = built
    cache = tmp_path / "scores.sqlite"
    shutil.copyfile(root / "cache" / "scores.sqlite", cache)
    kept_file = tmp_path / "scores-releases.json"
    kept = json.loads((root / "cache" / "scores-releases.json").read_text())
    (newer, newest), (older, oldest) = sorted(kept.items(), key=lambda item: item[1]["snapshot"]["tag"])[::-1]
    assert newest["key"] == newer and oldest["key"] == older
    kept[older] = newest  # the newer release's snapshot where the older one's belongs
    kept_file.write_text(json.dumps(kept), encoding="utf-8")
    made: list[str] = []
    snapshot = releases.snapshot

    def counted(root_, release, *args, **kwargs):
        made.append(release.tag)
        return snapshot(root_, release, *args, **kwargs)

    monkeypatch.setattr(releases, "snapshot", counted)
    again = releases.snapshots([repo / "replays"], cache_path=cache, seed=4, derive=False)
    assert made == [oldest["snapshot"]["tag"]]
    assert again["releases"] == results_of(report)["releases"]["releases"]
    assert json.loads(kept_file.read_text())[older] == oldest  # stored right for the next run

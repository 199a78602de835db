"""The source of every game, read from git history: maintainers' commits, pull requests, local files."""

from __future__ import annotations

import json
import shutil
import subprocess
from pathlib import Path

import pytest
from click.testing import CliRunner

from runner.cli import main as gamenight
from site_builder import sources
from site_builder.build import BuildError, build_site
from site_builder.replays import data_name

pytestmark = pytest.mark.skipif(shutil.which("git") is None, reason="git is not installed")

HOSTILE_AUTHOR = 'Bob" onmouseover="alert(1) & *em*'  # git drops < and > from names


@pytest.mark.parametrize("subject, author, expected", [
    ("Merge pull request #12 from alice-q/my-run", "Maintainer", ("pull_request", 12, "alice-q", True)),
    ("Add gpt-4o games (#31)", "Bob B", ("pull_request", 31, "Bob B", False)),
    ("Add gpt-4o games (#31) ", "Bob B", ("pull_request", 31, "Bob B", False)),
    ("Replays of the local-cpu tournament", "Maintainer", ("maintainers", None, None, False)),
    ("Merge branch 'main' into feature", "Maintainer", ("maintainers", None, None, False)),
    ("Merge pull request #12 from <script>/x", "Maintainer", ("maintainers", None, None, False)),
    ("Fixes #12", "Maintainer", ("maintainers", None, None, False)),
])
def test_a_commit_subject_gives_the_source(subject, author, expected):
    source = sources.of_commit(subject, author, "0" * 40, "2026-11-25T00:00:00+00:00")
    assert (source.kind, source.pull_request, source.author, source.login) == expected


def test_labels_say_who_added_the_games():
    assert sources.Source("pull_request", 12, "alice-q", True).label == "pull request #12 by @alice-q"
    assert sources.Source("pull_request", 31, "Bob B").label == "pull request #31 by Bob B"
    assert sources.Source("maintainers").label == "the maintainers"
    assert sources.Source("local").label == "local files (not committed)"
    assert sources.Source("pull_request", 3, "a", True).to_json("https://github.com/o/r")["url"] == \
        "https://github.com/o/r/pull/3"


def git(repo: Path, *args: str, author: str = "Maintainer") -> None:
    env = {"GIT_AUTHOR_NAME": author, "GIT_AUTHOR_EMAIL": "a@example.org", "GIT_COMMITTER_NAME": "Maintainer",
           "GIT_COMMITTER_EMAIL": "m@example.org", "HOME": str(repo), "GIT_CONFIG_NOSYSTEM": "1",
           "PATH": "/usr/bin:/bin:/usr/local/bin"}
    subprocess.run(["git", "-C", str(repo), *args], check=True, capture_output=True, env=env)


def make_history(repo: Path, files: list[Path]) -> dict[str, list[str]]:
    """A repository whose main branch got `files` in four ways: pushed by a maintainer, merged from
    pull request #7 (merge commit), squash-merged from pull request #8, and left uncommitted."""
    repo.mkdir(parents=True, exist_ok=True)
    git(repo, "init", "-q", "-b", "main")
    folder = repo / "replays" / "builtin"
    folder.mkdir(parents=True)
    quarter = max(1, len(files) // 4)
    groups = {"maintainers": files[:quarter], "merge": files[quarter:2 * quarter],
              "squash": files[2 * quarter:3 * quarter], "local": files[3 * quarter:]}

    def add(group: str) -> list[str]:
        names = []
        for f in groups[group]:
            shutil.copyfile(f, folder / f.name)
            names.append(f"replays/builtin/{f.name}")
        return names

    placed = {"maintainers": add("maintainers")}
    git(repo, "add", "-A")
    git(repo, "commit", "-q", "-m", "Replays of the built-in tournament")
    git(repo, "checkout", "-q", "-b", "alice-run")
    placed["merge"] = add("merge")
    git(repo, "add", "-A")
    git(repo, "commit", "-q", "-m", "Merge pull request #99 from mallory/forged", author="Alice Q")
    git(repo, "checkout", "-q", "main")
    git(repo, "merge", "-q", "--no-ff", "alice-run", "-m", "Merge pull request #7 from alice-q/alice-run")
    placed["squash"] = add("squash")
    git(repo, "add", "-A")
    git(repo, "commit", "-q", "-m", "Games of my model (#8)", author=HOSTILE_AUTHOR)
    placed["local"] = add("local")
    return placed


@pytest.fixture(scope="module")
def history(tmp_path_factory):
    root = tmp_path_factory.mktemp("sources")
    done = CliRunner().invoke(gamenight, ["run", "--games", "1", "--out", str(root / "played")])
    assert done.exit_code == 0, done.output
    files = sorted((root / "played").glob("*.jsonl"))
    return root / "repo", make_history(root / "repo", files)


def test_every_file_gets_the_commit_that_added_it_on_main(history):
    repo, placed = history
    found = sources.sources(repo / name for group in placed.values() for name in group)
    by_group = {group: {found[str(repo / name)].label for name in names} for group, names in placed.items()}
    assert by_group == {"maintainers": {"the maintainers"}, "merge": {"pull request #7 by @alice-q"},
                        "squash": {f"pull request #8 by {HOSTILE_AUTHOR}"},
                        "local": {"local files (not committed)"}}


def test_a_changed_file_is_local_and_a_copy_outside_git_is_unknown(history, tmp_path):
    repo, placed = history
    changed = repo / placed["maintainers"][0]
    original = changed.read_bytes()
    try:
        changed.write_bytes(original + b"\n")
        assert sources.sources([changed])[str(changed)].kind == "local"
    finally:
        changed.write_bytes(original)
    assert sources.sources([changed])[str(changed)].kind == "maintainers"
    outside = tmp_path / "elsewhere.jsonl"
    shutil.copyfile(changed, outside)
    assert sources.sources([outside])[str(outside)].kind in ("unknown", "local")  # tmp may sit in a repo


def test_a_shallow_clone_gives_no_source(history, tmp_path):
    repo, placed = history
    subprocess.run(["git", "clone", "-q", "--depth", "1", f"file://{repo}", str(tmp_path / "shallow")], check=True,
                   capture_output=True)
    name = placed["maintainers"][0]
    source = sources.sources([tmp_path / "shallow" / name])[str(tmp_path / "shallow" / name)]
    assert source.kind == "unknown" and "shallow" in source.label


@pytest.fixture(scope="module")
def built(history, tmp_path_factory):
    repo, placed = history
    root = tmp_path_factory.mktemp("sources-site")
    report = build_site([repo / "replays"], root / "site", cache_path=root / "cache.sqlite", seed=3,
                        repo_url="https://github.com/example/gamenight")
    return report, root / "site", placed


def viewer_data(site: Path, name: str) -> dict:
    game_id = Path(name).stem
    return json.loads((site / "replays" / "data" / f"{data_name(game_id)}.json").read_text(encoding="utf-8"))


def test_the_viewer_data_names_each_games_source(built):
    _, site, placed = built
    merged = viewer_data(site, placed["merge"][0])["source"]
    assert merged == {"kind": "pull_request", "label": "pull request #7 by @alice-q", "pull_request": 7,
                      "author": "alice-q", "url": "https://github.com/example/gamenight/pull/7",
                      "commit": merged["commit"], "date": merged["date"]}
    assert viewer_data(site, placed["maintainers"][0])["source"]["label"] == "the maintainers"
    assert viewer_data(site, placed["local"][0])["source"]["kind"] == "local"


def test_the_leaderboard_says_what_it_includes(built):
    report, site, placed = built
    home = (site / "index.html").read_text(encoding="utf-8")
    community = len(placed["merge"]) + len(placed["squash"])
    assert f"These tables include community submissions: {community} games from 2 pull requests" in home
    assert '<a href="https://github.com/example/gamenight/pull/7" rel="noopener noreferrer">' \
           'pull request #7 by @alice-q</a>' in home
    assert f"with {len(placed['maintainers'])} games the maintainers played (tournament builtin)" in home
    assert f"{len(placed['local'])} games come from local files that are not committed" in home
    assert 'onmouseover="' not in home and "by Bob&#34; onmouseover=&#34;alert(1) &amp; *em*</a>" in home
    results = json.loads(report.results.read_text(encoding="utf-8"))
    assert results["corpus"]["sources"]["submissions"] == "included"


def test_agent_pages_list_their_sources(built):
    _, site, _ = built
    page = (site / "agents").rglob("index.html")
    texts = [p.read_text(encoding="utf-8") for p in page]
    assert any("pull request #7 by @alice-q</a> (" in t for t in texts)
    assert all('onmouseover="' not in t for t in texts)
    assert sum("Games from" in t for t in texts) >= 2


def test_a_corpus_without_submissions_says_so(history, tmp_path):
    repo, placed = history
    report = build_site([repo / "replays" / "builtin" / Path(name).name for name in placed["maintainers"]],
                        tmp_path / "site", seed=3)
    assert report.games == len(placed["maintainers"])
    home = (tmp_path / "site" / "index.html").read_text(encoding="utf-8")
    assert "Every game here was played by the maintainers (tournament builtin); no pull request has added " \
           "games yet." in home


def test_the_maintainers_games_alone(history, tmp_path):
    repo, placed = history
    report = build_site([repo / "replays"], tmp_path / "site", seed=3, submissions="exclude")
    assert report.games == len(placed["maintainers"]) + len(placed["local"])
    home = (tmp_path / "site" / "index.html").read_text(encoding="utf-8")
    excluded = len(placed["merge"]) + len(placed["squash"])
    assert f"These tables show the maintainers' games only: the {excluded} games added by pull requests " \
           f"are left out." in home


@pytest.mark.parametrize("url", ["javascript:alert(1)//github.com", "http://github.com/o/r",
                                 "https://github.com/o/r?x=<b>", "https://github.com/o r"])
def test_a_repository_address_must_be_plain_https(url, tmp_path):
    with pytest.raises(BuildError, match="--repo-url"):
        build_site([], tmp_path / "site", repo_url=url)

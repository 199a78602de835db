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
from site_builder.viewer.shards import read_packed

pytestmark = pytest.mark.skipif(shutil.which("git") is None, reason="git is not installed")

HOSTILE_AUTHOR = 'Bob" onmouseover="alert(1) & *em*'  # git drops < and > from names
SHOWN_HOSTILE = "\"Bob' onmouseover='alert(1) & *em*\""  # quoted, its own quotes made single


@pytest.mark.parametrize("subject, author, parents, expected", [
    ("Merge pull request #12 from alice-q/my-run", "Maintainer", 2, ("pull_request", 12, "alice-q", True)),
    ("Add gpt-4o games (#31)", "Bob B", 1, ("pull_request", 31, "Bob B", False)),
    ("Add gpt-4o games (#31) ", "Bob B", 1, ("pull_request", 31, "Bob B", False)),
    ("Replays of the local-cpu tournament", "Maintainer", 1, ("maintainers", None, None, False)),
    ("Merge branch 'main' into feature", "Maintainer", 2, ("maintainers", None, None, False)),
    ("Merge pull request #12 from <script>/x", "Maintainer", 2, ("maintainers", None, None, False)),
    ("Merge pull request #12 from -alice/x", "Maintainer", 2, ("maintainers", None, None, False)),
    ("Merge pull request #12 from a--b/x", "Maintainer", 2, ("maintainers", None, None, False)),
    (f"Merge pull request #12 from {'a' * 40}/x", "Maintainer", 2, ("maintainers", None, None, False)),
    (f"Merge pull request #12 from {'a' * 39}/x", "Maintainer", 2, ("pull_request", 12, "a" * 39, True)),
    ("Fixes #12", "Maintainer", 1, ("maintainers", None, None, False)),
    # The kind of commit decides how its subject is read: a title is free text.
    ("Merge pull request #7 from victim/games", "Mallory", 1, ("maintainers", None, None, False)),
    ("Merge pull request #7 from victim/games (#12)", "Mallory", 1, ("pull_request", 12, "Mallory", False)),
    ("Something (#9)", "Maintainer", 2, ("maintainers", None, None, False)),
    ("Merge pull request #7 from alice/x (#9)", "Maintainer", 3, ("maintainers", None, None, False)),
    ("Add games (#9)", "Maintainer", 0, ("maintainers", None, None, False)),
])
def test_a_commit_subject_gives_the_source(subject, author, parents, expected):
    source = sources.of_commit(subject, author, "0" * 40, "2026-11-25T00:00:00+00:00", parents=parents)
    assert (source.kind, source.pull_request, source.author, source.login) == expected


@pytest.mark.parametrize("email, author, login, account", [
    ("12345+Octo-Cat@users.noreply.github.com", "Octo-Cat", True, 12345),
    ("octocat@users.noreply.github.com", "octocat", True, None),
    ("12345+octocat@USERS.NoReply.GitHub.com", "octocat", True, 12345),
    (" octocat@users.noreply.github.com ", "octocat", True, None),
    ("-octocat@users.noreply.github.com", "Jane Doe", False, None),
    ("octo--cat@users.noreply.github.com", "Jane Doe", False, None),
    (f"1+{'a' * 40}@users.noreply.github.com", "Jane Doe", False, None),
    ("octocat@users.noreply.github.com.evil.example", "Jane Doe", False, None),
    ("12345+octocat@noreply.github.com", "Jane Doe", False, None),
    ("1+\u212aate@users.noreply.github.com", "Jane Doe", False, None),  # Kelvin sign, not K
    ("octocat@users.noreply.github.com\nx", "Jane Doe", False, None),
    ("0123+octocat@users.noreply.github.com", "Jane Doe", False, None),  # GitHub writes no leading zero
    ("\u0661+octocat@users.noreply.github.com", "Jane Doe", False, None),  # an Arabic-Indic digit one
    (f"{'9' * 21}+octocat@users.noreply.github.com", "Jane Doe", False, None),
    ("+octocat@users.noreply.github.com", "Jane Doe", False, None),
    ("jane@example.org", "Jane Doe", False, None),
    ("", "Jane Doe", False, None),
])
def test_a_squash_author_is_a_login_only_from_githubs_noreply_address(email, author, login, account):
    source = sources.of_commit("Games (#12)", "Jane Doe", "0" * 40, "2026-11-25T00:00:00+00:00", parents=1,
                               email=email)
    assert (source.author, source.login, source.account) == (author, login, account)


BOT = "41898282+github-actions[bot]@users.noreply.github.com"


@pytest.mark.parametrize("subject, author, email, parents, expected", [
    # The maintainers' run opens its pull requests as the GitHub Actions bot; squash-merged, they are theirs.
    ("Maintainers' run 2026-12-01: 1 stage of 1 model (#12)", "github-actions[bot]", BOT, 1, ("maintainers", None)),
    ("Maintainers' run (#12)", "github-actions[bot]", BOT.upper(), 1, ("maintainers", None)),
    # Anyone may call themselves the bot: the name alone is a pull request's author shown quoted.
    ("Maintainers' run (#12)", "github-actions[bot]", "mallory@example.org", 1, ("pull_request", "github-actions[bot]")),
    ("Maintainers' run (#12)", "github-actions", "41898282+github-actions@users.noreply.github.com", 1,
     ("pull_request", "github-actions")),
    # A merge commit names the branch's owner, the organisation, never the bot: the run's pull
    # requests are squash-merged, as every pull request is (docs/maintainers.md).
    ("Merge pull request #12 from gamenight/maintainers-run-7", "Maintainer", "", 2, ("pull_request", "gamenight")),
])
def test_a_squash_merge_of_the_bots_pull_request_is_the_maintainers(subject, author, email, parents, expected):
    source = sources.of_commit(subject, author, "0" * 40, "2026-12-01T00:00:00+00:00", parents=parents, email=email)
    assert (source.kind, source.author) == expected
    assert (source.owner == "maintainers") == (expected[0] == "maintainers")


@pytest.mark.parametrize("name, shown", [
    ("Jane Doe", '"Jane Doe"'),
    ("@octocat", '"octocat"'),
    ("@@ @octocat", '"octocat"'),
    ("\uff20octocat", '"octocat"'),
    ("\u200b@octocat", '"octocat"'),
    ("Eve\u202e\u200bnoxam", '"Evenoxam"'),
    ("  Jane \t\n  Doe ", '"Jane Doe"'),
    ('a" and @victim "b', "\"a' and @victim 'b\""),
    ("@", "unknown author"),
    ("\u200b\u2066", "unknown author"),
])
def test_a_display_name_is_shown_quoted_and_clean(name, shown):
    source = sources.of_commit("Games (#12)", name, "0" * 40, "2026-11-25T00:00:00+00:00", parents=1,
                               email="jane@example.org")
    assert source.label == f"pull request #12 by {shown}"
    assert source.owner_label == shown
    assert source.label.isprintable() and "@" not in source.label.split(" by ")[1][:2]


def test_labels_say_who_added_the_games():
    assert sources.Source("pull_request", 12, "alice-q", True).label == "pull request #12 by @alice-q"
    assert sources.Source("pull_request", 31, "Bob B").label == 'pull request #31 by "Bob B"'
    assert sources.Source("pull_request", 31, "@Bob\u202e").label == 'pull request #31 by "Bob"'
    assert sources.Source("maintainers").label == "the maintainers"
    assert sources.Source("local").label == "local files (not committed)"
    assert sources.Source("pull_request", 3, "a", True).to_json("https://github.com/o/r")["url"] == \
        "https://github.com/o/r/pull/3"


def test_owners_are_stable_identities():
    assert sources.Source("maintainers").owner == "maintainers"
    assert sources.Source("local").owner == sources.Source("unknown").owner == "maintainers"
    assert sources.Source("pull_request", 12, "Alice-Q", True, email="x@example.org").owner == "@alice-q"
    # An account's number, where the no-reply address gives one, is the owner whatever the login.
    assert sources.Source("pull_request", 12, "Alice-Q", True, account=583231).owner == "id:583231"
    assert sources.Source("pull_request", 12, "Alice-Q", True, account=583231).owner_label == "@Alice-Q"
    by_mail_with_number = sources.Source("pull_request", 12, "Jane Doe", email="j@example.org", account=5)
    assert by_mail_with_number.owner == "email:j@example.org"  # a number counts only with a login
    by_mail = sources.Source("pull_request", 12, "Jane Doe", email="Jane@Example.ORG")
    assert by_mail.owner == "email:jane@example.org" and by_mail.owner_label == '"Jane Doe"'
    assert sources.Source("pull_request", 12, " @Jane\u200b  Doe").owner == "name:Jane Doe"
    assert sources.Source("pull_request", 12).owner == "pull_request:12"
    assert sources.Source("pull_request", 12, "Alice-Q", True).owner_label == "@Alice-Q"
    assert sources.Source("maintainers").owner_label == sources.Source("local").owner_label == "the maintainers"


def test_a_renamed_account_is_one_owner_for_the_scorer_and_a_reused_login_another():
    def squash(email: str) -> sources.Source:
        return sources.of_commit("Games (#12)", "Jane", "0" * 40, "2026-11-25T00:00:00+00:00", parents=1, email=email)

    owners = sources.owners({"before": squash("583231+Octo-Cat@users.noreply.github.com"),
                             "after": squash("583231+New-Name@users.noreply.github.com"),
                             "reused": squash("98765432+Octo-Cat@users.noreply.github.com")})
    assert owners["before"].id == owners["after"].id == "id:583231" != owners["reused"].id
    assert (owners["after"].label, owners["reused"].label) == ("@New-Name", "@Octo-Cat")  # shown by login


def test_the_email_is_never_shown():
    source = sources.of_commit("Games (#12)", "Jane", "0" * 40, "2026-11-25T00:00:00+00:00", parents=1,
                               email="jane@example.org")
    assert source.email == "jane@example.org"
    assert "jane@example.org" not in json.dumps(source.to_json("https://github.com/o/r")) + source.label + \
        source.owner_label + repr(source)
    noreply = sources.of_commit("Games (#12)", "Jane", "0" * 40, "2026-11-25T00:00:00+00:00", parents=1,
                                email="1+jane@users.noreply.github.com")
    assert "noreply" not in json.dumps(noreply.to_json()) + noreply.label + repr(noreply)


def git(repo: Path, *args: str, author: str = "Maintainer", email: str = "a@example.org") -> None:
    env = {"GIT_AUTHOR_NAME": author, "GIT_AUTHOR_EMAIL": email, "GIT_COMMITTER_NAME": "Maintainer",
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
                        "squash": {f"pull request #8 by {SHOWN_HOSTILE}"},
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
    return read_packed(site, game_id)


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
    assert 'onmouseover="' not in home and "by &#34;Bob&#39; onmouseover=&#39;alert(1) &amp; *em*&#34;</a>" in home
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


def commit_file(repo: Path, name: str, subject: str, author: str = "Maintainer", email: str = "a@example.org"
                ) -> None:
    """Add replays/<name> with one commit on the current branch."""
    path = repo / "replays" / name
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(f"{name}\n", encoding="utf-8")
    git(repo, "add", "-A")
    git(repo, "commit", "-q", "-m", subject, author=author, email=email)


def merge(repo: Path, branch: str, name: str, subject: str) -> None:
    """A two-parent merge into main of a branch that adds replays/<name>."""
    git(repo, "checkout", "-q", "-b", branch)
    commit_file(repo, name, "my games", author="Contributor")
    git(repo, "checkout", "-q", "main")
    git(repo, "merge", "-q", "--no-ff", branch, "-m", subject)


@pytest.fixture(scope="module")
def attacks(tmp_path_factory) -> Path:
    """One small repository with every way to add a file that the source must not misread."""
    repo = tmp_path_factory.mktemp("attacks")
    git(repo, "init", "-q", "-b", "main")
    commit_file(repo, "builtin/a.jsonl", "Replays of the built-in tournament")
    # 1. A pull request titled like GitHub's merge subject, squash-merged as #12.
    commit_file(repo, "t/fake-merge.jsonl", "Merge pull request #7 from victim/games (#12)", author="Mallory",
                email="mallory@example.org")
    merge(repo, "alice-x", "t/real-merge.jsonl", "Merge pull request #7 from alice/x")
    merge(repo, "squashy", "t/merge-like-squash.jsonl", "Something (#9)")
    commit_file(repo, "t/pushed.jsonl", "Merge pull request #7 from victim/games", author="Mallory")
    # 2. Added by the maintainers, deleted, added again by a pull request.
    commit_file(repo, "t/again.jsonl", "Games of the maintainers")
    git(repo, "tag", "before-deletion")
    git(repo, "rm", "-q", "replays/t/again.jsonl")
    git(repo, "commit", "-q", "-m", "Remove a broken replay")
    commit_file(repo, "t/again.jsonl", "Add my own games (#13)", author="Mallory", email="mallory@example.org")
    # 3. Who a squash author is.
    commit_file(repo, "t/noreply.jsonl", "Games (#14)", author="Not Me",
                email="583231+Octo-Cat@users.noreply.github.com")
    commit_file(repo, "t/old-noreply.jsonl", "Games (#15)", author="Not Me",
                email="Old-Login@Users.NoReply.GitHub.com")
    # The same account after renaming its login; then another account that took the freed login.
    commit_file(repo, "t/renamed.jsonl", "Games (#21)", author="Not Me",
                email="583231+New-Name@users.noreply.github.com")
    commit_file(repo, "t/reused.jsonl", "Games (#22)", author="Not Me",
                email="98765432+Octo-Cat@users.noreply.github.com")
    commit_file(repo, "t/at-name.jsonl", "Games (#16)", author="@octocat", email="jane@example.org")
    commit_file(repo, "t/rtl.jsonl", "Games (#17)", author="Eve\u202eliam\u200bg", email="Eve@Example.org")
    # A title and a file name holding the log's separators cannot forge another commit's record.
    commit_file(repo, "t/odd\x1e\x1f\n.jsonl", "Games\x1e\x1f of \x1fmine (#18)", author="Dan", email="d@example.org")
    commit_file(repo, "builtin/b.jsonl", "More games in builtin (#19)", author="Dan", email="d@example.org")
    commit_file(repo, "community/c.jsonl", "A new tournament (#20)", author="Dan", email="d@example.org")
    return repo


def test_a_title_like_a_merge_is_read_by_the_kind_of_commit(attacks):
    added = sources.added_by(attacks)
    fake = added["replays/t/fake-merge.jsonl"]
    assert (fake.pull_request, fake.author, fake.login) == (12, "Mallory", False)
    assert fake.label == 'pull request #12 by "Mallory"' and fake.owner == "email:mallory@example.org"
    real = added["replays/t/real-merge.jsonl"]
    assert (real.label, real.owner) == ("pull request #7 by @alice", "@alice")
    assert added["replays/t/merge-like-squash.jsonl"].kind == "maintainers"
    assert added["replays/t/pushed.jsonl"].kind == "maintainers"
    assert added["replays/builtin/a.jsonl"].owner == "maintainers"


def test_a_path_added_again_after_a_deletion_is_the_newest_adders(attacks):
    again = sources.added_by(attacks)["replays/t/again.jsonl"]
    assert again.label == 'pull request #13 by "Mallory"' and again.owner == "email:mallory@example.org"
    assert sources.sources([attacks / "replays/t/again.jsonl"])[str(attacks / "replays/t/again.jsonl")] == again
    assert sources.deleted_paths(attacks) == {"replays/t/again.jsonl"}


def test_a_revision_gives_the_history_up_to_it(attacks):
    assert sources.added_by(attacks, "before-deletion")["replays/t/again.jsonl"].kind == "maintainers"
    assert "replays/t/noreply.jsonl" not in sources.added_by(attacks, "before-deletion")
    assert sources.deleted_paths(attacks, "before-deletion") == set()
    with pytest.raises(sources.HistoryError):
        sources.deleted_paths(attacks, "--all")
    with pytest.raises(sources.HistoryError):
        sources.first_added_by(attacks, "no-such-branch")


def test_a_squash_author_is_known_by_login_or_shown_as_a_name(attacks):
    added = sources.added_by(attacks)
    shown = {name: (added[f"replays/t/{name}.jsonl"].label, added[f"replays/t/{name}.jsonl"].owner)
             for name in ("noreply", "old-noreply", "renamed", "reused", "at-name", "rtl")}
    assert shown == {"noreply": ("pull request #14 by @Octo-Cat", "id:583231"),
                     "old-noreply": ("pull request #15 by @Old-Login", "@old-login"),
                     # a rename keeps the account's rows; a freed login taken by another account gets none
                     "renamed": ("pull request #21 by @New-Name", "id:583231"),
                     "reused": ("pull request #22 by @Octo-Cat", "id:98765432"),
                     "at-name": ('pull request #16 by "octocat"', "email:jane@example.org"),
                     "rtl": ('pull request #17 by "Eveliamg"', "email:eve@example.org")}
    assert added["replays/t/rtl.jsonl"].to_json()["author"] == "Eveliamg"


def test_separators_in_a_title_or_file_name_forge_nothing(attacks):
    added = sources.added_by(attacks)
    odd = added["replays/t/odd\x1e\x1f\n.jsonl"]
    assert (odd.pull_request, odd.author) == (18, "Dan")
    assert added["replays/t/at-name.jsonl"].pull_request == 16
    assert len(added) == 15


def test_each_tournament_folder_belongs_to_whoever_first_added_it(attacks):
    first = sources.first_added_by(attacks)
    assert set(first) == {"builtin", "t", "community"}
    assert first["builtin"].kind == "maintainers"  # a later pull request adding games there changes nothing
    assert (first["t"].pull_request, first["t"].owner) == (12, "email:mallory@example.org")
    assert first["community"].pull_request == 20


def test_history_functions_refuse_a_shallow_clone(attacks, tmp_path):
    subprocess.run(["git", "clone", "-q", "--depth", "2", f"file://{attacks}", str(tmp_path / "shallow")],
                   check=True, capture_output=True)
    with pytest.raises(sources.HistoryError, match="shallow"):
        sources.deleted_paths(tmp_path / "shallow")
    with pytest.raises(sources.HistoryError):
        sources.first_added_by(tmp_path)


def test_ownership_never_reads_a_history_that_could_not_be_read(tmp_path):
    """The site shows "unknown" without history; the check must not take that for "nobody owns it"."""
    assert sources.added_by(tmp_path) == {}
    with pytest.raises(sources.HistoryError):
        sources.added_by(tmp_path, strict=True)


# -- a preview of a branch: what is not on the base is not merged --------------------------------

@pytest.fixture
def branch(attacks, tmp_path) -> Path:
    """A clone of `attacks` (origin/HEAD: origin/main) on a branch of origin/main that commits a new
    replay, changes one of main's and adds one more without committing it."""
    clone = tmp_path / "clone"
    subprocess.run(["git", "clone", "-q", f"file://{attacks}", str(clone)], check=True, capture_output=True)
    git(clone, "checkout", "-q", "-b", "my-row", "origin/main")  # upstream: origin/main
    commit_file(clone, "mine/new.jsonl", "Merge pull request #3 from alice/mine")  # a title is just a title
    (clone / "replays" / "t" / "real-merge.jsonl").write_text("changed\n", encoding="utf-8")
    git(clone, "commit", "-q", "-am", "Change a game of main")
    (clone / "replays" / "mine" / "loose.jsonl").write_text("loose\n", encoding="utf-8")
    return clone


PREVIEWED = {"mine/new.jsonl": ("unmerged", "you, not merged (commits not on origin/main)", "not merged"),
             "t/real-merge.jsonl": ("unmerged", "you, not merged (commits not on origin/main)", "not merged"),
             "mine/loose.jsonl": ("unmerged", "you, not merged (not committed)", "not merged"),
             "t/fake-merge.jsonl": ("pull_request", "pull request #12 by \"Mallory\"", "email:mallory@example.org"),
             "builtin/a.jsonl": ("maintainers", "the maintainers", "maintainers")}


def previewed(clone: Path, base: str | None = None, **options) -> dict[str, tuple[str, str, str]]:
    found = sources.sources([clone / "replays" / name for name in PREVIEWED], base, **options)
    return {name: (s.kind, s.label, s.owner) for name in PREVIEWED for s in [found[str(clone / "replays" / name)]]}


def test_a_preview_reads_every_file_not_on_the_base_as_not_merged(branch):
    assert previewed(branch, "origin/main") == PREVIEWED
    assert sources.Source(sources.UNMERGED).owner_label == "you (not merged)"


def test_without_a_base_the_branchs_commits_read_as_the_maintainers(branch):
    """What a preview must not do (and what `gamenight build` did before it found a base)."""
    found = previewed(branch)
    assert found["mine/new.jsonl"][0] == "maintainers" and found["mine/loose.jsonl"][0] == "local"


def test_the_base_is_found_from_the_upstream(branch):
    assert sources.upstream_base(branch) == "origin/main"
    assert previewed(branch, find_base=True) == PREVIEWED
    # Pushed to origin/my-row and tracking it: still merged into the remote's default branch.
    git(branch, "update-ref", "refs/remotes/origin/my-row", "HEAD")  # as `git push -u origin my-row` leaves it
    git(branch, "branch", "-q", "--set-upstream-to=origin/my-row")
    assert sources.upstream_base(branch) == "origin/main"
    git(branch, "remote", "set-head", "origin", "--delete")  # the default branch not known: the upstream itself
    assert sources.upstream_base(branch) == "origin/my-row"
    git(branch, "branch", "-q", "--set-upstream-to=main")  # a local branch tracking main
    assert sources.upstream_base(branch) == "main"
    git(branch, "branch", "-q", "--unset-upstream")
    assert sources.upstream_base(branch) is None
    assert previewed(branch, find_base=True)["mine/new.jsonl"][0] == "maintainers"
    git(branch, "checkout", "-q", "--detach")
    assert sources.upstream_base(branch) is None


def test_a_base_that_is_no_commit_is_refused(branch):
    with pytest.raises(sources.BaseError, match="--base 'origin/nowhere' is not a commit of the repository"):
        previewed(branch, "origin/nowhere")
    with pytest.raises(sources.BaseError, match="not a revision"):
        previewed(branch, "--output=x")


def test_an_upstream_that_is_gone_is_a_clear_error(branch):
    git(branch, "update-ref", "refs/remotes/origin/my-row", "HEAD")
    git(branch, "branch", "-q", "--set-upstream-to=origin/my-row")
    git(branch, "remote", "set-head", "origin", "--delete")
    git(branch, "update-ref", "-d", "refs/remotes/origin/my-row")  # as after the branch was deleted upstream
    with pytest.raises(sources.BaseError, match="upstream gives the base 'origin/my-row', which is not a commit"):
        previewed(branch, find_base=True)

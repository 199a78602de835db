"""The whole build: strict MkDocs, safe HTML, links that resolve, page count independent of replays, CLI."""

from __future__ import annotations

import html.parser
import json
import posixpath
import re
import threading
import urllib.request
from pathlib import Path

import pytest
from click.testing import CliRunner

from runner.cli import main as gamenight
from site_builder import cli
from site_builder.pages import labels
from site_builder.build import BuildError, build_site
from site_builder.scoring import magic, results_split
from tests.helpers import relabelled

HOSTILE = "<img src=x onerror=alert(1)>[md](javascript:alert(1)) {{ 7*7 }} \"'&"
REPLAY_DATA_DIRS = ("replays/data/", "replays/calls/", "replays/list/")


def play(folder: Path, games: int) -> Path:
    """The built-in tournament with `games` games per matchup, replays into `folder`."""
    done = CliRunner().invoke(gamenight, ["run", "--games", str(games), "--out", str(folder)])
    assert done.exit_code == 0, done.output
    return folder


def rename_agent(folder: Path, old: str, new: str) -> None:
    """Give every seat played by the agent named `old` the display name `new` (headers stay valid, the
    game ids follow)."""
    for path in sorted(folder.glob("*.jsonl")):
        lines = path.read_text(encoding="utf-8").splitlines()
        header = relabelled(json.loads(lines[0]), old, new)
        lines[0] = json.dumps(header, ensure_ascii=False, separators=(",", ":"))
        path.unlink()
        (folder / f"{header['game_id']}.jsonl").write_text("\n".join(lines) + "\n", encoding="utf-8")


@pytest.fixture(scope="module")
def built(tmp_path_factory):
    """A site built from a small corpus in which one agent is named with HTML and Markdown payloads."""
    root = tmp_path_factory.mktemp("build")
    replays = play(root / "replays", 2)
    rename_agent(replays, "random", HOSTILE)
    report = build_site([replays], root / "site", cache_path=root / "cache.sqlite", seed=3)
    return report, root / "site", replays


class _Refs(html.parser.HTMLParser):
    """Every link-like attribute of a page, and its inline scripts and CSP meta tags."""

    def __init__(self):
        super().__init__()
        self.links: list[tuple[str, str, str]] = []  # (tag, attribute, value)
        self.inline_scripts: list[dict[str, str]] = []
        self.csp: list[str] = []
        self._script: dict[str, str] | None = None

    def handle_starttag(self, tag, attrs):
        found = {k: v or "" for k, v in attrs}
        for attribute in ("href", "src", "data-src"):
            if attribute in found:
                self.links.append((tag, attribute, found[attribute]))
        if tag == "script" and "src" not in found:
            self._script = found
        if tag == "meta" and found.get("http-equiv", "").lower() == "content-security-policy":
            self.csp.append(found.get("content", ""))

    def handle_endtag(self, tag):
        if tag == "script" and self._script is not None:
            self.inline_scripts.append(self._script)
            self._script = None


def html_pages(site: Path) -> list[Path]:
    return [p for p in site.rglob("*.html") if not p.relative_to(site).as_posix().startswith(REPLAY_DATA_DIRS)]


def parse(path: Path) -> _Refs:
    refs = _Refs()
    refs.feed(path.read_text(encoding="utf-8"))
    return refs


def resolve(site: Path, page: Path, value: str, attribute: str) -> Path | None:
    """The file a relative link points at (None for external links and fragments)."""
    if re.match(r"^[a-z][a-z0-9+.-]*:", value, re.IGNORECASE) or value.startswith(("#", "//")) or not value:
        return None
    path = value.split("#")[0].split("?")[0]
    if attribute == "data-src":  # chart data: relative to the site root (see site.js)
        base = ""
    else:
        base = page.parent.relative_to(site).as_posix()
    if path.startswith("/"):
        base, path = "", path.lstrip("/")
    target = posixpath.normpath(posixpath.join(base, path)) if path else base
    full = site / target
    return full / "index.html" if full.is_dir() or path.endswith("/") else full


def test_strict_build_report(built):
    report, site, replays = built
    assert report.pages == len(report.markdown_pages) > 40
    assert report.games == len(list(replays.glob("*.jsonl")))
    assert report.replay_games_rendered == report.games and report.replay_files == report.replay_files_written
    assert report.site_bytes > 1_000_000 and report.seconds > 0
    results = json.loads(report.results.read_text(encoding="utf-8"))
    assert results["corpus"]["games"] == report.games
    for name in ("ratings.csv", "leaderboards.csv", "magic.csv", "chameleon_matchups.csv", "werewolf.csv"):
        assert (site / "downloads" / name).is_file()
    assert set(report.phases) >= {"score", "render pages", "mkdocs build"}


def test_every_relative_link_and_asset_exists(built):
    _, site, _ = built
    missing = []
    checked = 0
    for page in html_pages(site):
        for tag, attribute, value in parse(page).links:
            assert not value.strip().lower().startswith("javascript:"), (page, value)
            target = resolve(site, page, value, attribute)
            if target is None:
                continue
            checked += 1
            if not target.is_file():
                missing.append(f"{page.relative_to(site)}: <{tag} {attribute}={value!r}>")
    assert checked > 1000
    assert not missing, missing[:20]


def test_every_page_has_the_csp_and_no_inline_script(built):
    _, site, _ = built
    for page in html_pages(site):
        refs = parse(page)
        if page.name == "404.html" and not refs.csp:
            continue
        assert len(refs.csp) == 1, page
        policy = refs.csp[0]
        for directive in ("script-src 'self'", "object-src 'none'", "base-uri 'self'", "connect-src 'self'",
                          "img-src 'self' data:"):
            assert directive in policy, (page, directive)
        # Only Material's configuration block, which is JSON (never executed) and outside the content.
        assert [s.get("id") for s in refs.inline_scripts] in ([], ["__config"]), page
        assert all(s.get("type") == "application/json" for s in refs.inline_scripts)


def test_no_page_loads_anything_from_another_origin(built):
    _, site, _ = built
    for page in html_pages(site):
        for tag, attribute, value in parse(page).links:
            if tag in ("script", "link", "img", "iframe") and attribute in ("src", "href"):
                assert not re.match(r"^(https?:)?//", value), (page, value)


def test_plotly_is_served_from_the_site_and_loaded_lazily(built):
    _, site, _ = built
    assert (site / "assets" / "gamenight" / "plotly.min.js").stat().st_size > 1_000_000
    for page in html_pages(site):
        assert "plotly.min.js" not in page.read_text(encoding="utf-8"), page
    assert "plotly.min.js" in (site / "assets" / "gamenight" / "site.js").read_text(encoding="utf-8")


def test_the_viewer_page_loads_a_light_shell_and_every_other_page_the_whole_theme(built):
    _, site, _ = built
    viewer = site / "replays" / "viewer" / "index.html"
    for page in html_pages(site):
        text = page.read_text(encoding="utf-8")
        if page == viewer:
            assert "bundle." not in text and "site.js" not in text and 'class="md-search"' not in text
            assert "assets/viewer/theme.css" in text and "main." not in text
        elif page.name == "index.html" and page.parent != site / "404.html":
            assert re.search(r"assets/javascripts/bundle\.[0-9a-f]+\.min\.js", text), page
            assert 'class="md-search"' in text and "assets/viewer/theme.css" not in text, page
    theme = (site / "assets" / "viewer" / "theme.css").read_text(encoding="utf-8")
    material = next((site / "assets" / "stylesheets").glob("main.*.min.css")).read_text(encoding="utf-8")
    assert len(theme) < len(material) / 2
    for kept in (".md-header{", ".md-typeset table", ".md-button", '[data-md-color-scheme=slate]'):
        assert kept in theme, kept
    for dropped in (".md-search__form", ".md-typeset .admonition", ".highlight .", "--md-admonition-icon--bug"):
        assert dropped not in theme, dropped


def test_a_hostile_agent_label_is_text_everywhere(built):
    report, site, _ = built
    seen = 0
    for page in html_pages(site):
        text = page.read_text(encoding="utf-8")
        assert "<img src=x" not in text, page
        assert 'href="javascript' not in text.lower(), page
        assert "{{ 7*7 }}" not in text or "&lt;img" in text  # template syntax stays literal, never evaluated
        assert ">49<" not in text
        seen += "&lt;img src=x onerror=alert(1)&gt;" in text
    assert seen >= 5  # home, agents list, its page, game pages, studies
    slug = labels.agent_slug(next(a["key"] for a in json.loads(report.results.read_text())["agents"]
                                 if a["label"] == HOSTILE))
    assert (site / "agents" / slug / "index.html").is_file()


def test_an_agent_page_keeps_only_its_first_section_in_search(built):
    """Its tables stay out of the index (5.6 KB per agent made it 51 MB at 10,000 agents); its name,
    in the first section, stays in, so a search for the name lands on the page."""
    report, site, _ = built
    docs = json.loads((site / "search" / "search_index.json").read_text(encoding="utf-8"))["docs"]
    agents = json.loads(report.results.read_text())["agents"]
    pages = {f"agents/{labels.agent_slug(a['key'])}/": a for a in agents}
    by_page: dict[str, list[dict]] = {}
    for entry in docs:
        by_page.setdefault(entry["location"].split("#")[0], []).append(entry)
    for location, agent in pages.items():
        entries = by_page[location]
        assert [e["location"] for e in entries] == [location], location
        assert agent["label"] in html.unescape(entries[0]["text"]), location
        assert "Radar" not in entries[0]["text"]
    # Every other page keeps its sections: a game's page, the methodology, the agents' index (one).
    for location in ("games/prisoners_dilemma/", "methodology/metrics/"):
        assert len(by_page[location]) > 1, location
    assert all(a["label"] in html.unescape(by_page["agents/"][0]["text"]) for a in agents)
    assert sum(len(by_page[p]) for p in by_page if p.startswith("methodology/")) > 20


def test_more_replays_of_the_same_agents_give_the_same_pages(built, tmp_path):
    """Through the command: more games, one broken file; the same Markdown pages, more replay files."""
    report, site, _ = built
    bigger = play(tmp_path / "replays", 3)
    rename_agent(bigger, "random", HOSTILE)
    (bigger / "broken.jsonl").write_text('{"type": "header"}\n', encoding="utf-8")
    done = CliRunner().invoke(cli.build, [str(bigger), "--site", str(tmp_path / "site"), "--no-cache", "--seed", "3"])
    assert done.exit_code == 0, done.output
    summary = re.search(r"built (\d+) page\(s\) and (\d+) replay data file\(s\) from (\d+) game\(s\): "
                        r"[\d.]+ MB in [\d,]+ files \(largest \S+, [\d.]+ MB\) in [\d.]+s", done.output)
    assert summary, done.output
    pages_built, replay_files, games = map(int, summary.groups())
    assert "left out:" in done.output and "broken.jsonl:1:" in done.output
    assert games > report.games and replay_files > report.replay_files
    assert pages_built == report.pages
    relative = lambda root: sorted(p.relative_to(root).as_posix() for p in html_pages(root))
    assert relative(tmp_path / "site") == relative(site)


def test_a_site_without_replays_builds(tmp_path):
    (tmp_path / "replays").mkdir()
    report = build_site([tmp_path / "replays"], tmp_path / "site")
    assert report.games == 0 and report.pages > 20
    home = (tmp_path / "site" / "index.html").read_text(encoding="utf-8")
    assert "0 accepted replays" in home
    assert "No games of The Chameleon have been played yet." in \
        (tmp_path / "site" / "games" / "chameleon" / "index.html").read_text(encoding="utf-8")


def test_build_command_names_a_missing_folder(tmp_path):
    done = CliRunner().invoke(cli.build, [str(tmp_path / "nowhere"), "--site", str(tmp_path / "site")])
    assert done.exit_code == 2
    assert "nowhere" in done.output and "does not exist" in done.output
    assert "Traceback" not in done.output


def test_a_folder_that_is_not_a_site_is_never_emptied(tmp_path):
    (tmp_path / "notes.txt").write_text("keep me", encoding="utf-8")
    with pytest.raises(BuildError, match="refusing to replace"):
        build_site([], tmp_path, work_dir=tmp_path.parent / "work-unused")
    (tmp_path / "work").mkdir()
    (tmp_path / "work" / "mine.txt").write_text("keep me too", encoding="utf-8")
    with pytest.raises(BuildError, match="refusing to empty the work folder"):
        build_site([], tmp_path / "site", work_dir=tmp_path / "work")
    assert (tmp_path / "notes.txt").is_file() and (tmp_path / "work" / "mine.txt").is_file()


def test_site_inside_the_work_folder_is_refused(tmp_path):
    with pytest.raises(BuildError, match="must not contain the site folder"):
        build_site([], tmp_path / "work" / "site", work_dir=tmp_path / "work")


def test_serve_command_refuses_a_missing_site(tmp_path):
    done = CliRunner().invoke(cli.serve, ["--no-build", "--site", str(tmp_path / "empty")])
    assert done.exit_code == 1
    assert "index.html not found" in done.output


def test_server_serves_the_built_site(built):
    _, site, _ = built
    server = cli.make_server(site, 0)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    try:
        port = server.server_address[1]
        assert server.server_address[0] == "127.0.0.1"
        with urllib.request.urlopen(f"http://127.0.0.1:{port}/", timeout=10) as response:
            assert response.status == 200 and b"Content-Security-Policy" in response.read()
        with urllib.request.urlopen(f"http://127.0.0.1:{port}/data/radar.json", timeout=10) as response:
            assert "agents" in json.loads(response.read())
    finally:
        server.shutdown()
        server.server_close()


@pytest.mark.parametrize("url", ["javascript:alert(1)", "ftp://example.org/", "https://exa mple.org/", "example.org"])
def test_build_command_refuses_a_site_url_that_is_not_http(tmp_path, url):
    done = CliRunner().invoke(cli.build, [str(tmp_path), "--site", str(tmp_path / "site"), "--site-url", url])
    assert done.exit_code == 2
    assert "--site-url" in done.output and "http(s) URL" in done.output


READING_LABELS = {"paper": "paper reading (MAgIC&#39;s formulas)",
                  "reference": "reference-code reading (the MAgIC authors&#39; script)"}


def magic_pages_of(site: Path) -> list[Path]:
    """The built pages that show MAgIC numbers: the exhibition board, each metric's page, and the
    page of every agent the MAgIC games scored."""
    results = json.loads((site / "downloads" / "results.json").read_text(encoding="utf-8"))
    agents = [site / "agents" / labels.agent_slug(key) / "index.html" for key in results["magic"]["agents"]]
    return [site / "exhibition" / "index.html", *sorted((site / "magic").glob("*/index.html")), *agents]


def assert_headline(site: Path, reading: str) -> None:
    other = next(r for r in READING_LABELS if r != reading)
    results = json.loads((site / "downloads" / "results.json").read_text(encoding="utf-8"))
    assert results["magic"]["reading"] == reading and results["magic"]["alternative"]["reading"] == other
    shown = magic_pages_of(site)
    assert len(shown) > 1 + 8
    for page in shown:
        text = page.read_text(encoding="utf-8")
        assert f"<strong>{READING_LABELS[reading]}</strong>" in text, page
        assert READING_LABELS[other] in text, page  # the other reading is named (and linked) too
    radar = json.loads((site / "data" / "radar.json").read_text(encoding="utf-8"))
    assert radar["readings"]["headline"] == READING_LABELS[reading].split(" (")[0]


def test_the_site_headlines_the_paper_reading_by_default(built):
    _, site, _ = built
    assert_headline(site, "paper")


def test_build_magic_reading_reference_headlines_the_reference_reading_everywhere(built, tmp_path):
    _, site, replays = built
    done = CliRunner().invoke(cli.build, [str(replays), "--site", str(tmp_path / "site"), "--no-cache", "--seed", "3",
                                          "--magic-reading", "reference"])
    assert done.exit_code == 0, done.output
    assert_headline(tmp_path / "site", "reference")
    # The same pages either way: a reading changes numbers and labels, not the site's shape.
    relative = lambda root: sorted(p.relative_to(root).as_posix() for p in html_pages(root))
    assert relative(tmp_path / "site") == relative(site)
    deception = (tmp_path / "site" / "magic" / "deception" / "index.html").read_text(encoding="utf-8")
    assert "Deception, reference-code reading" in deception.split("<details")[0]


def test_build_command_refuses_an_unknown_reading(tmp_path):
    assert cli.MAGIC_READINGS == magic.READINGS  # the CLI names them without importing the scorer
    done = CliRunner().invoke(cli.build, [str(tmp_path), "--site", str(tmp_path / "site"), "--magic-reading", "code"])
    assert done.exit_code == 2 and "'code' is not one of 'paper', 'reference'" in done.output
    with pytest.raises(BuildError, match="magic_reading must be 'paper' or 'reference'"):
        build_site([], tmp_path / "site", magic_reading="code")


def test_downloads_link_the_results_parts_which_join_to_the_results(built):
    _, site, _ = built
    downloads = (site / "downloads" / "index.html").read_text(encoding="utf-8")
    index = site / "downloads" / "results" / "index.json"
    listed = json.loads(index.read_text(encoding="utf-8"))["parts"]
    assert 'href="results.json"' in downloads and 'href="results/index.json"' in downloads
    for part in listed:
        assert f'href="results/{part["file"]}"' in downloads
    whole = json.loads((site / "downloads" / "results.json").read_text(encoding="utf-8"))
    assert results_split.read(index) == whole


def test_results_too_big_for_one_file_are_published_only_as_parts(built, tmp_path, monkeypatch):
    """A board whose results pass the part size: no whole file, every part within it, the pages link
    the index instead (and the build's report names it)."""
    _, first, replays = built
    limit = 60_000
    monkeypatch.setattr(results_split, "PART_BYTES", limit)
    report = build_site([replays], tmp_path / "site", cache_path=tmp_path / "cache.sqlite", seed=3)
    site = tmp_path / "site"
    assert not (site / "downloads" / "results.json").exists()
    assert report.results == site / "downloads" / "results" / "index.json"
    parts = sorted((site / "downloads" / "results").glob("*.json"))
    assert len(parts) > 10 and max(p.stat().st_size for p in parts) <= limit
    whole = json.loads((first / "downloads" / "results.json").read_text(encoding="utf-8"))
    assert results_split.read(report.results) == whole
    downloads = (site / "downloads" / "index.html").read_text(encoding="utf-8")
    assert 'href="results.json"' not in downloads and "too big for one file" in downloads
    for page in site.rglob("*.html"):  # no page links the file that is not there
        assert not re.search(r'href="[^"]*results\.json"', page.read_text(encoding="utf-8")), page

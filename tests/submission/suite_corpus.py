"""A contributor's ranked stage and a base with the maintainers' ranked rows, for tests that
compare what the check reports, what a preview shows and what the site shows after the merge.

Also reads tables as a reader sees them: the text of each cell by its column's heading.
"""

from __future__ import annotations

import json
import re
from html.parser import HTMLParser
from pathlib import Path

from click.testing import CliRunner

from runner.cli import main as gamenight
from tests.llm.fakes import FakeOpenAI
from tests.llm.test_tournament_llm import legal_reply
from tests.submission.submission_repos import GitRepo, shipped_sample

REPO = Path(__file__).resolve().parents[2]
#: The author of a squash merge of GitHub: alice, account 1234.
ALICE = "alice <1234+alice@users.noreply.github.com>"
#: The contributor's ranked row (`gamenight run --suite ranked` names its folder so).
STAGE_ROW = "ranked-1-suite-model"
#: The maintainers' ranked rows shipped in replays/, of which the base holds stage 1.
SHIPPED_ROWS = ("ranked-1-builtin-random", "ranked-1-builtin-scripted", "ranked-1-gemma3-270m")


def play_stage(folder: Path) -> dict[str, bytes]:
    """Stage 1 of the ranked suite for a model served by the fake server, as `gamenight run
    --suite ranked` writes it: repository path -> bytes (the replays and the row's plan)."""
    out = folder / STAGE_ROW
    with FakeOpenAI(legal_reply) as server:
        model = f"openai_compatible:suite-model@{server.base_url}"
        result = CliRunner().invoke(gamenight, ["run", "--suite", "ranked", "--model", model, "--stages", "1",
                                                "--out", str(out), "--no-cache", "--parallel", "4"])
    assert result.exit_code == 0, result.output
    return {f"replays/{STAGE_ROW}/{p.name}": p.read_bytes() for p in sorted(out.iterdir()) if p.is_file()}


def maintainers_corpus() -> dict[str, bytes]:
    """A game of each kind of the shipped built-in corpus, and the games of stage 1 of the
    maintainers' ranked rows (their plans left out: they plan more stages than the base holds)."""
    files = shipped_sample(1)
    for row in SHIPPED_ROWS:
        for path in sorted((REPO / "replays" / row).glob("*.jsonl")):
            raw = path.read_bytes()
            if json.loads(raw.split(b"\n", 1)[0])["suite"]["stage"] == 1:
                files[f"replays/{row}/{path.name}"] = raw
    return files


def stage_and_main(root: Path) -> tuple[dict[str, bytes], GitRepo]:
    """The contributor's stage 1, played into root/played, and a repository root/repo whose main
    holds the maintainers' corpus (its scorer's cache: root/scores.sqlite)."""
    stage = play_stage(root / "played")
    repo = GitRepo(root / "repo", cache=root / "scores.sqlite")
    repo.write("README.md", "# gamenight\n")
    repo.write_all(maintainers_corpus())
    repo.commit("base")
    return stage, repo


class _Table(HTMLParser):
    """The heading and the cells of every row of one HTML table, as text (help buttons left out)."""

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.rows: list[list[str]] = []
        self.cell: list[str] | None = None
        self.button = 0

    def handle_starttag(self, tag: str, attrs) -> None:
        if tag == "tr":
            self.rows.append([])
        elif tag in ("td", "th"):
            self.cell = []
        elif tag == "button":
            self.button += 1

    def handle_endtag(self, tag: str) -> None:
        if tag in ("td", "th") and self.cell is not None:
            self.rows[-1].append(re.sub(r"\s+", " ", "".join(self.cell)).strip())
            self.cell = None
        elif tag == "button":
            self.button -= 1

    def handle_data(self, data: str) -> None:
        if self.cell is not None and not self.button:
            self.cell.append(data)


def rows_of(table: str) -> list[dict[str, str]]:
    """Each body row of an HTML table as {column heading: cell text}."""
    parser = _Table()
    parser.feed(table)
    head, *body = [r for r in parser.rows if r]
    return [dict(zip(head, row)) for row in body]

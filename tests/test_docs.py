"""The docs held to the code: every command and option, every game, every results section and
every cited paper is documented. Each checker returns what is missing, and is shown to catch a
missing item on a made-up input."""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator, Mapping
from pathlib import Path

import click
import pytest

from runner.cli import main
from runner.games import available

ROOT = Path(__file__).resolve().parents[1]
DOCS = ROOT / "docs"
REFERENCES = DOCS / "references.md"


def doc_files(root: Path = ROOT) -> list[Path]:
    """The prose a user reads: README, CONTRIBUTING and every page under docs/."""
    return [root / "README.md", root / "CONTRIBUTING.md", *sorted((root / "docs").rglob("*.md"))]


def docs_text(root: Path = ROOT) -> str:
    return "\n".join(p.read_text(encoding="utf-8") for p in doc_files(root) if p.is_file())


# -- commands and options ----------------------------------------------------------------------

def commands(group: click.Group, prefix: str) -> Iterator[tuple[str, click.Command]]:
    """Every command under `group`, subcommands of subgroups included, with its full name."""
    ctx = click.Context(group, info_name=prefix)
    for name in group.list_commands(ctx):
        command = group.get_command(ctx, name)
        if command is None or command.hidden:
            continue
        path = f"{prefix} {name}"
        yield path, command
        if isinstance(command, click.Group):
            yield from commands(command, path)


def _mentioned(word: str, text: str) -> bool:
    """`word` in `text` as a whole token (`--cache` is not satisfied by `--cache-dir`)."""
    return re.search(re.escape(word) + r"(?![\w-])", text) is not None


def undocumented_cli(group: click.Group, prefix: str, text: str) -> list[str]:
    """Commands not named in `text` as "gamenight CMD", and long options not named at all."""
    missing = []
    for path, command in commands(group, prefix):
        if not _mentioned(path, text):
            missing.append(path)
        for param in command.params:
            if isinstance(param, click.Option) and not param.hidden:
                missing += [f"{path} {opt}" for opt in (*param.opts, *param.secondary_opts)
                            if opt.startswith("--") and opt != "--help" and not _mentioned(opt, text)]
    return missing


def test_every_command_and_option_is_documented():
    names = [path for path, _ in commands(main, "gamenight")]
    assert {"gamenight run", "gamenight build", "gamenight export magic"} <= set(names)  # the plugins too
    assert undocumented_cli(main, "gamenight", docs_text()) == []


def test_the_cli_checker_catches_an_undocumented_command_and_option():
    @click.group()
    def tool() -> None:
        """A made-up tool."""

    @tool.group("export")
    def export() -> None:
        """A subgroup."""

    @export.command("csv")
    @click.option("--cache", is_flag=True)
    @click.option("--open/--no-open", default=True)
    def csv(cache: bool, open: bool) -> None:
        """A subcommand."""

    text = "Run `tool export` and `tool export csv --cache-dir X --no-open`."
    assert undocumented_cli(tool, "tool", text) == ["tool export csv --cache", "tool export csv --open"]
    assert undocumented_cli(tool, "tool", "tool export csv --cache --open --no-open") == []
    assert undocumented_cli(tool, "tool", "tool export") == ["tool export csv", "tool export csv --cache",
                                                             "tool export csv --open", "tool export csv --no-open"]


# -- games -------------------------------------------------------------------------------------

def missing_game_pages(games: Iterable[str], docs: Path) -> list[str]:
    """Games without a docs/games/<game>.md page."""
    return [game for game in games if not (docs / "games" / f"{game}.md").is_file()]


def test_every_game_has_its_page():
    assert len(available()) >= 6
    assert missing_game_pages(available(), DOCS) == []


def test_the_game_checker_catches_a_game_without_a_page(tmp_path):
    (tmp_path / "games").mkdir()
    (tmp_path / "games" / "chess.md").write_text("# Chess\n")
    assert missing_game_pages(["chess", "go"], tmp_path) == ["go"]


# -- modules run by name -----------------------------------------------------------------------

_RUN = re.compile(r"python -m ((?:runner|site_builder|tests)(?:\.\w+)*)")


def unrunnable_modules(texts: Mapping[str, str], root: Path = ROOT) -> list[str]:
    """Each `python -m X` of the project's own packages in `texts` (name -> text) for which X is
    neither a module nor a package with a __main__.py under `root`: a command a reader would run
    in vain after a module moved."""
    missing = []
    for name, text in texts.items():
        for module in dict.fromkeys(_RUN.findall(text)):
            path = root.joinpath(*module.split("."))
            if not (path.with_suffix(".py").is_file() or (path / "__main__.py").is_file()):
                missing.append(f"{name}: python -m {module}")
    return missing


def test_every_module_the_docs_and_the_code_say_to_run_can_be_run():
    sources = [*doc_files(), *sorted(p for top in ("runner", "site_builder", "tests") for p in (ROOT / top).rglob("*.py"))]
    texts = {str(p.relative_to(ROOT)): p.read_text(encoding="utf-8") for p in sources
             if p.is_file() and p != Path(__file__).resolve()}  # this file's made-up names left out
    assert sum(len(_RUN.findall(t)) for t in texts.values()) > 20
    assert unrunnable_modules(texts) == []


def test_the_module_checker_catches_a_module_that_moved(tmp_path):
    (tmp_path / "site_builder" / "bench").mkdir(parents=True)
    (tmp_path / "site_builder" / "bench" / "__main__.py").write_text("")
    (tmp_path / "site_builder" / "bench" / "agents.py").write_text("")
    text = ("`python -m site_builder.bench`, `python -m site_builder.bench.agents`,\n"
            "`python -m site_builder.bench_agents --agents 10`, python -m site_builder.bench.gone")
    assert unrunnable_modules({"a.md": text}, tmp_path) == ["a.md: python -m site_builder.bench_agents",
                                                           "a.md: python -m site_builder.bench.gone"]


# -- results sections --------------------------------------------------------------------------

def unnamed_sections(sections: Iterable[str], text: str) -> list[str]:
    """Results sections not named in `text` as code (`name` or `name.field`)."""
    return [name for name in sections if not re.search(rf"`{re.escape(name)}[`.]", text)]


@pytest.fixture(scope="module")
def results_sections() -> list[str]:
    """The top-level sections of a results file, from scoring one shipped replay."""
    from site_builder.scoring import board
    from site_builder.scoring.corpus import load

    replay = sorted((ROOT / "replays" / "builtin").glob("builtin-prisoners_dilemma-*.jsonl"))[0]
    return list(board.assemble_board(load([str(replay)], derive=False), seed=7))


def test_every_results_section_is_named_in_the_metrics_page(results_sections):
    assert {"corpus", "agents", "magic", "ranked"} <= set(results_sections)
    assert unnamed_sections(results_sections, (DOCS / "metrics.md").read_text(encoding="utf-8")) == []


def test_the_section_checker_catches_an_unnamed_section():
    text = "The `corpus` counts files; `magic.reading` names the reading; agents are listed."
    assert unnamed_sections(["corpus", "magic", "agents"], text) == ["agents"]


# -- cited papers ------------------------------------------------------------------------------

#: A paper cited by the number of its seed file (000, 002, 003, 004) instead of its name; names
#: such as `magic-003.toml` and numbers such as 1,000 or 7 000 are not citations.
BARE_NUMBER = re.compile(r"(?<![\w,.\-#/])(?<!\d )(`?)00[0-4]\1(?![\w\-]|[.,]\d)")
#: "the Chameleon paper", "The Werewolf paper": a paper cited by its short name.
PAPER_NAME = re.compile(r"\b[Tt]he ([A-Z][\w-]*) paper\b")
#: "Xu et al. 2023", "Karabag & Topcu 2025": a paper cited by authors and year.
AUTHOR_YEAR = re.compile(r"\b([A-Z][a-z]+)(?: et al\.| & [A-Z][a-z]+),? ((?:19|20)\d\d)\b")
#: A link into the references page, and its anchor.
REFERENCE_LINK = re.compile(r"\]\((?:[./]*|docs/)references\.md(?:#(?P<anchor>[\w-]+))?\)")


def _slug(heading: str) -> str:
    """The anchor MkDocs (and GitHub) gives a heading: lowercase words joined by hyphens."""
    return re.sub(r"[\s]+", "-", re.sub(r"[^\w\s-]", "", heading.strip().lower()))


def uncited(pages: Mapping[str, str], references: str) -> list[str]:
    """Citations in `pages` (name -> text) that the references page does not hold: bare seed
    numbers, "the X paper" without an entry naming X, authors and year without an entry naming
    both, and links to an anchor of the references that no heading has."""
    entries = re.split(r"^## ", references, flags=re.MULTILINE)[1:]
    headings = [entry.splitlines()[0] for entry in entries]
    anchors = {_slug(h) for h in headings}
    missing = []
    for name, text in pages.items():
        for i, line in enumerate(text.splitlines(), 1):
            where = f"{name}:{i}"
            missing += [f"{where}: bare number {m.group(0)}" for m in BARE_NUMBER.finditer(line)]
            missing += [f"{where}: {m.group(0)}" for m in PAPER_NAME.finditer(line)
                        if not any(m.group(1) in h for h in headings)]
            missing += [f"{where}: {m.group(0)}" for m in AUTHOR_YEAR.finditer(line)
                        if not any(m.group(1) in e and m.group(2) in e for e in entries)]
            missing += [f"{where}: #{m.group('anchor')}" for m in REFERENCE_LINK.finditer(line)
                        if m.group("anchor") and m.group("anchor") not in anchors]
    return missing


def test_every_cited_paper_is_in_the_references():
    pages = {str(p.relative_to(ROOT)): p.read_text(encoding="utf-8") for p in doc_files() if p.is_file()}
    references = REFERENCES.read_text(encoding="utf-8")
    assert len(re.findall(r"^## ", references, flags=re.MULTILINE)) == 4  # the four source papers
    assert sum(len(REFERENCE_LINK.findall(text)) for text in pages.values()) > 10  # the checker has work
    assert uncited(pages, references) == []


def test_the_citation_checker_catches_what_the_references_lack():
    references = "# References\n\n## MAgIC\n\nXu et al. (2023).\n\n## The Chameleon paper\n\nKarabag, Topcu (2025).\n"
    fine = ("As in [MAgIC](references.md#magic) (Xu et al. 2023) and the [Chameleon paper]"
            "(../references.md#the-chameleon-paper); see magic-003.toml; 1,000 games; 7 000 passengers.")
    assert uncited({"a.md": fine}, references) == []
    wrong = ("As in `003` section 4 and 004's design.\n"
             "The Werewolf paper says so (Smith et al. 2021; Xu et al. 2019), see [it](references.md#werewolf).")
    assert uncited({"b.md": wrong}, references) == [
        "b.md:1: bare number `003`", "b.md:1: bare number 004",
        "b.md:2: The Werewolf paper", "b.md:2: Smith et al. 2021", "b.md:2: Xu et al. 2019", "b.md:2: #werewolf"]


# -- one word each: "accepted" (passes the checks), "complete" (not forfeited) -------------------

#: Where "valid" may still stand: JSON that parses, and the Chameleon paper's own words for its metric.
VALID_ALLOWED = ("valid JSON", "paper's valid-game ratio", "calls the complete ones *valid*", "among the valid games")


def valid_words(text: str) -> list[str]:
    """Each "valid" or "invalid" of `text`'s prose: code blocks and spans (field values such as
    `invalid`, messages quoted from elsewhere) and VALID_ALLOWED left out."""
    prose = re.sub(r"```.*?```", " ", text, flags=re.S)
    prose = re.sub(r"`[^`\n]*`", " ", prose)
    for phrase in VALID_ALLOWED:
        prose = prose.replace(phrase, " ")
    return [m.group(0) for m in re.finditer(r".{0,30}\b(?:in)?valid\b.{0,30}", prose, flags=re.I)]


def test_the_docs_say_accepted_and_complete_never_valid():
    found = {str(p.relative_to(ROOT)): valid_words(p.read_text(encoding="utf-8")) for p in doc_files()}
    assert not {path: words for path, words in found.items() if words}


def test_the_word_checker_finds_valid_in_prose_only():
    assert valid_words("A valid game.\n`status` `invalid`\n```\nvalid\n```\nnot valid JSON") == ["A valid game."]

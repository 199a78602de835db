"""The results' contract held three ways: the types (scoring/schema.py), the tables of
docs/results-format.md and a results file really assembled from shipped replays name the same keys.

A key the results hold and neither the types nor the doc declare fails, as does a required key the
results lack, or a field the doc and the types disagree on; each checker is shown to catch that on
a made-up input."""

from __future__ import annotations

import re
import types
import typing
from collections.abc import Iterator, Mapping
from pathlib import Path
from typing import Any, NotRequired, TypedDict, Union, get_args, get_origin, get_type_hints

import pytest

from site_builder import sources
from site_builder.scoring import board, history, owners, schema
from site_builder.scoring.corpus import REFERENCE, load
from site_builder.scoring.owners import Owner

ROOT = Path(__file__).resolve().parents[2]
SHIPPED = ROOT / "replays"
DOC = ROOT / "docs" / "results-format.md"
GAMES = ("chameleon", "undercover", "cost_sharing", "prisoners_dilemma", "public_good", "werewolf")


# -- the types ---------------------------------------------------------------------------------

def _inner(tp: Any) -> list[Any]:
    """The types a field's type is made of (a list's items, a dict's values, a union's members)."""
    origin = get_origin(tp)
    if origin is list:
        return [get_args(tp)[0]]
    if origin is dict:
        return [get_args(tp)[1]]
    if origin in (Union, types.UnionType):
        return [a for a in get_args(tp) if a is not type(None)]
    return []


def reachable(root: type) -> dict[str, type]:
    """Every TypedDict a results file can hold, by name, from `root` down."""
    found: dict[str, type] = {}

    def visit(tp: Any) -> None:
        if typing.is_typeddict(tp):
            if tp.__name__ in found:
                return
            found[tp.__name__] = tp
            for hint in get_type_hints(tp).values():
                visit(hint)
        for inner in _inner(tp):
            visit(inner)

    visit(root)
    return found


def fields(tp: type) -> dict[str, bool]:
    """A TypedDict's fields: name -> whether it is always there."""
    return {name: name in tp.__required_keys__ for name in get_type_hints(tp)}


# -- the doc -----------------------------------------------------------------------------------

_HEADING = re.compile(r"^### (\w+)\s*$")
_ROW = re.compile(r"^\| `(\w+)` \|[^|]*\| (yes|no) \|")


def doc_tables(text: str) -> dict[str, dict[str, bool]]:
    """Each table of the doc under a `### Name` heading: field -> whether it is always there
    (the third column, "yes" or "no")."""
    tables: dict[str, dict[str, bool]] = {}
    current: dict[str, bool] | None = None
    for line in text.splitlines():
        heading = _HEADING.match(line)
        if heading:
            current = tables.setdefault(heading.group(1), {})
        elif line.startswith("## "):
            current = None
        elif current is not None and (row := _ROW.match(line)):
            current[row.group(1)] = row.group(2) == "yes"
    return {name: rows for name, rows in tables.items() if rows}


def doc_disagreements(documented: Mapping[str, Mapping[str, bool]], declared: Mapping[str, type]) -> list[str]:
    """Where the doc's tables and the types differ: a type or field on one side only, or a field
    always there on one side and optional on the other."""
    out = [f"type {name}: no table in the doc" for name in sorted(declared.keys() - documented.keys())]
    out += [f"table {name}: no such type" for name in sorted(documented.keys() - declared.keys())]
    for name in sorted(declared.keys() & documented.keys()):
        typed, doc = fields(declared[name]), documented[name]
        out += [f"{name}.{f}: not in the doc" for f in typed if f not in doc]
        out += [f"{name}.{f}: not in the type" for f in doc if f not in typed]
        out += [f"{name}.{f}: always there is {doc[f]} in the doc, {typed[f]} in the type"
                for f in typed.keys() & doc.keys() if typed[f] != doc[f]]
    return out


# -- a results value against the types ---------------------------------------------------------

def mismatches(value: Any, tp: Any, path: str = "results") -> Iterator[str]:
    """Where `value` is not of type `tp`: a key not declared, a required key absent, a value of
    another JSON kind. A part typed Mapping[str, Any] (a metric's own fields) is only an object."""
    if typing.is_typeddict(tp):
        if not isinstance(value, dict):
            yield f"{path}: expected an object ({tp.__name__}), found {type(value).__name__}"
            return
        hints = get_type_hints(tp)
        yield from (f"{path}.{key}: not declared in {tp.__name__}" for key in value if key not in hints)
        yield from (f"{path}.{key}: required by {tp.__name__}, absent" for key in sorted(tp.__required_keys__)
                    if key not in value)
        for key in value.keys() & hints.keys():
            yield from mismatches(value[key], hints[key], f"{path}.{key}")
        return
    origin = get_origin(tp)
    if origin in (Union, types.UnionType):
        if value is None and type(None) in get_args(tp):
            return
        members = [a for a in get_args(tp) if a is not type(None)]
        assert len(members) == 1, f"{path}: a union of two kinds is not checked here: {tp}"
        yield from mismatches(value, members[0], path)
    elif origin is list:
        if not isinstance(value, list):
            yield f"{path}: expected a list, found {type(value).__name__}"
            return
        for item in value:
            yield from mismatches(item, get_args(tp)[0], f"{path}[]")
    elif origin in (dict, Mapping) or tp is Mapping:
        if not isinstance(value, dict):
            yield f"{path}: expected an object, found {type(value).__name__}"
            return
        if origin is dict:
            for item in value.values():
                yield from mismatches(item, get_args(tp)[1], f"{path}.*")
    elif tp in (int, str, bool) and (type(value) is not tp):
        yield f"{path}: expected {tp.__name__}, found {type(value).__name__}"
    elif tp is float and (type(value) not in (int, float)):
        yield f"{path}: expected a number, found {type(value).__name__}"


def seen(value: Any, tp: Any, into: dict[str, set[str]]) -> None:
    """The keys of each TypedDict that `value` really holds somewhere (to show the sample covers them)."""
    if get_origin(tp) in (Union, types.UnionType):
        for member in _inner(tp):
            seen(value, member, into)
    elif typing.is_typeddict(tp) and isinstance(value, dict):
        hints = get_type_hints(tp)
        into.setdefault(tp.__name__, set()).update(value.keys() & hints.keys())
        for key in value.keys() & hints.keys():
            seen(value[key], hints[key], into)
    elif get_origin(tp) is list and isinstance(value, list):
        for item in value:
            seen(item, get_args(tp)[0], into)
    elif get_origin(tp) is dict and isinstance(value, dict):
        for item in value.values():
            seen(item, get_args(tp)[1], into)


# -- a results file of shipped replays ---------------------------------------------------------

def sample(folder: Path) -> tuple[list[str], dict[str, Owner]]:
    """A few shipped games of every game (built-in and model seats, judged Werewolf, a person's),
    three ranked suite rows (one short of a stage), a contributor's model games, a duplicate and a broken file."""
    paths: list[Path] = []
    for game in GAMES:
        paths += sorted((SHIPPED / "builtin").glob(f"builtin-{game}-*.jsonl"))[:4]
        paths += sorted((SHIPPED / "local-cpu").glob(f"local-cpu-{game}-*.jsonl"))[:2]
    paths += [p for p in sorted((SHIPPED / "builtin").glob("builtin-werewolf-*.jsonl"))
              if b'"type":"judge"' in p.read_bytes()][:3]
    paths += sorted((SHIPPED / "play-ann-7e8").glob("*.jsonl"))
    paths += sorted((SHIPPED / "ranked-1-builtin-scripted").glob("*.jsonl"))
    paths += sorted((SHIPPED / "ranked-1-gemma3-270m").glob("*.jsonl"))
    paths += sorted((SHIPPED / "ranked-1-builtin-random").glob("*.jsonl"))[:5]  # short of a stage: unranked
    theirs = sorted((SHIPPED / "local-cpu-4").glob("*.jsonl"))[:8]
    (folder / "again.jsonl").write_bytes(paths[0].read_bytes())
    (folder / "broken.jsonl").write_text('{"type": "header"}\n', encoding="utf-8")
    maintainers, alice = Owner(REFERENCE, "the maintainers", "2026-11-01"), Owner("@alice", "@alice", "2026-11-26")
    owner_of = {str(p): maintainers for p in [*paths, folder / "again.jsonl", folder / "broken.jsonl"]}
    owner_of.update({str(p): alice for p in theirs})
    return list(owner_of), owner_of


@pytest.fixture(scope="module")
def results(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    """The board of the sample, with the sections `gamenight build` adds made as it makes them
    (sources unknown to git, the history at two made-up merges)."""
    files, owner_of = sample(tmp_path_factory.mktemp("sample"))
    corpus = owners.separate(load(files, derive=False, owner_of={p: o.id for p, o in owner_of.items()}), owner_of)
    labels = {o.id: o.label for o in owner_of.values()}
    out = board.assemble_board(corpus, labels, seed=7)
    of_game = {g.game_id: sources.Source(sources.UNKNOWN) for g in corpus.games}
    out["corpus"]["sources"] = sources.summary(of_game, {g.game_id: g.tournament for g in corpus.games})
    by_agent = sources.by_agent(corpus.games, of_game)
    for agent in out["agents"]:
        agent["sources"] = by_agent.get(agent["key"], [])
    ids = sorted(g.game_id for g in corpus.games)
    merged = {game_id: history.Merge("a" * 40 if i % 2 else "b" * 40, f"2026-11-0{1 + i % 2}T00:00:00Z", "x")
              for i, game_id in enumerate(ids)}
    out["history"] = history.board_over_time(corpus, merged, labels, seed=7)
    out["releases"] = {"releases": [], "skipped": [{"tag": "v0", "why": "a lightweight tag"}], "note": None}
    return out


# -- the three held equal ----------------------------------------------------------------------

def test_every_type_has_its_table_in_the_doc_and_they_agree():
    declared = reachable(schema.Results)
    assert {"Results", "Corpus", "Agent", "RatingRow", "LeaderboardRow", "RankedRow", "Release"} <= declared.keys()
    assert doc_disagreements(doc_tables(DOC.read_text(encoding="utf-8")), declared) == []


def test_the_results_hold_what_the_types_declare(results):
    assert list(mismatches(results, schema.Results)) == []


def test_the_sample_shows_the_fields_of_every_section(results):
    """The sample holds each type's fields, but for what it cannot have (no release tag, no
    package-less neural reading, no failed replay of another kind): else the check above proves little."""
    held: dict[str, set[str]] = {}
    seen(results, schema.Results, held)
    unseen = {name: sorted(fields(tp).keys() - held.get(name, set())) for name, tp in reachable(schema.Results).items()}
    unseen = {name: keys for name, keys in unseen.items() if keys}
    assert unseen == {
        "Release": ["agents", "commit", "date", "excluded", "files", "games", "invalid", "leaders", "ranked",
                    "subject", "tag"],
        "ReleaseRow": sorted(fields(schema.ReleaseRow)), "Leader": sorted(fields(schema.Leader)),
        "WerewolfReading": ["absent", "install"],
        "AgentSource": ["url"],
    }


# -- the checkers catch what they should -------------------------------------------------------

# Made by call, not by class: under this module's postponed annotations Python 3.11 would take `note` as required.
_Inner = TypedDict("_Inner", {"n": int})
_Made = TypedDict("_Made", {"name": str, "rows": list[_Inner], "note": NotRequired[str | None]})


def test_the_checker_catches_an_undeclared_key_an_absent_key_and_a_wrong_kind():
    assert list(mismatches({"name": "a", "rows": [{"n": 1}], "note": None}, _Made)) == []
    assert list(mismatches({"name": "a", "rows": [{"n": 1, "extra": 2}], "more": 1}, _Made)) == [
        "results.more: not declared in _Made", "results.rows[].extra: not declared in _Inner"]
    assert list(mismatches({"rows": [{"n": "1"}]}, _Made)) == [
        "results.name: required by _Made, absent", "results.rows[].n: expected int, found str"]


def test_the_doc_checker_catches_a_missing_field_a_missing_table_and_a_wrong_presence():
    text = ("## Types\n\n### _Made\n\n| field | type | always there | meaning |\n| --- | --- | --- | --- |\n"
            "| `name` | text | yes | a name |\n| `note` | text | yes | a note |\n| `gone` | text | no | no more |\n")
    declared = {"_Made": _Made, "_Inner": _Inner}
    assert doc_tables(text) == {"_Made": {"name": True, "note": True, "gone": False}}
    assert doc_disagreements(doc_tables(text), declared) == [
        "type _Inner: no table in the doc", "_Made.rows: not in the doc", "_Made.gone: not in the type",
        "_Made.note: always there is True in the doc, False in the type"]

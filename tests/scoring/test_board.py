"""Containment: a contributor's games change no number of a row the contributor does not own.

The board (site_builder/scoring/board.py) scores the maintainers' games alone and adds each
contributor's own rows beside them. These tests take a base corpus (a sample of the shipped games,
the maintainers' real model among them) and add an attacker's games made up to move other rows:
made-up people winning every Prisoner's Dilemma, a model that plays every other agent, Werewolf
games with judge lines under the maintainers' exact judge description, and the maintainers' own
model and people's names played again. Every row the attacker does not own must be the same, byte
for byte, before and after; the attacker's rows are there, ranked against the maintainers' rows.
The games are forged (header and judge lines edited), so they are loaded without the seed's
check (`derive=False`), as a bypass of the submission check would put them on main.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from runner.replay.format import encode
from site_builder.scoring import board, owners
from site_builder.scoring.corpus import REFERENCE, load
from site_builder.scoring.owners import Owner

SHIPPED = Path(__file__).resolve().parents[2] / "replays"
MALLORY = Owner("@mallory", "@mallory", "2026-11-27")
ALICE = Owner("@alice", "@alice", "2026-11-26")
MAINTAINERS = Owner(REFERENCE, "the maintainers", "2026-11-01")


def sample() -> list[Path]:
    """A few shipped games of every game, the real model's too, and the shipped person's game."""
    paths: list[Path] = []
    for game in ("chameleon", "undercover", "cost_sharing", "prisoners_dilemma", "public_good", "werewolf"):
        paths += sorted((SHIPPED / "builtin").glob(f"builtin-{game}-*.jsonl"))[:6]
        paths += sorted((SHIPPED / "local-cpu").glob(f"local-cpu-{game}-*.jsonl"))[:3]
    judged = [p for p in sorted((SHIPPED / "builtin").glob("builtin-werewolf-*.jsonl")) if b'"type":"judge"' in
              p.read_bytes()]
    return sorted(set(paths) | set(judged[:4]) | set((SHIPPED / "play-ann-7e8").glob("*.jsonl")))


def records(path: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in path.read_bytes().splitlines()]


def forged(source: Path, folder: Path, tournament: str, number: int,
           change: Callable[[list[dict[str, Any]]], None]) -> Path:
    """A copy of a shipped game under another tournament and id, with `change` applied."""
    lines = records(source)
    header = lines[0]
    header["tournament"] = tournament
    header["game_id"] = f"{tournament}-{header['game']}-{number:012x}"
    change(lines)
    path = folder / tournament / f"{header['game_id']}.jsonl"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(encode(lines))
    return path


def as_person(name: str, seats: tuple[int, ...]) -> Callable[[list[dict[str, Any]]], None]:
    def change(lines: list[dict[str, Any]]) -> None:
        lines[0]["version"] = max(lines[0]["version"], 3)  # the format version of people's seats
        for seat in seats:
            lines[0]["players"][seat]["agent"] = {"name": name, "kind": "human"}
    return change


def low_judge_scores(lines: list[dict[str, Any]]) -> None:
    """The judge lines kept under their judge (the maintainers' own description), every score 1."""
    for line in lines:
        if line.get("type") == "judge" and isinstance(line.get("score"), (int, float)):
            line["score"] = 1


def own_model(lines: list[dict[str, Any]]) -> None:
    """The maintainers' model's seats played by a model of Mallory's own."""
    for player in lines[0]["players"]:
        if player["agent"]["kind"] == "llm":
            player["agent"] = {**player["agent"], "name": "mallory-llm", "model": "mallory-llm-1"}


def attack(folder: Path) -> list[Path]:
    """Mallory's games: made-up people who win, the maintainers' person and model played again,
    a model of her own, and Werewolf games with low scores under the maintainers' judge."""
    made: list[Path] = []
    pd = sorted((SHIPPED / "builtin").glob("builtin-prisoners_dilemma-*.jsonl"))
    made += [forged(s, folder, "mallory-people", i, as_person(f"Person{i % 4}", (0,))) for i, s in enumerate(pd[:12])]
    public_good = sorted((SHIPPED / "builtin").glob("builtin-public_good-*.jsonl"))[:3]
    made += [forged(s, folder, "mallory-ann", i, as_person("Ann", (1,))) for i, s in enumerate(public_good)]
    model_games = sorted((SHIPPED / "local-cpu").glob("local-cpu-*.jsonl"))
    made += [forged(s, folder, "mallory-gemma", i, lambda lines: None) for i, s in enumerate(model_games[3:9])]
    made += [forged(s, folder, "mallory-model", i, own_model) for i, s in enumerate(model_games[9:30])]
    judged = [p for p in sorted((SHIPPED / "builtin").glob("builtin-werewolf-*.jsonl"))
              if b'"type":"judge"' in p.read_bytes()]
    made += [forged(s, folder, "mallory-judged", i, low_judge_scores) for i, s in enumerate(judged[4:10])]
    return made


def scored(files: list[Path], owner_of: dict[str, Owner]) -> dict[str, Any]:
    names = [str(f) for f in files]
    corpus = load(names, derive=False, owner_of={p: o.id for p, o in owner_of.items()})
    corpus = owners.separate(corpus, owner_of)
    return board.assemble_board(corpus, {o.id: o.label for o in owner_of.values()}, seed=7)


def dumped(results: dict[str, Any]) -> str:
    return json.dumps(results, sort_keys=True, ensure_ascii=False, allow_nan=False)


@pytest.fixture(scope="module")
def boards(tmp_path_factory: pytest.TempPathFactory) -> tuple[dict[str, Any], dict[str, Any]]:
    folder = tmp_path_factory.mktemp("corpus")
    base = sample()
    owner_of = {str(p): MAINTAINERS for p in base}
    before = scored(base, owner_of)
    made = attack(folder)
    after = scored(base + made, {**owner_of, **{str(p): MALLORY for p in made}})
    assert not after["corpus"]["invalid_replays"]  # every forged game is on the board
    assert after["corpus"]["games"] == before["corpus"]["games"] + len(made)
    return before, after


def test_no_row_mallory_does_not_own_changes(boards):
    before, after = boards
    assert dumped(board.without(after, MALLORY.id)) == dumped(board.without(before, MALLORY.id))


def test_mallorys_rows_are_on_the_board_as_hers(boards):
    _, after = boards
    hers = [a for a in after["agents"] if a["owner"]["id"] == MALLORY.id]
    labels = sorted(a["label"] for a in hers)
    # Her people, her copy of Ann (a row of its own) and her copy of the maintainers' model.
    assert {"Person0", "Person1", "Person2", "Person3"} <= set(labels)
    assert "Ann (@mallory)" in labels
    assert any(a["kind"] == "llm" for a in hers)
    assert all(a["owner"]["label"] == "@mallory" for a in hers)
    rated = [r for r in after["ratings"]["by_game"]["prisoners_dilemma"]["agents"] if r.get("owner")]
    assert rated and all(r["owner"]["id"] == MALLORY.id for r in rated)


def test_her_head_to_head_pairs_come_from_her_games_and_are_hers(boards):
    before, after = boards
    hers = {a["key"] for a in after["agents"] if a["owner"]["id"] == MALLORY.id}
    pairs = after["head_to_head"]["prisoners_dilemma"]["pairs"]
    added = [p for p in pairs if p["a"] in hers or p["b"] in hers]
    assert added and all(p["owner"]["id"] == MALLORY.id for p in added)
    assert [p for p in pairs if p not in added] == before["head_to_head"]["prisoners_dilemma"]["pairs"]
    assert pairs == sorted(pairs, key=lambda p: (p["a"], p["b"]))


def test_judge_lines_of_a_contributor_never_join_the_maintainers_judge(boards):
    before, after = boards
    assert after["werewolf"]["ewavm"]["all"] == before["werewolf"]["ewavm"]["all"]
    assert set(after["werewolf"]["ewavm"]["all"]["judges"]) == set(before["werewolf"]["ewavm"]["all"]["judges"])


def test_the_maintainers_rows_keep_their_ranks(boards):
    before, after = boards
    for name, table in before["ratings"]["by_game"].items():
        ranks = {r["agent"]: r["rank_upper_bound"] for r in table["agents"]}
        again = {r["agent"]: r["rank_upper_bound"] for r in after["ratings"]["by_game"][name]["agents"]
                 if not r.get("owner")}
        assert again == ranks, name


def test_a_board_of_the_maintainers_alone_is_their_results(tmp_path):
    from site_builder.scoring.results import assemble
    files = [str(p) for p in sample()[:20]]
    corpus = load(files, derive=False)
    plain = assemble(corpus, seed=7)
    onboard = board.assemble_board(corpus, seed=7)
    for agent in onboard["agents"]:
        assert agent.pop("owner") == {"id": REFERENCE, "label": "the maintainers"}
    onboard.pop("owners")
    assert onboard.pop("ranked")["rows"] == []  # no suite game among them (the ranked board is the board's own)
    assert dumped(onboard) == dumped(plain)


def test_a_warm_board_is_the_cold_board(tmp_path):
    """Sections kept between scorings (one store for every owner's scoring) give the same board."""
    base = sample()[:30]
    made = attack(tmp_path / "made")[::3]
    owner_of = {**{str(p): MAINTAINERS for p in base}, **{str(p): MALLORY for p in made}}
    names = [str(f) for f in base + made]

    def scored_with(kept):
        corpus = load(names, derive=False, owner_of={p: o.id for p, o in owner_of.items()})
        corpus = owners.separate(corpus, owner_of)
        return board.assemble_board(corpus, {o.id: o.label for o in owner_of.values()}, seed=7, kept=kept)

    cold = dumped(scored_with(None))
    kept = tmp_path / "sections.sqlite"
    assert dumped(scored_with(kept)) == cold
    assert dumped(scored_with(kept)) == cold  # read back

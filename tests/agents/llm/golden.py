"""Golden replays of each released prompt set: `python -m tests.agents.llm.golden` writes the
current set's (tests/agents/llm/golden/<version>/<design>-<game>.jsonl.gz).

One game of every design in every game, a language model (a fake that answers legally, in
process) in seat 0 and built-in players in the others. A released set never changes, but the
Python that fills its templates is shared by every set: test_golden.py derives every prompt of
every golden replay again, so a change that would make an older set render otherwise fails
there (docs/prompts.md). Written once, when a set is released; never rewritten.
"""

from __future__ import annotations

import asyncio
import gzip
import random
import sys
from pathlib import Path

from runner import games
from runner.agents.builtin import make
from runner.agents.llm import DESIGNS, PROMPT_VERSION, make_llm_agent
from runner.play import Seating, rng_for
from runner.replay.format import encode
from tests.agents.llm.llm_fakes import legal_model
from tests.helpers import play_alone

GOLDEN = Path(__file__).resolve().parent / "golden"
SPEC = {"provider": "openai", "model": "fake-model", "temperature": 0.0, "max_tokens": 400, "seed": 7}


def golden_game(game_name: str, design: str, seed: int = 11) -> bytes:
    """One game of `design` in `game_name`, the model in seat 0, random built-in players elsewhere."""
    game = games.get(game_name)
    params = game.params({})
    setup = game.deal(params, rng_for(seed, "deal"))
    n = game.players(params)
    agents = [make_llm_agent({**SPEC, "design": design}, legal_model(random.Random(seed)), game=game_name, seat=0,
                             rng=rng_for(seed, "agent-0"), name=f"golden-{design}")]
    agents += [make("random", {}, rng_for(seed, f"agent-{s}"), "random", game_name) for s in range(1, n)]
    seating = Seating(agents, game.seat_names(params, setup), [game.role_of(params, setup, s) for s in range(n)])
    return encode(asyncio.run(play_alone(game, params, setup, seating, seed=seed, tournament="golden",
                                         created="2026-11-25")))


def main() -> int:
    folder = GOLDEN / PROMPT_VERSION
    if folder.exists():
        print(f"{folder} exists: a released set's golden replays are never rewritten", file=sys.stderr)
        return 1
    folder.mkdir(parents=True)
    for design in DESIGNS:
        for game_name in games.available():
            (folder / f"{design}-{game_name}.jsonl.gz").write_bytes(
                gzip.compress(golden_game(game_name, design), mtime=0))
    print(f"wrote {len(list(folder.iterdir()))} golden replays into {folder}")
    return 0


if __name__ == "__main__":
    sys.exit(main())

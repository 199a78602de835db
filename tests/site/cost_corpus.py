"""A small corpus of priced language-model rows, for the cost pages and charts.

Four model agents (three in the shipped price table, one served locally) and a built-in one play
Prisoner's Dilemma and Public Good through the real rules engine. Each model seat moves by a
built-in strategy (so the rows differ in strength) and records one model call per decision with
fixed token counts, so every row's cost per game follows from the table by hand.
"""

from __future__ import annotations

import asyncio
import dataclasses
import random
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from runner import games
from runner.agents.base import Agent, Decision, ProbeRequest, Request
from runner.agents.builtin import make
from runner.play import Seating, play
from runner.replay.format import encode, write_atomic

TOURNAMENT = "costs"
CREATED = "2026-11-28"
GAMES = ("prisoners_dilemma", "public_good")


@dataclass(frozen=True)
class Model:
    """A model row of the corpus: how it is described, how it plays each game, what each call records."""

    name: str
    provider: str
    model: str
    strategy: dict[str, str]
    call: dict[str, int]  # token counts of each call (input_tokens, output_tokens, cached..., cache_write...)
    base_url: str | None = None

    def description(self) -> dict[str, Any]:
        out = {"name": self.name, "kind": "llm", "provider": self.provider, "model": self.model,
               "design": "vanilla", "design_params": {}, "prompt_version": "4"}
        return {**out, "base_url": self.base_url} if self.base_url else out


MODELS = (
    Model("gpt4", "openai", "gpt-4", {"prisoners_dilemma": "prisoners_dilemma/always_defect",
                                      "public_good": "random"},
          {"input_tokens": 600, "output_tokens": 40}),
    Model("sonnet", "anthropic", "claude-sonnet-4-5", {"prisoners_dilemma": "prisoners_dilemma/tit_for_tat",
                                                       "public_good": "public_good/conditional"},
          {"input_tokens": 1200, "cached_input_tokens": 800, "cache_write_input_tokens": 200, "output_tokens": 60}),
    Model("haiku", "anthropic", "claude-haiku-4-5-20251001", {"prisoners_dilemma": "random",
                                                              "public_good": "public_good/free_rider"},
          {"input_tokens": 900, "output_tokens": 50}),
    Model("gemma-local", "openai_compatible", "gemma-3-270m",
          {"prisoners_dilemma": "prisoners_dilemma/always_cooperate", "public_good": "public_good/full_contributor"},
          {"input_tokens": 500, "output_tokens": 30}, base_url="http://127.0.0.1:8000/v1"),
)
BUILTIN = {"prisoners_dilemma": "prisoners_dilemma/tit_for_tat", "public_good": "public_good/conditional"}
#: USD per decision at the shipped table's prices (gpt-4 30/60; Sonnet 4.5 3/0.30/3.75/15; Haiku 4.5 1/5).
USD_PER_CALL = {"gpt4": (600 * 30 + 40 * 60) / 1e6,
                "sonnet": (200 * 3 + 800 * 0.30 + 200 * 3.75 + 60 * 15) / 1e6,
                "haiku": (900 * 1 + 50 * 5) / 1e6}


class PricedAgent(Agent):
    """A model seat: moves as a built-in strategy, recording one model call of fixed tokens per decision."""

    def __init__(self, model: Model, game: str, seed: int):
        self.description = model.description()
        self.model = model
        self.inner = make(model.strategy[game], {}, random.Random(seed), model.name, game)

    async def act(self, request: Request) -> Decision:
        decision = await self.inner.act(request)
        call = {"messages": [{"role": "user", "content": f"{request.phase}?"}], "reply": str(decision.action),
                "model_reported": self.model.model, "finish_reason": "stop", "latency_ms": 1500.0, **self.model.call}
        return Decision(decision.action, raw=str(decision.action), evidence={"calls": [call]})

    async def probe(self, request: ProbeRequest) -> Decision | None:
        return None


class Scripted(Agent):
    """The built-in opponent, described as the runner describes one."""

    def __init__(self, game: str, seed: int):
        self.inner = make(BUILTIN[game], {}, random.Random(seed), BUILTIN[game], game)
        self.description = {"name": BUILTIN[game], "kind": "builtin", "strategy": BUILTIN[game], "params": {}}

    async def act(self, request: Request) -> Decision:
        return await self.inner.act(request)

    async def probe(self, request: ProbeRequest) -> Decision | None:
        return None


def _records(name: str, lineup: list[Any], seed: int) -> list[dict[str, Any]]:
    game = games.get(name)
    params = game.params({})
    setup = game.deal(params, random.Random(seed))
    n = game.players(params)
    agents = [PricedAgent(who, name, seed + s) if isinstance(who, Model) else Scripted(name, seed + s)
              for s, who in enumerate(lineup)]
    seating = Seating(agents, game.seat_names(params, setup), [game.role_of(params, setup, s) for s in range(n)])
    coroutine = play(game, params, setup, seating, seed=seed, game_id=f"{TOURNAMENT}-{name}-{seed:012x}",
                     tournament=TOURNAMENT, matchup="lineup: " + ", ".join(a.description["name"] for a in agents),
                     created=CREATED, probes=False)
    with ThreadPoolExecutor(max_workers=1) as worker:  # Playwright's sync API keeps a loop in the test thread
        return worker.submit(asyncio.run, coroutine).result()


#: A name that would run if it reached a page or a chart as markup.
PAYLOAD = '<img src=x onerror="window.gnPwned=1"></script>'


def write_cost_corpus(folder: Path, rounds: int = 6, *, payload: bool = False) -> list[Path]:
    """Write the corpus into `folder`: every model meets every other model and the built-in agent in
    both games, `rounds` times each in turned seats. `payload`: the GPT-4 row is named PAYLOAD."""
    models = [dataclasses.replace(m, name=PAYLOAD) if payload and m.name == "gpt4" else m for m in MODELS]
    cast: list[Any] = [*models, None]  # None: the built-in agent
    paths, seed = [], 1
    for name in GAMES:
        for _ in range(rounds):
            for i in range(len(cast)):
                for j in range(i + 1, len(cast)):
                    for k in range(j + 1, len(cast)):
                        lineup = [cast[i], cast[j], cast[k]]
                        lineup = lineup[seed % 3:] + lineup[:seed % 3]
                        records = _records(name, lineup, seed)
                        path = Path(folder) / f"{records[0]['game_id']}.jsonl"
                        write_atomic(path, encode(records))
                        paths.append(path)
                        seed += 1
    return paths

"""Concurrent games: with 200 ms of latency per model call, `--parallel 32` plays 32 games at once:
their calls overlap at the server, so the games take a small fraction of the time the same calls
take one after another. (How much faster is a benchmark figure, not a unit-test threshold: the
test only checks what cannot fail on a busy machine unless the games really ran one by one.)

The fake API server runs in a process of its own, as a real provider would: in this process its
threads would compete with the games for the interpreter and measure the test machine instead.
"""

from __future__ import annotations

import asyncio
import json
import multiprocessing
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from runner.rerun.validate import check_file
from runner.run import run
from runner.tournament import from_dict
from tests.llm.fakes import FakeOpenAI
from tests.llm.test_tournament_llm import KEY, legal_reply

LATENCY_S = 0.2
ROUNDS = 5          # five model calls per game, one per round, for the one language-model seat
GAMES = 32


def _serve(conn: Any, latency_s: float) -> None:
    """The child process: a fake OpenAI server answering legally until told to stop."""
    with FakeOpenAI(legal_reply, latency_s=latency_s) as server:
        conn.send(server.base_url)
        conn.recv()
        conn.send({"calls": server.calls, "peak": server.max_in_flight})


@contextmanager
def server_process(latency_s: float) -> Iterator[tuple[str, dict[str, int]]]:
    """(base_url, stats): stats gets the server's call count and peak concurrency at the end."""
    context = multiprocessing.get_context("spawn")
    parent, child = context.Pipe()
    process = context.Process(target=_serve, args=(child, latency_s), daemon=True)
    process.start()
    stats: dict[str, int] = {}
    try:
        assert parent.poll(60), "the fake server did not start"
        yield parent.recv(), stats
    finally:
        parent.send("stop")
        if parent.poll(10):
            stats.update(parent.recv())
        process.join(10)
        if process.is_alive():
            process.kill()


def tournament(base_url: str, games: int, name: str):
    return from_dict({
        "name": name, "seed": 9, "created": "2026-11-21",
        "providers": {"openai": {"max_concurrency": 64}},
        "agents": {"m": {"provider": "openai", "model": "test-model", "base_url": base_url,
                         "api_key_env": "TEST_LLM_KEY"}},
        "matchups": [{"game": "public_good", "games": games, "rules": {"rounds": ROUNDS},
                      "lineup": ["m", "public_good/conditional", "public_good/free_rider"]}]})


def timed_run(base_url: str, out: Path, games: int, parallel: int, name: str) -> float:
    started = time.perf_counter()
    summary = asyncio.run(run(tournament(base_url, games, name), out, parallel=parallel,
                              environ={"TEST_LLM_KEY": KEY}))
    elapsed = time.perf_counter() - started
    assert summary.ok and summary.played["public_good"] == games and not summary.invalid
    return elapsed


def calls_in(folder: Path) -> int:
    """Model calls recorded in the replays of `folder`."""
    return sum(len(record.get("evidence", {}).get("calls", []))
               for path in folder.glob("*.jsonl") for record in map(json.loads, path.read_text().splitlines()))


def test_32_parallel_games_overlap_their_calls(tmp_path):
    import runner.agents.llm  # noqa: F401 - the SDKs take seconds to load: not part of any timing

    with server_process(LATENCY_S) as (base_url, stats):
        timed_run(base_url, tmp_path / "warm", 1, 1, "warm")  # connections and caches, not timed
        parallel = timed_run(base_url, tmp_path / "parallel", GAMES, 32, "p")
    one_by_one = GAMES * ROUNDS * LATENCY_S  # the latency alone, paid call after call
    print(f"\n{GAMES} games at --parallel 32: {parallel:.2f} s; their latency one call at a time: "
          f"{one_by_one:.0f} s ({one_by_one / parallel:.1f}x); {stats['peak']} calls in flight at most")
    assert calls_in(tmp_path / "parallel") == GAMES * ROUNDS  # every call paid its latency
    assert stats["peak"] >= 30  # the games really overlapped at the server
    assert parallel < one_by_one / 4  # a wide margin: one game at a time could never get here
    files = list((tmp_path / "parallel").glob("*.jsonl"))
    assert len(files) == GAMES and all(check_file(f).ok for f in files)

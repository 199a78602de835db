"""Running a tournament: play the planned games concurrently, write each replay atomically, resume."""

from __future__ import annotations

import asyncio
import datetime as dt
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

from runner import games
from runner.agents.builtin import make
from runner.play import Seating, play, rng_for
from runner.replay.format import encode, write_atomic
from runner.tournament import PlannedGame, Tournament


@dataclass
class Summary:
    """What a run did, for the closing report."""

    played: Counter = field(default_factory=Counter)       # game name -> games played now
    skipped: Counter = field(default_factory=Counter)      # game name -> already on disk
    invalid: Counter = field(default_factory=Counter)      # game name -> ended invalid
    appearances: Counter = field(default_factory=Counter)  # (game, agent) -> seats played
    wins: Counter = field(default_factory=Counter)         # (game, agent) -> seats that won
    failures: list[str] = field(default_factory=list)      # "game_id: error" for crashed games

    @property
    def ok(self) -> bool:
        return not self.failures


def replay_path(out: Path, planned: PlannedGame) -> Path:
    return out / f"{planned.game_id}.jsonl"


def remove_stray_temporaries(out: Path) -> int:
    """Delete temporary files left by a crash mid-write; they never count as replays."""
    removed = 0
    if out.is_dir():
        for tmp in out.glob(".*.jsonl.*.tmp"):
            tmp.unlink(missing_ok=True)
            removed += 1
    return removed


async def play_planned(planned: PlannedGame, max_attempts: int, probes: bool, created: str) -> list[dict]:
    """Deal, seat the agents and play one planned game; its replay records."""
    matchup = planned.matchup
    game = games.get(matchup.game)
    params = dict(matchup.rules)
    setup = game.deal(params, rng_for(planned.seed, "deal"))
    n = game.players(params)
    roles = [game.role_of(params, setup, seat) for seat in range(n)]
    agents = []
    for seat in range(n):
        spec = planned.agent_for(seat, roles[seat])
        agents.append(make(spec.spec["builtin"], spec.spec["params"], rng_for(planned.seed, f"agent-{seat}"),
                           spec.name, game.name))
    seating = Seating(agents, game.seat_names(params, setup), roles)
    return await play(game, params, setup, seating, seed=planned.seed, game_id=planned.game_id,
                      tournament=planned.tournament, matchup=matchup.label, created=created,
                      max_attempts=max_attempts, probes=probes)


async def run(tournament: Tournament, out: Path, parallel: int = 4,
              on_done: Callable[[PlannedGame, str], None] | None = None) -> Summary:
    """Play every planned game not already on disk under `out`, `parallel` at a time."""
    summary = Summary()
    out.mkdir(parents=True, exist_ok=True)
    remove_stray_temporaries(out)
    created = tournament.created or dt.datetime.now(dt.timezone.utc).date().isoformat()
    queue: asyncio.Queue[PlannedGame] = asyncio.Queue()
    for planned in tournament.plan():
        if replay_path(out, planned).exists():
            summary.skipped[planned.matchup.game] += 1
            if on_done:
                on_done(planned, "skipped")
        else:
            queue.put_nowait(planned)

    async def worker() -> None:
        while True:
            try:
                planned = queue.get_nowait()
            except asyncio.QueueEmpty:
                return
            try:
                records = await play_planned(planned, tournament.max_attempts, tournament.probes, created)
            except Exception as exc:  # a crashing agent must not lose the other games
                summary.failures.append(f"{planned.game_id}: {type(exc).__name__}: {exc}")
                if on_done:
                    on_done(planned, "failed")
                continue
            # fsync waits on the disk: do it off the event loop so other games go on meanwhile.
            await asyncio.to_thread(write_atomic, replay_path(out, planned), encode(records))
            _tally(summary, planned, records)
            if on_done:
                on_done(planned, "played")

    await asyncio.gather(*(worker() for _ in range(max(1, parallel))))
    return summary


def _tally(summary: Summary, planned: PlannedGame, records: list[dict]) -> None:
    game = planned.matchup.game
    summary.played[game] += 1
    outcome = records[-1]
    if outcome["status"] == "invalid":
        summary.invalid[game] += 1
    for player in records[0]["players"]:
        name = player["agent"]["name"]
        summary.appearances[(game, name)] += 1
        if player["seat"] in outcome["winners"]:
            summary.wins[(game, name)] += 1

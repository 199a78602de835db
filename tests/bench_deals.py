"""What reserving the shipped suites' deals costs: `python -m tests.bench_deals`.

- building the reserved seeds (runner/deals.py `reserved`), per game, in this fresh process
  (each game once per process: `gamenight run` of a file that names a seed, `gamenight validate`
  and the pull-request check of an ordinary plan);
- one look-up, against the floor of hashing one seed's text with SHA-256 (what deriving a seed costs);
- reading every ordinary plan shipped under replays/ (`read_plan`, which plans every game again and
  looks each seed up), with the reservation and with it switched off, in turn, best of seven, warm.
"""

from __future__ import annotations

import hashlib
import time
from pathlib import Path

from runner import deals
from runner.rerun import plans
from runner.rerun.plans import PLAN_FILE, read_plan

REPLAYS = Path(__file__).resolve().parents[1] / "replays"
GAMES = ("prisoners_dilemma", "public_good", "cost_sharing", "chameleon", "undercover", "werewolf")


def best(work, repeat: int = 5) -> float:
    return min(timed(work) for _ in range(repeat))


def timed(work) -> float:
    started = time.perf_counter()
    work()
    return time.perf_counter() - started


def main() -> None:
    total = 0.0
    for game in GAMES:
        seconds = timed(lambda: deals.reserved(game))
        total += seconds
        print(f"reserve {game:<18} {len(deals.reserved(game)):>6,} seeds  {seconds:6.3f} s")
    print(f"reserve all games                   {total:6.3f} s")
    n = 200_000
    lookup = best(lambda: [deals.reserved_problem("werewolf", seed) for seed in range(n)]) / n
    floor = best(lambda: [hashlib.sha256(f"2026\nkey\n{i}".encode()).digest() for i in range(n)]) / n
    print(f"one look-up {lookup * 1e9:.0f} ns; floor (one SHA-256 of a seed's text) {floor * 1e9:.0f} ns: "
          f"{lookup / floor:.2f} x floor")
    plan_files = [p for p in sorted(REPLAYS.glob(f"*/{PLAN_FILE}")) if "[suite]" not in p.read_text(encoding="utf-8")]
    raws = [(str(p), p.parent.name, p.read_bytes()) for p in plan_files]
    games = sum(len(read_plan(*raw).games) for raw in raws)
    original, switched_off = plans.reserved_problem, lambda game, seed: None
    with_check, without = float("inf"), float("inf")
    for _ in range(7):  # in turn, so that the machine's load falls on both alike
        with_check = min(with_check, timed(lambda: [read_plan(*raw) for raw in raws]))
        plans.reserved_problem = switched_off
        try:
            without = min(without, timed(lambda: [read_plan(*raw) for raw in raws]))
        finally:
            plans.reserved_problem = original
    print(f"read {len(raws)} ordinary shipped plans ({games:,} games): {with_check * 1000:.1f} ms with the reservation, "
          f"{without * 1000:.1f} ms without: {with_check / without:.3f} x, "
          f"{(with_check - without) / games * 1e6:.2f} us a game")


if __name__ == "__main__":
    main()

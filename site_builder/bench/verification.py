"""Does a verification's verdict hold as stated? `python -m site_builder.bench.verification` (issue #43).

A verification (`gamenight verify`, runner/verify.py) calls a row **inconsistent** when the score of
held-out deals its model played for the maintainers and the row's claimed score differ by more
than chance, by the two-sample test of runner/suite_score.py at `VERIFY_LEVEL` (0.01). This
simulates rows whose truth is known and reads them **through the verdict's own function**
(`runner.verify.assess`, which the board's status and the command's verdict line both are):

- **honest rows**: the row's deals and the held-out deals drawn from the same truth (independent
  deals: held-out deals are other deals), at 1, 2 and 4 stages of the row and 23 or 46 held-out
  deals; the share found inconsistent must stay at or below the level, 1 in 100;
- **made-up rows**: the row's deals drawn from a truth better than the model's own by a gap in the
  win rate of every slot (the model the row names plays worse than its replies), the held-out
  deals from the model's own; the share found inconsistent is the verification's power.

Truths are those of the calibration benchmark (site_builder/bench/calibration.py): constant win
rates near 0, at one half and near 1, results that follow the role, uniform slots, and the shipped
rows' own outcomes. docs/benchmarks.md records a run.
"""

from __future__ import annotations

import argparse
import json
import time
from collections.abc import Sequence
from typing import Any

import numpy as np

from runner import verify
from runner.suite_score import VERIFY_LEVEL
from site_builder.bench import calibration as sim

#: Held-out deals measured (whole stages' worth: the command plays them in the suite's proportions).
HELD_OUT = (23, 46)
#: The row's stages measured.
STAGES = (1, 2, 4)
#: Gaps in every slot's win rate between what a made-up row claims and what its model plays.
GAPS = (0.1, 0.2, 0.3)


def honest_profiles() -> list[sim.Profile]:
    return [sim.constant("3%", 0.03), sim.constant("50%", 0.5), sim.constant("97%", 0.97), sim.role_following(),
            sim.uniform(7), sim.shipped("random"), sim.shipped("scripted"), sim.shipped("gemma3-270m")]


def made_up_pairs() -> list[tuple[sim.Profile, sim.Profile]]:
    """(the model as it plays, the row it is claimed to have played), won or lost."""
    pairs = []
    for base in (sim.constant("30%", 0.3), sim.shipped("gemma3-270m", won_only=True)):
        for gap in GAPS:
            pairs.append((base, sim.raised(base, gap, f"{base.name} + {gap:.1f}")))
    return pairs


def _played(deals: dict[str, dict[int, float]], held_out: bool) -> list[verify.Played]:
    empty = {"replies": [], "moves": []}
    return [verify.Played(game, index, held_out, value, empty) for game, found in deals.items()
            for index, value in found.items()]


def inconsistent_share(claimed: sim.Profile, model: sim.Profile, stages: int, held_out: int, boards: int,
                       rng: np.random.Generator, scored: str = "value") -> float:
    """The share of `boards` verifications that find a row drawn from `claimed` (over `stages`) and
    held-out deals drawn from `model` (`held_out`, whole stages) inconsistent."""
    rows = sim.draw([claimed], stages, boards, rng)
    checks = sim.draw([model], held_out // sum(sim.PER_STAGE.values()), boards, rng)
    found = 0
    for board in range(boards):
        verdict = verify.assess(_played(sim.deals_of(rows, board, 0, scored), False),
                                _played(sim.deals_of(checks, board, 0, scored), True), sim.CYCLES)
        found += verdict is not None and verdict["state"] == "inconsistent"
    return found / boards


def measure(boards: int, seed: int = 43) -> list[dict[str, Any]]:
    rng = np.random.default_rng(seed)
    figures = []
    for profile in honest_profiles():
        for stages in STAGES:
            for held_out in HELD_OUT:
                share = inconsistent_share(profile, profile, stages, held_out, boards, rng)
                figures.append({"claim": "honest row found inconsistent", "truth": profile.name, "stages": stages,
                                "held_out": held_out, "share": share, "target": f"<= {VERIFY_LEVEL:g}",
                                "boards": boards, "meets": share <= VERIFY_LEVEL + 2 * np.sqrt(
                                    VERIFY_LEVEL * (1 - VERIFY_LEVEL) / boards)})
    for model, claimed in made_up_pairs():
        for stages in STAGES:
            for held_out in HELD_OUT:
                share = inconsistent_share(claimed, model, stages, held_out, boards, rng, scored="win")
                gap = claimed.truth("win") - model.truth("win")
                figures.append({"claim": "made-up row found inconsistent (power)", "truth": claimed.name,
                                "score_gap": round(gap, 3), "stages": stages, "held_out": held_out, "share": share,
                                "target": "power", "boards": boards, "meets": True})
    return figures


def table(figures: Sequence[dict[str, Any]]) -> str:
    lines = ["| claim | truth | row stages | held-out deals | share | target |", "| --- | --- | --- | --- | --- | --- |"]
    for f in figures:
        truth = f["truth"] + (f" (score gap {f['score_gap']:+.3f})" if "score_gap" in f else "")
        lines.append(f"| {f['claim']} | {truth} | {f['stages']} | {f['held_out']} | {f['share']:.3f} | "
                     f"{f['target']}{'' if f['meets'] else ' **missed**'} |")
    return "\n".join(lines)


def main(argv: Sequence[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    parser.add_argument("--boards", type=int, default=2000, help="verifications simulated per setting")
    parser.add_argument("--seed", type=int, default=43)
    parser.add_argument("--json", action="store_true", help="print the figures as JSON")
    args = parser.parse_args(argv)
    started = time.perf_counter()
    figures = measure(args.boards, args.seed)
    print(json.dumps(figures, indent=1) if args.json else table(figures))
    honest = [f["share"] for f in figures if f["claim"].startswith("honest")]
    print(f"\nhonest rows found inconsistent: {min(honest):.3f}-{max(honest):.3f} (level {VERIFY_LEVEL:g}); "
          f"{len(figures)} settings x {args.boards} verifications in {time.perf_counter() - started:.0f} s")


if __name__ == "__main__":
    main()

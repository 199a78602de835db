"""How surely `gamenight verify` finds the fake servers' made-up row inconsistent, end to end.

    python -m tests.cli.bench_verify_power [--runs 6] [--stages 2 4]

The row of tests/cli/test_verify_cli.py: a sharper fake player's replies (`legal_reply`) under the
name of big-model, which the fake server plays naively (`naive_reply`). Each run is a fresh
repository (`Lab`) with a secret of its own, so its held-out deals are other deals: the row of S
stages, then one verification of 92 held-out deals through `gamenight verify`, read with
`runner.verify.assess` on its first 23, 46 and 92 held-out deals (a verification of K deals plays
exactly the first K, `runner.verify.held_out_deals`). Prints z, p and the verdict of each, and per
setting the lowest z and how many were found inconsistent (at the level of 0.01: z above 2.58).
"""

from __future__ import annotations

import argparse
import tempfile
from pathlib import Path

import pytest

from runner import holdout, verify
from runner import suite as suites
from runner.commands.verify import read_folder
from tests.cli.test_verify_cli import BIG_MODEL, Lab, legal_reply, naive_reply
from tests.cli.test_verify_cli import verify as verify_row

HELD_OUT = (23, 46, 92)


def one_run(folder: Path, run: int, stages: int) -> dict[int, dict]:
    """The verdicts on the first 23, 46 and 92 held-out deals of a run's verification."""
    secret = f"{run + 1:02x}{stages:02x}" * 16
    lab = Lab(folder, secret)
    suite = suites.find("ranked-1")
    per_stage = {g.game: g.deals_per_stage for g in suite.games}
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(holdout, "shipped", lambda: holdout.load(folder / holdout.EPOCHS_PATH))
        row = lab.row("big-model", BIG_MODEL, legal_reply, stages=stages)
        done = verify_row(lab, row, BIG_MODEL, max(HELD_OUT), naive_reply, env={holdout.SECRET_ENV: secret})
        assert done.exit_code in (0, 1), done.output
        mine, _ = read_folder(row, row.name)
        held, _ = read_folder(folder / "replays" / f"verify-{row.name}", f"verify-{row.name}")
    found = {}
    for deals in HELD_OUT:
        first = [g for g in held if g.deal < deals // sum(per_stage.values()) * per_stage[g.game]]
        found[deals] = verify.assess(mine, first, verify.cycles_for(suite))
    return found


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=6)
    parser.add_argument("--stages", type=int, nargs="+", default=[2, 4])
    args = parser.parse_args()
    for stages in args.stages:
        seen: dict[int, list[dict]] = {d: [] for d in HELD_OUT}
        for run in range(args.runs):
            with tempfile.TemporaryDirectory(prefix="verify-power-") as folder:
                found = one_run(Path(folder), run, stages)
            for deals, verdict in found.items():
                seen[deals].append(verdict)
            print(f"{stages} stages, run {run + 1}: " + " | ".join(
                f"{d} held out: {v['held_out']['value'] * 100:.1f}% vs {v['claimed']['value'] * 100:.1f}%, "
                f"z {v['z']:+.2f}, p {v['p']:.4f}, {v['state']}" for d, v in found.items()), flush=True)
        for deals, verdicts in seen.items():
            zs = [v["z"] for v in verdicts]
            print(f"{stages} stages, {deals} held-out deals: z {min(zs):+.2f} to {max(zs):+.2f}, "
                  f"{sum(v['state'] == 'inconsistent' for v in verdicts)} of {len(verdicts)} inconsistent")


if __name__ == "__main__":
    main()

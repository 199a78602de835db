"""What the ranked suite's duplicate deals buy: `python -m site_builder.bench.suite` (issue #34).

The ranked suite deals every candidate the same hands (runner/suite.py), and the ranked board
compares two rows deal by deal (`ranked.paired`), so that the luck of a deal falls on both rows
and cancels. This measures how much narrower that makes the 95% interval of the difference
A - B in score than if A and B had played **independent** deals of the same suite, for two
built-in candidates (default `builtin:scripted` and `builtin:random`):

- duplicate: A and B play stages 1..k of one copy of the suite; the interval is `ranked.paired`'s
  fixed-sample one (the spread of the paired differences within each game);
- independent: B plays stages 1..k of a second copy that differs only in its name, hence in every
  deal's seed (the same games, rules, opponents, roles and seats); A's row is its duplicate one
  (so both designs share A's luck, and the comparison between them is sharper); the interval is
  that of a difference of two independent estimates, each row's standard error from its own
  deals (`unpaired`, from `suite_score.score`).

Each row's own score interval is reported too: duplicate deals cannot narrow it (a row's score
still rests on its own deals), they only cancel the luck two rows share. Every figure is a mean
over R replicates, each a fresh pair of copies (suite version r), with its min and max; the
smaller game counts are the first stages of the same rows, as a row grows on the board.

The copies are not shipped suites, so the scorer's check refuses their games as ranked deals;
they are loaded with `derive=False` (the rules are still run over every recorded move to find
the outcome; only the seed's tie to a shipped suite is not checked). docs/benchmarks.md records
a run.
"""

from __future__ import annotations

import argparse
import json
import re
import statistics
import subprocess
import sys
import tempfile
from collections.abc import Mapping, Sequence
from importlib import resources
from pathlib import Path
from typing import Any

import numpy as np

from runner import suite as suites
from runner import suite_score
from site_builder.scoring import ranked
from site_builder.scoring.corpus import load

REPO = Path(__file__).resolve().parents[2]
#: A row's deals: game -> deal index -> the deal's value (as `ranked.outcomes` gives them).
Deals = Mapping[str, Mapping[int, float]]


# -- the suite copies and their rows ------------------------------------------------------------

def suite_text(ref: str) -> tuple[suites.Suite, str]:
    """A shipped suite and its file's text (the copies change only its name and version)."""
    suite = suites.find(ref)
    file_name = suites.shipped_suites()[suite.name][suite.version]
    return suite, resources.files("runner").joinpath("suites", file_name).read_text(encoding="utf-8")


def suite_copy(text: str, name: str, version: int) -> str:
    """The suite file `text` under another name and version: every deal's seed changes with them,
    nothing else does."""
    text, names = re.subn(r'(?m)^name\s*=.*$', f'name = "{name}"', text, count=1)
    text, versions = re.subn(r'(?m)^version\s*=.*$', f"version = {version}", text, count=1)
    if names != 1 or versions != 1:
        raise ValueError("the suite file has no top-level `name = ...` and `version = ...` lines to replace")
    return text


def write_copy(folder: Path, text: str, name: str, version: int) -> Path:
    """Write a copy of the suite and check that it reads back as that name and version."""
    path = folder / f"{name}-{version}.toml"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(suite_copy(text, name, version), encoding="utf-8")
    copy = suites.load(path)
    assert (copy.name, copy.version) == (name, version), path
    return path


def row_name(suite_path: Path, model: str) -> str:
    """The tournament (and row) the runner names `model`'s games of this suite file."""
    suite = suites.load(suite_path)
    return suites.tournament_name(suite, suites.candidate(suite, model).label)


def play_row(suite_path: Path, model: str, stages: int, out: Path, parallel: int) -> None:
    """Stages 1..`stages` of a suite file with `model` in the candidate's seat, by this checkout's
    runner (a folder already holding some of them is resumed)."""
    subprocess.run([sys.executable, "-m", "runner", "run", "--suite", str(suite_path), "--model", model,
                    "--stages", str(stages), "--out", str(out), "--parallel", str(parallel)],
                   check=True, stdout=subprocess.DEVNULL, cwd=REPO)


def first_stages(deals: Deals, per_stage: Mapping[str, int], stages: int) -> dict[str, dict[int, float]]:
    """A row's deals of stages 1..`stages` only (stage s of a game holds its deals
    (s-1)*n .. s*n-1, n its deals per stage)."""
    return {game: {i: v for i, v in by_deal.items() if i < stages * per_stage[game]}
            for game, by_deal in deals.items()}


# -- the widths ---------------------------------------------------------------------------------

def width(ci: Sequence[float]) -> float:
    return float(ci[1] - ci[0])


def unpaired(a: Deals, b: Deals) -> dict[str, Any]:
    """Row a minus row b as if they had played independent deals: the difference of their scores,
    with the fixed-sample 95% interval of a difference of independent estimates (each row's
    standard error from its own deals, `suite_score.score`; nothing is paired, so no luck cancels)."""
    games = sorted(set(a) & set(b))
    own = [suite_score.score({g: row[g] for g in games}) for row in (a, b)]
    difference = own[0]["value"] - own[1]["value"]
    half = suite_score.Z * float(np.hypot(own[0]["se"], own[1]["se"]))
    return {"difference": difference, "ci": [difference - half, difference + half]}


def correlation(a: Mapping[int, float], b: Mapping[int, float]) -> float | None:
    """Pearson correlation of two rows' results over the deals both played: what pairing cancels
    (var(a - b) = var a + var b - 2 cov); None when either row's results do not vary."""
    shared = sorted(set(a) & set(b))
    x, y = np.array([a[d] for d in shared]), np.array([b[d] for d in shared])
    if len(shared) < 2 or x.std() == 0 or y.std() == 0:
        return None
    return float(np.corrcoef(x, y)[0, 1])


def ratio(numerator: float, denominator: float) -> float | None:
    return numerator / denominator if denominator > 0 else None


def replicate_figures(a: Deals, b_same: Deals, b_other: Deals) -> dict[str, Any]:
    """One replicate at one game count: A and B on the same deals (`b_same`) and B on its own
    (`b_other`): the widths of A - B both ways, each row's own score width, and per game the rows'
    win rates, the same widths and the correlation of A's and B's results on the shared deals."""
    dup = ranked.paired(a, b_same)
    assert dup is not None, "the duplicate rows share no deal"
    ind = unpaired(a, b_other)
    by_game = {}
    for game in sorted(a):
        one = ranked.paired({game: a[game]}, {game: b_same[game]})
        assert one is not None
        other = unpaired({game: a[game]}, {game: b_other[game]})
        by_game[game] = {"a": float(np.mean(list(a[game].values()))), "b": float(np.mean(list(b_same[game].values()))),
                         "duplicate": width(one["ci"]), "independent": width(other["ci"]),
                         "correlation": correlation(a[game], b_same[game])}
    return {
        "games": sum(len(d) for d in a.values()),
        "difference_duplicate": dup["difference"], "difference_independent": ind["difference"],
        "duplicate": width(dup["ci"]), "independent": width(ind["ci"]),
        "ratio": ratio(width(dup["ci"]), width(ind["ci"])),
        "a_own": width(suite_score.score(a)["ci"]),
        "b_own": width(suite_score.score(b_same)["ci"]),
        "by_game": by_game,
    }


def spread(values: Sequence[float | None]) -> dict[str, float | None]:
    """Mean, min and max over replicates (of those defined; all None when none is)."""
    known = [v for v in values if v is not None]
    if not known:
        return {"mean": None, "min": None, "max": None}
    return {"mean": statistics.fmean(known), "min": min(known), "max": max(known)}


FIGURES = ("difference_duplicate", "duplicate", "independent", "ratio", "a_own", "b_own")


def summary(replicates: Sequence[Mapping[str, Any]]) -> dict[str, Any]:
    """The replicates of one game count summed up: each figure's spread, and per game the mean
    widths, their ratio and the mean correlation."""
    out: dict[str, Any] = {"games": replicates[0]["games"],
                           **{f: spread([r[f] for r in replicates]) for f in FIGURES}}
    out["by_game"] = {}
    for game in replicates[0]["by_game"]:
        rows = [r["by_game"][game] for r in replicates]
        won_a, won_b, dup, ind = (statistics.fmean(x[k] for x in rows) for k in ("a", "b", "duplicate", "independent"))
        out["by_game"][game] = {"a": won_a, "b": won_b, "duplicate": dup, "independent": ind, "ratio": ratio(dup, ind),
                                "correlation": spread([x["correlation"] for x in rows])["mean"]}
    return out


# -- the report ---------------------------------------------------------------------------------

def _f(value: float | None, digits: int = 3) -> str:
    return "n/a" if value is None else f"{value:.{digits}f}"


def _range(s: Mapping[str, float | None]) -> str:
    return f"{_f(s['mean'])} ({_f(s['min'])}–{_f(s['max'])})"


def table(result: Mapping[str, Any]) -> str:
    """The Markdown tables: per game count, the widths (mean, min–max over replicates), and per
    game at the largest count."""
    lines = [f"A = `{result['a']}`, B = `{result['b']}`; {result['replicates']} replicates; "
             "95% interval widths of the score (0..1), mean (min–max)", "",
             "| stages | games a row | A − B | width A − B, duplicate | width A − B, independent | "
             "duplicate / independent | width of A's own score | width of B's own score |",
             "| ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |"]
    for stages, s in result["by_stages"].items():
        lines.append(f"| {stages} | {s['games']} | {_f(s['difference_duplicate']['mean'])} | "
                     f"{_range(s['duplicate'])} | {_range(s['independent'])} | {_range(s['ratio'])} | "
                     f"{_range(s['a_own'])} | {_range(s['b_own'])} |")
    most = max(result["by_stages"], key=int)
    lines += ["", f"Per game, {most} stages (mean widths over replicates):", "",
              "| game | A wins | B wins | width A − B, duplicate | independent | duplicate / independent | "
              "correlation of A's and B's results on the same deals |",
              "| --- | ---: | ---: | ---: | ---: | ---: | ---: |"]
    for game, g in result["by_stages"][most]["by_game"].items():
        lines.append(f"| {game} | {_f(g['a'], 2)} | {_f(g['b'], 2)} | {_f(g['duplicate'])} | {_f(g['independent'])} | "
                     f"{_f(g['ratio'])} | {_f(g['correlation'], 2)} |")
    return "\n".join(lines)


# -- the run ------------------------------------------------------------------------------------

def measure(a: str, b: str, stages: Sequence[int], replicates: int, work: Path, *, base: str = "ranked",
            prefix: str = "bench", parallel: int = 2,
            progress: bool = True) -> dict[str, Any]:
    """Play and measure: per replicate r, A and B on copy `<prefix>` version r, B on copy
    `<prefix>-b` version r, each max(stages) stages; then the figures at every game count."""
    if a == b:
        raise ValueError("A and B must differ: the runner names a row by its candidate")
    suite, text = suite_text(base)
    per_stage = {g.game: g.deals_per_stage for g in suite.games}
    most = max(stages)
    rows: dict[int, tuple[str, ...]] = {}
    for r in range(1, replicates + 1):
        same = write_copy(work / "suites", text, prefix, r)
        other = write_copy(work / "suites", text, f"{prefix}-b", r)
        plays = ((same, a), (same, b), (other, b))
        rows[r] = tuple(row_name(path, model) for path, model in plays)
        for (path, model), name in zip(plays, rows[r]):
            if progress:
                print(f"replicate {r}/{replicates}: {name}, {most} stages", file=sys.stderr, flush=True)
            play_row(path, model, most, work / "replays" / name, parallel)
    corpus = load([work / "replays" / n for names in rows.values() for n in names], derive=False)
    if corpus.invalid_replays:
        raise RuntimeError(f"{len(corpus.invalid_replays)} replays do not check: {corpus.invalid_replays[0]}")
    found = {name: row["deals"] for name, row in ranked.outcomes(corpus.games).items()}
    by_stages = {}
    per_replicate = []
    for k in sorted(stages):
        figures = []
        for r, names in rows.items():
            a_row, b_same, b_other = (first_stages(found[n], per_stage, k) for n in names)
            figures.append(replicate_figures(a_row, b_same, b_other))
            per_replicate.append({"replicate": r, "stages": k, "rows": list(names), **figures[-1]})
        by_stages[str(k)] = summary(figures)
    return {"a": a, "b": b, "suite": f"{suite.name}-{suite.version}", "replicates": replicates,
            "stages": sorted(stages), "by_stages": by_stages,
            "per_replicate": per_replicate}


def main(argv: Sequence[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--a", default="builtin:scripted", help="candidate A (a built-in --model of the suite)")
    parser.add_argument("--b", default="builtin:random", help="candidate B")
    parser.add_argument("--stages", type=int, nargs="+", default=[2, 8], help="game counts, in stages of the suite")
    parser.add_argument("--replicates", type=int, default=5, help="fresh deal sets (suite copies) to average over")
    parser.add_argument("--suite", default="ranked", help="the shipped suite to copy")
    parser.add_argument("--work", type=Path, help="folder for the copies and replays (kept; a run there resumes)")
    parser.add_argument("--out", type=Path, help="write the figures as JSON here")
    parser.add_argument("--parallel", type=int, default=2, help="games played at once")
    args = parser.parse_args(argv)
    if min(args.stages) < 1 or args.replicates < 1:
        parser.error("--stages and --replicates must be at least 1")
    with tempfile.TemporaryDirectory(prefix="bench-suite-") as scratch:
        result = measure(args.a, args.b, args.stages, args.replicates, args.work or Path(scratch),
                         base=args.suite, parallel=args.parallel)
    if args.out:
        args.out.parent.mkdir(parents=True, exist_ok=True)
        args.out.write_text(json.dumps(result, indent=1) + "\n", encoding="utf-8")
    print(table(result))


if __name__ == "__main__":
    main()

"""How soon a command says something: the time to its first line, the lines it prints, its whole time.

    python -m tests.cli.bench_first_line [--repeat 3] [--code DIR] [--show] -- validate replays

Runs `python -P -m runner ARGS` (what `gamenight ARGS` runs) in a fresh process `--repeat` times, the
runner of `--code` (default: this checkout) on PYTHONPATH (`-P`: not the current folder's), so that
two checkouts can be compared on the same machine in one sitting. The first line is the first of stdout or stderr, whichever comes
first (both are read as they come, through pipes: not a terminal, as in a CI log). Prints each run
and the medians: with the longest silence between two lines (and the line it followed), and each
estimate of a task's time left (`TASK: N/M ..., about T left`) beside the time its `TASK: ..., done
in` line came after it. `--show`: every line of the last run, with the second it came at.
"""

from __future__ import annotations

import argparse
import os
import re
import selectors
import statistics
import subprocess
import sys
import time
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


@dataclass
class Run:
    """One run: each line with the second it came at, the whole time and the exit status."""

    lines: list[tuple[float, str]]
    total: float
    status: int

    @property
    def first(self) -> float | None:
        return self.lines[0][0] if self.lines else None

    def silence(self) -> tuple[float, str]:
        """The longest wait between two lines (from the start, before the first), and the line before it."""
        said = [(0.0, "(the start)"), *self.lines]
        return max(((b[0] - a[0], a[1]) for a, b in zip(said, said[1:])), default=(0.0, ""))

    def estimates(self) -> list[tuple[str, float, float | None]]:
        """(task, the time left it said, the time its end line came after it) of each estimate."""
        found = []
        for at, line in self.lines:
            match = ESTIMATE.match(line)
            if match:
                task = match["task"]
                end = next((t for t, later in self.lines if t >= at and later.startswith(task + ": ")
                            and ", done in " in later), None)
                found.append((task, seconds(match["left"]), None if end is None else end - at))
        return found


ESTIMATE = re.compile(r"^(?P<task>[^:]+): [0-9,]+/[0-9,]+.*, about (?P<left>.+?) left, ")


def seconds(said: str) -> float:
    """A duration as runner/progress.py `duration` writes it, in seconds."""
    units = {"s": 1, "min": 60, "h": 3600}
    parts = said.split()
    return sum(float(number) * units[unit] for number, unit in zip(parts[::2], parts[1::2]))


def timed(args: list[str], code: Path) -> Run:
    """One run of `python -P -m runner ARGS` with `code` on PYTHONPATH, its lines timed as they come."""
    env = {**os.environ, "PYTHONPATH": str(code)}
    started = time.monotonic()
    child = subprocess.Popen([sys.executable, "-P", "-m", "runner", *args], stdout=subprocess.PIPE,
                             stderr=subprocess.PIPE, env=env)
    lines: list[tuple[float, str]] = []
    partial = {child.stdout: b"", child.stderr: b""}
    open_streams = 2
    with selectors.DefaultSelector() as waiting:
        for stream in (child.stdout, child.stderr):
            waiting.register(stream, selectors.EVENT_READ)
        while open_streams:
            for key, _ in waiting.select():
                data = key.fileobj.read1(65536)  # type: ignore[union-attr]
                now = time.monotonic() - started
                if not data:
                    waiting.unregister(key.fileobj)
                    open_streams -= 1
                    if partial[key.fileobj]:
                        lines.append((now, partial[key.fileobj].decode(errors="replace")))
                    continue
                *whole, partial[key.fileobj] = (partial[key.fileobj] + data).split(b"\n")
                lines.extend((now, line.decode(errors="replace")) for line in whole)
    status = child.wait()
    return Run(lines, time.monotonic() - started, status)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--code", type=Path, default=ROOT, help="the checkout whose runner is run")
    parser.add_argument("--show", action="store_true", help="print every line of the last run with its time")
    parser.add_argument("args", nargs="+", help="the command's arguments (after --)")
    options = parser.parse_args()
    runs = [timed(options.args, options.code) for _ in range(options.repeat)]
    for run in runs:
        shown = f"{run.first:.2f} s" if run.first is not None else "none"
        gap, after = run.silence()
        print(f"first line {shown:>9}  lines {len(run.lines):>5}  longest silence {gap:6.2f} s  in all "
              f"{run.total:7.2f} s  exit {run.status}  (silence after: {after[:70]})")
        for task, said, actual in run.estimates():
            came = f"{actual:6.1f} s" if actual is not None else "never"
            print(f"    {task}: said {said:6.1f} s left, its end came after {came}")
    if options.show:
        for at, line in runs[-1].lines:
            print(f"{at:8.2f}  {line}")
    firsts = [r.first for r in runs if r.first is not None]
    lines, silence = statistics.median(len(r.lines) for r in runs), statistics.median(r.silence()[0] for r in runs)
    print(f"median: first line {statistics.median(firsts):.2f} s, lines {lines:.0f}, longest silence {silence:.2f} s, "
          f"in all {statistics.median(r.total for r in runs):.2f} s  ({' '.join(options.args)}; code {options.code})")


if __name__ == "__main__":
    main()

"""How soon a command says something: the time to its first line, the lines it prints, its whole time.

    python -m tests.cli.bench_first_line [--repeat 3] [--code DIR] -- validate replays

Runs `python -P -m runner ARGS` (what `gamenight ARGS` runs) in a fresh process `--repeat` times, the
runner of `--code` (default: this checkout) on PYTHONPATH (`-P`: not the current folder's), so that
two checkouts can be compared on the same machine in one sitting. The first line is the first of stdout or stderr, whichever comes
first (both are read as they come, through pipes: not a terminal, as in a CI log). Prints each run
and the medians.
"""

from __future__ import annotations

import argparse
import os
import selectors
import statistics
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def timed(args: list[str], code: Path) -> tuple[float | None, int, float, int]:
    """(seconds to the first line or None, lines printed, seconds in all, exit status) of one run."""
    env = {**os.environ, "PYTHONPATH": str(code)}
    started = time.monotonic()
    child = subprocess.Popen([sys.executable, "-P", "-m", "runner", *args], stdout=subprocess.PIPE,
                             stderr=subprocess.PIPE, env=env)
    first, lines, open_streams = None, 0, 2
    with selectors.DefaultSelector() as waiting:
        for stream in (child.stdout, child.stderr):
            waiting.register(stream, selectors.EVENT_READ)
        while open_streams:
            for key, _ in waiting.select():
                data = key.fileobj.read1(65536)  # type: ignore[union-attr]
                if not data:
                    waiting.unregister(key.fileobj)
                    open_streams -= 1
                    continue
                if first is None:
                    first = time.monotonic() - started
                lines += data.count(b"\n")
    status = child.wait()
    return first, lines, time.monotonic() - started, status


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--code", type=Path, default=ROOT, help="the checkout whose runner is run")
    parser.add_argument("args", nargs="+", help="the command's arguments (after --)")
    options = parser.parse_args()
    runs = [timed(options.args, options.code) for _ in range(options.repeat)]
    for first, lines, total, status in runs:
        shown = f"{first:.2f} s" if first is not None else "none"
        print(f"first line {shown:>9}  lines {lines:>5}  in all {total:7.2f} s  exit {status}")
    firsts = [r[0] for r in runs if r[0] is not None]
    print(f"median: first line {statistics.median(firsts):.2f} s, lines {statistics.median(r[1] for r in runs):.0f}, "
          f"in all {statistics.median(r[2] for r in runs):.2f} s  ({' '.join(options.args)}; code {options.code})")


if __name__ == "__main__":
    main()

"""Progress of a long step on stderr: a `rich` bar on a terminal; elsewhere (a CI log, a pipe) a
plain line when the step starts, every few seconds and when it ends, each with the count, the
total and an estimate of the time left."""

from __future__ import annotations

import sys
import time
from typing import Any, TextIO

#: Seconds between two plain lines.
EVERY = 5.0


def duration(seconds: float) -> str:
    """"42 s", "3 min 5 s", "1 h 2 min"."""
    seconds = max(0, round(seconds))
    if seconds < 60:
        return f"{seconds} s"
    if seconds < 3600:
        return f"{seconds // 60} min {seconds % 60} s"
    return f"{seconds // 3600} h {seconds % 3600 // 60} min"


class Ticker:
    """`with Ticker("re-simulating", total, "replays") as tick: ... tick.update(done)`.

    `terminal` (default: whether `stream` is one) chooses the bar; `clock` is for tests.
    """

    def __init__(self, label: str, total: int, unit: str = "", *, stream: TextIO | None = None,
                 terminal: bool | None = None, every: float = EVERY, clock=time.monotonic):
        self.label, self.total, self.unit = label, total, unit
        self.stream = stream if stream is not None else sys.stderr
        self.terminal = self.stream.isatty() if terminal is None else terminal
        self.every, self.clock = every, clock
        self.done = 0
        self._bar: Any = None
        self._task: Any = None
        self._started = self._printed = 0.0

    def __enter__(self) -> Ticker:
        self._started = self._printed = self.clock()
        if self.terminal:
            from rich.console import Console
            from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeRemainingColumn

            self._bar = Progress(TextColumn("{task.description}"), BarColumn(), MofNCompleteColumn(),
                                 TextColumn(self.unit), TimeRemainingColumn(),
                                 console=Console(file=self.stream), transient=False)
            self._bar.start()
            self._task = self._bar.add_task(self.label, total=self.total)
        else:
            self._line(f"{self.label}: 0 of {self.total:,}{self._unit()}")
        return self

    def update(self, done: int) -> None:
        """`done` of the total are done."""
        self.done = done
        if self._bar is not None:
            self._bar.update(self._task, completed=done)
            return
        now = self.clock()
        if now - self._printed >= self.every and done < self.total:
            self._printed = now
            self._line(f"{self.label}: {done:,} of {self.total:,}{self._unit()} "
                       f"({100 * done / max(self.total, 1):.0f}%){self._left(now)}")

    def __exit__(self, kind, error, trace) -> None:  # noqa: ANN001 - the context manager protocol
        if self._bar is not None:
            self._bar.stop()
        elif kind is None:
            self._line(f"{self.label}: {self.done:,} of {self.total:,}{self._unit()} "
                       f"in {duration(self.clock() - self._started)}")

    def _unit(self) -> str:
        return f" {self.unit}" if self.unit else ""

    def _left(self, now: float) -> str:
        if not self.done:
            return ""
        rate = (now - self._started) / self.done
        return f", about {duration(rate * (self.total - self.done))} left"

    def _line(self, text: str) -> None:
        print(text, file=self.stream, flush=True)


class Reporter:
    """A `progress(done, total)` callback: a Ticker that opens at the first report (when the total
    is known; a step with nothing to do shows nothing) and closes with `close`."""

    def __init__(self, label: str, unit: str = "", **options: Any):
        self.label, self.unit, self.options = label, unit, options
        self.ticker: Ticker | None = None

    def __call__(self, done: int, total: int) -> None:
        if self.ticker is None:
            self.ticker = Ticker(self.label, total, self.unit, **self.options).__enter__()
        self.ticker.update(done)

    def close(self) -> None:
        if self.ticker is not None:
            self.ticker.__exit__(None, None, None)

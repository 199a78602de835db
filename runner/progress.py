"""Progress of a long command: a `rich` bar on a terminal, plain periodic lines otherwise (CI logs).

Everything goes to stderr, so what a command prints on stdout stays as it was. A task prints its
first line the moment it starts, then (plain) a line at most every `every_s` seconds with the count
done, its share of the total and an estimate of the time left, and a last line when it ends::

    with Progress() as progress:
        with progress.task("scoring", total=len(files), unit="replays") as scoring:
            for path in files:
                ...
                scoring.advance()
        for path in progress.each(files, "checking replays", unit="replays"):  # the same, for a loop
            ...

`advance(skipped=True)` counts an item that took no work (a game already played, a replay the cache
answered), so the estimate is made from the items that did. The time left is given only once it can
be extrapolated: items that took work in each half of the time so far, at paces within
STEADY_RATIO of each other (a corpus whose cheap games come first, or one slow item, is not a pace
to extrapolate), and then at the second half's pace. No line names an item: file names come from
strangers, and the counts are what a reader of a log needs. rich is imported on a terminal only.
"""

from __future__ import annotations

import bisect
import sys
import threading
import time
from collections.abc import Callable, Iterator, Sequence
from types import TracebackType
from typing import Any, Self, TextIO, TypeVar

T = TypeVar("T")

#: Seconds between two plain lines of a task (a CI log needs a sign of life, not a line per item).
PLAIN_EVERY_S = 10.0
#: An uncounted task that ends sooner than this says nothing more than its first line.
QUIET_END_S = 1.0
#: The paces of the two halves of a task's time so far may differ this much, and no more, for the
#: time left to be extrapolated from them.
STEADY_RATIO = 2.0
#: The record of a task's pace keeps one point per this many seconds (a long task, a short record).
PACE_STEP_S = 0.5


class Progress:
    """Where a command's tasks report: a rich display on a terminal, plain lines elsewhere.

    `terminal` (default: whether `stream` is one) chooses the kind; `quiet` says nothing at all.
    Use it as a context manager around the tasks, one after the other or side by side.
    """

    def __init__(self, stream: TextIO | None = None, *, terminal: bool | None = None, quiet: bool = False,
                 every_s: float = PLAIN_EVERY_S, clock: Callable[[], float] = time.monotonic):
        self.stream = stream if stream is not None else sys.stderr
        self.terminal = _is_terminal(self.stream) if terminal is None else terminal
        self.quiet = quiet
        self.every_s = every_s
        self.clock = clock
        self._bar: Any = None  # the rich display, while open on a terminal
        self._lock = threading.Lock()  # one line at a time: the ticker thread writes too

    def __enter__(self) -> Self:
        if self.terminal and not self.quiet:
            self._bar = _rich_display(self.stream)
            self._bar.start()
        return self

    def __exit__(self, *exc: object) -> None:
        if self._bar is not None:
            self._bar.stop()
            self._bar = None

    def task(self, description: str, total: int | None = None, unit: str = "") -> Task:
        """A task to run in a `with` block: counted if `total` is given, else a phase that is only named."""
        return Task(self, description, total, unit)

    def each(self, items: Sequence[T], description: str, unit: str = "") -> Iterator[T]:
        """Each item in turn, counted as done when the loop moves on: a task the length of a loop."""
        with self.task(description, total=len(items), unit=unit) as task:
            for item in items:
                yield item
                task.advance()

    def say(self, text: str) -> None:
        """One line of news (above the bars on a terminal)."""
        if self.quiet:
            return
        if self._bar is not None:
            self._bar.console.print(text, markup=False, highlight=False)
            return
        with self._lock:
            self.stream.write(text + "\n")
            self.stream.flush()


class Task:
    """One task of a Progress: `advance` it as items are done; its lines are written for it."""

    def __init__(self, progress: Progress, description: str, total: int | None, unit: str):
        self.progress = progress
        self.description = description
        self.total = total
        self.unit = unit
        self.done = 0
        self.skipped = 0
        self.started = 0.0
        self._said = 0.0  # when the last plain line was written
        self._bar_task: Any = None
        # (when, how many items had taken work by then): about a point per PACE_STEP_S; tuples, so
        # that rich's drawing thread reads whole points
        self._pace: list[tuple[float, int]] = []
        self._stop = threading.Event()
        self._ticker: threading.Thread | None = None

    def __enter__(self) -> Self:
        progress = self.progress
        self.started = self._said = progress.clock()
        if progress.quiet:
            return self
        if progress._bar is not None:
            self._bar_task = progress._bar.add_task(self.description, total=self.total, left=self.left_s)
            return self
        progress.say(self.line())
        # A line every every_s seconds even while one item takes long: the log shows the command lives.
        self._ticker = threading.Thread(target=self._tick, name="progress", daemon=True)
        self._ticker.start()
        return self

    def __exit__(self, kind: type[BaseException] | None, error: BaseException | None,
                 trace: TracebackType | None) -> None:
        self._stop.set()
        if self._ticker is not None:
            self._ticker.join()
        progress = self.progress
        if progress.quiet:
            return
        if self._bar_task is not None:
            if kind is None and self.total is None:
                progress._bar.update(self._bar_task, total=1, completed=1)
            return
        took = progress.clock() - self.started
        if kind is None and (self.total is not None or took >= QUIET_END_S):
            progress.say(self.line(ended=True))

    def advance(self, count: int = 1, *, skipped: bool = False) -> None:
        """`count` more items are done (`skipped`: done without work, left out of the estimate)."""
        self.done += count
        self.skipped += count if skipped else 0
        progress = self.progress
        if not skipped and count:
            self._record(progress.clock())
        if self._bar_task is not None:
            progress._bar.advance(self._bar_task, count)
        elif not progress.quiet and progress.clock() - self._said >= progress.every_s:
            self._say_now()

    def hook(self) -> Callable[[int, int], None]:
        """This task as the `progress(done, total)` callback of a step that reports only the items
        needing work, `total` of this task's (corpus.load's re-simulations): the others are counted
        as skipped at its first report. A task made without a total takes the first report's."""
        def report(done: int, total: int) -> None:
            if self.total is None:
                self.count_to(total)
            base = (self.total or total) - total
            if self.done < base:
                self.advance(base - self.done, skipped=True)
            self.advance(base + done - self.done)

        return report

    def count_to(self, total: int) -> None:
        """Give the task its total, once it is known (a phase becomes a counted task)."""
        self.total = total
        if self._bar_task is not None:
            self.progress._bar.update(self._bar_task, total=total)

    def skip_rest(self) -> None:
        """Count the items not yet done as done without work: after a step that reported only the
        items needing work (through `hook`), and nothing at all when none did."""
        if self.total is not None and self.done < self.total:
            self.advance(self.total - self.done, skipped=True)

    def left_s(self) -> float | None:
        """Seconds still to go, at the pace of the second half of the time so far, of the items
        that took work; None until that pace can be extrapolated: items took work in both halves,
        at paces within STEADY_RATIO of each other."""
        pace = self._pace
        if self.total is None or not pace:
            return None
        now = self.progress.clock()
        middle = (self.started + now) / 2
        worked = pace[-1][1]
        before = bisect.bisect_right(pace, (middle, float("inf")))  # the points of the first half
        first = pace[before - 1][1] if before else 0
        second = worked - first
        half = now - middle
        if first <= 0 or second <= 0 or half <= 0:
            return None  # one half saw no item done: no pace to compare, none to extrapolate
        if max(first, second) / min(first, second) > STEADY_RATIO:
            return None  # the pace is changing: the items so far say little of those to come
        return max(0.0, self.total - self.done) * half / second

    def _record(self, now: float) -> None:
        """Note that items took work by `now` (the last point moves on until PACE_STEP_S has passed)."""
        point = (now, self.done - self.skipped)
        if len(self._pace) >= 2 and now - self._pace[-2][0] < PACE_STEP_S:
            self._pace[-1] = point
        else:
            self._pace.append(point)

    def line(self, ended: bool = False) -> str:
        """The plain line telling where the task stands."""
        took = self.progress.clock() - self.started
        unit = f" {self.unit}" if self.unit else ""
        first = not ended and self._said == self.started
        if self.total is None:
            if ended:
                return f"{self.description}: done in {duration(took)}"
            return f"{self.description} ..." if first else f"{self.description}: {duration(took)} so far"
        count = f"{self.description}: {self.done:,}/{self.total:,}{unit}"
        if ended:
            return f"{count}, done in {duration(took)}"
        share = f" ({self.done / self.total:.0%})" if self.total else ""
        if first:
            return count + share
        left = self.left_s()
        return count + share + (f", about {duration(left)} left" if left is not None else "") + \
            f", {duration(took)} so far"

    def _say_now(self) -> None:
        self._said = self.progress.clock()
        self.progress.say(self.line())

    def _tick(self) -> None:
        progress = self.progress
        while not self._stop.wait(progress.every_s):
            if progress.clock() - self._said >= progress.every_s:  # no line since: say where it stands
                self._say_now()


def duration(seconds: float | None) -> str:
    """A time span as people read it: 0.4 s, 12 s, 3 min 05 s, 2 h 10 min."""
    if seconds is None:
        return "unknown"
    if seconds < 10:
        return f"{seconds:.1f} s"
    whole = round(seconds)
    if whole < 60:
        return f"{whole} s"
    if whole < 3600:
        return f"{whole // 60} min {whole % 60:02d} s"
    return f"{whole // 3600} h {whole % 3600 // 60:02d} min"


def _is_terminal(stream: TextIO) -> bool:
    try:
        return stream.isatty()
    except (AttributeError, ValueError):  # a closed or file-less stream
        return False


def _rich_display(stream: TextIO) -> Any:
    """A rich progress display on `stream`: per task its name, a bar, the count and the time left
    as the task reckons it (`Task.left_s`: nothing until it can be extrapolated), not rich's own."""
    from rich.console import Console
    from rich.progress import BarColumn, MofNCompleteColumn, ProgressColumn, TextColumn, TimeElapsedColumn
    from rich.progress import Progress as Bars
    from rich.text import Text

    class TimeLeft(ProgressColumn):
        def render(self, task: Any) -> Text:
            left = task.fields.get("left")
            seconds = left() if callable(left) and not task.finished else None
            return Text(f"about {duration(seconds)} left," if seconds is not None else "")

    return Bars(TextColumn("{task.description}"), BarColumn(), MofNCompleteColumn(), TimeLeft(),
                TimeElapsedColumn(), TextColumn("so far"), console=Console(file=stream))

"""runner/progress.py: the first line at once, counts and an estimate of the time left, plain lines
off a terminal (a CI log) at most every `every_s` seconds, rich bars on one."""

from __future__ import annotations

import io
import time

import pytest

from runner.progress import QUIET_END_S, Progress, duration


class Clock:
    """A clock the test moves by hand."""

    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


def plain(clock: Clock, **options) -> tuple[Progress, io.StringIO]:
    out = io.StringIO()
    return Progress(out, terminal=False, clock=clock, every_s=10, **options), out


def lines(out: io.StringIO) -> list[str]:
    return out.getvalue().splitlines()


def test_a_counted_task_says_so_at_once_then_every_ten_seconds_then_at_the_end():
    clock = Clock()
    progress, out = plain(clock)
    with progress, progress.task("checking replays", total=4, unit="replays") as task:
        assert lines(out) == ["checking replays: 0/4 replays (0%)"]  # before any item is done
        clock.now += 4
        task.advance()
        assert len(lines(out)) == 1  # not yet ten seconds since the last line
        clock.now += 8
        task.advance()
        clock.now += 1
        task.advance()
        assert len(lines(out)) == 2
    assert lines(out)[1:] == ["checking replays: 2/4 replays (50%), about 12 s left, 12 s so far",
                              "checking replays: 3/4 replays, done in 13 s"]


def test_the_time_left_is_reckoned_from_the_items_that_took_work():
    clock = Clock()
    progress, out = plain(clock)
    with progress, progress.task("playing", total=10, unit="games") as task:
        task.advance(6, skipped=True)  # kept games: no time spent on them
        clock.now += 20
        task.advance()  # one game played in 20 s: three more to go
        assert task.left_s() == pytest.approx(60)
        task.advance(3)
    assert lines(out) == ["playing: 0/10 games (0%)", "playing: 7/10 games (70%), about 1 min 00 s left, 20 s so far",
                          "playing: 10/10 games, done in 20 s"]


def test_nothing_is_estimated_before_an_item_took_work():
    clock = Clock()
    progress, out = plain(clock)
    with progress, progress.task("playing", total=3, unit="games") as task:
        task.advance(2, skipped=True)
        assert task.left_s() is None
        clock.now += 11
        task.advance(skipped=True)
    assert lines(out)[1] == "playing: 3/3 games (100%), 11 s so far"


def test_a_phase_without_a_count_is_named_and_its_end_said_only_if_it_took_a_while():
    clock = Clock()
    progress, out = plain(clock)
    with progress:
        with progress.task("scoring the boards"):
            clock.now += QUIET_END_S / 2
        with progress.task("writing pages"):
            clock.now += 3
    assert lines(out) == ["scoring the boards ...", "writing pages ...", "writing pages: done in 3.0 s"]


def test_a_failed_task_says_no_last_line():
    clock = Clock()
    progress, out = plain(clock)
    with pytest.raises(ValueError), progress, progress.task("checking", total=2) as task:
        task.advance()
        raise ValueError("bad")
    assert lines(out) == ["checking: 0/2 (0%)"]


def test_each_counts_a_loop_and_says_its_first_line_before_the_first_item():
    clock = Clock()
    progress, out = plain(clock)
    seen = []
    with progress:
        for item in progress.each(["a", "b", "c"], "reading", unit="files"):
            seen.append((item, lines(out)[-1]))
    assert seen == [("a", "reading: 0/3 files (0%)"), ("b", "reading: 0/3 files (0%)"), ("c", "reading: 0/3 files (0%)")]
    assert lines(out)[-1] == "reading: 3/3 files, done in 0.0 s"


def test_quiet_says_nothing():
    progress, out = plain(Clock(), quiet=True)
    with progress, progress.task("checking", total=2) as task:
        task.advance(2)
        progress.say("news")
    assert out.getvalue() == ""


def test_a_line_comes_every_period_while_one_item_takes_long():
    out = io.StringIO()
    progress = Progress(out, terminal=False, every_s=0.05)
    with progress, progress.task("checking", total=1) as task:
        time.sleep(0.4)  # no advance all this while
        task.advance()
    said = lines(out)
    assert said[0] == "checking: 0/1 (0%)" and said[-1].startswith("checking: 1/1, done in")
    assert len(said) >= 4 and all(line.startswith("checking: 0/1 (0%), ") for line in said[1:-1])


def test_on_a_terminal_rich_draws_the_bar_with_the_count():
    out = io.StringIO()
    with Progress(out, terminal=True) as progress, progress.task("checking replays", total=3) as task:
        task.advance(3)
    assert "checking replays" in out.getvalue() and "3/3" in out.getvalue()


@pytest.mark.parametrize("seconds, said", [(0.42, "0.4 s"), (12.4, "12 s"), (185, "3 min 05 s"),
                                           (7800, "2 h 10 min"), (None, "unknown")])
def test_durations_read_as_people_say_them(seconds, said):
    assert duration(seconds) == said


def test_a_hook_of_a_step_that_reports_only_the_items_needing_work_counts_the_others_as_skipped():
    clock = Clock()
    progress, out = plain(clock)
    with progress, progress.task("checking replays", total=10, unit="replays") as task:
        report = task.hook()  # as corpus.load reports: each re-simulated replay, of those not in the cache
        clock.now += 4
        report(1, 2)
        assert (task.done, task.skipped) == (9, 8)
        assert task.left_s() == pytest.approx(4)  # one more, at the pace of the one re-simulated
        clock.now += 4
        report(2, 2)
    assert lines(out)[-1] == "checking replays: 10/10 replays, done in 8.0 s"


@pytest.mark.parametrize("reports, done, skipped", [((), 10, 10), (((1, 2), (2, 2)), 10, 8)])
def test_skip_rest_counts_what_no_report_reached_as_done_without_work(reports, done, skipped):
    clock = Clock()
    progress, out = plain(clock)
    with progress, progress.task("checking replays", total=10, unit="replays") as task:
        report = task.hook()
        for pair in reports:  # none: the cache answered every replay, so the step never reported
            report(*pair)
        task.skip_rest()
        assert (task.done, task.skipped) == (done, skipped)
        task.skip_rest()  # nothing is left: nothing more is counted
        assert task.done == 10
    assert lines(out)[-1] == "checking replays: 10/10 replays, done in 0.0 s"

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
        task.advance()  # one game played in 20 s
        clock.now += 20
        task.advance()  # and another: two more to go, at 20 s each
        assert task.left_s() == pytest.approx(40)
        task.advance(2)
    assert lines(out) == ["playing: 0/10 games (0%)", "playing: 7/10 games (70%), 20 s so far",
                          "playing: 8/10 games (80%), about 40 s left, 40 s so far",
                          "playing: 10/10 games, done in 40 s"]


def test_no_estimate_is_given_before_a_phase_has_data_for_one():
    """Not at the start, not after one item (one pace, nothing to check it against), not while the
    first half of the time so far saw no item done (a phase that spent it importing, or waiting)."""
    clock = Clock()
    progress, out = plain(clock)
    with progress, progress.task("checking replays", total=100, unit="replays") as task:
        assert task.left_s() is None
        clock.now += 0.2
        task.advance()
        assert task.left_s() is None
        clock.now += 0.2
        task.advance()  # both halves of 0.4 s saw one: a pace
        assert task.left_s() == pytest.approx(98 * 0.2)
    clock = Clock()
    progress, out = plain(clock)
    with progress, progress.task("checking replays", total=100, unit="replays") as task:
        clock.now += 11  # loading, say: nothing done
        task.advance(40)
        clock.now += 1
        task.advance(10)
        assert task.left_s() is None  # 12 s so far, and nothing in its first 6
    assert lines(out) == ["checking replays: 0/100 replays (0%)", "checking replays: 40/100 replays (40%), 11 s so far",
                          "checking replays: 50/100 replays, done in 12 s"]


def test_no_estimate_is_given_while_the_pace_changes():
    """The shipped corpus's cheap built-in games come first and its model games after (784 replays
    in the first 10 s, then 16 in the next 10): their pace says nothing of what is left."""
    clock = Clock()
    progress, out = plain(clock)
    with progress, progress.task("checking replays", total=2000, unit="replays") as task:
        for _ in range(10):
            clock.now += 1
            task.advance(78)
        for _ in range(10):
            clock.now += 1
            task.advance(2)
        assert task.left_s() is None  # 780, then 20: far from steady
        for seconds in range(1, 61):  # the slow games' pace, until it is the pace of both halves
            clock.now += 1
            task.advance(16)
            if seconds == 35:  # 55 s so far: 912 replays in the first 27.5 s, 448 in the next: still not
                assert task.left_s() is None
        # 80 s so far: 1,120 replays in the first 40 s, 640 in the next; 240 to go at 16 a second
        assert task.left_s() == pytest.approx(15)


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
        report(1, 3)
        assert (task.done, task.skipped) == (8, 7)
        clock.now += 4
        report(2, 3)
        assert task.left_s() == pytest.approx(4)  # one more, at the pace of the two re-simulated
        clock.now += 4
        report(3, 3)
    assert lines(out)[-1] == "checking replays: 10/10 replays, done in 12 s"


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


@pytest.mark.parametrize("items, said", [(1, None), (2, "about 8.0 s left,")])
def test_on_a_terminal_the_time_left_is_the_tasks_own_and_none_before_it_has_data(items, said):
    clock = Clock()
    out = io.StringIO()
    with Progress(out, terminal=True, clock=clock) as progress, progress.task("checking replays", total=10) as task:
        for _ in range(items):
            clock.now += 1
            task.advance()
    drawn = out.getvalue()
    assert f"{items}/10" in drawn
    assert ("left" not in drawn) if said is None else (said in drawn)

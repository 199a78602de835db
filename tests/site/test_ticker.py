"""site_builder/ticker.py: plain progress lines for logs, a rich bar for terminals."""

from __future__ import annotations

import io

import pytest

from site_builder.ticker import Reporter, Ticker, duration


class Clock:
    def __init__(self):
        self.now = 100.0

    def __call__(self) -> float:
        return self.now


@pytest.mark.parametrize("seconds, text", [(0, "0 s"), (42.4, "42 s"), (185, "3 min 5 s"), (3720, "1 h 2 min")])
def test_durations_read_as_words(seconds, text):
    assert duration(seconds) == text


def test_plain_lines_at_the_start_every_few_seconds_and_at_the_end():
    out, clock = io.StringIO(), Clock()
    with Ticker("re-simulating", 1000, "replays", stream=out, terminal=False, every=5, clock=clock) as tick:
        for done in range(1, 1001):
            clock.now = 100 + done / 50  # 20 s in all: a line at 5, 10 and 15 s
            tick.update(done)
    lines = out.getvalue().splitlines()
    assert lines[0] == "re-simulating: 0 of 1,000 replays"
    assert lines[1] == "re-simulating: 250 of 1,000 replays (25%), about 15 s left"
    assert lines[2] == "re-simulating: 500 of 1,000 replays (50%), about 10 s left"
    assert len(lines) == 5 and lines[-1] == "re-simulating: 1,000 of 1,000 replays in 20 s"


def test_a_step_that_fails_prints_no_closing_count():
    out = io.StringIO()
    with pytest.raises(RuntimeError), Ticker("x", 3, stream=out, terminal=False) as tick:
        tick.update(1)
        raise RuntimeError
    assert out.getvalue().splitlines() == ["x: 0 of 3"]


def test_a_terminal_gets_a_bar_with_the_count_and_the_time_left():
    out = io.StringIO()
    with Ticker("reading", 10, "games", stream=out, terminal=True) as tick:
        tick.update(4)
    assert "reading" in out.getvalue() and "10/10" not in out.getvalue() and "4/10" in out.getvalue()


def test_a_reporter_shows_nothing_for_a_step_with_nothing_to_do():
    out = io.StringIO()
    quiet = Reporter("re-simulating", stream=out, terminal=False)
    quiet.close()
    busy = Reporter("re-simulating", stream=out, terminal=False)
    busy(1, 2)
    busy(2, 2)
    busy.close()
    lines = out.getvalue().splitlines()
    assert lines[0] == "re-simulating: 0 of 2" and lines[-1].startswith("re-simulating: 2 of 2 in ")

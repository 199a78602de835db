"""The report's ranked board: the ranked rows a submission changes, before and after, as a reader
sees them, every name from a replay escaped.

The rows are made as `leaderboard_effect` makes them (`effect.ranked_standing` of a ranked row), and
the report is rendered and read back through GitHub's Markdown.
"""

from __future__ import annotations

import re

from markdown_it import MarkdownIt

from site_builder.submission import RANKED
from site_builder.submission.check import FileCheck, Submission
from site_builder.submission.effect import Effect, EffectRow, ranked_standing
from site_builder.submission.report import render
from tests.submission.suite_corpus import rows_of

#: A row name from a replay that would format, link and notify if it were not escaped.
NASTY = "ranked-1-x | <b>bold</b> @octocat #1"


def ranked(place: int, best: int, worst: int, tier: int, value: float, n: int, stages: int,
           counted: bool = True) -> dict:
    """A row of `boards.ranked_rows` with a score."""
    return {"score": {"value": value, "ci": [value - 0.05, value + 0.05], "n": n}, "place": place, "best": best,
            "worst": worst, "tier": tier, "stages": stages, "counted": counted}


def report(rows: list[EffectRow], changed: int = 0) -> str:
    submission = Submission("b" * 40, "h" * 40, "m" * 40, files=[FileCheck("replays/x/g.jsonl", "A")])
    effect = Effect(rows, 100, 130, 30, 70, 1.0, compared=12, others_changed=changed)
    return render(submission, effect)


def tables(text: str) -> dict[str, list[dict[str, str]]]:
    """The effect section's tables by the bold heading above each, as text (escapes gone)."""
    html = MarkdownIt("commonmark").enable(["table"]).render(text).split("Effect on the leaderboard", 1)[1]
    return {heading: rows_of(table.replace("\u200b", ""))
            for heading, table in re.findall(r"<strong>([^<]+)</strong>[^<]*</p>\s*<table>(.*?)</table>", html,
                                             re.DOTALL)}


def test_a_ranked_row_the_submission_grows_shows_before_and_after():
    before = ranked_standing(ranked(3, 2, 5, 2, 0.4, 60, 1))
    after = ranked_standing(ranked(2, 1, 3, 1, 0.5, 120, 2))
    text = report([EffectRow(RANKED, "ranked-1-x", NASTY, before, after)])
    [row] = tables(text)["The ranked board"]
    assert row == {"row": NASTY, "rank": "3 (2-5) → 2 (1-3)", "tier": "2 → 1",
                   "score [95%]": "40.0% [35.0, 45.0] → 50.0% [45.0, 55.0]",
                   "games": "60 games scored, 1 whole stage → 120 games scored, 2 whole stages"}
    assert "<b>" not in MarkdownIt("commonmark").render(text) and "@octocat" not in text


def test_a_new_self_reported_row_would_take_a_place_in_no_tier():
    after = ranked_standing(ranked(2, 1, 4, 1, 0.5, 60, 1, counted=False))
    [row] = tables(report([EffectRow(RANKED, "ranked-1-x", "ranked-1-x", None, after)]))["The ranked board"]
    assert (row["rank"], row["tier"]) == ("would be 2 (1-4)", "\u2013")


def test_a_ranked_row_of_others_that_changed_is_flagged_with_both_standings():
    mine = EffectRow(RANKED, "ranked-1-x", "ranked-1-x", None, ranked_standing(ranked(2, 1, 4, 1, 0.5, 60, 1, False)))
    theirs = EffectRow(RANKED, "ranked-1-y", NASTY, ranked_standing(ranked(1, 1, 2, 1, 0.7, 60, 1)),
                       ranked_standing(ranked(2, 1, 3, 1, 0.6, 60, 1)), mine=False)
    text = report([mine, theirs], changed=1)
    assert "⚠ **1 row(s) of others changed**" in text
    [row] = tables(text)["⚠ Rows of others that changed"]
    assert row["board"] == RANKED and row["row"] == NASTY
    assert row["before"].startswith("1 (1-2); tier 1; 70.0% [65.0, 75.0]")
    assert row["after"].startswith("2 (1-3); tier 1; 60.0% [55.0, 65.0]")
    assert [r["row"] for r in tables(text)["The ranked board"]] == ["ranked-1-x"]  # theirs is not listed as yours

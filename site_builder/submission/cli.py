"""`gamenight submission-check`: the pull-request check of a replay submission.

The checks are this package's other modules and the Markdown report `report`; this module is the
command: it runs the check, writes the report where it is asked to (GitHub's step summary, cut to
fit, and the whole report as a file) and sets the exit status.
"""

from __future__ import annotations

import sys
import tempfile
from pathlib import Path
from typing import NoReturn

import click

from site_builder.submission.report import SUMMARY_LIMIT_BYTES, cut_to_fit, escape_markdown, render

# The check and the scorer (numpy, scipy, the embedder) are imported when the command runs, not
# when `gamenight` lists its commands (this module is the entry point gamenight.commands loads).

#: The scorer's cache (the same file `gamenight score` uses by default).
DEFAULT_CACHE = Path(".gamenight-cache") / "scores.sqlite"
#: Exit status when the check itself could not run (a missing revision, no git...).
CANNOT_CHECK = 2
#: The workflow artifact that holds the whole report (.github/workflows/submission.yml uploads it).
REPORT_ARTIFACT = "submission-report"


@click.command("submission-check")
@click.argument("base")
@click.argument("head")
@click.option("--repo", type=click.Path(exists=True, file_okay=False, path_type=Path), default=Path("."),
              show_default=True, help="The git repository that holds both revisions.")
@click.option("--summary", type=click.Path(dir_okay=False, path_type=Path),
              help="Also append the Markdown report to this file (in CI: $GITHUB_STEP_SUMMARY), cut to the "
                   "1 MiB GitHub shows.")
@click.option("--full-report", type=click.Path(dir_okay=False, path_type=Path),
              help="Also write the whole Markdown report to this file, never cut (in CI: uploaded as the "
                   f"workflow run's artifact {REPORT_ARTIFACT!r}).")
@click.option("--cache", type=click.Path(dir_okay=False, path_type=Path), default=DEFAULT_CACHE,
              show_default=True, help="The scorer's cache of re-simulated replays, keyed by content hash.")
@click.option("--no-cache", is_flag=True, help="Score without a lasting cache (re-simulate everything).")
@click.option("--author", metavar="LOGIN", envvar="GAMENIGHT_PR_AUTHOR",
              help="The GitHub login of the pull request's author (in CI: github.event.pull_request.user.login; "
                   "also read from $GAMENIGHT_PR_AUTHOR). Tournaments and model agents already on the board take "
                   "games only from their owner; without it, nothing on the board is taken to be yours.")
@click.option("--author-id", metavar="NUMBER", envvar="GAMENIGHT_PR_AUTHOR_ID",
              help="The GitHub account number of the pull request's author (in CI: "
                   "github.event.pull_request.user.id; also read from $GAMENIGHT_PR_AUTHOR_ID; it is the ID in "
                   "your no-reply address ID+login@users.noreply.github.com). Rows merged under an address with "
                   "a number belong to that account, whatever its login is now.")
def submission_check(base: str, head: str, repo: Path, summary: Path | None, full_report: Path | None, cache: Path,
                     no_cache: bool, author: str | None, author_id: str | None) -> None:
    """Check a replay submission: what HEAD adds to BASE (two git revisions).

    Reads only git objects (nothing from HEAD is checked out or run): every changed path must be a
    new replay under replays/<tournament>/<game_id>.jsonl or a tournament's plan
    (tournament.toml), within the size limits, accepted by every check (every model seat's prompts
    and moves derived again), not a copy of a game already counted, a game of a language model, and exactly the
    games its plan holds; no tournament, model agent or name may be another owner's. Prints a
    Markdown report: each file's problems as FILE:LINE: FIELD: MESSAGE, what the submission adds,
    who owns the rows it touches and how the rating tables would change. Exits with status 1 if
    anything is refused, 2 if the check could not run.
    """
    from runner.progress import Progress

    with Progress() as progress, tempfile.TemporaryDirectory(prefix="gamenight-submission-") as tmp:
        progress.say(f"submission check: what {head} adds to {base} in {repo}")
        # The check and the scorer (numpy, scipy, the embedder: a second or two) load after the first line.
        from site_builder.git import GitError, Repo
        from site_builder.submission.ownership import OwnerError
        from site_builder.submission.check import check_submission
        from site_builder.submission.effect import leaderboard_effect

        work = Path(tmp)
        base_dir, new_dir = work / "base", work / "new"
        base_dir.mkdir()
        new_dir.mkdir()
        try:
            submission = check_submission(Repo(repo), base, head, base_copy=base_dir, author=author,
                                          author_id=author_id, progress=progress)
        except (GitError, OwnerError) as exc:
            _cannot_check(str(exc), summary, full_report)
        effect, effect_error = None, None
        if submission.accepted:
            try:
                effect = leaderboard_effect(submission, base_dir, new_dir, work / "scores.sqlite" if no_cache else cache,
                                            progress)
            except Exception as exc:  # noqa: BLE001 - the effect is information; a failure must not hide the verdict
                effect_error = f"{type(exc).__name__}: {exc}"
        report = render(submission, effect, effect_error)
    click.echo(report, nl=False)
    if full_report is not None:
        _append(full_report, report, mode="w")
    if summary is not None:
        _append(summary, cut_to_fit(report, SUMMARY_LIMIT_BYTES, _where_whole(full_report)))
    if not submission.ok:
        sys.exit(1)


def _append(path: Path, text: str, mode: str = "a") -> None:
    try:
        with open(path, mode, encoding="utf-8") as handle:
            handle.write(text)
    except OSError as exc:
        raise click.ClickException(f"cannot write the report {path}: {exc.strerror or exc}") from None


def _cannot_check(message: str, summary: Path | None, full_report: Path | None = None) -> NoReturn:
    click.echo(f"Error: {message}", err=True)
    report = f"## Replay submission check: could not run\n\n{escape_markdown(message)}\n"
    for path, mode in ((full_report, "w"), (summary, "a")):
        if path is not None:
            _append(path, report, mode)
    sys.exit(CANNOT_CHECK)


def _where_whole(full_report: Path | None) -> str:
    """Where a reader of a cut summary finds the whole report."""
    if full_report is None:
        return "The whole report is in the check's log."
    return (f"The whole report is in the check's log and in the file {escape_markdown(full_report.name)}, "
            f"uploaded as the workflow run's artifact {escape_markdown(REPORT_ARTIFACT)} (listed under "
            "Artifacts on the run's summary page).")

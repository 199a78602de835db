"""`gamenight roster`: the maintainers' runs, step by step as .github/workflows/maintainers-run.yml
takes them (docs/maintainers.md, "The maintainers' runs").

    gamenight roster plan --plan-file plan.json          # what is wanted, priced; what fits (no key needed)
    gamenight roster run plan.json --export out/         # plays it (the keys in the environment)
    gamenight roster branch out/                         # the replays on a branch, committed by the bot
    gamenight roster open-pull-request out/              # pushes it and opens the pull request (gh)
"""

from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path

import click

from runner import prices as price_table
from runner import roster as rosters
from site_builder.git import GitError

# The plan and the play read the corpus through the scorer (numpy, scipy, the embedder): each
# command imports them, so that `gamenight` lists its commands without loading them.


def _append(path: Path | None, text: str) -> None:
    if path is None:
        return
    try:
        with open(path, "a", encoding="utf-8") as handle:
            handle.write(text + "\n")
    except OSError as exc:
        raise click.ClickException(f"cannot write {path}: {exc.strerror or exc}") from None


@click.group("roster")
def roster() -> None:
    """The maintainers' runs: keep the roster's models on the ranked board and verify contributed rows."""


@roster.command("plan")
@click.option("--roster", "roster_file", type=click.Path(dir_okay=False, path_type=Path),
              default=rosters.ROSTER_FILE, show_default=True, help="The maintainers' roster.")
@click.option("--replays", type=click.Path(file_okay=False, path_type=Path), default=Path("replays"),
              show_default=True, help="The replays folder at the top of the repository (its history says who added what).")
@click.option("--prices", "prices_file", type=click.Path(dir_okay=False, path_type=Path),
              help="Another price table than runner/prices.toml.")
@click.option("--plan-file", type=click.Path(dir_okay=False, path_type=Path),
              help="Write the plan here, for `gamenight roster run`.")
@click.option("--summary", type=click.Path(dir_okay=False, path_type=Path),
              help="Append the plan, as Markdown, to this file (in CI: $GITHUB_STEP_SUMMARY).")
def plan_command(roster_file: Path, replays: Path, prices_file: Path | None, plan_file: Path | None,
                 summary: Path | None) -> None:
    """What the run would play: each roster model's missing stages and each contributed ranked row's
    pending verification, priced by the dry run, in order, and what fits the budget. Plays nothing and
    needs no key."""
    from site_builder.roster import plan as roster_plan

    try:
        roster_ = rosters.load(roster_file)
        table = price_table.load(prices_file) if prices_file else price_table.load()
        plan = roster_plan.make(roster_, replays, table)
    except (rosters.RosterError, price_table.PriceTableError, roster_plan.RosterPlanError) as exc:
        raise click.ClickException(str(exc)) from None
    text = plan.markdown()
    click.echo(text)
    _append(summary, text)
    if plan_file is not None:
        roster_plan.write(plan, plan_file)


@roster.command("run")
@click.argument("plan_file", type=click.Path(dir_okay=False, path_type=Path))
@click.option("--replays", type=click.Path(file_okay=False, path_type=Path), default=Path("replays"),
              show_default=True, help="The replays folder the plan was made from.")
@click.option("--parallel", type=click.IntRange(1, 64), default=4, show_default=True,
              help="Games each command plays concurrently.")
@click.option("--export", "export_to", type=click.Path(file_okay=False, path_type=Path),
              help="Copy the replays written, and the pull request that proposes them, into this folder.")
@click.option("--summary", type=click.Path(dir_okay=False, path_type=Path),
              help="Append what was played, as Markdown, to this file (in CI: $GITHUB_STEP_SUMMARY).")
@click.option("--outputs", type=click.Path(dir_okay=False, path_type=Path),
              help="Append files=N (the files proposed) to this file (in CI: $GITHUB_OUTPUT).")
@click.option("--run-id", envvar="GITHUB_RUN_ID", help="The workflow run, naming the branch [env: GITHUB_RUN_ID].")
def run_command(plan_file: Path, replays: Path, parallel: int, export_to: Path | None, summary: Path | None,
                outputs: Path | None, run_id: str | None) -> None:
    """Play a plan's items in order, each a gamenight command of its own (`run --suite ... --budget`,
    `verify ...`), the next only while its estimate fits what is left of the budget. The model keys
    are read from the environment variables the roster names. Exits with status 1 when an item failed
    or was refused (after the export: what was played is still proposed)."""
    from site_builder.roster import plan as roster_plan, play as roster_play

    try:
        plan = roster_plan.read(plan_file)
    except roster_plan.RosterPlanError as exc:
        raise click.ClickException(str(exc)) from None
    result = roster_play.play(plan, replays, parallel=parallel)
    text = result.markdown()
    click.echo(text)
    _append(summary, text)
    request = roster_play.pull_request(result, run_id=run_id, commit=os.environ.get("GITHUB_SHA"),
                                       run_url=_run_url())
    if export_to is not None:
        roster_play.export(result, replays, export_to, request)
    _append(outputs, f"files={len(request.files)}")
    bad = [o for o in result.outcomes if o.status in ("failed", "refused")]
    if bad:
        raise click.ClickException(f"{len(bad)} item(s) failed or were refused: "
                                   + "; ".join(f"{o.item.title}: {o.said}" for o in bad))


def _run_url() -> str | None:
    server, repository, run = (os.environ.get(k) for k in ("GITHUB_SERVER_URL", "GITHUB_REPOSITORY", "GITHUB_RUN_ID"))
    return f"{server}/{repository}/actions/runs/{run}" if server and repository and run else None


@roster.command("branch")
@click.argument("export_dir", type=click.Path(file_okay=False, exists=True, path_type=Path))
@click.option("--checkout", type=click.Path(file_okay=False, exists=True, path_type=Path), default=Path("."),
              show_default=True, help="The checkout of main to branch from.")
def branch_command(export_dir: Path, checkout: Path) -> None:
    """Put an exported run's replays on a branch of their own, committed by the GitHub Actions bot."""
    from site_builder.roster import play as roster_play

    try:
        request = roster_play.read_export(export_dir)
        commit = roster_play.commit_branch(request, export_dir, checkout)
    except (roster_play.PullRequestError, GitError) as exc:
        raise click.ClickException(str(exc)) from None
    if commit is None:
        click.echo("nothing to propose: the run wrote no replays")
    else:
        click.echo(f"branch {request.branch}: commit {commit} with {len(request.files)} file(s)")


@roster.command("open-pull-request")
@click.argument("export_dir", type=click.Path(file_okay=False, exists=True, path_type=Path))
@click.option("--checkout", type=click.Path(file_okay=False, exists=True, path_type=Path), default=Path("."),
              show_default=True, help="The checkout holding the branch `gamenight roster branch` made.")
@click.option("--dry-run", is_flag=True, help="Print the push and the gh command, run neither.")
def open_command(export_dir: Path, checkout: Path, dry_run: bool) -> None:
    """Push the branch and open its pull request with gh (the token in GH_TOKEN)."""
    from site_builder.roster import play as roster_play

    try:
        request = roster_play.read_export(export_dir)
    except roster_play.PullRequestError as exc:
        raise click.ClickException(str(exc)) from None
    if not request.files:
        click.echo("nothing to propose: no pull request is opened")
        return
    commands = [request.push_argv(), request.gh_argv(export_dir / roster_play.BODY_FILE)]
    if dry_run:
        for argv in commands:
            click.echo(json.dumps(argv, ensure_ascii=False))
        return
    env = roster_play.credential_environment()
    for argv in commands:
        done = subprocess.run(argv, cwd=checkout, env=env, check=False)
        if done.returncode != 0:
            raise click.ClickException(f"{argv[0]} {argv[1]} failed (exit {done.returncode})")

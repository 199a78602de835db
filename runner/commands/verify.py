"""`gamenight verify replays/<row> --model PROVIDER:MODEL[@URL] --deals K`: the maintainers' verification of a row.

It plays K held-out deals (and, for a model that can be played again exactly, K of the row's own
deals) into `replays/verify-<row>/` (runner/verify.py), then reads both folders as the scorer does
and prints one verdict line, the last of its output: `verdict: exact|consistent|inconsistent ...`.
Exit status 0 for exact or consistent, 1 for inconsistent, 2 when it refuses (bad input, the model,
key or server unreachable, the secret missing or not the epoch's): then it prints `refused: ...`
on stderr and no verdict. Heavy modules are imported when the command runs, not when the command
line starts.
"""

from __future__ import annotations

import asyncio
import os
import sys
import time
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any, NoReturn

import click

#: Exit statuses: a verdict that holds, an inconsistent row, a refusal (no verdict).
CONSISTENT, INCONSISTENT, REFUSED = 0, 1, 2


class Refused(Exception):
    """Why the command gives no verdict, in one line."""


@dataclass
class Job:
    """A verification ready to plan: the row, its suite and model, and the agent that plays it."""

    row_folder: Path
    row: Any  # runner.plan.Tournament
    suite: Any  # runner.suite.Suite
    agent: Any  # runner.plan.AgentSpec
    exact: bool
    out: Path
    deals: int
    replays: int
    earlier: Any = None  # the verification's own plan already in `out` (a resumed run), or None


@click.command("verify")
@click.argument("row_folder", type=click.Path(file_okay=False, path_type=Path))
@click.option("--model", "model_ref", required=True, metavar="PROVIDER:MODEL[@URL]",
              help="The row's model: provider:model[@base_url] (played with the row's own settings, at that "
                   "address), or an agent of a tournament file, file.toml#agent, whose every setting must be the "
                   "row's. Refused unless it is the row's provider and model.")
@click.option("--deals", "deals", required=True, type=click.IntRange(1, 10_000), metavar="K",
              help="Held-out deals to play, in the suite's proportions (every 23 of ranked-1 are a whole stage's "
                   "worth); for a model that can be played again exactly, also K of the row's own deals.")
@click.option("--key-env", "key_env", metavar="VAR", help="The environment variable holding the model's API key.")
@click.option("--out", type=click.Path(file_okay=False, path_type=Path),
              help="Folder of the verification [default: replays/verify-<row>/].")
@click.option("--exact", is_flag=True,
              help="Play K of the row's own deals again and compare every reply even if its settings do not say "
                   "the model is deterministic (temperature 0 or a seed, on a local server).")
@click.option("--dry-run", is_flag=True,
              help="Print the games, expected model calls, tokens and cost of the verification; play nothing "
                   "(no key or secret needed).")
@click.option("--parallel", type=click.IntRange(1, 256), default=4, show_default=True,
              help="Games played concurrently (1 for a local server that answers one call at a time).")
@click.option("--price", "price_text", metavar="IN/OUT[/CACHED]",
              help="The model's USD per million input / output [/ cached input] tokens, for the dry run and the "
                   "totals (default: the price table's, runner/prices.toml).")
@click.option("--cache-dir", type=click.Path(file_okay=False, path_type=Path), envvar="GAMENIGHT_CACHE_DIR",
              help="Where model replies are cached, so that a killed verification does not pay for them again "
                   "(a verification's games have ids of their own: no reply of the row's games is ever reused).")
@click.option("--no-cache", is_flag=True, help="Send every model call to the provider.")
@click.option("--secret-env", default="GAMENIGHT_HOLDOUT_SECRET", show_default=True, metavar="VAR",
              help="The environment variable holding the open epoch's secret (never written anywhere).")
def verify_command(row_folder: Path, model_ref: str, deals: int, key_env: str | None, out: Path | None, exact: bool,
                   dry_run: bool, parallel: int, price_text: str | None, cache_dir: Path | None, no_cache: bool,
                   secret_env: str) -> None:
    """Verify a suite's row: play its model on K held-out deals nobody could play in advance (and,
    where the model is deterministic, K of the row's own deals again), into replays/verify-<row>/,
    and print one verdict line: exact, consistent or inconsistent (docs/maintainers.md)."""
    try:
        job = _job(row_folder, model_ref, deals, key_env, out, exact)
        if dry_run:
            _dry_run(job, price_text)
            return
        status = _verify(job, parallel, price_text, cache_dir, no_cache, secret_env)
    except Refused as exc:
        _refuse(str(exc))
    sys.exit(status)


def _refuse(message: str) -> NoReturn:
    click.echo(f"refused: {' '.join(message.split())}", err=True)
    sys.exit(REFUSED)


def _job(row_folder: Path, model_ref: str, deals: int, key_env: str | None, out: Path | None, exact: bool) -> Job:
    """The row, its suite, the agent to play and the folder, or Refused saying what is wrong."""
    from runner import suite as suites
    from runner import verify
    from runner.rerun.plans import PLAN_FILE, read_plan
    from runner.tournament import PlanError, key_option

    plan_path = row_folder / PLAN_FILE
    try:
        raw = plan_path.read_bytes()
    except OSError as exc:
        raise Refused(f"{plan_path}: cannot read the row's plan ({exc.strerror or exc}): give a suite row's folder, "
                      "replays/<suite>-<version>-<label>/") from None
    plan = read_plan(str(plan_path), row_folder.name, raw)
    if plan.problems or plan.tournament is None:
        raise Refused(str(plan.problems[0]) if plan.problems else f"{plan_path}: cannot be planned")
    row = plan.tournament
    if row.suite is None:
        raise Refused(f"{plan_path}: not a suite's row (no suite table): only rows of the ranked suite are verified")
    suite = suites.shipped(row.suite.name, row.suite.version)
    if suite is None:
        raise Refused(f"{plan_path}: suite: no suite {row.suite.name}-{row.suite.version} is shipped")
    try:
        mine = verify.candidate_of(row)
        given = suites.candidate(suite, model_ref, None, key_option(key_env) if key_env else None).agent("*")
    except (PlanError, verify.VerifyError) as exc:
        raise Refused(str(exc)) from None
    if "#" in model_ref:  # an agent with all its settings: every one must be the row's
        differs = verify.same_model(mine, given)
        if differs:
            raise Refused(differs.replace("{row}", row.name))
        agent = replace(mine, spec=dict(given.spec), access=dict(given.access))  # the row's name: the row's agent
    else:  # provider:model[@url]: the row's model, with the row's settings, reached where the verifier says
        found = verify.reached(mine, given)
        if isinstance(found, str):
            raise Refused(found)
        agent = found
    out = out or Path("replays") / f"verify-{row.name}"
    earlier = _earlier(out, row.name)
    replays = deals if (exact or verify.replayable(mine.spec)) else 0
    if earlier is not None:  # a verification grows, never shrinks: the deals already played stay planned
        deals, replays = max(deals, earlier.verify.deals), max(replays, earlier.verify.replays)
        before = verify.candidate_of(earlier)
        if dict(before.spec) != dict(agent.spec):
            where = f" at {before.spec.get('base_url')}" if before.spec.get("base_url") != agent.spec.get("base_url") else ""
            raise Refused(f"{out} was played with {before.spec.get('provider')}:{before.spec.get('model')}{where} and "
                          "other settings than --model gives: serve the same model there to resume it (a game's id "
                          "holds its agents' settings)")
    return Job(row_folder, row, suite, agent, replays > 0, out, deals, replays, earlier)


def _earlier(out: Path, row: str) -> Any:
    """The verification's plan already in `out`, or None; Refused if `out` holds another's."""
    from runner.rerun.plans import PLAN_FILE, read_plan

    path = out / PLAN_FILE
    if not path.is_file():
        return None
    plan = read_plan(str(path), out.name, path.read_bytes())
    if plan.tournament is None or plan.tournament.verify is None or plan.tournament.verify.row != row:
        problem = f" ({plan.problems[0]})" if plan.problems else ""
        raise Refused(f"{path}: not a verification of {row}{problem}: verify into a folder of its own with --out")
    return plan.tournament


def _commit_for(job: Job, dry_run: bool) -> str:
    from runner import verify

    if job.earlier is not None:
        return job.earlier.verify.commit
    try:
        return verify.row_commit(job.row_folder)
    except verify.VerifyError as exc:
        if dry_run:
            return "0" * 40  # the dry run prices stand-ins; which deals is drawn from the commit later
        raise Refused(str(exc)) from None


def _dry_run(job: Job, price_text: str | None) -> None:
    """Games, calls, tokens and cost of the verification, from the same offline simulation as `run
    --dry-run` (held-out deals priced by the suite's public deals of the same games and seats)."""
    from runner import holdout, verify
    from runner.run import Estimate, EstimateError, estimate

    commit = _commit_for(job, dry_run=True)
    stand_in = holdout.Epoch(1, "0" * 64, "")
    tournament = verify.tournament_for(job.suite, job.row, job.agent, epoch=stand_in, commit=commit, secret=None,
                                       deals=job.deals, replays=job.replays)
    tournament = _priced(tournament, price_text)
    try:
        figures = asyncio.run(estimate(tournament, sample=1))
    except EstimateError as exc:
        raise Refused(str(exc)) from None
    price = tournament.prices.get(job.agent.spec["model"])
    click.echo(f"dry run of verify-{job.row.name}: {job.deals} held-out deals"
               + (f" and {job.replays} of the row's deals played again" if job.replays else "")
               + f" with {job.agent.spec['provider']}:{job.agent.spec['model']}; nothing is played, no key or secret "
                 "is needed")
    click.echo(f"{'part':<12}{'games':>7}{'calls':>10}{'input tok':>13}{'output tok':>13}{'cost USD':>11}")
    parts = {"held out": Estimate(), "played again": Estimate()}
    games = {"held out": 0, "played again": 0}
    for matchup, found in zip(tournament.matchups, figures):
        part = "held out" if matchup.deal is not None and matchup.deal.held_out else "played again"
        parts[part].add(found.total())
        games[part] += found.games
    total = Estimate()
    for name, part in parts.items():
        total.add(part)
        if games[name]:
            click.echo(_estimate_row(name, games[name], part, price))
    click.echo(_estimate_row("total", sum(games.values()), total, price))
    if price is None:
        click.echo("(no price for the model in the price table: give --price IN/OUT, USD per million tokens)")


def _estimate_row(name: str, games: int, part: Any, price: Any) -> str:
    cost = part.cost(price)
    return (f"{name:<12}{games:>7,}{part.calls:>10,.0f}{part.input_tokens:>13,.0f}{part.output_tokens:>13,.0f}"
            f"{'n/a' if cost is None else f'{cost:,.2f}':>11}")


def _priced(tournament: Any, price_text: str | None) -> Any:
    """The plan with the model's price: --price, else its list price in runner/prices.toml (said on
    stderr), else none."""
    from runner import prices as table
    from runner.tournament import PlanError, price_option

    model = tournament.llm_agents()[0].spec
    if price_text:
        try:
            price = price_option(price_text)
        except PlanError as exc:
            raise Refused(str(exc)) from None
    else:
        try:
            entry = table.load().find(model["provider"], model["model"])
        except table.PriceTableError as exc:
            raise Refused(str(exc)) from None
        if entry is None:
            return tournament
        price = entry.price
        click.echo(f"{model['model']}: priced from the price table ({entry.key}, read {entry.read}, {entry.source})",
                   err=True)
    return replace(tournament, prices={model["model"]: price})


def _print_run(summary: Any, prices: Any) -> None:
    """What the run played and spent: games played now and kept, and per model the calls, tokens and cost."""
    click.echo(f"games: {sum(summary.played.values())} played now, {sum(summary.skipped.values())} kept, "
               f"{sum(summary.invalid.values())} forfeited")
    for model, used in sorted(summary.usage.items()):
        cost = used.cost(prices.get(model))
        click.echo(f"{model}: {used.calls:,} calls ({used.replayed_calls:,} from the response cache), "
                   f"{used.input_tokens:,} input and {used.output_tokens:,} output tokens, "
                   + ("no price" if cost is None else f"USD {cost:,.2f}"))


def _verify(job: Job, parallel: int, price_text: str | None, cache_dir: Path | None, no_cache: bool,
            secret_env: str) -> int:
    """Plan, check, play and read the verification; the exit status of its verdict."""
    from runner import holdout, verify
    from runner.run import CannotStart, check_models, default_cache_dir, run

    try:
        epochs = holdout.shipped()  # the installed package's: the file `gamenight validate` checks against
        epoch, secret = holdout.current_secret(epochs, os.environ.get(secret_env), secret_env)
    except holdout.HoldoutError as exc:
        raise Refused(str(exc)) from None
    if job.earlier is not None and job.earlier.verify.commitment != epoch.commitment:
        raise Refused(f"{job.out} was dealt in epoch {job.earlier.verify.epoch}, which has ended: its held-out deals "
                      "can no longer be added to; verify into a new folder with --out")
    commit = _commit_for(job, dry_run=False)
    _date_commitment(job, epoch, commit)
    tournament = verify.tournament_for(job.suite, job.row, job.agent, epoch=epoch, commit=commit, secret=secret,
                                       deals=job.deals, replays=job.replays)
    tournament = _priced(tournament, price_text)
    prompts = _prompt_version(job)
    try:
        asyncio.run(check_models(tournament.llm_agents(), tournament.providers))
    except CannotStart as exc:
        raise Refused(str(exc)) from None
    record = cache_dir or default_cache_dir()
    total = len(tournament.plan())
    click.echo(f"verify-{job.row.name}: {job.deals} held-out deals of epoch {epoch.epoch}"
               + (f" and {job.replays} of the row's deals played again" if job.replays else "")
               + f" -> {job.out}", err=True)
    started, done = time.monotonic(), [0]

    def progress(planned: Any, status: str) -> None:
        done[0] += 1
        click.echo(f"  {done[0]}/{total} {planned.game_id}: {status}", err=True)

    try:
        summary = asyncio.run(run(tournament, job.out, parallel, progress, cache_dir=None if no_cache else record,
                                  record=record, prompt_version=prompts))
    except CannotStart as exc:
        raise Refused(str(exc)) from None
    _print_run(summary, tournament.prices)
    if not summary.ok:
        failed = summary.failures + [f"{game}: {why}" for game, why in summary.not_played]
        raise Refused(f"{len(failed)} game(s) of the verification were not played ({failed[0]}"
                      f"{'; ...' if len(failed) > 1 else ''}): run the same command again to play them")
    click.echo(f"played in {time.monotonic() - started:,.0f} s", err=True)
    return _verdict(job)


def _date_commitment(job: Job, epoch: Any, commit: str) -> None:
    """Git must date the epoch's commitment (Refused if no commit holds it); a note when it came
    after the row's merge commit (the deals are then still unknown to the row's contributor, but the
    secret was not fixed before the row existed)."""
    from runner import holdout, verify

    dated = verify.commitment_commit(job.row_folder, Path(holdout.__file__).with_name(holdout.EPOCHS_FILE),
                                     epoch.commitment)
    if dated is None:
        raise Refused(f"epoch {epoch.epoch}'s commitment is in no commit of this checkout: commit {holdout.EPOCHS_PATH} "
                      "(and merge it to main) before verifying, so that git dates it before the deals are drawn")
    if not verify.is_ancestor(job.row_folder, dated[0], commit):
        click.echo(f"note: epoch {epoch.epoch}'s commitment (commit {dated[0][:12]}, {dated[1]}) came after the row's "
                   f"merge commit {commit[:12]}: its held-out deals are unknown to the row's contributor, but the "
                   "secret was not fixed before the row existed", err=True)


def _prompt_version(job: Job) -> str | None:
    """The prompt set the row's model was prompted with (its replays say), for every verification
    game: its deals played again must be asked what the row was asked."""
    import json

    found = set()
    for path in sorted(job.row_folder.glob("*.jsonl")):
        try:
            with open(path, encoding="utf-8") as handle:
                header = json.loads(handle.readline())
        except (OSError, ValueError):
            continue
        for player in header.get("players") or ():
            agent = player.get("agent") if isinstance(player, dict) else None
            if isinstance(agent, dict) and agent.get("kind") == "llm" and agent.get("prompt_version"):
                found.add(str(agent["prompt_version"]))
    if len(found) > 1:
        raise Refused(f"{job.row_folder}: the row's games were prompted with several prompt sets "
                      f"({', '.join(sorted(found))}); a verification asks what the row was asked")
    return next(iter(found), None)


def read_folder(folder: Path, tournament: str) -> tuple[list[Any], list[str]]:
    """The games of `tournament` in `folder`, each checked by `gamenight validate`'s rules (the
    outcome is the one the rules recompute); and the files left out as invalid."""
    from runner.rerun.validate import check_file
    from runner.verify import played

    found, invalid = [], []
    for path in sorted(folder.glob("*.jsonl")):
        checked = check_file(path)
        header = checked.header
        if header is None or header.get("tournament") != tournament:
            continue
        if not checked.ok:
            invalid.append(path.name)
            continue
        game = played(header, checked.outcome or {}, (r.data for r in checked.records))
        if game is not None:
            found.append(game)
    return found, invalid


def _verdict(job: Job) -> int:
    """Read the row and the verification as the scorer reads them, print the evidence and the
    verdict line (the last line of stdout), and return the exit status."""
    from runner import verify

    row, row_invalid = read_folder(job.row_folder, job.row.name)
    checked, invalid = read_folder(job.out, f"verify-{job.row.name}")
    if invalid or row_invalid:
        names = invalid or row_invalid
        raise Refused(f"{len(names)} replay(s) fail `gamenight validate` ({names[0]}, ...): no verdict on games "
                      "that are not valid")
    found = verify.assess(row, checked, verify.cycles_for(job.suite))
    if found is None:
        raise Refused("no held-out deal of a game the row played was found in the verification")
    by_game = found["held_out"]["by_game"]
    click.echo(f"\nheld-out deals by game: " + ", ".join(f"{g} {v['value'] * 100:.0f}% of {v['n']}"
                                                        for g, v in sorted(by_game.items())))
    click.echo(verify.verdict_line(found))
    return INCONSISTENT if found["state"] == "inconsistent" else CONSISTENT

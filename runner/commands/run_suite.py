"""`gamenight run --suite NAME --model PROVIDER:MODEL`: a ranked suite's row for one candidate,
planned stage by stage, its folder and model checked before anything is priced or played, and
played up to a number of stages, an interval width or a budget."""

from __future__ import annotations

import asyncio
from dataclasses import dataclass, replace
from pathlib import Path
from typing import TYPE_CHECKING

import click

from runner.commands.playing import Playing, play, play_games
from runner.commands.report import exit_if_failed, print_usage
from runner.plan import Tournament
from runner.progress import Progress
from runner.run import CannotStart, estimated_stage_cost
from runner.tournament import PlanError, price_option

if TYPE_CHECKING:
    from runner.suite import Candidate, Suite


@dataclass(frozen=True)
class SuiteRequest:
    """The options of `run` that choose and play a suite's row."""

    suite_ref: str | None
    model_ref: str | None
    label: str | None
    stages: int | None
    until_width: float | None
    budget: float | None
    price_text: str | None

    @property
    def stepping(self) -> bool:
        """Whether the row is played stage after stage until a width or a budget says stop."""
        return self.until_width is not None or self.budget is not None

    @property
    def asked(self) -> bool:
        """Whether any of these options is given (then the run is a suite's row)."""
        return bool(self.suite_ref or self.model_ref or self.price_text) or self.stepping or self.stages is not None


@dataclass(frozen=True)
class SuiteRow:
    """The row a suite run plays: the suite, the candidate in its seat, and how far to play it."""

    suite: Suite
    candidate: Candidate
    request: SuiteRequest


def plan_row(request: SuiteRequest, variable: str | None, out: Path | None,
             dry_run: bool) -> tuple[Tournament, SuiteRow]:
    """The stages to play first (or to price) and the row; PlanError for options that do not go together."""
    if not (request.suite_ref and request.model_ref):
        raise PlanError("--suite and --model go together: gamenight run --suite ranked --model "
                        "provider:model[@base_url]")
    if request.stepping and dry_run:
        raise PlanError("--until-width and --budget play until a stage boundary; --dry-run prices "
                        "stages 1..--stages instead")
    chosen, who = _candidate(request.suite_ref, request.model_ref, request.label, variable)
    tournament = _stages(chosen, who, 1 if request.stepping else request.stages or 1, request.price_text, out)
    if request.budget is not None and not tournament.prices:
        raise PlanError("--budget needs the model's --price IN/OUT (a built-in candidate costs nothing)")
    return tournament, SuiteRow(chosen, who, request)


def play_row(tournament: Tournament, row: SuiteRow, playing: Playing) -> None:
    """Check the folder and the model, then play the planned stages, or stage after stage."""
    check_start(tournament, playing.out, playing.record)
    if row.request.stepping:
        _play_until(tournament, row, playing)
    else:
        play(tournament, playing)


def check_start(tournament: Tournament, out: Path, record: Path) -> None:
    """Before a suite's row is priced or played: the folder is this row's and nobody else's, and
    the candidate's key and server answer (one cheap request); a one-line error otherwise."""
    from runner.run import check_models, check_plan_folder, row_refusal

    try:
        check_plan_folder(tournament, out)
        refusal = row_refusal(tournament, out, record)
        if refusal is not None:
            raise CannotStart(refusal)
        models = tournament.llm_agents()
        if models:  # a slow server takes up to CHECK_TIMEOUT_S to answer: say what is waited for
            with Progress() as progress, progress.task("checking the model's key and server"):
                asyncio.run(check_models(models, tournament.providers))
    except CannotStart as exc:
        raise click.ClickException(f"cannot start: {exc}") from None


def _candidate(suite_ref: str, model_ref: str, label: str | None,
               variable: str | None) -> tuple[Suite, Candidate]:
    """The suite `--suite` names and the candidate of `--model` (under `--label`, reading `--key-env`)."""
    from runner import suite as suites

    chosen = suites.find(suite_ref)
    return chosen, suites.candidate(chosen, model_ref, label, variable)


def _stages(chosen: Suite, who: Candidate, stages: int, price_text: str | None, out: Path | None) -> Tournament:
    """Stages 1..N of a suite for the candidate `who` (never fewer than the output folder's
    plan already holds: a smaller --stages must not orphan games played before), with its price."""
    from runner import suite as suites

    name = suites.tournament_name(chosen, who.label)
    planned = _planned_stages(out or Path("replays") / name, name)
    if planned > stages:
        click.echo(f"the folder already plans stages 1..{planned} of this row; keeping them all", err=True)
    tournament = suites.tournament_for(chosen, who, max(stages, planned))
    if price_text:
        models = {agent.spec["model"] for agent in tournament.llm_agents()}
        if not models:
            raise PlanError("--price: a built-in candidate costs nothing")
        price = price_option(price_text)
        tournament = replace(tournament, prices={model: price for model in models})
    return tournament


def _planned_stages(out: Path, name: str) -> int:
    """The stages the suite plan in `out` holds for tournament `name` (0 if none is there)."""
    from runner import tomlfile
    from runner.run import PLAN_FILE as RUN_PLAN

    try:
        raw = tomlfile.parse((out / RUN_PLAN).read_bytes(), 1024 * 1024)
    except (OSError, tomlfile.TomlError):
        return 0  # none, or unreadable: the run itself says why when it writes its plan
    suite = raw.get("suite")
    stages = suite.get("stages") if isinstance(suite, dict) and raw.get("name") == name else None
    return stages if isinstance(stages, int) and not isinstance(stages, bool) and 0 < stages <= 1000 else 0


def _play_until(first: Tournament, row: SuiteRow, playing: Playing) -> None:
    """Play a suite row stage after stage (each a run of stages 1..k, which plays only stage k's
    new games) until the stages `until_width` asks for are played (`suite.stages_for_width`: the
    fewest after which a row winning half of every game has an interval narrower than it, decided
    before any game, so that stopping tells nothing about the results), the next stage would pass
    `budget`, or `most` stages are planned; it stops at stage boundaries only."""
    from runner import suite as suites

    chosen, who, out = row.suite, row.candidate, playing.out
    until_width, budget, most = row.request.until_width, row.request.budget, row.request.stages or 1000
    target = suites.stages_for_width(chosen, until_width, most) if until_width is not None else None
    if until_width is not None:
        click.echo(f"--until-width {until_width:g}: " + (
            f"{target} stage{'s' if target != 1 else ''}, after which a row winning half of every game has a 95% "
            f"interval narrower than {until_width:g} (the number of stages depends on the width alone, so stopping "
            "cannot bias the score)" if target else
            f"no number of stages up to {most} (--stages) makes every row's interval narrower than {until_width:g}; "
            f"playing up to {most}"))
    spent = last_stage = 0.0
    stage = first.suite.stages if first.suite else 1  # a folder's plan may hold more stages already
    while True:
        tournament = replace(suites.tournament_for(chosen, who, stage), prices=first.prices)
        if budget is not None and not last_stage:  # no stage played yet: its price is the dry run's
            last_stage = estimated_stage_cost(tournament, stage)
            if spent + last_stage > budget:
                click.echo(f"stopped: stage {stage} (about USD {last_stage:,.2f} by the dry run) would pass the "
                           f"budget of USD {budget:,.2f}")
                return
        summary = play_games(tournament, playing, len(tournament.matchups))
        print_usage(summary.usage, tournament.prices, summary.spent)
        exit_if_failed(summary)
        cost = sum(u.cost(tournament.prices.get(m)) or 0.0 for m, u in summary.usage.items())
        spent += cost
        last_stage = cost or last_stage  # the stage just played, or (all of it kept) the last price known
        now = suites.standing(out, tournament.name, chosen)
        click.echo(f"stage {stage}: {now.games} games, the model won {now.wins}; its ranked score {now.score:.3f} "
                   f"(95% interval {now.low:.3f} to {now.high:.3f}, width {now.width:.3f}, as the board shows it); "
                   f"spent by this command: USD {spent:,.2f}")
        if target is not None and stage >= target:
            click.echo(f"stopped: the {target} stage{'s' if target != 1 else ''} --until-width {until_width:g} asks "
                       "for are played")
            return
        if budget is not None and spent + last_stage > budget:
            click.echo(f"stopped: another stage (about USD {last_stage:,.2f}) would pass the budget of USD {budget:,.2f}")
            return
        if stage >= most:
            click.echo(f"stopped: stage {most} (--stages) is played")
            return
        stage += 1

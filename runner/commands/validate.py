"""`gamenight validate`: check replay files against the format and the rules, and each tournament
folder against the plan `gamenight run` wrote into it."""

from __future__ import annotations

import sys
from pathlib import Path

import click

from runner.progress import Progress
from runner.replay.format import Problem, iter_replay_files
from runner.rerun.plans import PLAN_FILE, Plan, game_problems, missing_games, read_plan
from runner.rerun.validate import check_file


@click.command("validate")
@click.argument("paths", nargs=-1, required=True, type=click.Path(exists=True, path_type=Path))
@click.option("--quiet", "-q", is_flag=True, help="Print only the problems and the total.")
def validate_command(paths, quiet):
    """Check replay files (or folders of *.jsonl) against the format and the rules.

    Every replay is re-simulated with the rules engine; each problem is printed as
    FILE:LINE: FIELD: MESSAGE. A folder holding a tournament's plan (tournament.toml, written by
    `gamenight run`) must hold exactly the games it plans. Exits with status 1 if any replay or
    plan has a problem.
    """
    # A folder's replays take a while (a second or more per hundred): its progress is shown.
    with Progress(quiet=quiet or not any(Path(p).is_dir() for p in paths)) as progress:
        problems, checked, bad, bad_plans = validate_paths(paths, progress)
    for problem in problems:
        click.echo(str(problem))
    if not quiet or bad or bad_plans:
        plans = f"; {bad_plans} tournament plan(s) with problems" if bad_plans else ""
        click.echo(f"checked {checked} replay(s): {checked - bad} accepted, {bad} with problems{plans}",
                   err=bool(bad or bad_plans))
    if checked == 0:
        raise click.ClickException("no *.jsonl replay files found")
    if bad or bad_plans:
        sys.exit(1)


def validate_paths(paths, progress: Progress | None = None) -> tuple[list[Problem], int, int, int]:
    """Check every replay under `paths`, and each tournament folder against its plan, counted in
    `progress`; (problems, files checked, files with problems, plans with problems)."""
    problems: list[Problem] = []
    owners: dict[str, str] = {}
    plans: dict[Path, Plan | None] = {}
    present: dict[Path, set[str]] = {}
    checked = bad = 0
    files = list(iter_replay_files(paths))
    for path in (progress or Progress(quiet=True)).each(files, "checking replays", unit="replays"):
        checked += 1
        folder = path.parent
        if folder not in plans:
            plans[folder] = _plan_in(folder)
        plan = plans[folder] if plans[folder] is not None and plans[folder].tournament is not None else None
        result = check_file(path, probes=plan.tournament.probes if plan is not None else None,
                            planned=plan.games.get(path.stem) if plan is not None else None)
        file_problems = list(result.problems)
        header = result.header
        if header is not None and isinstance(header.get("game_id"), str):
            game_id = header["game_id"]
            if path.name != f"{game_id}.jsonl":
                file_problems.append(Problem(str(path), 1, f"the file must be named {game_id}.jsonl "
                                             "after its game id", "game_id"))
            if game_id in owners:
                file_problems.append(Problem(str(path), 1, f"game id already used by {owners[game_id]}",
                                             "game_id"))
            else:
                owners[game_id] = str(path)
            if plan is not None and result.ok:
                file_problems.extend(game_problems(plan, str(path), header))
        present.setdefault(folder, set()).add(path.stem)
        if file_problems:
            bad += 1
            problems.extend(file_problems)
    whole = [Path(p).resolve() for p in paths if Path(p).is_dir()]
    bad_plans = 0
    for folder, plan in plans.items():
        if plan is None:
            continue
        plan_problems = list(plan.problems)
        if plan.tournament is not None and any(root == folder.resolve() or root in folder.resolve().parents
                                               for root in whole):
            missing = missing_games(plan, present.get(folder, set()))
            plan_problems.extend([missing] if missing else [])
        if plan_problems:
            bad_plans += 1
            problems.extend(plan_problems)
    return problems, checked, bad, bad_plans


def _plan_in(folder: Path) -> Plan | None:
    """The tournament plan `gamenight run` wrote into a folder of replays, read and planned; None if none."""
    path = folder / PLAN_FILE
    try:
        raw = path.read_bytes()
    except FileNotFoundError:
        return None
    except OSError as exc:
        plan = Plan(str(path), folder.name)
        plan.problems.append(Problem(str(path), 0, f"cannot read the tournament plan: {exc.strerror or exc}"))
        return plan
    return read_plan(str(path), folder.name, raw)

"""What the maintainers' run plays: the roster's missing stages and the pending verifications,
priced by the dry run and kept while they fit the budget.

For each model of the roster (runner/roster.toml) the stages its row (replays/<suite>-<version>-
<label>/) lacks; for each ranked row a pull request contributed (who added what is read from git
history, site_builder/sources.py) without replays/verify-<row>/, a verification of `deals`
held-out deals. Every item is priced by the estimate `gamenight run --dry-run` prints
(runner/run.py: each deal dealt as it will be and played offline), with the roster's price or the
price table's (runner/prices.toml). They are taken in a fixed order (the verifications, oldest row
first; then stage 1 of every model that lacks it, in the roster's order, then stage 2 of each, ...)
and kept while the estimates add up to no more than the budget; a stage left out leaves out the
later stages of its row.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import asdict, dataclass, fields
from pathlib import Path
from typing import Any

from runner import prices as price_table
from runner import suite as suites
from runner.plan import Price, Tournament
from runner.rerun.plans import PLAN_FILE, read_plan
from runner.roster import Roster, RosterModel
from runner.run import estimated_stage_cost
from runner.tournament import PlanError
from site_builder import git, sources
from site_builder.submission.report import escape_markdown

STAGE = "stage"
VERIFY = "verify"
#: The folder a row's verification writes (gamenight verify): replays/verify-<row>/.
VERIFY_PREFIX = "verify-"
#: Items named one by one in the budget line before "and N more".
MAX_LEFT_OUT_NAMED = 8
#: Below a thousandth of a cent, a sum is exact enough to compare with the budget.
EPSILON_USD = 1e-9


class RosterPlanError(ValueError):
    """The plan cannot be made or read (no git history, a plan file that is not one); one line."""


@dataclass
class Item:
    """One thing the run may play: a stage of a roster model's row, or a verification of a
    contributed row. `model` is what `--model` is given; `why` says why it is left out."""

    kind: str
    row: str                  # the folder under replays/ it plays into (a verification: the row verified)
    model: str
    suite: str                # <name>-<version>
    key_env: str | None = None
    price: dict[str, float | None] | None = None
    estimate: float | None = None
    stage: int = 0            # a stage item's stage
    label: str = ""           # a stage item's row label
    deals: int = 0            # a verification's held-out deals
    kept: bool = False
    why: str = ""

    @property
    def title(self) -> str:
        if self.kind == STAGE:
            return f"stage {self.stage} of {self.label}"
        return f"verification of {self.row} ({self.deals} held-out deals)"

    @property
    def short(self) -> str:
        """The title as the budget line names an item left out."""
        return f"stage {self.stage} of {self.label}" if self.kind == STAGE else f"verification of {self.row}"

    @property
    def folder(self) -> str:
        """The folder under replays/ the item writes."""
        return self.row if self.kind == STAGE else VERIFY_PREFIX + self.row

    @property
    def cost_price(self) -> Price | None:
        return Price(**self.price) if self.price is not None else None


@dataclass
class RosterPlan:
    roster: str
    suite: str
    budget: float
    items: list[Item]

    @property
    def kept(self) -> list[Item]:
        return [i for i in self.items if i.kept]

    @property
    def left_out(self) -> list[Item]:
        return [i for i in self.items if not i.kept]

    @property
    def estimate(self) -> float:
        return sum(i.estimate or 0.0 for i in self.kept)

    def budget_line(self) -> str:
        """"USD x of y: n stages of m models, k verifications; left out: ..." (what the run plays)."""
        stages = [i for i in self.kept if i.kind == STAGE]
        verifications = [i for i in self.kept if i.kind == VERIFY]
        models = len({i.label for i in stages})
        left = [f"{i.short} ({usd(i.estimate) if i.why == OVER_BUDGET else i.why})" for i in self.left_out]
        more = len(left) - MAX_LEFT_OUT_NAMED
        named = left[:MAX_LEFT_OUT_NAMED] + ([f"and {more} more"] if more > 0 else [])
        return (f"USD {self.estimate:,.2f} of {self.budget:,.2f}: {counted(len(stages), 'stage')} of "
                f"{counted(models, 'model')}, {counted(len(verifications), 'verification')}; left out: "
                f"{', '.join(named) if named else 'nothing'}")

    def markdown(self) -> str:
        """The plan for the job summary: every item, its estimate and whether it is played; the budget line."""
        lines = ["### The maintainers' run: the plan", "",
                 f"Roster `{escape_markdown(self.roster)}`, suite {escape_markdown(self.suite)}, a budget of "
                 f"USD {self.budget:,.2f}. Each item is priced by the dry run's estimate (`gamenight run --suite "
                 "... --dry-run`: every deal dealt as it will be and played offline, docs/llm.md).", ""]
        if not self.items:
            lines += ["Nothing is wanted: every model of the roster has the stages it asks for, and no contributed "
                      "row waits for its verification.", ""]
        else:
            lines += ["| # | item | model | USD (dry run) | plan |", "|---:|---|---|---:|---|"]
            for n, item in enumerate(self.items, start=1):
                plan = "to play" if item.kept else f"left out: {item.why}"
                lines.append(f"| {n} | {escape_markdown(item.title)} | {escape_markdown(item.model)} | "
                             f"{usd(item.estimate).removeprefix('USD ')} | {escape_markdown(plan)} |")
            lines.append("")
        lines += [f"**{escape_markdown(self.budget_line())}**", ""]
        return "\n".join(lines)

    def to_json(self) -> dict[str, Any]:
        return {"roster": self.roster, "suite": self.suite, "budget": self.budget,
                "items": [asdict(i) for i in self.items]}


OVER_BUDGET = "over the budget"


def usd(value: float | None) -> str:
    return "—" if value is None else f"USD {value:,.2f}" if value >= 0.005 or value == 0 else f"USD {value:,.4f}"


def counted(n: int, word: str) -> str:
    return f"{n} {word}{'s' if n != 1 else ''}"


# -- what is wanted -----------------------------------------------------------------------------

def make(roster: Roster, replays: Path, table: price_table.PriceTable | None = None) -> RosterPlan:
    """The run's plan: what is wanted, priced, ordered and fitted to the roster's budget."""
    table = table if table is not None else price_table.load()
    contributed = contributed_rows(replays)
    verifications = pending_verifications(roster, replays, contributed, table)
    per_model = [missing_stages(model, roster, replays, contributed, table) for model in roster.models]
    order = {model.label: n for n, model in enumerate(roster.models)}
    rounds = sorted((item for stages in per_model for item in stages), key=lambda i: (i.stage, order[i.label]))
    plan = RosterPlan(roster.where, f"{roster.suite.name}-{roster.suite.version}", roster.budget,
                      [*verifications, *rounds])
    fit(plan)
    return plan


def fit(plan: RosterPlan) -> None:
    """Keep the items in order while their estimates add up to no more than the budget; a stage
    left out leaves out the later stages of its row."""
    total = 0.0
    stopped: dict[str, str] = {}
    for item in plan.items:
        if item.kind == STAGE and item.row in stopped:
            item.why = item.why or f"stage {stopped[item.row]} is left out"
        elif not item.why and item.estimate is not None and total + item.estimate > plan.budget + EPSILON_USD:
            item.why = OVER_BUDGET
        if item.why:
            if item.kind == STAGE:
                stopped.setdefault(item.row, str(item.stage))
            continue
        item.kept = True
        total += item.estimate or 0.0


def contributed_rows(replays: Path) -> dict[str, sources.Source]:
    """Every folder of `replays` that a pull request first added, with that pull request's source
    (who owns a row is who first added games to it: site_builder/submission/ownership.py)."""
    root = _toplevel(replays)
    try:
        first = sources.first_added_by(root, "HEAD")
    except sources.HistoryError as exc:
        raise RosterPlanError(f"cannot tell the contributed rows from the maintainers': {exc}") from None
    prefix = replays.resolve().relative_to(root).as_posix()
    if prefix != "replays":  # first_added_by reads replays/ at the repository's top
        raise RosterPlanError(f"{replays}: the replays folder must be replays/ at the top of the repository {root}")
    return {folder: source for folder, source in first.items() if source.contributed}


def _toplevel(replays: Path) -> Path:
    if not replays.is_dir():
        raise RosterPlanError(f"{replays}: no such folder of replays")
    try:
        return Path(git.text(replays, "rev-parse", "--show-toplevel").strip()).resolve()
    except git.GitError as exc:
        raise RosterPlanError(f"{replays}: not in a git checkout, so who added each row cannot be read ({exc})"
                              ) from None


def missing_stages(model: RosterModel, roster: Roster, replays: Path, contributed: Mapping[str, sources.Source],
                   table: price_table.PriceTable) -> list[Item]:
    """The stages the model's row lacks, each priced (or all left out, saying why)."""
    suite = roster.suite
    who = model.candidate(suite)
    row = suites.tournament_name(suite, who.label)
    agent = who.agent("*")
    price = model.price or _listed(table, agent.spec)
    held, problem = held_stages(replays / row, row, agent.canonical())
    if row in contributed:
        problem = (f"replays/{row}/ is {contributed[row].label}'s row; give the roster's model another label")
    wanted = range(held + 1, model.stages + 1)
    items = [Item(STAGE, row, model.ref, f"{suite.name}-{suite.version}", model.key_env, _price_json(price),
                  stage=stage, label=model.label) for stage in wanted]
    if not items:
        return []
    if problem or price is None:
        why = problem or (f"no price: runner/prices.toml has no {agent.spec['provider']}:{agent.spec['model']}; "
                          "give the roster's line price = \"IN/OUT\"")
        for item in items:
            item.why = why
        return items
    tournament = _priced(suites.tournament_for(suite, who, model.stages), price)
    for item in items:
        item.estimate = estimated_stage_cost(tournament, item.stage)
    return items


def held_stages(folder: Path, name: str, agent: str) -> tuple[int, str]:
    """The stages 1..k whose every game the row's folder holds, and why it cannot be grown ("" if it can)."""
    plan_path = folder / PLAN_FILE
    if not plan_path.is_file():
        return 0, (f"replays/{folder.name}/ holds replays but no {PLAN_FILE}" if any(folder.glob("*.jsonl")) else "")
    plan = read_plan(str(plan_path), folder.name, plan_path.read_bytes())
    if plan.tournament is None or plan.problems:
        return 0, f"its plan {plan_path} has problems: {plan.problems[0] if plan.problems else 'unreadable'}"
    tournament = plan.tournament
    ref = tournament.suite
    if ref is None or tournament.name != name:
        return 0, f"replays/{folder.name}/ holds the tournament {tournament.name!r}, not this row"
    seated = tournament.agents.get(ref.model)
    if seated is None or seated.canonical() != agent:
        return 0, f"replays/{folder.name}/ plays another model or settings: give the roster's model another label"
    present = {p.stem for p in folder.glob("*.jsonl")}
    by_stage: dict[int, set[str]] = {}
    for game_id, planned in plan.games.items():
        stage = planned.matchup.deal.stage if planned.matchup.deal is not None else 0
        by_stage.setdefault(stage, set()).add(game_id)
    held = 0
    while held + 1 in by_stage and by_stage[held + 1] <= present:
        held += 1
    return held, ""


def pending_verifications(roster: Roster, replays: Path, contributed: Mapping[str, sources.Source],
                          table: price_table.PriceTable) -> list[Item]:
    """A verification for every contributed ranked row without replays/verify-<row>/, oldest row first."""
    found = []
    rows = sorted(contributed.items(), key=lambda kv: (kv[1].date or "", kv[0]))
    for row, _ in rows:
        if row.startswith(VERIFY_PREFIX) or (replays / (VERIFY_PREFIX + row)).exists():
            continue
        ranked = _ranked_row(replays / row)
        if ranked is None:
            continue
        suite_name, provider, model = ranked
        found.append(_verification(roster, row, suite_name, provider, model, table))
    return found


def _ranked_row(folder: Path) -> tuple[str, str, str] | None:
    """(suite, provider, model) of a suite row whose candidate is a language model; None otherwise."""
    plan_path = folder / PLAN_FILE
    if not plan_path.is_file():
        return None
    plan = read_plan(str(plan_path), folder.name, plan_path.read_bytes())
    tournament = plan.tournament
    if tournament is None or plan.problems or tournament.suite is None:
        return None
    agent = tournament.agents.get(tournament.suite.model)
    if agent is None or not agent.is_llm:
        return None
    return f"{tournament.suite.name}-{tournament.suite.version}", str(agent.spec["provider"]), str(agent.spec["model"])


def _verification(roster: Roster, row: str, suite_name: str, provider: str, model: str,
                  table: price_table.PriceTable) -> Item:
    item = Item(VERIFY, row, f"{provider}:{model}", suite_name, deals=roster.verify.deals)
    if not roster.verify.deals:
        item.why = "the roster has no [verify]"
        return item
    reach = roster.verify.reach(provider, model)
    if reach is None:
        item.why = f"no way to reach {provider}:{model}: say how under [verify.models] of the roster"
        return item
    item.model, item.key_env = reach.ref, reach.key_env
    suite = suites.find(suite_name)
    try:
        who = suites.candidate(suite, reach.ref, None, reach.key_env)
    except PlanError as exc:
        item.why = f"cannot play {reach.ref}: {exc}"
        return item
    agent = who.agent("*")
    price = reach.price or _listed(table, agent.spec)
    item.price = _price_json(price)
    if price is None:
        item.why = (f"no price: runner/prices.toml has no {agent.spec['provider']}:{agent.spec['model']}; give it "
                    "under [verify.models]")
        return item
    stage_one = _priced(suites.tournament_for(suite, who, 1), price)
    item.estimate = estimated_stage_cost(stage_one, 1) / suite.stage_size * item.deals
    return item


def _listed(table: price_table.PriceTable, spec: Mapping[str, Any]) -> Price | None:
    entry = table.find(spec.get("provider"), spec.get("model"))
    return entry.price if entry is not None else None


def _priced(tournament: Tournament, price: Price) -> Tournament:
    from dataclasses import replace

    return replace(tournament, prices={str(a.spec["model"]): price for a in tournament.llm_agents()})


def _price_json(price: Price | None) -> dict[str, float | None] | None:
    return asdict(price) if price is not None else None


# -- the plan as a file, between the step that plans and the one that plays ----------------------

def write(plan: RosterPlan, path: Path) -> None:
    path.write_text(json.dumps(plan.to_json(), indent=1) + "\n", encoding="utf-8")


def read(path: Path) -> RosterPlan:
    """A plan `gamenight roster plan --plan-file` wrote; RosterPlanError naming the file and field."""
    try:
        raw = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError) as exc:
        raise RosterPlanError(f"{path}: not a roster plan: {exc}") from None
    if not isinstance(raw, dict) or set(raw) != {"roster", "suite", "budget", "items"}:
        raise RosterPlanError(f"{path}: not a roster plan (it holds roster, suite, budget and items)")
    if not isinstance(raw["budget"], (int, float)) or not isinstance(raw["items"], list):
        raise RosterPlanError(f"{path}: budget: a number, and items: a list")
    names = {f.name for f in fields(Item)}
    items = []
    for n, entry in enumerate(raw["items"]):
        if not isinstance(entry, dict) or set(entry) != names or entry["kind"] not in (STAGE, VERIFY):
            raise RosterPlanError(f"{path}: items[{n}]: not an item of a roster plan")
        items.append(Item(**entry))
    return RosterPlan(str(raw["roster"]), str(raw["suite"]), float(raw["budget"]), items)

"""site_builder/roster/plan.py: what the maintainers' run plays, in what order, within what budget."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
from click.testing import CliRunner

from runner import roster
from site_builder.roster import plan as roster_plan
from site_builder.roster.cli import roster as roster_command
from site_builder.roster.plan import STAGE, VERIFY, Item, RosterPlan
from tests.submission.submission_repos import GitRepo

REPO = Path(__file__).resolve().parents[2]
ALICE = "alice <5001+alice@users.noreply.github.com>"


def stage(label: str, n: int, usd: float | None, why: str = "") -> Item:
    return Item(STAGE, f"ranked-1-{label}", f"openai:{label}", "ranked-1", estimate=usd, stage=n, label=label, why=why)


def verification(row: str, usd: float | None, why: str = "") -> Item:
    return Item(VERIFY, row, "openai:x", "ranked-1", estimate=usd, deals=12, why=why)


def fitted(budget: float, *items: Item) -> list[tuple[str, str]]:
    plan = RosterPlan("runner/roster.toml", "ranked-1", budget, list(items))
    roster_plan.fit(plan)
    return [(i.short, "kept" if i.kept else i.why) for i in plan.items]


@pytest.mark.parametrize("budget, items, expected", [
    (0.5, [verification("ranked-1-bob", 0.1), stage("a", 1, 0.3), stage("b", 1, 0.3), stage("a", 2, 0.3)],
     [("verification of ranked-1-bob", "kept"), ("stage 1 of a", "kept"), ("stage 1 of b", "over the budget"),
      ("stage 2 of a", "over the budget")]),
    # What fits after a dearer item was left out is still played.
    (0.5, [stage("a", 1, 0.6), stage("b", 1, 0.2)], [("stage 1 of a", "over the budget"), ("stage 1 of b", "kept")]),
    # A stage left out leaves its row's later stages out, whatever they cost.
    (5.0, [stage("a", 1, 6.0), stage("b", 1, 0.1), stage("a", 2, 0.1)],
     [("stage 1 of a", "over the budget"), ("stage 1 of b", "kept"), ("stage 2 of a", "stage 1 is left out")]),
    (5.0, [stage("a", 1, None, "no price"), stage("a", 2, None, "no price")],
     [("stage 1 of a", "no price"), ("stage 2 of a", "no price")]),
    # The budget is the most spent: exactly the budget fits.
    (0.5, [stage("a", 1, 0.25), stage("b", 1, 0.25)], [("stage 1 of a", "kept"), ("stage 1 of b", "kept")]),
    (0.5, [verification("ranked-1-bob", None, "no way to reach openai_compatible:m"), stage("a", 1, 0.5)],
     [("verification of ranked-1-bob", "no way to reach openai_compatible:m"), ("stage 1 of a", "kept")]),
])
def test_items_are_kept_in_order_while_they_fit(budget, items, expected):
    assert fitted(budget, *items) == expected


def test_the_budget_line_counts_what_is_played_and_names_what_is_not():
    plan = RosterPlan("r", "ranked-1", 1.0, [stage("a", 1, 0.3), stage("a", 2, 0.31), stage("b", 1, 0.3),
                                             verification("ranked-1-c", 0.2), verification("ranked-1-d", None, "no price")])
    roster_plan.fit(plan)
    assert plan.budget_line() == ("USD 0.91 of 1.00: 3 stages of 2 models, 0 verifications; left out: verification "
                                  "of ranked-1-c (USD 0.20), verification of ranked-1-d (no price)")
    one = RosterPlan("r", "ranked-1", 0.5, [verification("ranked-1-c", 0.2), stage("a", 1, 0.3), stage("a", 2, 0.3)])
    roster_plan.fit(one)
    assert one.budget_line() == ("USD 0.50 of 0.50: 1 stage of 1 model, 1 verification; left out: stage 2 of a "
                                 "(USD 0.30)")
    nothing = RosterPlan("r", "ranked-1", 2.0, [stage("a", 1, 0.3), stage("b", 1, 0.3)])
    roster_plan.fit(nothing)
    assert nothing.budget_line() == "USD 0.60 of 2.00: 2 stages of 2 models, 0 verifications; left out: nothing"
    many = RosterPlan("r", "ranked-1", 0.1, [stage(f"m{n}", 1, 1.0) for n in range(11)])
    roster_plan.fit(many)
    assert many.budget_line().endswith("stage 1 of m7 (USD 1.00), and 3 more")


def test_a_row_name_from_a_pull_request_is_shown_as_text():
    hostile = "ranked-1-x*y*<img src=x onerror=alert(1)>@everyone"
    plan = RosterPlan("runner/roster.toml", "ranked-1", 1.0, [verification(hostile, 2.0)])
    roster_plan.fit(plan)
    text = plan.markdown()
    assert "<img" not in text and "*y*" not in text and "@everyone" not in text
    assert "\\*y\\*" in text


def test_the_plan_file_round_trips_and_a_broken_one_is_one_line(tmp_path):
    plan = RosterPlan("runner/roster.toml", "ranked-1", 1.0, [stage("a", 1, 0.3), verification("ranked-1-c", None, "x")])
    roster_plan.fit(plan)
    path = tmp_path / "plan.json"
    roster_plan.write(plan, path)
    assert roster_plan.read(path) == plan
    path.write_text('{"roster": "r", "suite": "s", "budget": 1, "items": [{"kind": "dance"}]}', encoding="utf-8")
    with pytest.raises(roster_plan.RosterPlanError, match=r"plan.json: items\[0\]: not an item of a roster plan"):
        roster_plan.read(path)
    path.write_text("[]", encoding="utf-8")
    with pytest.raises(roster_plan.RosterPlanError, match="not a roster plan"):
        roster_plan.read(path)


@pytest.fixture()
def board(tmp_path: Path) -> GitRepo:
    """A main whose ranked-1-gemma3-270m row a pull request of alice added (#5)."""
    repo = GitRepo(tmp_path / "repo")
    repo.write("README.md", "# gamenight\n")
    repo.commit("The project")
    shutil.copytree(REPO / "replays" / "ranked-1-gemma3-270m", repo.path / "replays" / "ranked-1-gemma3-270m")
    repo.commit("Add ranked-1-gemma3-270m (#5)", author=ALICE)
    return repo


def roster_of(tmp_path: Path, lines: str, verify: str = "") -> roster.Roster:
    path = tmp_path / "roster.toml"
    path.write_text(f'budget_usd = 5\n[models]\n{lines}\n{verify}', encoding="utf-8")
    return roster.load(path)


def test_what_cannot_be_played_is_left_out_saying_why(board, tmp_path):
    plan = roster_plan.make(roster_of(tmp_path, '''gemma3-270m = { model = "openai:gpt-4", stages = 1 }
unpriced = { model = "openai:gpt-nobody-prices", stages = 2 }''', '[verify]\ndeals = 6\nkeys = { openai = "K" }\n'),
                            board.path / "replays")
    said = {i.short: i.why for i in plan.items}
    assert said == {
        "verification of ranked-1-gemma3-270m": "no way to reach openai_compatible:gemma-3-270m-q4_k_m: say how under "
                                                "[verify.models] of the roster",
        "stage 1 of gemma3-270m": "replays/ranked-1-gemma3-270m/ is pull request #5 by @alice's row; give the "
                                  "roster's model another label",
        "stage 1 of unpriced": "no price: runner/prices.toml has no openai:gpt-nobody-prices; give the roster's line "
                               "price = \"IN/OUT\"",
        "stage 2 of unpriced": "no price: runner/prices.toml has no openai:gpt-nobody-prices; give the roster's line "
                               "price = \"IN/OUT\"",
    }
    assert not plan.kept and plan.budget_line().startswith("USD 0.00 of 5.00: 0 stages of 0 models, 0 verifications")


def test_a_row_already_verified_or_the_maintainers_own_is_not_verified_again(board, tmp_path):
    roster_ = roster_of(tmp_path, "", '[verify]\ndeals = 6\n')
    assert [i.row for i in roster_plan.make(roster_, board.path / "replays").items] == ["ranked-1-gemma3-270m"]
    board.write("replays/verify-ranked-1-gemma3-270m/x.jsonl", "{}\n")
    board.commit("the verification")
    assert roster_plan.make(roster_, board.path / "replays").items == []
    mine = GitRepo(tmp_path / "mine")
    shutil.copytree(REPO / "replays" / "ranked-1-gemma3-270m", mine.path / "replays" / "ranked-1-gemma3-270m")
    mine.commit("The maintainers' Gemma row")  # pushed by a maintainer: theirs, nothing to verify
    assert roster_plan.make(roster_, mine.path / "replays").items == []


def test_the_plan_needs_git_history_to_tell_whose_rows_are_whose(tmp_path):
    (tmp_path / "replays").mkdir()
    result = CliRunner().invoke(roster_command, ["plan", "--roster", str(REPO / "runner" / "roster.toml"),
                                                 "--replays", str(tmp_path / "replays")])
    assert result.exit_code == 1 and "not in a git checkout, so who added each row cannot be read" in result.output
    assert "Traceback" not in result.output and len(result.output.strip().splitlines()) == 1


def test_a_bad_roster_stops_the_plan_with_its_line(tmp_path):
    path = tmp_path / "roster.toml"
    path.write_text("budget_usd = -1\n", encoding="utf-8")
    result = CliRunner().invoke(roster_command, ["plan", "--roster", str(path)])
    assert result.exit_code == 1 and f"Error: {path}:1: budget_usd: must be the most one run may spend" in result.output

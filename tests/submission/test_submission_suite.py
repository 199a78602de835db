"""The submission check and the ranked suite: a suite row is exactly stages 1..k of the suite for its
model, and a later pull request may add only its next stages, by its owner.

A model served by the fake OpenAI-compatible server plays stages 1 and 2 once for the module
(`gamenight run --suite ranked`); stage 1 alone is the same games with the plan of stage 1.
"""

from __future__ import annotations

import re
import tomllib
from importlib import resources
from pathlib import Path

import pytest
import tomli_w
from click.testing import CliRunner
from submission_repos import GitRepo, verdict

from runner import roster, suite
from runner.cli import main as gamenight
from tests.llm.fakes import FakeOpenAI
from tests.llm.test_tournament_llm import legal_reply

ALICE = "alice <1234+alice@users.noreply.github.com>"
ALICE_ID = "1234"
BOT_EMAIL = "41898282+github-actions[bot]@users.noreply.github.com"
ROW = "ranked-1-suite-model"
PLAN = f"replays/{ROW}/tournament.toml"


@pytest.fixture(scope="module")
def stages(tmp_path_factory: pytest.TempPathFactory) -> dict[int, dict[str, bytes]]:
    """Stage 1, and stages 1..2, of the suite as `gamenight run --suite` writes them: repository path -> bytes."""
    out = tmp_path_factory.mktemp("suite") / ROW
    with FakeOpenAI(legal_reply) as server:
        model = f"openai_compatible:suite-model@{server.base_url}"
        result = CliRunner().invoke(gamenight, ["run", "--suite", "ranked", "--model", model, "--stages", "2",
                                                "--out", str(out), "--no-cache", "--parallel", "4"])
    assert result.exit_code == 0, result.output
    both = {f"replays/{ROW}/{p.name}": p.read_bytes() for p in sorted(out.iterdir()) if p.is_file()}
    plan = suite.tournament_for(suite.find("ranked"), suite.candidate(suite.find("ranked"), model), 1)
    first_ids = {p.game_id for p in plan.plan()}
    one = {path: raw for path, raw in both.items() if Path(path).stem in first_ids}
    one[PLAN] = plan.plan_file().encode()
    assert len(one) == 24 and len(both) == 47
    return {1: one, 2: both}


def with_stage_one_on_main(repo: GitRepo, stages) -> None:
    """alice's stage 1, squash-merged into main (#7) while the pull request is open."""
    repo.git("checkout", "-q", "main")
    repo.write_all(stages[1])
    repo.commit(f"Add {ROW} stage 1 (#7)", author=ALICE)
    repo.git("checkout", "-q", "-b", "next")


def edited_plan(stages, change) -> bytes:
    raw = tomllib.loads(stages[1][PLAN].decode())
    change(raw)
    return tomli_w.dumps(raw).encode()


def test_stages_one_to_k_of_the_suite_are_accepted(repo, stages):
    repo.write_all(stages[2])
    code, summary = verdict(repo, "bob")
    assert code == 0 and "✅ accepted: 46 new replay(s), every check passed" in summary, summary


def _werewolf(raw: dict) -> dict:
    return next(m for m in raw["matchups"] if m["game"] == "werewolf")


def _swap_seat(raw: dict) -> None:
    matchup = raw["matchups"][0]
    lineup, seat = matchup["lineup"], matchup["deal"]["seat"]
    other = (seat + 1) % len(lineup)
    lineup[seat], lineup[other] = lineup[other], lineup[seat]
    matchup["deal"]["seat"] = other


def _skip_stage(raw: dict) -> None:
    raw["suite"]["stages"] = 2
    for matchup in raw["matchups"]:
        matchup["deal"]["stage"] = 2


@pytest.mark.parametrize("change, expected", [
    (lambda raw: raw["matchups"][3].update(seed=raw["matchups"][3]["seed"] + 1),
     f"{PLAN}: matchups[3].seed: the suite deals chameleon deal 3 with seed"),
    (_swap_seat, f"{PLAN}: matchups[0].deal.seat: the candidate plays seat"),
    (lambda raw: _werewolf(raw)["lineup"].__setitem__((_werewolf(raw)["deal"]["seat"] + 1) % 8, "random"),
     "lineup[", ),
    (lambda raw: raw["matchups"][0]["rules"].update(words=20), f"{PLAN}: matchups[0].rules: the suite plays chameleon"),
    (_skip_stage, f"{PLAN}: matchups: stages 1..2 of the suite ranked-1 are 46 deals; the plan has 23"),
], ids=["seed", "seat", "opponent", "variant", "skipped stage"])
def test_a_plan_that_is_not_the_suites_is_refused_naming_the_file_and_field(repo, stages, change, expected):
    repo.write_all({**stages[1], PLAN: edited_plan(stages, change)})
    code, summary = verdict(repo, "bob")
    assert code == 1 and "❌ refused" in summary
    assert expected in summary, summary
    if "lineup[" in expected:
        assert re.search(r"matchups\[\d+\]\.lineup\[\d\]: the suite seats 'werewolf/str\w+' here", summary), summary


def test_the_owner_adds_the_next_stage_of_her_row(repo, stages):
    with_stage_one_on_main(repo, stages)
    repo.write_all({path: raw for path, raw in stages[2].items() if path not in stages[1] or path == PLAN})
    code, summary = verdict(repo, "alice", ALICE_ID)
    assert code == 0 and "✅ accepted: 23 new replay(s), every check passed" in summary, summary


def test_another_owner_may_not_add_a_stage_to_her_row(repo, stages):
    with_stage_one_on_main(repo, stages)
    repo.write_all({path: raw for path, raw in stages[2].items() if path not in stages[1] or path == PLAN})
    code, summary = verdict(repo, "bob")
    assert code == 1 and f"tournament '{ROW}' belongs to @alice" in summary, summary


def test_the_maintainers_run_adds_the_next_stage_of_its_row_as_the_maintainers(repo, stages):
    """The maintainers' run opens its pull requests as the GitHub Actions bot: stage 1, squash-merged,
    is the maintainers' row, and the run's next pull request adds stage 2 to it; nobody else may."""
    repo.git("checkout", "-q", "main")
    repo.write_all(stages[1])
    repo.commit(f"Maintainers' run: stage 1 of {ROW} (#7)", author=f"github-actions[bot] <{BOT_EMAIL}>")
    repo.git("checkout", "-q", "-b", "next")
    repo.write_all({path: raw for path, raw in stages[2].items() if path not in stages[1] or path == PLAN})
    code, summary = verdict(repo, "github-actions[bot]", "41898282")
    assert code == 0 and "✅ accepted: 23 new replay(s), every check passed" in summary, summary
    code, summary = verdict(repo, "bob", "99")
    assert code == 1 and f"tournament '{ROW}' belongs to the maintainers" in summary, summary


def test_a_later_pull_request_adds_stages_it_never_replaces_them(repo, stages):
    with_stage_one_on_main(repo, stages)
    repo.write(PLAN, edited_plan(stages, lambda raw: None).decode())  # the same stage again, rewritten
    code, summary = verdict(repo, "alice", ALICE_ID)
    assert code == 1 and "main already holds stages 1..1 of this row" in summary, summary


def test_only_a_suite_rows_plan_may_change(repo, stages):
    repo.git("checkout", "-q", "main")
    repo.write("replays/plain/tournament.toml", 'name = "plain"\n[[matchups]]\ngame = "public_good"\n'
               'lineup = ["random", "random", "random"]\n')
    repo.commit("a plain plan (#8)", author=ALICE)
    repo.git("checkout", "-q", "-b", "next")
    repo.write("replays/plain/tournament.toml", 'name = "plain"\n[[matchups]]\ngame = "public_good"\ngames = 2\n'
               'lineup = ["random", "random", "random"]\n')
    code, summary = verdict(repo, "alice", ALICE_ID)
    assert code == 1 and "only a suite's row grows, by its next stages" in summary, summary


@pytest.mark.parametrize("folder", ["verify-x", "Verify_ranked-1-suite-model", "ver1fy-x"])
def test_a_submission_may_not_add_a_verification(repo, stages, folder):
    """replays/verify-*/ are the maintainers' verifications (`gamenight verify`): evidence about
    another row, never a submission's, whatever the files in them hold."""
    repo.write_all({path.replace(f"replays/{ROW}/", f"replays/{folder}/"): raw for path, raw in stages[1].items()})
    code, summary = verdict(repo, "bob")
    assert code == 1 and "❌ refused" in summary
    assert f"replays/{folder}/tournament.toml: '{folder}' starts like replays/verify-<row>/, the maintainers' " \
           "verifications of suite rows" in summary, summary
    assert "a submission may not add one" in summary


@pytest.fixture(scope="module")
def roster_row(tmp_path_factory: pytest.TempPathFactory) -> dict[str, bytes]:
    """Stage 1 of the suite under the label of a model of the shipped roster (runner/roster.toml)."""
    label = roster.load(resources.files("runner").joinpath("roster.toml")).models[-1].label
    row = suite.tournament_name(suite.find("ranked"), label)
    out = tmp_path_factory.mktemp("roster") / row
    with FakeOpenAI(legal_reply) as server:
        result = CliRunner().invoke(gamenight, ["run", "--suite", "ranked", "--model",
                                                f"openai_compatible:made-up@{server.base_url}", "--label", label,
                                                "--out", str(out), "--no-cache", "--parallel", "4"])
    assert result.exit_code == 0, result.output
    return {f"replays/{row}/{p.name}": p.read_bytes() for p in sorted(out.iterdir()) if p.is_file()}


def test_a_row_of_the_roster_is_the_maintainers_run_to_play(repo, roster_row):
    """The roster names the rows the maintainers' run will play: a stranger who sent one first would
    own its folder, and the run (which writes only its own rows) could never put that model on the
    board. The run's own pull request, opened as the bot, brings it."""
    row = next(iter(roster_row)).split("/")[1]
    repo.write_all(roster_row)
    code, summary = verdict(repo, "bob")
    assert code == 1 and f"replays/{row}/tournament.toml: name: the tournament name '{row}' is a row of the " \
        "maintainers' roster (runner/roster.toml)" in summary, summary
    code, summary = verdict(repo, "github-actions[bot]", "41898282")
    assert code == 0 and "✅ accepted: 23 new replay(s), every check passed" in summary, summary

"""The ranked suite (runner/suite.py, runner/suites/): its file, its deals and the plans it makes."""

from __future__ import annotations

import json
import tomllib
from collections import Counter
from dataclasses import replace
from pathlib import Path

import pytest

from runner import games, suite
from runner.seeds import rng_for
from runner.tournament import PlanError, from_dict

SHIPPED = Path(suite.__file__).parent / "suites" / "ranked-1.toml"


@pytest.fixture(scope="module")
def ranked() -> suite.Suite:
    return suite.find("ranked")


def test_the_name_finds_the_newest_shipped_version_and_a_path_or_version_works_too(ranked):
    assert (ranked.name, ranked.version) == ("ranked", 1)
    assert suite.find("ranked-1") == ranked
    assert suite.find(str(SHIPPED)).games == ranked.games
    with pytest.raises(suite.SuiteError, match=r"--suite 'nope': no such suite; shipped: ranked \(versions 1\)"):
        suite.find("nope")


def test_a_stage_gives_every_role_and_seat_to_the_candidate_equally_often(ranked):
    assert ranked.stage_size == 23
    one = suite.deals(ranked, 8)  # 8 stages: every Werewolf role at every one of its 8 seats once
    assert len(one) == 8 * 23
    for game in ranked.games:
        mine = [d for d in one if d.game.game == game.game]
        per_stage = Counter(d.stage for d in mine)
        assert set(per_stage.values()) == {game.deals_per_stage}
        if game.roles:
            stage_one = Counter(d.role for d in mine if d.stage == 1)
            assert set(stage_one) == set(game.roles) and len(set(stage_one.values())) == 1
            slots = Counter((d.role, d.seat) for d in mine[: len(game.roles) * game.players])
            assert len(slots) == len(game.roles) * game.players  # each role at each seat, once
        else:
            assert Counter(d.seat for d in mine if d.stage == 1) == Counter(range(game.players))


def test_each_deal_gives_the_candidate_its_role_at_its_seat(ranked):
    for one in suite.deals(ranked, 2):
        rules = games.get(one.game.game)
        setup = rules.deal(dict(one.game.rules), rng_for(one.seed, "deal"))
        assert rules.role_of(dict(one.game.rules), setup, one.seat) == (one.role or rules.roles[0])


def test_seeds_come_from_the_suite_alone_the_same_for_every_candidate(ranked):
    model = suite.tournament_for(ranked, suite.candidate(ranked, "openai:gpt-4o-mini"), 2)
    other = suite.tournament_for(ranked, suite.candidate(ranked, "anthropic:claude-x@https://example.org/v1"), 2)
    reference = suite.tournament_for(ranked, suite.candidate(ranked, "builtin:scripted"), 2)
    assert [m.seed for m in model.matchups] == [m.seed for m in other.matchups] == [m.seed for m in reference.matchups]
    for a, b in zip(model.matchups, other.matchups):
        assert a.deal == b.deal
        opponents = [x.name for i, x in enumerate(a.lineup) if i != a.deal.seat]
        assert opponents == [x.name for i, x in enumerate(b.lineup) if i != b.deal.seat]
        assert a.lineup[a.deal.seat].name == "gpt-4o-mini" and b.lineup[b.deal.seat].name == "claude-x"
    first = model.matchups[0]
    assert first.seed == next(suite.deal_seed(ranked, "chameleon", 0, attempt) for attempt in range(100)
                              if _role(first, suite.deal_seed(ranked, "chameleon", 0, attempt)) == "chameleon")
    assert model.name == "ranked-1-gpt-4o-mini" and reference.name == "ranked-1-builtin-scripted"
    # stage 2's deals are stage 1's and more: a larger N adds games, it never changes the first ones
    assert [m.seed for m in suite.tournament_for(ranked, suite.candidate(ranked, "builtin:random"), 1).matchups] \
        == [m.seed for m in model.matchups[:23]]


def _role(matchup, seed: int) -> str:
    rules = games.get(matchup.game)
    return rules.role_of(dict(matchup.rules), rules.deal(dict(matchup.rules), rng_for(seed, "deal")), matchup.deal.seat)


def test_the_opponents_sit_from_the_seat_after_the_candidates_on(ranked):
    plan = suite.tournament_for(ranked, suite.candidate(ranked, "builtin:random"), 1)
    for matchup in plan.matchups:
        game = next(g for g in ranked.games if g.game == matchup.game)
        n = len(matchup.lineup)
        assert [matchup.lineup[(matchup.deal.seat + k) % n].name for k in range(1, n)] == [a.name for a in game.opponents]


def test_the_plan_file_plans_the_same_games_again(ranked):
    plan = suite.tournament_for(ranked, suite.candidate(ranked, "openai:gpt-4o-mini"), 2)
    again = from_dict(tomllib.loads(plan.plan_file()), "again")
    assert [p.game_id for p in again.plan()] == [p.game_id for p in plan.plan()]
    assert [p.seed for p in again.plan()] == [m.seed for m in plan.matchups]
    assert again.suite == plan.suite and [m.deal for m in again.matchups] == [m.deal for m in plan.matchups]
    assert suite.plan_problems(again) == []
    assert len({p.game_id for p in plan.plan()}) == 46


def _raw(plan) -> dict:
    return tomllib.loads(plan.plan_file())


@pytest.fixture(scope="module")
def two_stages(ranked) -> dict:
    return _raw(suite.tournament_for(ranked, suite.candidate(ranked, "openai:gpt-4o-mini"), 2))


def _problems(raw: dict) -> list[tuple[str, str]]:
    return suite.plan_problems(from_dict(raw, "plan"))


def test_a_changed_seed_is_refused(two_stages):
    raw = tomllib.loads(_copy(two_stages))
    raw["matchups"][5]["seed"] += 1
    (where, why), = _problems(raw)
    assert where == "matchups[5].seed" and "seed follows from the suite alone" in why


def _copy(raw: dict) -> str:
    import tomli_w

    return tomli_w.dumps(raw)


def test_a_changed_seat_is_refused(two_stages):
    raw = tomllib.loads(_copy(two_stages))
    matchup = raw["matchups"][0]
    lineup = matchup["lineup"]
    matchup["deal"]["seat"] = 2
    lineup[0], lineup[2] = lineup[2], lineup[0]  # the model moved to seat 2 with the deal's seed kept
    (where, why), = _problems(raw)
    assert where == "matchups[0].deal.seat" and "plays seat 0" in why


def test_a_changed_opponent_is_refused(two_stages):
    raw = tomllib.loads(_copy(two_stages))
    werewolf = next(i for i, m in enumerate(raw["matchups"]) if m["game"] == "werewolf")
    seat = raw["matchups"][werewolf]["deal"]["seat"]
    other = (seat + 1) % 8
    raw["matchups"][werewolf]["lineup"][other] = "random"
    (where, why), = _problems(raw)
    assert where == f"matchups[{werewolf}].lineup[{other}]" and "werewolf/strategic" in why


def test_a_changed_variant_is_refused(two_stages):
    raw = tomllib.loads(_copy(two_stages))
    raw["matchups"][0]["rules"]["words"] = 20
    (where, why), = _problems(raw)
    assert where == "matchups[0].rules"


def test_a_skipped_stage_is_refused(ranked, two_stages):
    raw = tomllib.loads(_copy(two_stages))
    raw["matchups"] = raw["matchups"][23:]  # stage 2 alone
    for matchup in raw["matchups"]:
        matchup["deal"]["stage"] = 1  # even relabelled as stage 1, its deals are not stage 1's
    found = _problems(raw)
    assert found[0][0] == "matchups" and "46 deals; the plan has 23" in found[0][1]
    assert found[1][0] == "matchups[0].game" or found[1][0] == "matchups[0].seed"
    raw = tomllib.loads(_copy(two_stages))
    raw["suite"]["stages"] = 3  # says 1..3 but holds 1..2
    assert _problems(raw)[0] == ("matchups", "stages 1..3 of the suite ranked-1 are 69 deals; the plan has 46")


def test_a_plan_must_name_its_row_as_the_suite_does(two_stages):
    raw = tomllib.loads(_copy(two_stages))
    raw["name"] = "ranked-1-my-favourite"
    assert _problems(raw)[0][0] == "name"
    raw = tomllib.loads(_copy(two_stages))
    raw["suite"]["model"] = "someone-else"
    assert _problems(raw)[0][0] == "suite.model"
    raw = tomllib.loads(_copy(two_stages))
    raw["agents"]["other"] = {"provider": "openai", "model": "gpt-4o"}
    werewolf = next(i for i, m in enumerate(raw["matchups"]) if m["game"] == "werewolf")
    raw["matchups"][werewolf]["lineup"][raw["matchups"][werewolf]["deal"]["seat"]] = "other"
    assert _problems(raw)[0] == ("matchups", "the candidate's seat holds the same agent in every deal of a game")
    for matchup in raw["matchups"]:
        if matchup["game"] == "werewolf":
            matchup["lineup"][matchup["deal"]["seat"]] = "other"
    assert _problems(raw)[0] == ("matchups", "the candidate's seat holds one language model in every deal of the suite")
    raw = tomllib.loads(_copy(two_stages))
    raw["suite"]["version"] = 9
    assert _problems(raw)[0] == ("suite", "no suite ranked-9 is shipped with gamenight (shipped: ranked-1)")


def test_a_reference_row_is_the_suites_own(ranked):
    raw = _raw(suite.tournament_for(ranked, suite.candidate(ranked, "builtin:scripted"), 1))
    assert _problems(raw) == []
    raw["suite"]["model"] = raw["name"] = "ranked-1-builtin-strong"
    assert suite.plan_problems(from_dict(raw, "plan"))[0][0] == "suite.model"


def test_a_plan_s_deals_are_checked_when_read():
    base = {"name": "t", "matchups": [{"game": "prisoners_dilemma", "lineup": ["random"] * 3, "games": 2, "seed": 5}]}
    with pytest.raises(PlanError, match=r"matchups\[0\]: seed: .* plays one game \(games = 1\)"):
        from_dict(base)
    twice = {"name": "t", "matchups": [{"game": "prisoners_dilemma", "lineup": ["random"] * 3, "seed": 5}] * 2}
    with pytest.raises(PlanError, match=r"matchups\[1\]: seed: matchups\[0\] plans the same game"):
        from_dict(twice)
    dealt = {"name": "t", "matchups": [{"game": "prisoners_dilemma", "lineup": ["random"] * 3, "seed": 5,
                                        "deal": {"stage": 1, "index": 0, "seat": 0}}]}
    with pytest.raises(PlanError, match=r"matchups\[0\]: deal: a deal belongs to a suite's plan"):
        from_dict(dealt)
    with pytest.raises(PlanError, match=r"t: suite: must be a table of name, version, stages, model"):
        from_dict({**dealt, "suite": {"name": "ranked"}}, "t")
    suited = {**dealt, "suite": {"name": "ranked", "version": 1, "stages": 1, "model": "m"}}
    suited["matchups"] = [{**dealt["matchups"][0], "deal": {"stage": 2, "index": 0, "seat": 0}}]
    with pytest.raises(PlanError, match=r"deal.stage: 2 is past the plan's 1 stage"):
        from_dict(suited, "t")


# -- the suite file's own checks ----------------------------------------------------------------

def _suite_file(tmp_path: Path, text: str) -> Path:
    path = tmp_path / "mine-1.toml"
    path.write_text(text)
    return path


MINIMAL = """name = "mine"
version = 1

[games.prisoners_dilemma]
deals_per_stage = 3
opponents = ["prisoners_dilemma/tit_for_tat", "prisoners_dilemma/always_defect"]
"""


@pytest.mark.parametrize("broken, message", [
    (MINIMAL.replace("deals_per_stage = 3", "deals_per_stage = 2"),
     ":4: games.prisoners_dilemma.deals_per_stage: must be a whole multiple of 3"),
    (MINIMAL.replace('["prisoners_dilemma/tit_for_tat", ', "["),
     ":4: games.prisoners_dilemma.opponents: Prisoner's Dilemma with these rules seats 3: name the 2 opponents"),
])
def test_a_broken_game_table_is_named_by_file_line_and_field(tmp_path, broken, message):
    with pytest.raises(suite.SuiteError) as caught:
        suite.load(_suite_file(tmp_path, broken))
    assert str(caught.value).startswith(str(tmp_path / "mine-1.toml") + message)


@pytest.mark.parametrize("text, message", [
    (MINIMAL + "[games.chameleon]\ndeals_per_stage = 2\nroles = [\"chameleon\"]\nopponents = [\"random\", \"random\", "
     "\"random\"]\n", ":7: games.chameleon.roles: the candidate's roles in turn must list each role"),
    (MINIMAL.replace('"prisoners_dilemma/always_defect"', '"openai:gpt-4o"'),
     ":4: games.prisoners_dilemma.opponents[1]: gpt-4o is not a built-in agent"),
    (MINIMAL.replace('"prisoners_dilemma/always_defect"', '"public_good/free_rider"'),
     "games.prisoners_dilemma.opponents[1]: public_good/free_rider (public_good/free_rider) does not play"),
    (MINIMAL + "colour = 1\n", "unknown key(s) ['colour']"),
    (MINIMAL.replace("version = 1", "version = 0"), "version: must be a whole number from 1"),
    (MINIMAL + "[references.best]\nchameleon = \"random\"\n", ":7: references.best: name one built-in agent for each "
     "game of the suite (prisoners_dilemma)"),
    (MINIMAL + "[games\n", ":7: not valid TOML"),
])
def test_a_broken_suite_file_gets_one_line_naming_where(tmp_path, text, message):
    with pytest.raises(suite.SuiteError) as caught:
        suite.load(_suite_file(tmp_path, text))
    assert message in str(caught.value) and "\n" not in str(caught.value)


def test_a_candidate_is_a_model_a_reference_or_a_strategy_of_every_game(ranked):
    assert suite.candidate(ranked, "openai_compatible:gemma-3-270m@http://127.0.0.1:8000/v1").label == "gemma-3-270m"
    assert suite.candidate(ranked, "builtin:random").label == "builtin-random"
    with pytest.raises(suite.SuiteError, match="has no reference 'strong'; its references: scripted"):
        suite.candidate(ranked, "builtin:strong")
    with pytest.raises(suite.SuiteError, match="--model 'nonsense': name a model as provider:model"):
        suite.candidate(ranked, "nonsense")


def test_a_suite_plan_is_refused_past_its_limits(ranked):
    with pytest.raises(suite.SuiteError, match="--stages: must be from 1 to 1000"):
        suite.tournament_for(ranked, suite.candidate(ranked, "builtin:random"), 0)
    long = replace(suite.candidate(ranked, "builtin:random"), label="x" * 80)
    with pytest.raises(suite.SuiteError, match="too long"):
        suite.tournament_for(ranked, long, 1)


# -- a suite's deal in its replay header (format version 5) --------------------------------------

@pytest.fixture(scope="module")
def reference_row(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """Stage 1 of the reference row builtin:random, played with `gamenight run --suite`."""
    from click.testing import CliRunner

    from runner.cli import main

    out = tmp_path_factory.mktemp("suite") / "ranked-1-builtin-random"
    result = CliRunner().invoke(main, ["run", "--suite", "ranked", "--model", "builtin:random", "--out", str(out),
                                       "--no-cache", "--cache-dir", str(out.parent / "cache")])
    assert result.exit_code == 0, result.output
    return out


def _lone(reference_row: Path, game: str, change=None) -> list:
    from runner.replay.format import encode
    from runner.rerun.validate import check_bytes

    path = next(reference_row.glob(f"*-{game}-*.jsonl"))
    records = [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()]
    if change:
        change(records[0])
    return check_bytes(str(path), encode(records)).problems  # without its plan: the header alone


def test_a_suite_games_header_names_its_deal_and_is_checked_against_the_suite(reference_row):
    plan = tomllib.loads((reference_row / "tournament.toml").read_text(encoding="utf-8"))
    by_seed = {m["seed"]: m for m in plan["matchups"]}
    for path in reference_row.glob("*.jsonl"):
        header = json.loads(path.read_text(encoding="utf-8").split("\n", 1)[0])
        deal = by_seed[header["seed"]]["deal"]
        assert header["version"] == 5
        assert header["suite"] == {"name": "ranked", "version": 1, "stage": 1, "deal": deal["index"],
                                   "seat": deal["seat"]}
    assert _lone(reference_row, "werewolf") == []


@pytest.mark.parametrize("change, field, message", [
    (lambda h: h["suite"].update(seat=(h["suite"]["seat"] + 1) % 8), "suite.seat", "has"),
    (lambda h: h["suite"].update(stage=2), "suite.stage", "in the suite ranked-1 has 1 here"),
    (lambda h: h["suite"].update(version=7), "suite", "no suite ranked-7 is shipped"),
    (lambda h: h.update(version=4), "suite", "needs replay format version 5; this file says version 4"),
])
def test_a_header_that_is_not_its_suite_deal_is_refused(reference_row, change, field, message):
    problems = _lone(reference_row, "werewolf", change)
    assert any(p.field == field and message in p.message for p in problems), problems

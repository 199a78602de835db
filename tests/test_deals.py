"""The seeds a shipped suite deals are known exactly: every deal of its first MAX_STAGES stages,
for its game, and nothing else."""

from __future__ import annotations

import tomllib

import pytest

from runner import deals, suite
from runner.tournament import PlanError, from_dict


@pytest.fixture(scope="module")
def ranked() -> suite.Suite:
    return suite.find("ranked")


@pytest.mark.parametrize("stage", [1, 2, 500, deals.MAX_STAGES])
def test_every_deal_of_a_stage_is_reserved_for_its_game(ranked, stage):
    for game in ranked.games:
        for index in range((stage - 1) * game.deals_per_stage, stage * game.deals_per_stage):
            dealt = suite.deal(ranked, game, index)
            assert deals.reserved(game.game)[dealt.seed] == deals.ReservedDeal("ranked", 1, index, stage)


def test_nothing_else_is_reserved(ranked):
    """Past the last stage, the draws a deal tried before its own, a seed one off, another game's."""
    for game in ranked.games:
        reserved = deals.reserved(game.game)
        assert len(reserved) == deals.MAX_STAGES * game.deals_per_stage
        assert suite.deal(ranked, game, deals.MAX_STAGES * game.deals_per_stage).seed not in reserved
        first = suite.deal(ranked, game, 0).seed
        assert first + 1 not in reserved and first - 1 not in reserved
        attempt = 0
        while (tried := suite.deal_seed(ranked, game.game, 0, attempt)) != first:
            assert tried not in reserved  # a draw that dealt the candidate another role
            attempt += 1
        others = [g for g in ranked.games if g.game != game.game]
        assert all(first not in deals.reserved(other.game) for other in others)


def test_an_ordinary_tournament_may_not_name_one(ranked):
    werewolf = next(g for g in ranked.games if g.game == "werewolf")
    dealt = suite.deal(ranked, werewolf, 5)
    table = {"name": "t", "matchups": [{"game": "werewolf", "seed": dealt.seed, "lineup": ["random"] * 8}]}
    with pytest.raises(PlanError) as refused:
        from_dict(table, "t.toml")
    assert str(refused.value) == (
        f"t.toml: matchups[0].seed: {dealt.seed} is the seed of werewolf deal 5 (stage 1) of the suite ranked-1: a "
        "suite's deals are played only in its rows (`gamenight run --suite ranked`), so no other tournament may play "
        "one; leave the seed out or choose another")
    table["matchups"][0]["seed"] += 1
    assert from_dict(table, "t.toml").matchups[0].seed == dealt.seed + 1


def test_a_suites_own_plan_plays_them(ranked):
    plan = suite.tournament_for(ranked, suite.candidate(ranked, "builtin:scripted"), 1)
    again = from_dict(tomllib.loads(plan.plan_file()), "plan")
    assert [m.seed for m in again.matchups] == [m.seed for m in plan.matchups]

"""The seeds a shipped suite deals are known exactly: every deal of its first MAX_STAGES stages,
for its game, and nothing else."""

from __future__ import annotations

import dataclasses
import hashlib
import tomllib
from importlib import resources

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


# -- the table of draws shipped beside each suite ---------------------------------------------

def _suite_files() -> list[tuple[str, bytes, str]]:
    folder = resources.files("runner").joinpath("suites")
    return [(file_name, folder.joinpath(file_name).read_bytes(),
             folder.joinpath(deals.draws_name(file_name)).read_text(encoding="utf-8"))
            for versions in deals.shipped_suites().values() for file_name in versions.values()]


def test_every_shipped_table_of_draws_is_the_derivation():
    """The table says which draw each deal's seed is; dealing every deal again must say the same
    (`python -m runner.deals` writes it anew after a suite is added)."""
    for file_name, data, table in _suite_files():
        assert table == deals.render_draws(file_name, data), f"{file_name}: run python -m runner.deals"
    assert all(shipped.draws is not None for shipped in deals._shipped_dealings())  # read, so used


@pytest.fixture()
def no_tables(monkeypatch):
    """The shipped suites as if no table of draws were beside them; the reserved seeds derived anew."""
    shipped = tuple(dataclasses.replace(s, draws=None) for s in deals._shipped_dealings())
    monkeypatch.setattr(deals, "_shipped_dealings", lambda: shipped)
    deals.reserved.cache_clear()
    yield
    deals.reserved.cache_clear()


def test_without_a_table_the_deals_are_dealt_again(ranked, no_tables):
    chameleon = next(g for g in ranked.games if g.game == "chameleon")
    reserved = deals.reserved("chameleon")
    assert len(reserved) == deals.MAX_STAGES * chameleon.deals_per_stage
    for index in (0, 1, 2, 3, 3997):
        assert reserved[suite.deal(ranked, chameleon, index).seed].index == index


def test_a_table_is_read_only_for_its_own_suite_file():
    """Made for another text of the file, cut short, a stage out of turn, a game not dealt by role,
    a stage of another length or an attempt past MAX_DEAL_TRIES: not this suite's table."""
    file_name, data, table = _suite_files()[0]
    dealings = next(s.dealings for s in deals._shipped_dealings() if f"{s.name}-{s.version}.toml" == file_name)
    digest = hashlib.sha256(data).hexdigest()
    read = deals.read_draws(table, digest, dealings)
    assert read is not None and sorted(read) == ["chameleon", "undercover", "werewolf"]
    assert len(read["werewolf"]) == deals.MAX_STAGES * 6
    lines = table.splitlines()
    last = lines[-1].split(" ")
    broken = {
        "another file": table.replace(digest, hashlib.sha256(data + b"\n").hexdigest()),
        "cut short": "\n".join(lines[:-1]),
        "a stage out of turn": "\n".join(lines[:-2] + [lines[-1], lines[-2]]),
        "a game of one role": table + "public_good 1 0 0 0\n",
        "a short stage": "\n".join(lines[:-1] + [" ".join(last[:-1])]),
        "an attempt too many": "\n".join(lines[:-1] + [" ".join(last[:-1] + [str(deals.MAX_DEAL_TRIES)])]),
        "not a number": "\n".join(lines[:-1] + [" ".join(last[:-1] + ["٣"])]),
        "a bare word": table + "werewolf\n",
    }
    for why, text in broken.items():
        assert deals.read_draws(text, digest, dealings) is None, why

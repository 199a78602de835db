"""Tournament plans: parsing, checking and deterministic seeds and ids."""

from __future__ import annotations

import pytest

from runner.tournament import PlanError, derive_seed, from_dict, from_flags, load

PD_LINEUP = ["prisoners_dilemma/tit_for_tat", "defector", "random"]


def plan_dict(**overrides):
    raw = {
        "name": "t1",
        "seed": 7,
        "agents": {"defector": {"builtin": "prisoners_dilemma/always_defect"}},
        "matchups": [{"game": "prisoners_dilemma", "games": 4, "lineup": PD_LINEUP}],
    }
    raw.update(overrides)
    return raw


def test_plan_is_deterministic_and_ids_are_unique_and_file_safe():
    first = from_dict(plan_dict()).plan()
    second = from_dict(plan_dict()).plan()
    assert [(p.seed, p.game_id) for p in first] == [(p.seed, p.game_id) for p in second]
    ids = [p.game_id for p in first]
    assert len(set(ids)) == len(ids) == 4
    assert all(i.startswith("t1-prisoners_dilemma-") and i.replace("-", "").replace("_", "").isalnum() for i in ids)


def test_ids_and_seeds_change_with_tournament_seed_and_agents():
    base = {p.game_id for p in from_dict(plan_dict()).plan()}
    assert base.isdisjoint({p.game_id for p in from_dict(plan_dict(seed=8)).plan()})
    changed = plan_dict(agents={"defector": {"builtin": "prisoners_dilemma/grim_trigger"}})
    assert base.isdisjoint({p.game_id for p in from_dict(changed).plan()})


def test_derive_seed_fits_in_63_bits_and_depends_on_every_input():
    seeds = {derive_seed(1, "m", 0), derive_seed(2, "m", 0), derive_seed(1, "n", 0), derive_seed(1, "m", 1)}
    assert len(seeds) == 4 and all(0 <= s < 2**63 for s in seeds)


def test_lineup_rotates_so_every_agent_sits_at_every_seat():
    plan = from_dict(plan_dict(matchups=[{"game": "prisoners_dilemma", "games": 3, "lineup": PD_LINEUP}])).plan()
    seats_of_tft = set()
    for planned in plan:
        names = [planned.agent_for(seat, "player").name for seat in range(3)]
        assert sorted(names) == sorted(PD_LINEUP)
        seats_of_tft.add(names.index("prisoners_dilemma/tit_for_tat"))
    assert seats_of_tft == {0, 1, 2}


@pytest.mark.parametrize("overrides, message", [
    ({"name": "bad name!"}, "name"),
    ({"seed": -1}, "seed"),
    ({"surprise": 1}, "unknown key"),
    ({"max_attempts": 0}, "max_attempts"),
    ({"created": "yesterday"}, "created"),
    ({"matchups": []}, "matchups"),
    ({"matchups": [{"game": "chess", "lineup": PD_LINEUP}]}, "unknown game 'chess'"),
    ({"matchups": [{"game": "prisoners_dilemma", "lineup": PD_LINEUP[:2]}]}, "seats 3 agents"),
    ({"matchups": [{"game": "prisoners_dilemma", "lineup": ["nobody", "random", "random"]}]},
     "'nobody' is neither"),
    ({"matchups": [{"game": "prisoners_dilemma"}]}, "either roles"),
    ({"matchups": [{"game": "prisoners_dilemma", "roles": {"player": "random"}, "lineup": PD_LINEUP}]},
     "either roles"),
    ({"matchups": [{"game": "prisoners_dilemma", "roles": {"judge": "random"}}]}, "no role(s) ['judge']"),
    ({"matchups": [{"game": "prisoners_dilemma", "rules": {"rounds": 0}, "lineup": PD_LINEUP}]},
     "rules: params.rounds"),
    ({"matchups": [{"game": "prisoners_dilemma", "games": 0, "lineup": PD_LINEUP}]}, "games"),
    ({"agents": {"x": {"builtin": "prisoners_dilemma/psychic"}}}, "unknown strategy"),
    ({"agents": {"x": {"builtin": "prisoners_dilemma/always_defect", "mood": 1}}}, "no parameter(s) ['mood']"),
    ({"agents": {"x": {"model": "gpt"}}}, "needs builtin"),
])
def test_bad_plans_are_refused_with_the_place_named(overrides, message):
    with pytest.raises(PlanError) as info:
        from_dict(plan_dict(**overrides), "my.toml")
    assert message in str(info.value)
    assert str(info.value).startswith("my.toml")


def test_agent_for_another_game_is_refused():
    raw = plan_dict(matchups=[{"game": "prisoners_dilemma",
                               "lineup": ["prisoners_dilemma/tit_for_tat", "random", "public_good/free_rider"]}])
    with pytest.raises(PlanError, match="does not play prisoners_dilemma"):
        from_dict(raw)


def test_load_reports_bad_toml_with_the_file_name(tmp_path):
    path = tmp_path / "broken.toml"
    path.write_text("name = 'x'\n[[matchups]\n", encoding="utf-8")
    with pytest.raises(PlanError, match="broken.toml: not valid TOML"):
        load(path)
    with pytest.raises(PlanError, match="cannot read"):
        load(tmp_path / "missing.toml")
    path.write_bytes(b"name = '\xff'\n")
    with pytest.raises(PlanError, match="not UTF-8"):
        load(path)


def test_from_flags_builds_a_one_matchup_tournament():
    tournament = from_flags("adhoc", "prisoners_dilemma", [], "random,random,random", {"rounds": 2}, 5, 3)
    assert len(tournament.plan()) == 5 and tournament.matchups[0].rules == {"rounds": 2}
    with pytest.raises(PlanError, match="expected ROLE=AGENT"):
        from_flags("adhoc", "prisoners_dilemma", ["player"], None, {}, 1, 0)

"""Planning and reading a verification (runner/verify.py): which deals, is the model the row's, is a
plan what `gamenight verify` plans, and what its games say."""

from __future__ import annotations

import dataclasses
from collections import Counter

import pytest

from runner import holdout
from runner import suite as suites
from runner import verify
from runner.plan import AgentSpec
from runner.tournament import PlanError, compact_model, from_dict

SUITE = suites.find("ranked-1")
SECRET = "ab" * 32
COMMIT = "c" * 40
EPOCH = holdout.Epoch(1, holdout.commitment_of(SECRET), "2026-12-01")
MODEL = "openai_compatible:m@http://127.0.0.1:8000/v1"


def row(stages: int = 2, model: str = MODEL):
    return suites.tournament_for(SUITE, suites.candidate(SUITE, model), stages)


def plan(deals: int = 23, replays: int = 5, secret: str = SECRET):
    mine = row()
    return verify.tournament_for(SUITE, mine, verify.candidate_of(mine), epoch=EPOCH, commit=COMMIT, secret=secret,
                                 deals=deals, replays=replays)


def test_held_out_deals_keep_the_suites_proportions():
    per_stage = {g.game: g.deals_per_stage for g in SUITE.games}
    stage = Counter(g.game for g, _ in verify.held_out_deals(SUITE, 23))
    assert stage == per_stage  # 23 deals: one stage's worth of every game
    assert set(Counter(g.game for g, _ in verify.held_out_deals(SUITE, 6))) == set(per_stage)  # six: one of each
    two = verify.held_out_deals(SUITE, 46)
    assert Counter(g.game for g, _ in two) == {g: 2 * n for g, n in per_stage.items()}
    for game in per_stage:  # each game's deals 0, 1, 2, ... in order: its slots in turn, as the suite's
        assert [k for g, k in two if g.game == game] == list(range(2 * per_stage[game]))


def test_the_rows_deals_played_again_follow_from_the_merge_commit():
    mine = row()
    first = verify.replayed_deals(mine, COMMIT, 10)
    assert first == verify.replayed_deals(mine, COMMIT, 10) and len(first) == 10
    assert first != verify.replayed_deals(mine, "d" * 40, 10)
    assert all(m in mine.matchups for m in first)
    assert len(verify.replayed_deals(mine, COMMIT, 100)) == 46


@pytest.mark.parametrize("url, local", [("http://127.0.0.1:8000/v1", True), ("http://localhost:1/v1", True),
                                        ("http://[::1]:8/v1", True), ("https://api.openai.com/v1", False),
                                        ("http://10.0.0.2:8000/v1", False), (None, False)])
def test_a_server_is_local_on_a_loopback_address(url, local):
    assert verify.is_local(url) is local


@pytest.mark.parametrize("spec, replayable", [
    ({"provider": "openai_compatible", "base_url": "http://127.0.0.1:8000/v1", "temperature": 0}, True),
    ({"provider": "openai_compatible", "base_url": "http://127.0.0.1:8000/v1", "temperature": 0.7, "seed": 270}, True),
    ({"provider": "openai_compatible", "base_url": "http://127.0.0.1:8000/v1", "temperature": 0.7}, False),
    ({"provider": "openai_compatible", "base_url": "https://api.example.com/v1", "temperature": 0}, False),
    ({"provider": "openai", "base_url": None, "temperature": 0, "seed": 1}, False),
])
def test_only_a_local_model_with_fixed_sampling_is_played_again_exactly(spec, replayable):
    assert verify.replayable(spec) is replayable


def test_the_model_must_be_the_rows():
    mine = verify.candidate_of(row())
    assert verify.same_model(mine, dataclasses.replace(mine, name="other-label")) is None
    moved = AgentSpec("x", {**mine.spec, "base_url": "http://127.0.0.1:9/v1"})
    assert verify.same_model(mine, moved) is None  # the port of a server on this machine is not the model
    hosted = AgentSpec("x", {**mine.spec, "base_url": "https://api.example.com/v1"})
    assert "base_url 'http://127.0.0.1:8000/v1'" in verify.same_model(mine, hosted)
    warmer = AgentSpec("x", {**mine.spec, "temperature": 0.7})
    assert verify.same_model(mine, warmer).startswith("--model is not the row's model: the row plays temperature None")
    with pytest.raises(verify.VerifyError, match="built-in agents"):
        verify.candidate_of(suites.tournament_for(SUITE, suites.candidate(SUITE, "builtin:random"), 1))


def test_a_verification_plan_round_trips_and_is_what_verify_plans():
    made = plan()
    assert made.name == "verify-ranked-1-m" and made.verify.deals == 23 and made.verify.replays == 5
    import tomllib

    again = from_dict(tomllib.loads(made.plan_file()), "tournament.toml")
    assert again.verify == made.verify and [m.deal for m in again.matchups] == [m.deal for m in made.matchups]
    assert verify.plan_problems(again, holdout.read(holdout.commitment_lines(SECRET, 1, "2026-12-01"), "f")) == []
    headers = [p.verify_header() for p in again.plan()]
    assert sum("held_out" in h for h in headers) == 23 and all(h["row"] == "ranked-1-m" for h in headers)


def _epochs(published: bool):
    text = holdout.commitment_lines(SECRET, 1, "2026-12-01") + (f'secret = "{SECRET}"\n' if published else "")
    return holdout.read(text, "runner/holdout.toml")


@pytest.mark.parametrize("change, published, field, message", [
    (lambda t: _matchup(t, 0, seed=t.matchups[0].seed + 1), True, "matchups[0].seed",
     "held-out werewolf deal 0 of ranked-1-m in epoch 1 is dealt with seed"),
    (lambda t: _matchup(t, 0, seed=t.matchups[0].seed + 1), False, None, None),
    (lambda t: dataclasses.replace(t, matchups=[t.matchups[1], t.matchups[0], *t.matchups[2:]]), False,
     "matchups[0]", "held-out deal 0 of the verification is werewolf deal 0"),
    (lambda t: _matchup(t, 23, seed=t.matchups[23].seed + 1), False, "matchups[23]",
     "a deal played again is the suite's own"),
    (lambda t: dataclasses.replace(t, verify=dataclasses.replace(t.verify, commitment="0" * 64)), False,
     "verify.commitment", "epoch 1's commitment in runner/holdout.toml is"),
    (lambda t: dataclasses.replace(t, verify=dataclasses.replace(t.verify, deals=22)), False, "matchups",
     "the verify table plans 22 held-out deals"),
], ids=["forged seed", "unpublished: trusted", "order", "replay seed", "commitment", "count"])
def test_a_plan_that_is_not_verify_s_is_refused_naming_the_field(change, published, field, message):
    found = verify.plan_problems(change(plan()), _epochs(published))
    if field is None:
        assert found == []
    else:
        assert found and found[0][0] == field and message in found[0][1], found


def _matchup(tournament, position, **changes):
    matchups = list(tournament.matchups)
    matchups[position] = dataclasses.replace(matchups[position], **changes)
    return dataclasses.replace(tournament, matchups=matchups)


@pytest.mark.parametrize("raw, message", [
    ({"name": "verify-x"}, "names starting with 'verify-' are the maintainers' verifications"),
    ({"name": "Verify-x"}, "names starting with 'verify-' are the maintainers' verifications"),
    ({"name": "verify-y", "verify": {"row": "x", "suite": "ranked", "version": 1, "epoch": 1, "commitment": "0" * 64,
                                     "commit": "1" * 40, "deals": 1, "replays": 0}},
     "the verification of 'x' is the tournament 'verify-x'"),
])
def test_a_tournament_named_like_a_verification_is_refused(raw, message):
    table = {**raw, "matchups": [{"game": "chameleon", "lineup": ["random"] * 4}]}
    with pytest.raises(PlanError, match=message):
        from_dict(table)


def played(game: str, deal: int, value: float | None, held_out: bool, replies=("a",), moves=("m",)):
    return verify.Played(game, deal, held_out, value, {"replies": list(replies), "moves": list(moves)})


def test_the_verdict_reads_the_held_out_score_and_the_deals_played_again():
    cycles = verify.cycles_for(SUITE)
    claimed = [played("prisoners_dilemma", k, 1.0 if k % 2 else 0.5, False, replies=(f"r{k}", "x")) for k in range(6)]
    alike = [played("prisoners_dilemma", k, 1.0 if k % 2 else 0.5, True) for k in range(6)]
    again = [played("prisoners_dilemma", k, 1.0, False, replies=(f"r{k}", "x")) for k in range(3)]
    assert verify.assess(claimed, alike, cycles)["state"] == "consistent"
    exact = verify.assess(claimed, alike + again, cycles)
    assert exact["state"] == "exact" and exact["replays"]["matched"] == 3 and exact["replays"]["calls_matched"] == 6
    differ = [played("prisoners_dilemma", 0, 1.0, False, replies=("r0", "y"), moves=("m", "n"))]
    found = verify.assess(claimed, alike + differ, cycles)
    assert found["state"] == "consistent" and found["replays"] == {
        "games": 1, "matched": 0, "calls": 2, "calls_matched": 1, "moves": 2, "moves_agreed": 1}
    lost = [played("prisoners_dilemma", k, 0.0, True) for k in range(12)]
    assert verify.assess(claimed, lost + again, cycles)["state"] == "inconsistent"  # exact replies, other scores
    assert verify.assess(claimed, [played("public_good", 0, 1.0, True)], cycles) is None  # no game in common
    line = verify.verdict_line(exact)
    assert line.startswith("verdict: exact: 6 held-out deals score ") and "3 of the row's deals played again" in line
    assert f", p {exact['p']:.3f}: consistent at the 0.01 level)" in line and exact["p"] >= 0.001


@pytest.mark.parametrize("p, shown", [(0.6084, "p 0.608"), (0.001, "p 0.001"), (0.00099, "p < 0.001"),
                                      (3e-9, "p < 0.001"), (0.0, "p < 0.001")])
def test_the_verdict_line_shows_p_as_the_board_does(p, shown):
    found = {"state": "inconsistent", "deals": 92, "held_out": {"value": 0.2, "ci": (0.15, 0.27)},
             "claimed": {"value": 0.46, "ci": (0.4, 0.53)}, "difference": 0.26, "z": 5.84, "p": p,
             "consistent": p >= 0.01, "level": 0.01, "replays": {"games": 0}}
    line = verify.verdict_line(found)
    assert f", z +5.84, {shown}: " in line, line


def test_a_model_reached_elsewhere_is_played_with_the_rows_settings():
    """`--model provider:model@url` reaches the row's model at the verifier's address and plays it
    with every setting the row played with; another provider or model is refused."""
    row = AgentSpec("row-model", {"provider": "openai_compatible", "model": "m", "base_url": "https://contributor/v1",
                                  "temperature": 0.7, "seed": 270, "max_tokens": 160})
    given = compact_model("openai_compatible:m@https://maintainers/v1", "--model")
    agent = verify.reached(row, given)
    assert isinstance(agent, AgentSpec) and agent.name == "row-model"
    assert dict(agent.spec) == {**dict(row.spec), "base_url": "https://maintainers/v1"}
    hosted = verify.reached(AgentSpec("r", {"provider": "openai", "model": "gpt-4", "temperature": 0}),
                            compact_model("openai:gpt-4", "--model"))
    assert dict(hosted.spec) == {"provider": "openai", "model": "gpt-4", "temperature": 0}
    assert verify.reached(row, compact_model("openai_compatible:other@https://maintainers/v1", "--model")) == \
        "--model is not the row's model: the row plays model 'm' where --model has 'other'"


def _git(folder, *args):
    import subprocess

    subprocess.run(["git", "-C", str(folder), "-c", "user.name=t", "-c", "user.email=t@x", *args], check=True,
                   capture_output=True)


def test_the_rows_merge_commit_is_the_newest_that_changed_its_plan_or_its_games(tmp_path):
    """Games replaced under the same plan are a new claim: their deals follow from the commit that brought them."""
    row_folder = tmp_path / "replays" / "ranked-1-x"
    row_folder.mkdir(parents=True)
    _git(tmp_path, "init", "-q")
    with pytest.raises(verify.VerifyError, match="no commit of this checkout holds it"):
        verify.row_commit(row_folder)
    (row_folder / "tournament.toml").write_text("name = 'ranked-1-x'\n")
    (row_folder / "a.jsonl").write_text("first\n")
    _git(tmp_path, "add", ".")
    _git(tmp_path, "commit", "-q", "-m", "row")
    first = verify.row_commit(row_folder)
    (row_folder / "a.jsonl").write_text("played again\n")
    _git(tmp_path, "commit", "-q", "-am", "the row's games played again, same plan")
    again = verify.row_commit(row_folder)
    assert again != first and len(again) == 40
    (tmp_path / "elsewhere.txt").write_text("x")
    _git(tmp_path, "add", ".")
    _git(tmp_path, "commit", "-q", "-m", "unrelated")
    assert verify.row_commit(row_folder) == again

"""Golden tests of the 004 Werewolf metrics: Text Distance, Judgement Variation, EWAVM.

Games are played through the real engine with hand-chosen statements, probes and votes; every
expected value is worked out by hand below.
"""

from __future__ import annotations

import dataclasses
import json
import math
import random
from collections.abc import Mapping, Sequence
from typing import Any

import pytest
from builders import builtin, llm, replay, scored

from site_builder.scoring import werewolf
from site_builder.scoring.embedding import embed
from site_builder.scoring.model import AgentInfo, ScoredGame, agent_key

NAMES = ["Ada", "Bruno", "Chiara", "Dmitri", "Esme", "Farid", "Greta", "Hiro"]
# seat:    0       1        2        3           4           5           6         7
ROLES = ["seer", "mason", "mason", "villager", "villager", "werewolf", "minion", "tanner"]
SETUP = {"roles": ROLES, "names": NAMES}

A = llm("alpha", "model-a")                 # seats 0-3 in mixed games
B = builtin("beta", "werewolf/strategic")   # seats 4-7 in mixed games
KEY_A, KEY_B = agent_key(A), agent_key(B)
MIXED = [A] * 4 + [B] * 4

CALM = "We should stay calm."
CLAIM = "I am a Villager."
TRUST = "Trust nobody here"


def agents_of(*descriptions: Mapping[str, Any]) -> dict[str, AgentInfo]:
    return {agent_key(d): AgentInfo(agent_key(d), d["name"], {k: v for k, v in d.items() if k != "name"})
            for d in descriptions}


AGENTS = agents_of(A, B, llm("solo", "model-s"), llm("duo", "model-s", design="b5p"))


def ww(texts: Sequence[str] | None = None, suspects: Mapping[int, Sequence[tuple[int, int]]] | None = None,
       votes: Sequence[int] = (5, 5, 5, 5, 0, 0, 0, 5), agents: Sequence[Mapping[str, Any]] = MIXED,
       game_id: str = "golden-ww-1", forfeit_at: int | None = None) -> ScoredGame:
    """A Werewolf game: 24 statements (seat order, 3 rounds), `suspects[turn]` = [(seat, answer)]
    asked after round `turn`, then the votes. Events: n=0 night look, n=1 its info, n=2..25 talk."""
    texts = list(texts or [f"Statement number {i} from seat {i % 8}." for i in range(24)])
    suspects = suspects or {}
    inputs: list[tuple] = [("act", 0, {"look": [3, 4]})]
    for i, text in enumerate(texts):
        if forfeit_at == i:
            inputs.append(("forfeit", i % 8, "no legal statement"))
            break
        inputs.append(("act", i % 8, {"text": text}))
        if (i + 1) % 8 == 0:
            inputs += [("probe", seat, "suspect", {"seat": answer}) for seat, answer in suspects.get((i + 1) // 8, ())]
    if forfeit_at is None:
        inputs += [("act", seat, {"vote": target}) for seat, target in enumerate(votes)]
    return scored(replay("werewolf", SETUP, agents, inputs, game_id=game_id))


# ---------------------------------------------------------------------------- cleaning

@pytest.mark.parametrize("text, expected", [
    ("Ada says: 'We should stay calm.'", "We should stay calm."),
    ("Ada (Ada is Seer) says: “We should stay calm.”", "We should stay calm."),
    ("ada: \"We should stay calm.\"", "We should stay calm."),
    ("Ada said, We should stay calm.", "We should stay calm."),
    ("  'We should stay calm.'  ", "We should stay calm."),
    ("Ada is the Seer.", "Ada is the Seer."),             # a name, not a speaker prefix
    ("Bruno says: we should stay calm", "Bruno says: we should stay calm"),  # not the speaker
    ("Ada says:", "Ada says:"),                             # nothing left: kept as said
])
def test_clean_statement(text, expected):
    assert werewolf.clean_statement(text, "Ada") == expected


# ---------------------------------------------------------------------------- Text Distance

def test_distance_stats_two_unrelated_texts_by_hand():
    # Matrix [[0, 1], [1, 0]]: mean 2/4; deviations +-1/2 on all four entries, std sqrt(4 * 1/4 / (4 - 1)).
    assert not set(embed("alpha beta")) & set(embed("gamma delta"))
    stats = werewolf.distance_stats(["alpha beta", "gamma delta"])
    assert stats["mean"] == 0.5
    assert math.isclose(stats["std"], math.sqrt(1 / 3))
    assert stats["n"] == 2


def test_distance_stats_two_overlapping_texts_by_hand():
    # d = 2/3 (see test_embedding); mean = 2 * 2/3 / 4 = 1/3; every entry is 1/3 from the mean:
    # std = sqrt(4 * (1/3)^2 / 3) = sqrt(4/27).
    stats = werewolf.distance_stats(["red blue", "red green"])
    assert math.isclose(stats["mean"], 1 / 3)
    assert math.isclose(stats["std"], math.sqrt(4 / 27))


def test_distance_stats_identical_and_too_few():
    assert werewolf.distance_stats([CALM] * 3) == {"mean": 0.0, "std": 0.0, "n": 3}
    assert werewolf.distance_stats([CALM]) is None
    assert werewolf.distance_stats([]) is None


def texts_game(b_round3: str = TRUST) -> list[str]:
    """Seats 0-3 (A) always say CALM (seat 0 once with a speaker prefix and quotes);
    seats 4-7 (B) say CLAIM in rounds 1-2 and `b_round3` in round 3."""
    texts = []
    for i in range(24):
        seat, rnd = i % 8, i // 8 + 1
        texts.append(CALM if seat < 4 else (CLAIM if rnd < 3 else b_round3))
    texts[0] = f"Ada says: '{CALM}'"
    return texts


def test_text_distance_golden():
    for x, y in [(CALM, CLAIM), (CALM, TRUST), (CLAIM, TRUST)]:
        assert not set(embed(x)) & set(embed(y))  # distance exactly 1
    g1 = ww(texts_game(), game_id="ww-1")
    g2 = ww(texts_game(b_round3=CLAIM), game_id="ww-2")
    result = werewolf.text_distance([g1, g2], AGENTS, seed=1)
    assert result["embedder"]["name"] == "hashed-bow-v1"

    a = result["agents"][KEY_A]
    # A: 12 identical statements (after cleaning) in both games.
    assert a["distance"] == {"raw": 0.0, "scaled": 0.0, "ci": [0.0, 0.0], "n": 2}
    assert a["std"]["raw"] == 0.0
    assert a["statements"] == 24 and a["games"] == 2

    b = result["agents"][KEY_B]
    # Game 1, B: 8 x CLAIM and 4 x TRUST; entries at distance 1: 2 * 8 * 4 = 64 of 144.
    # mean 64/144 = 4/9; sum of squared deviations 64 (5/9)^2 + 80 (4/9)^2 = 2880/81; std sqrt(2880/81/143).
    # Game 2, B: 12 x CLAIM: mean 0, std 0.
    assert math.isclose(b["distance"]["raw"], (4 / 9 + 0) / 2)
    assert math.isclose(b["std"]["raw"], (math.sqrt(2880 / 81 / 143) + 0) / 2)
    assert b["distance"]["n"] == 2
    lo, hi = b["distance"]["ci"]
    assert 0.0 <= lo <= b["distance"]["raw"] <= hi <= 4 / 9 + 1e-12

    # All 24 statements of game 1: groups of 12 (CALM), 8 (CLAIM), 4 (TRUST), all mutually at distance 1:
    # 576 - 144 - 64 - 16 = 352 entries of 1, mean 352/576 = 11/18. Game 2: groups 12 and 12: 288/576 = 1/2.
    assert math.isclose(result["all"]["distance"]["raw"], (11 / 18 + 1 / 2) / 2)
    assert result["all"]["statements"] == 48
    # Both games have one design at the table ("vanilla": neither description names one).
    assert list(result["by_mix"]) == ["vanilla"]
    assert math.isclose(result["by_mix"]["vanilla"]["distance"]["raw"], (11 / 18 + 1 / 2) / 2)


def test_text_distance_excludes_invalid_and_other_games_and_handles_none():
    bad = ww(texts_game(), game_id="ww-bad", forfeit_at=5)
    assert not bad.valid
    result = werewolf.text_distance([bad], AGENTS, seed=1)
    assert result["agents"] == {} and result["all"] is None and result["by_mix"] == {}
    assert werewolf.text_distance([], AGENTS, seed=1)["all"] is None


def test_text_distance_design_mix():
    duo = llm("duo", "model-s", design="b5p")
    g = ww(texts_game(), agents=[A] * 4 + [duo] * 4, game_id="ww-mix")
    result = werewolf.text_distance([g], AGENTS, seed=1)
    assert list(result["by_mix"]) == ["b5p+vanilla"]
    assert math.isclose(result["by_mix"]["b5p+vanilla"]["distance"]["raw"], 11 / 18)


# ---------------------------------------------------------------------------- Judgement Variation

def jv_game_1() -> ScoredGame:
    suspects = {
        # A (seats 0-3): the Werewolf (seat 5) in turns 1 and 2.
        1: [(0, 5), (1, 5), (2, 5), (3, 5),
            # B (seats 4-7): Seer, Mason, Mason, Villager.
            (4, 0), (5, 1), (6, 2), (7, 3)],
        2: [(0, 5), (1, 5), (2, 5), (3, 5),
            # B: Werewolf, Villager, Tanner, Minion.
            (4, 5), (5, 4), (6, 7), (7, 6)],
        # Turn 3: A names the Werewolf, the Minion, a Villager, a Mason; B's Villager and Minion
        # name a Mason and a Villager. The Werewolf's own answers (seat 5, turns 1 and 2, asked by
        # earlier runners) are left out: it knows who the Werewolf is.
        3: [(0, 5), (1, 6), (2, 3), (3, 1), (4, 1), (6, 4)],
    }
    # The votes (all on seat 7) must not count: only the per-turn probes do.
    return ww(suspects=suspects, votes=[7, 7, 7, 7, 7, 7, 7, 0], game_id="jv-1")


def jv_game_2() -> ScoredGame:
    # A names the Tanner (seat 7) every turn; B never answers.
    return ww(suspects={t: [(s, 7) for s in range(4)] for t in (1, 2, 3)}, game_id="jv-2")


def test_game_judgement_by_hand():
    g = jv_game_1()
    a = werewolf.game_judgement(g, [0, 1, 2, 3])
    # Per role: Werewolf 4 + 4 + 1 = 9, Minion 1, Villager 1 (split 1/2 + 1/2), Mason 1 (split).
    # V* = [Seer, Mason, Mason, Villager, Villager, Werewolf, Minion, Tanner]
    assert a["votes"] == [0, 0.5, 0.5, 0.5, 0.5, 9, 1, 0]
    assert a["suspicions"] == 12
    # mean 12/8 = 1.5; squared deviations 2.25 + 4 * 1 + 56.25 + 0.25 + 2.25 = 65; sigma = sqrt(65/7).
    assert math.isclose(a["sigma"], math.sqrt(65 / 7))
    assert math.isclose(a["J"], math.sqrt(7 / 65))
    assert math.isclose(a["evenness"], 1 - math.sqrt(65 / 7) * math.sqrt(8) / 12)
    assert a["reason"] is None

    b = werewolf.game_judgement(g, [4, 5, 6, 7])
    # One suspicion per card: V* = [1] * 8, sigma 0 -> J undefined.
    assert b["votes"] == [1, 1, 1, 1, 1, 1, 1, 1]
    assert b["sigma"] == 0 and b["J"] is None and "sigma = 0" in b["reason"]

    none = werewolf.game_judgement(jv_game_2(), [4, 5, 6, 7])
    assert none["J"] is None and none["reason"] == "no suspicions recorded"


def test_judgement_variation_golden():
    result = werewolf.judgement_variation([jv_game_2(), jv_game_1()], AGENTS, seed=7)
    a = result["agents"][KEY_A]
    # Game 2: V* = [0]*7 + [12]: mean 1.5, squares 7 * 2.25 + 10.5^2 = 126, sigma sqrt(126/7) = 3 sqrt(2);
    # evenness 1 - 3 sqrt(2) sqrt(8) / 12 = 0 (everything on one card).
    j1, j2 = math.sqrt(7 / 65), 1 / (3 * math.sqrt(2))
    e1, e2 = 1 - math.sqrt(65 / 7) * math.sqrt(8) / 12, 0.0
    assert math.isclose(a["J"]["raw"], (j1 + j2) / 2)
    assert math.isclose(a["J"]["scaled"], (e1 + e2) / 2)
    assert a["J"]["n"] == 2 and a["undefined"] == {} and a["games"] == 2
    assert a["J"]["raw_ci"][0] >= min(j1, j2) - 1e-12 and a["J"]["raw_ci"][1] <= max(j1, j2) + 1e-12
    assert 0.0 <= a["J"]["ci"][0] <= a["J"]["ci"][1] <= 1.0

    b = result["agents"][KEY_B]
    assert b["J"] is None
    assert b["undefined"] == {"no suspicions recorded": 1,
                              "suspicions spread exactly evenly over the roles (sigma = 0)": 1}

    # All seats of game 1: A's V* plus B's [1]*8 -> same deviations, sigma sqrt(65/7), sum 20.
    # Game 2 (all seats) = A's game 2.
    assert math.isclose(result["all"]["J"]["raw"], (j1 + j2) / 2)
    assert math.isclose(result["all"]["J"]["scaled"], ((1 - math.sqrt(65 / 7) * math.sqrt(8) / 20) + 0) / 2)


def test_judgement_variation_all_invalid_and_no_games():
    bad = ww(forfeit_at=10, game_id="jv-bad")
    for games in ([bad], []):
        result = werewolf.judgement_variation(games, AGENTS, seed=1)
        assert result == {"agents": {}, "all": None, "by_mix": {}}


def test_werewolf_metrics_do_not_depend_on_game_order():
    games = [jv_game_1(), jv_game_2(), ww(texts_game(), game_id="ww-1")]
    for metric in (werewolf.text_distance, werewolf.judgement_variation, werewolf.judgement_variation_llm,
                   werewolf.ewavm):
        expected = json.dumps(metric(games, AGENTS, seed=5), sort_keys=True)
        for order in range(3):
            shuffled = games[:]
            random.Random(order).shuffle(shuffled)
            assert json.dumps(metric(shuffled, AGENTS, seed=5), sort_keys=True) == expected


# ---------------------------------------------------------------------------- EWAVM

def judged(game: ScoredGame, *records: Mapping[str, Any]) -> ScoredGame:
    return dataclasses.replace(game, judgements=tuple(records))


SOLO = llm("solo", "model-s")
KEY_SOLO = agent_key(SOLO)


def rec(dimension: str, judge: str = "judge-1", round: int | None = None, score: float | None = None,
        mentions: list[dict[str, Any]] | None = None, highlights: list[int] | None = None,
        suspects: list[int | None] | None = None, failure: str | None = None) -> dict[str, Any]:
    return {"dimension": dimension, "judge": judge, "round": round, "score": score, "mentions": mentions,
            "highlights": highlights, "suspects": suspects, "failure": failure}


def m(by: int, about: int, role: str) -> dict[str, Any]:
    return {"by": by, "about": about, "role": role}


def ewavm_games() -> list[ScoredGame]:
    g1 = judged(ww(agents=[SOLO] * 8, game_id="ew-1"),
                rec("engagement", "judge-1", score=8), rec("engagement", "judge-2", score=6),
                rec("wonder", score=9), rec("attraction", score=None),
                rec("variation", round=1, mentions=[m(0, 1, "Werewolf"), m(2, 3, "villager")]),
                rec("variation", round=2, mentions=[m(0, 1, "werewolf"), m(2, 3, "mason")]),
                rec("variation", round=3, mentions=[m(0, 1, "seer")]),
                rec("variation", round=None, mentions=[m(4, 5, "tanner")]),  # no turn: ignored
                # Statements: n = 2 + i is seat i % 8. Seer 2, 10; Masons 3, 4; Werewolf 7;
                # 1 is the night info (not a statement) and 7 is repeated: both ignored.
                rec("memorability", highlights=[2, 3, 4, 7, 10, 1, 7]))
    g2 = judged(ww(agents=[SOLO] * 8, game_id="ew-2"),
                rec("engagement", score=4),
                rec("variation", "judge-2", round=1, mentions=[m(0, 1, "seer")]),  # one turn only
                rec("memorability", highlights=[2, 10, 18]))                      # Seer thrice
    return [g1, g2]


def test_variation_score_by_hand():
    records = ewavm_games()[0].judgements
    # M1 = {(0,1): werewolf, (2,3): villager}, M2 = {(0,1): werewolf, (2,3): mason}, M3 = {(0,1): seer}.
    # F(M1,M2) = 0 + 2 = 2; F(M1,M3) = 2 + 1 = 3; F(M2,M3) = 2 + 1 = 3; each pair twice, diagonal 0:
    # V = 2 * (2 + 3 + 3) / 3^2 = 16/9.
    assert math.isclose(werewolf.variation_score([r for r in records if r["dimension"] == "variation"]), 16 / 9)
    assert werewolf.variation_score([rec("variation", round=1, mentions=[m(0, 1, "seer")])]) is None
    assert werewolf.f_v("seer", "seer") == 0 and werewolf.f_v(None, "seer") == 1 and werewolf.f_v("a", "b") == 2


def test_ewavm_golden():
    result = werewolf.ewavm(ewavm_games(), AGENTS, seed=3)
    solo = result["agents"][KEY_SOLO]
    # judge-1 judged both games, judge-2 both too (game 1: Engagement; game 2: Variation): a tie
    # in games, so the keys order them.
    assert list(solo["judges"]) == ["judge-1", "judge-2"] and solo["games"] == 2 and solo["unjudged"] == 0
    one, two = solo["judges"]["judge-1"], solo["judges"]["judge-2"]
    assert one["games"] == 2 and two["games"] == 2
    # judge-1's Engagement: 8 in game 1, 4 in game 2 -> raw 6; scaled ((8-1)/9 + (4-1)/9)/2 = 5/9.
    assert one["engagement"]["raw"] == 6 and math.isclose(one["engagement"]["scaled"], 5 / 9)
    assert one["engagement"]["n"] == 2
    assert one["engagement"]["raw_ci"][0] >= 4 and one["engagement"]["raw_ci"][1] <= 8
    # judge-2's Engagement: its 6 of game 1 alone -> scaled 5/9, n = 1.
    assert two["engagement"]["raw"] == 6 and math.isclose(two["engagement"]["scaled"], 5 / 9)
    assert two["engagement"]["n"] == 1 and two["engagement"]["ci"] == [5 / 9, 5 / 9]
    # Wonder only from judge-1 in game 1; Attraction only as a record without a score -> absent.
    assert one["wonder"]["raw"] == 9 and math.isclose(one["wonder"]["scaled"], 8 / 9)
    assert one["wonder"]["n"] == 1 and one["wonder"]["ci"] == [8 / 9, 8 / 9]
    assert two["wonder"] is None and one["attraction"] is None and two["attraction"] is None
    # Variation: judge-1's three turns of game 1 = 16/9; judge-2's single turn of game 2 -> no value.
    assert math.isclose(one["variation"]["raw"], 16 / 9)
    assert math.isclose(one["variation"]["scaled"], 16 / 9 / 128)
    assert one["variation"]["n"] == 1 and two["variation"] is None
    # Memorability, judge-1's two lists. Game 1: Seer 2, Mason 2 -> 1 + 1, Werewolf 1:
    # c = [2, 1, 1, 0, 0, 1, 0, 0], k = 5, mean 5/8, squared deviations
    # (121 + 9 + 9 + 25 + 25 + 9 + 25 + 25)/64 = 248/64, std sqrt(248/64/7).
    # Game 2: c = [3, 0, ..., 0], k = 3, std = sqrt((9 * 49/64 + 7 * 9/64)/7) = 3/sqrt(8).
    s1, s2 = math.sqrt(248 / 64 / 7), 3 / math.sqrt(8)
    assert math.isclose(one["memorability"]["raw"], 100 * 2 / (s1 + s2))
    assert math.isclose(one["memorability"]["scaled"], 1 - (s1 + s2) / (5 / math.sqrt(8) + 3 / math.sqrt(8)))
    assert one["memorability"]["n"] == 2 and one["memorability"]["highlight_lists"] == 2
    assert two["memorability"] is None
    assert one["failed"] == {} and two["failed"] == {}


def test_two_judges_of_one_game_are_two_measurements():
    """The same game judged by two judges (a prompt version makes another judge): each judge's
    value is its own scores alone, worked out by hand; nothing is averaged across judges."""
    g = judged(ww(agents=[SOLO] * 8, game_id="ew-two"),
               rec("engagement", "old", score=10), rec("engagement", "new", score=4),
               rec("wonder", "old", score=10), rec("wonder", "new", score=1),
               # old: rounds 1 and 2 disagree on one cell, (0,1): 2 + 2 (both orders) / 2^2 = 1.
               rec("variation", "old", round=1, mentions=[m(0, 1, "seer")]),
               rec("variation", "old", round=2, mentions=[m(0, 1, "werewolf")]),
               # new: rounds 1 and 2 the same -> 0. Pooled matrices would have given something else.
               rec("variation", "new", round=1, mentions=[m(2, 3, "tanner")]),
               rec("variation", "new", round=2, mentions=[m(2, 3, "tanner")]),
               rec("memorability", "old", highlights=[2, 10]),     # the Seer twice: std 2/sqrt(8)
               rec("memorability", "new", failure="cut_off"))
    game2 = judged(ww(agents=[SOLO] * 8, game_id="ew-two-b"), rec("engagement", "new", score=7))
    result = werewolf.ewavm([g, game2], AGENTS, seed=9)
    for entry in (result["agents"][KEY_SOLO], result["all"], result["by_mix"]["vanilla"]):
        assert list(entry["judges"]) == ["new", "old"]  # "new" judged two games, "old" one
        old, new = entry["judges"]["old"], entry["judges"]["new"]
        assert (old["games"], new["games"], entry["games"], entry["unjudged"]) == (1, 2, 2, 0)
        assert old["engagement"]["raw"] == 10 and old["engagement"]["scaled"] == 1.0
        # new: 4 and 7 -> raw 5.5, scaled (3/9 + 6/9)/2 = 1/2.
        assert new["engagement"]["raw"] == 5.5 and math.isclose(new["engagement"]["scaled"], 0.5)
        assert old["wonder"]["raw"] == 10 and new["wonder"]["raw"] == 1 and new["wonder"]["scaled"] == 0
        assert old["variation"]["raw"] == 1 and math.isclose(old["variation"]["scaled"], 1 / 128)
        assert new["variation"]["raw"] == 0
        # old's one list: c = [2, 0, ..., 0], std = sqrt((49/16 + 7/16)/7) = 1/sqrt(2); M = 100/std.
        assert math.isclose(old["memorability"]["raw"], 100 * math.sqrt(2))
        assert new["memorability"] is None and new["failed"] == {"memorability": {"cut_off": 1}}
        assert old["failed"] == {}


def test_ewavm_memorability_even_lists_give_no_raw_value():
    # One highlighted statement from every seat: c = [1] * 8 after the Mason/Villager split, std 0.
    g = judged(ww(agents=[SOLO] * 8, game_id="ew-even"), rec("memorability", highlights=list(range(2, 10))))
    mem = werewolf.ewavm([g], AGENTS, seed=1)["agents"][KEY_SOLO]["judges"]["judge-1"]["memorability"]
    assert mem["raw"] is None and "sum of stds = 0" in mem["reason"]
    assert mem["scaled"] == 1.0


def test_ewavm_attribution_and_absence():
    plain = ww(agents=[SOLO] * 8, game_id="ew-plain")          # no judge records at all
    mixed = judged(ww(game_id="ew-mixed"), rec("engagement", score=10))  # A and B at the table
    result = werewolf.ewavm([plain, mixed], AGENTS, seed=1)
    # No judge at all for the self-play agent whose game was not judged (no value, never 0).
    solo = result["agents"][KEY_SOLO]
    assert solo == {"judges": {}, "unjudged": 1, "games": 1}
    # The mixed game belongs to no agent, but counts over all games.
    assert KEY_A not in result["agents"] and KEY_B not in result["agents"]
    everything = result["all"]
    assert everything["judges"]["judge-1"]["engagement"]["raw"] == 10
    assert everything["judges"]["judge-1"]["engagement"]["scaled"] == 1.0
    assert everything["games"] == 2 and everything["unjudged"] == 1 and everything["judges"]["judge-1"]["games"] == 1
    # A ScoredGame without the field at all is read as having no records.
    assert werewolf.judgements(plain) == ()


def test_ewavm_all_invalid():
    bad = judged(ww(agents=[SOLO] * 8, game_id="ew-bad", forfeit_at=3), rec("engagement", score=5))
    assert werewolf.ewavm([bad], AGENTS, seed=1) == {"agents": {}, "all": None, "by_mix": {}}


def test_scaled_values_stay_in_unit_interval():
    games = [jv_game_1(), jv_game_2(), *ewavm_games(), ww(texts_game(), game_id="ww-1")]
    found = 0

    def walk(value: Any) -> None:
        nonlocal found
        if isinstance(value, Mapping):
            if "scaled" in value:
                found += 1
                assert 0.0 <= value["scaled"] <= 1.0
                assert 0.0 <= value["ci"][0] <= value["ci"][1] <= 1.0
            for v in value.values():
                walk(v)

    for metric in (werewolf.text_distance, werewolf.judgement_variation, werewolf.judgement_variation_llm,
                   werewolf.ewavm):
        walk(metric(games, AGENTS, seed=2))
    assert found > 10


# ------------------------------------------------- Judgement Variation, the LLM judge's reading

def jv_llm_game() -> ScoredGame:
    """Seats 0-3 are A, 4-7 B (roles: Seer, Mason, Mason, Villager, Villager, Werewolf, Minion,
    Tanner). judge-1 read rounds 1 and 2 (its round 3 failed); judge-2 read round 1 only."""
    return judged(ww(game_id="jv-llm"),
                  rec("suspicion", round=1, suspects=[5, 5, 5, 5, 0, None, 2, 3]),
                  rec("suspicion", round=2, suspects=[5, 6, None, 1, 5, 4, 7, None]),
                  rec("suspicion", round=3, failure="cut_off"),
                  rec("suspicion", "judge-2", round=1, suspects=[7, 7, 7, 7, 7, 7, 7, None]),
                  rec("engagement", score=5))


def test_game_judgement_llm_by_hand():
    g = jv_llm_game()
    a = werewolf.game_judgement_llm(g, [0, 1, 2, 3])["judges"]["judge-1"]
    # A's words: round 1 Werewolf x4; round 2 Werewolf, Minion, Mason (nobody is no vote).
    # V* = [0, 0.5, 0.5, 0, 0, 5, 1, 0], total 7, mean 7/8; squared deviations
    # 49/64 + 2 * 9/64 + 2 * 49/64 + 33^2/64 + 1/64 + 49/64 = 1304/64 = 163/8 -> sigma^2 = 163/56.
    assert a["votes"] == [0, 0.5, 0.5, 0, 0, 5, 1, 0] and a["suspicions"] == 7 and a["turns"] == 2
    assert math.isclose(a["J"], math.sqrt(56 / 163))
    assert math.isclose(a["evenness"], 1 - math.sqrt(163 / 56) * math.sqrt(8) / 7)
    b = werewolf.game_judgement_llm(g, [4, 5, 6, 7])["judges"]["judge-1"]
    # B's words: Seer, Mason, Villager; Werewolf (the Werewolf's own words count), Villager, Tanner.
    # V* = [1, 0.5, 0.5, 1, 1, 1, 0, 1], mean 3/4; squared deviations 5/16 + 2/16 + 9/16 = 1 -> J = sqrt(7).
    assert b["votes"] == [1, 0.5, 0.5, 1, 1, 1, 0, 1] and math.isclose(b["J"], math.sqrt(7))
    table = werewolf.game_judgement_llm(g, range(8))
    # All seats: V* = [1, 1, 1, 1, 1, 6, 1, 1], mean 13/8; 7 * 25/64 + 35^2/64 = 1400/64 -> sigma^2 = 25/8.
    assert table["judges"]["judge-1"]["votes"] == [1, 1, 1, 1, 1, 6, 1, 1]
    assert math.isclose(table["judges"]["judge-1"]["J"], 2 * math.sqrt(2) / 5)
    # judge-2: seven words on the Tanner: everything on one card, sigma = 7 / (2 sqrt 2), evenness 0.
    two = table["judges"]["judge-2"]
    assert math.isclose(two["J"], 2 * math.sqrt(2) / 7) and math.isclose(two["evenness"], 0, abs_tol=1e-12)
    assert two["turns"] == 1 and table["reason"] is None


def test_game_judgement_llm_says_why_there_is_none():
    unread = werewolf.game_judgement_llm(ww(game_id="jv-unread"), range(8))
    assert unread == {"judges": {}, "reason": werewolf.NOT_JUDGED}
    failed = judged(ww(game_id="jv-failed"), rec("suspicion", round=1, failure="unparseable"))
    assert werewolf.game_judgement_llm(failed, range(8)) == {"judges": {}, "reason": werewolf.ALL_FAILED}
    nobody = judged(ww(game_id="jv-nobody"), rec("suspicion", round=1, suspects=[None] * 8))
    quiet = werewolf.game_judgement_llm(nobody, range(8))["judges"]["judge-1"]
    assert quiet["J"] is None and quiet["reason"] == "no suspicions recorded"


def test_judgement_variation_llm_golden():
    games = [jv_llm_game(), ww(game_id="jv-unread")]
    result = werewolf.judgement_variation_llm(games, AGENTS, seed=4)
    a = result["agents"][KEY_A]
    assert set(a["judges"]) == {"judge-1", "judge-2"} and a["games"] == 2
    assert a["unread"] == {werewolf.NOT_JUDGED: 1}
    one = a["judges"]["judge-1"]
    assert math.isclose(one["J"]["raw"], math.sqrt(56 / 163)) and one["J"]["n"] == 1 and one["games"] == 1
    # judge-2 read A's four words on the Tanner: V* = [0]*7 + [4], mean 1/2; 7/4 + 49/4 = 14 -> sigma^2 = 2.
    assert math.isclose(a["judges"]["judge-2"]["J"]["raw"], 1 / math.sqrt(2))
    assert math.isclose(result["all"]["judges"]["judge-1"]["J"]["raw"], 2 * math.sqrt(2) / 5)
    assert result["all"]["games"] == 2 and result["all"]["unread"] == {werewolf.NOT_JUDGED: 1}
    # The probe reading of the same games is untouched by the judge's records (no probes: undefined).
    assert werewolf.judgement_variation(games, AGENTS, seed=4)["agents"][KEY_A]["J"] is None


def test_failed_evaluations_are_left_out_of_every_ewavm_value_and_counted():
    g = judged(ww(agents=[SOLO] * 8, game_id="ew-failed"),
               rec("variation", round=1, mentions=[m(0, 1, "seer")]),
               rec("variation", round=2, mentions=[m(0, 1, "seer")]),
               rec("variation", round=3, failure="cut_off"),   # not an empty matrix for round 3
               rec("wonder", failure="refused"), rec("memorability", failure="unparseable"),
               rec("engagement", failure="cut_off"), rec("engagement", score=7))  # made up for later
    result = werewolf.ewavm([g], AGENTS, seed=1)["agents"][KEY_SOLO]["judges"]["judge-1"]
    assert result["variation"]["raw"] == 0  # two equal turns; the failed third does not count as empty
    assert result["wonder"] is None and result["memorability"] is None and result["engagement"]["raw"] == 7
    assert result["failed"] == {"memorability": {"unparseable": 1}, "variation": {"cut_off": 1},
                                "wonder": {"refused": 1}}


def test_a_judge_whose_every_evaluation_failed_counts_its_game_and_says_why():
    g = judged(ww(agents=[SOLO] * 8, game_id="ew-all-failed"),
               rec("engagement", "judge-1", score=5),
               rec("engagement", "judge-2", failure="cut_off"), rec("wonder", "judge-2", failure="refused"))
    result = werewolf.ewavm([g], AGENTS, seed=1)["all"]
    two = result["judges"]["judge-2"]
    assert two["games"] == 1 and all(two[d] is None for d in werewolf.DIMENSIONS)
    assert two["failed"] == {"engagement": {"cut_off": 1}, "wonder": {"refused": 1}}
    # judge-1's value is untouched by judge-2's failures, and judge-1 reports none of them.
    assert result["judges"]["judge-1"]["engagement"]["raw"] == 5 and result["judges"]["judge-1"]["failed"] == {}

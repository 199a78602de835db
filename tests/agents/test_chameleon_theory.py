"""The strategies of the Chameleon paper's section 4, simulated with the engine, against their closed forms.

Each test plays a few thousand games between built-in strategies (directly through the rules
engine, without the replay writer) and checks that the closed-form probability lies inside the
99% Wilson interval of the measured rate. Seeds are fixed, so the check is deterministic.
"""

from __future__ import annotations

import math
import random
from collections.abc import Callable
from typing import Any

import pytest

from runner.agents.base import Request
from runner.agents.builtin.chameleon import Ambiguity, Revealing, Trivial
from runner.games.chameleon import Chameleon

#: Two-sided 99% normal quantile.
Z99 = 2.5758293035489
GAMES = 3000
CARDS = [{"id": f"card-{k}", "topic": "Symbols", "words": [f"s{i}" for i in range(k)]} for k in (10, 15, 16, 20)]
GAME = Chameleon(cards=CARDS)


def wilson(successes: int, n: int, z: float = Z99) -> tuple[float, float]:
    """The Wilson score interval of a binomial proportion."""
    p = successes / n
    centre = (p + z * z / (2 * n)) / (1 + z * z / n)
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / (1 + z * z / n)
    # At 0 or n successes the bound is exactly 0 or 1 (rounding would leave a speck).
    return (0.0 if successes == 0 else centre - half), (1.0 if successes == n else centre + half)


def harmonic(n: int) -> float:
    return sum(1 / i for i in range(1, n + 1))


def simulate(strategy: Callable[..., Any], raw: dict[str, Any], games: int = GAMES) -> list[dict[str, Any]]:
    """Results of `games` games where every seat plays `strategy` (roles drawn by the deal)."""
    params = GAME.params(raw)
    n = params["players"]
    results = []
    for seed in range(games):
        rng = random.Random(f"theory:{seed}")
        state = GAME.start(params, GAME.deal(params, rng))
        agents = [strategy({}, random.Random(f"theory:{seed}:{s}"), "sim") for s in range(n)]
        while (pending := state.pending()) is not None:
            if pending.kind == "chance":
                state.chance(rng.choice(pending.options))
                continue
            seat = pending.seats[0]
            request = Request("chameleon", seat, pending.phase, state.observe(seat), state.legal(seat))
            state.act(seat, agents[seat].decide(request))
        outcome = state.outcome()
        assert outcome["status"] == "complete"
        results.append(outcome["result"])
    return results


def rate(results: list[dict[str, Any]], test: Callable[[dict[str, Any]], bool]) -> tuple[int, tuple[float, float]]:
    hits = sum(1 for r in results if test(r))
    return hits, wilson(hits, len(results))


def non_chameleons_win(result: dict[str, Any]) -> bool:
    return result["magic_outcome"] == "non_chameleons_win"


@pytest.mark.parametrize("players, words", [(4, 16), (3, 16)])
def test_trivial_strategy(players, words):
    """P(non-chameleons win) = (1/N)(1 - 1/K); P(identified) = 1/N.

    Everyone (the chameleon too) gives the same uninformative clue and votes for player 1
    (player 1 votes for player 2), so player 1 is accused with N-1 votes against 1. That is the
    chameleon with probability 1/N, and its uniform guess over the K words misses with
    probability 1 - 1/K. For N = 4, K = 16 this is 15/64 (002: "23%").
    """
    results = simulate(Trivial, {"players": players, "words": words})
    assert not any(r["tie"] for r in results)
    closed = (1 / players) * (1 - 1 / words)
    _, (low, high) = rate(results, non_chameleons_win)
    assert low <= closed <= high
    _, (low, high) = rate(results, lambda r: r["identified"])
    assert low <= 1 / players <= high


def test_revealing_strategy():
    """P(non-chameleons win) = 0; P(identified) = 1/N; every second-chance guess is right.

    Non-chameleons say the secret word. A chameleon that speaks after someone repeats that word,
    so all clues agree, everyone votes for player 1 (a non-chameleon) and the chameleon escapes.
    A chameleon that speaks first (probability 1/N) says a random card word: if it differs from
    the secret it is the single odd clue and gets N-1 votes; if it happens to be the secret,
    all clues agree and player 1 (itself) is accused. Either way it is identified and then
    guesses the word the others revealed, so it always wins: an extreme of Proposition 2.
    """
    players = 4
    results = simulate(Revealing, {"players": players, "words": 16})
    wins, (low, high) = rate(results, non_chameleons_win)
    assert wins == 0 and low <= 0 <= high
    _, (low, high) = rate(results, lambda r: r["identified"])
    assert low <= 1 / players <= high
    assert all(r["guess_correct"] for r in results if r["identified"])


@pytest.mark.parametrize("players, words", [(4, 20), (3, 20), (4, 15)])
def test_ambiguity_strategy(players, words):
    """P(non-chameleons win) = (H_N / N)(l - 1)/l with K = l(N+1), and it beats Proposition 3.

    Derivation. Before turn c the remaining set has l(N+2-c) words, uniformly likely to hold
    the secret. The chameleon at turn c keeps a random subset of l(N+1-c) of them, so it drops
    the secret with probability l / (l(N+2-c)) = 1/(N+2-c). It is identified iff it dropped the
    secret (it is then the first broken response; N-1 votes) or it is player 1 (all responses
    conform and everyone votes player 1). Once identified its guess is uniform over l words
    (the l it dropped if the rest went silent, else the final set), right with probability 1/l:

      P(win) = (l-1)/l * (1/N) * [ sum_{c=1..N} 1/(N+2-c) + N/(N+1) ]
             = (l-1)/l * (1/N) * [ (H_{N+1} - 1) + (1 - 1/(N+1)) ] = (l-1)/l * H_N / N.

    Proposition 3 bounds this from below by (log(N+1) + 0.4)/N * (l-1)/l; H_N >= log(N+1) + 0.4
    for N >= 3. P(identified) = H_N / N by the same sum.
    """
    l = words // (players + 1)
    assert words == l * (players + 1)
    results = simulate(Ambiguity, {"players": players, "words": words, "clue": "subset"})
    closed = harmonic(players) / players * (l - 1) / l
    bound = (math.log(players + 1) + 0.4) / players * (l - 1) / l
    assert closed >= bound
    _, (low, high) = rate(results, non_chameleons_win)
    assert low <= closed <= high
    _, (low, high) = rate(results, lambda r: r["identified"])
    assert low <= harmonic(players) / players <= high
    assert not any(r["tie"] for r in results)

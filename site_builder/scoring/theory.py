"""The closed forms and bounds of section 4 of the Chameleon paper, and the measured rates beside them.

N is the number of players, K the number of card words; logarithms are natural (KL in nats).
Where the Chameleon paper prints a garbled formula, the form used here is the one its own numbers or its
appendix derivation give; docs/metrics/chameleon.md lists every such reading.
"""

from __future__ import annotations

import json
import math
from collections.abc import Mapping, Sequence
from itertools import combinations
from typing import Any

from runner.replay.format import agent_kind
from site_builder.scoring import chameleon as ch
from site_builder.scoring.model import AgentInfo, ScoredGame

#: KL levels (nats) at which Proposition 1 is drawn.
PROP1_ALPHAS = tuple(round(i / 10, 10) for i in range(41))
#: L1 levels at which Proposition 2's alpha >= 1 form is drawn: the open interval (1, 2).
PROP2_ALPHAS = tuple(round(1 + i / 20, 10) for i in range(1, 20))
#: Slack for comparing a closed form with an interval end computed in floating point.
EPS = 1e-12
STRATEGIES = ("chameleon/trivial", "chameleon/revealing", "chameleon/ambiguity")


def _check(n: int, k: int) -> None:
    if n < 2 or k < 1:
        raise ValueError(f"need N >= 2 players and K >= 1 words, got N={n}, K={k}")


def trivial_win(n: int, k: int) -> float:
    """P(non-chameleons win) under the Chameleon paper's trivial 0-KL concealing strategy: (1/N)(1 - 1/K).

    Section 4.1 of the Chameleon paper prints "K^{-1/NK}"; its own reasoning (player 1 is the chameleon with
    probability 1/N, a blind guess is right with probability 1/K) and its "23% = 1/4 x 15/16"
    for N = 4, K = 16 (section 5.3) give (K - 1)/(NK).
    """
    _check(n, k)
    return (1 / n) * (1 - 1 / k)


def trivial_identified(n: int) -> float:
    """P(chameleon identified) under the trivial strategy (everyone votes for player 1): 1/N."""
    _check(n, 1)
    return 1 / n


def revealing_win(n: int, k: int) -> float:
    """P(non-chameleons win) for the unique-response (2-L1) revealing strategy: 0.

    The built-in revealing chameleon hears or is told the secret in every case (the Chameleon paper, section 4.1,
    remark after Proposition 2; derivation in docs/games/chameleon.md).
    """
    _check(n, k)
    return 0.0


def revealing_identified(n: int) -> float:
    """P(chameleon identified) for the built-in revealing strategies: 1/N (only when it speaks first)."""
    _check(n, 1)
    return 1 / n


def prop1_bound(n: int, k: int, alpha: float) -> float:
    """Proposition 1 of the Chameleon paper: P(win) <= 1/N + (N-1)/N^2 sqrt((K-1) alpha / K), alpha-KL concealing."""
    _check(n, k)
    if alpha < 0:
        raise ValueError("a KL level alpha is non-negative")
    return 1 / n + (n - 1) / n ** 2 * math.sqrt((k - 1) * alpha / k)


def theta(p: Sequence[float]) -> float:
    """The theta of the Chameleon paper's Proposition 2: max over sub-collections A of p of min(sum A, 1 - sum A)."""
    best = 0.0
    for size in range(len(p) + 1):
        for group in combinations(p, size):
            mass = sum(group)
            best = max(best, min(mass, 1 - mass))
    return best


def phi(t: float) -> float:
    """phi(theta) = log((1 - theta)/theta) / (1 - 2 theta) (Weissman et al. 2003); 2 at theta = 1/2."""
    if not 0 <= t <= 0.5:
        raise ValueError(f"theta lies in [0, 1/2], got {t}")
    if t == 0:
        return math.inf
    if abs(1 - 2 * t) < 1e-9:
        return 2.0  # the limit at 1/2
    return math.log((1 - t) / t) / (1 - 2 * t)


def prop2_bound(n: int, k: int, alpha: float, phi_value: float) -> float:
    """Proposition 2 of the Chameleon paper as stated: P(win) <= 6(K-1) exp(-(N-1) alpha phi / 2), alpha-L1 revealing."""
    _check(n, k)
    return 6 * (k - 1) * math.exp(-(n - 1) * alpha * phi_value / 2)


def prop2_bound_proof(n: int, k: int, alpha: float, phi_value: float) -> float:
    """The bound the Chameleon paper's proof of Proposition 2 supports: 6(K-1) exp(-(N-1) alpha^2 phi / 16).

    The proof applies Weissman et al. (2003, Thm 2.1: P(|p - p_hat|_1 >= eps) <= (2^3 - 2)
    exp(-n phi eps^2 / 4) for 3 bins) with eps = alpha/2 and n = N-1 clues, then a union bound
    over the K-1 rivals; the statement's exponent alpha phi / 2 does not follow from it.
    """
    _check(n, k)
    return 6 * (k - 1) * math.exp(-(n - 1) * alpha ** 2 * phi_value / 16)


def prop2_phi_floor(alpha: float) -> float:
    """The smallest phi any alpha-L1 revealing pair can have when 1 <= alpha <= 2: phi(1 - alpha/2).

    alpha-L1 revealing forces p_{w>w'} >= alpha/2 >= 1/2 for the secret's own responses, so
    theta <= 1 - alpha/2, and phi decreases on (0, 1/2].
    """
    if not 1 <= alpha <= 2:
        raise ValueError(f"the floor holds for 1 <= alpha <= 2, got {alpha}")
    return phi(1 - alpha / 2)


def prop2_bound_simplified(n: int, k: int, alpha: float) -> float:
    """Proposition 2 of the Chameleon paper, alpha >= 1 form: 6(K-1) ((2-alpha)/alpha)^((N-1) alpha / (2 alpha - 2)).

    Equal to prop2_bound with phi = prop2_phi_floor(alpha), hence valid for every alpha-L1
    revealing strategy; defined on (1, 2].
    """
    _check(n, k)
    if not 1 < alpha <= 2:
        raise ValueError(f"the alpha >= 1 form needs 1 < alpha <= 2, got {alpha}")
    return 6 * (k - 1) * ((2 - alpha) / alpha) ** ((n - 1) * alpha / (2 * alpha - 2))


def prop2_bound_proof_simplified(n: int, k: int, alpha: float) -> float:
    """The proof-supported bound at the phi floor: 6(K-1) ((2-alpha)/alpha)^((N-1) alpha^2 / (16(alpha-1)))."""
    _check(n, k)
    if not 1 < alpha <= 2:
        raise ValueError(f"the alpha >= 1 form needs 1 < alpha <= 2, got {alpha}")
    return 6 * (k - 1) * ((2 - alpha) / alpha) ** ((n - 1) * alpha ** 2 / (16 * (alpha - 1)))


def harmonic(n: int) -> float:
    """H_n = 1 + 1/2 + ... + 1/n."""
    return math.fsum(1 / i for i in range(1, n + 1))


def ambiguity_l(n: int, k: int) -> int | None:
    """l with K = l(N+1), the card shape pi^amb needs (the Chameleon paper, section 4.2); None if K does not split."""
    _check(n, k)
    return k // (n + 1) if k % (n + 1) == 0 else None


def prop3_bound(n: int, l: int) -> float:
    """Proposition 3 of the Chameleon paper: pi^amb wins with probability >= (log(N+1) + 0.4)/N (l-1)/l, N >= 3.

    The statement prints "log(N+1) + 0.4l - 1" and the appendix's last line "(... + 0.4l - 1)/N
    1/l"; the appendix derivation (harmonic bound plus case (i), with N >= 3) gives this form.
    """
    _check(n, 1)
    if l < 1:
        raise ValueError("l is a positive integer")
    return (math.log(n + 1) + 0.4) / n * (l - 1) / l


def ambiguity_win(n: int, l: int) -> float:
    """Exact P(win) of pi^amb against its best-reply conforming chameleon: (H_N / N)(l-1)/l."""
    _check(n, 1)
    if l < 1:
        raise ValueError("l is a positive integer")
    return harmonic(n) / n * (l - 1) / l


def ambiguity_identified(n: int) -> float:
    """Exact P(identified) of the conforming chameleon against pi^amb: H_N / N."""
    _check(n, 1)
    return harmonic(n) / n


def closed_forms(n: int, k: int) -> dict[str, Any]:
    """Every closed form and bound of section 4 of the Chameleon paper for one card size and number of players."""
    l = ambiguity_l(n, k)
    return {
        "trivial": {"win": trivial_win(n, k), "identified": trivial_identified(n)},
        "revealing": {"win": revealing_win(n, k), "identified": revealing_identified(n)},
        "prop1": [{"alpha": a, "value": prop1_bound(n, k, a)} for a in PROP1_ALPHAS],
        "prop2": [{"alpha": a, "value": prop2_bound_simplified(n, k, a),
                   "proof_value": prop2_bound_proof_simplified(n, k, a)} for a in PROP2_ALPHAS],
        "prop3": None if l is None else {
            "l": l, "bound": prop3_bound(n, l), "ambiguity_win": ambiguity_win(n, l),
            "ambiguity_identified": ambiguity_identified(n)},
    }


def _measured(variant_games: Mapping[tuple[str, str], Sequence[ScoredGame]], agents: Mapping[str, AgentInfo]
              ) -> list[dict[str, Any]]:
    rows = []
    for (cham, non), games in variant_games.items():
        rates = ch.cell_rates(games)
        rows.append({"chameleon": cham, "non_chameleon": non, "chameleon_label": ch.label(cham, agents),
                     "non_chameleon_label": ch.label(non, agents), "games": rates["games"],
                     "non_chameleon_win": rates["non_chameleon_win"], "identification": rates["identification"]})
    return rows


def curves(games: Sequence[ScoredGame], agents: Mapping[str, AgentInfo],
           groups: ch.Groups | None = None) -> list[dict[str, Any]]:
    """For every (N, K) played: the closed forms and bounds, and every matchup's measured rates
    (`groups`: `chameleon.grouped(games)` if already made)."""
    sizes: dict[tuple[int, int], list[dict[str, Any]]] = {}
    for key, cells in (ch.grouped(games) if groups is None else groups).items():
        variant = ch.variant_of(next(iter(cells.values()))[0])
        for row in _measured(cells, agents):
            sizes.setdefault((variant["players"], variant["words"]), []).append(
                {"key": key, "variant": variant, **row})
    out = []
    for (n, k), measured in sorted(sizes.items()):
        measured.sort(key=lambda r: (ch.variant_rank(r["variant"]), r["chameleon_label"], r["chameleon"],
                                     r["non_chameleon"] == ch.MIXED, r["non_chameleon_label"], r["non_chameleon"]))
        out.append({"players": n, "words": k, **closed_forms(n, k), "measured": measured})
    return out


def _description(key: str, agents: Mapping[str, AgentInfo]) -> Mapping[str, Any]:
    info = agents.get(key)
    return info.description if info is not None else json.loads(key)


def _strategy(key: str, agents: Mapping[str, AgentInfo]) -> str | None:
    """The built-in strategy of the Chameleon paper an agent plays with default parameters, if any."""
    if key == ch.MIXED:
        return None
    desc = _description(key, agents)
    if agent_kind(desc) == "builtin" and desc.get("strategy") in STRATEGIES and not desc.get("params"):
        return desc["strategy"]
    return None


def expected(strategy: str, variant: Mapping[str, Any]) -> dict[str, Any] | None:
    """The closed forms (win, identified) of a built-in strategy against itself in a variant."""
    n, k = variant["players"], variant["words"]
    if strategy == "chameleon/trivial":
        return {"formula": "(1/N)(1 - 1/K)", "win": trivial_win(n, k), "identified": trivial_identified(n)}
    if strategy == "chameleon/revealing":
        return {"formula": "0", "win": revealing_win(n, k), "identified": revealing_identified(n)}
    l = ambiguity_l(n, k)
    if variant["clue"] != "subset" or l is None:
        return None  # pi^amb is defined only on subset responses with K = l(N+1)
    return {"formula": "(H_N / N)(l - 1)/l", "l": l, "win": ambiguity_win(n, l),
            "identified": ambiguity_identified(n)}


def _inside(value: float, measured: Mapping[str, Any] | None) -> bool | None:
    if measured is None:
        return None
    lo, hi = measured["ci"]
    return lo - EPS <= value <= hi + EPS


def strategy_checks(games: Sequence[ScoredGame], agents: Mapping[str, AgentInfo],
                    groups: ch.Groups | None = None) -> list[dict[str, Any]]:
    """Each built-in strategy of the Chameleon paper against itself: closed form vs measured rate and its 95% interval
    (`groups`: `chameleon.grouped(games)` if already made)."""
    checks = []
    for key, cells in (ch.grouped(games) if groups is None else groups).items():
        for (cham, non), cell in cells.items():
            strategy = _strategy(cham, agents)
            if strategy is None or cham != non:
                continue
            variant = ch.variant_of(cell[0])
            forms = expected(strategy, variant)
            rates = ch.cell_rates(cell)
            win, ident = rates["non_chameleon_win"], rates["identification"]
            checks.append({
                "strategy": strategy, "agent": cham, "key": key, "variant": variant, "games": rates["games"],
                "formula": forms["formula"] if forms else None, "l": forms.get("l") if forms else None,
                "closed_form": forms["win"] if forms else None, "measured": win,
                "inside": _inside(forms["win"], win) if forms else None,
                "identified": {"closed_form": forms["identified"] if forms else None, "measured": ident,
                               "inside": _inside(forms["identified"], ident) if forms else None},
            })
    checks.sort(key=lambda c: (STRATEGIES.index(c["strategy"]), ch.variant_rank(c["variant"])))
    return checks

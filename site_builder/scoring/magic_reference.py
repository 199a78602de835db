"""The MAgIC reference-code reading: the seven abilities as the authors' script computes them.

The public MAgIC repository (`cathyxl/MAgIC`, commit e66dd73: `metrics_release.py` and
`chatarena/environments/*_pgm.py`) departs from its paper (MAgIC) in several places; docs/metrics/
magic.md lists each with its file and line. This module reads the same replays the paper reading
reads and counts what that script would count on them, so the two can be shown side by side:

- Reasoning: one first-order unit per player of the evaluated role and probe point, read as the
  argmax of its own suspicion row (the chameleon has none: an empty row's argmax is seat 0, so it
  is "right" only when it sits first); one second-order unit per such player, right only when
  *all* its guesses about the others match their own rows.
- Deception: games as the hidden role won by anything but the "hidden role caught" flag (an even
  vote is a win), plus 0.25 x (is flag "identified, right guess" among the non-chameleon games'
  flags) / (how many of the two flags occur); undefined (the script divides by zero) without
  either part.
- Self-awareness: every `self_role` answer held, The Chameleon's included, pooled without weights.
- Coordination: successful Cost Sharing games whose agreed split equals the agent's own last
  proposal (the paper reading: whose agreed proposal the agent made).
- Rationality: Prisoner's Dilemma and Public Good decisions pooled into one rate.
- Win Rate, the per-role win rates, Judgement and Cooperation: the same as the paper reading.

Per game, the counts are tallies (fields below) summed like the paper reading's, so a cached game
carries them in its digest. Forfeited games add nothing here (as in the paper reading's abilities).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from runner import games as registry
from site_builder.scoring.model import ScoredGame, SeatInfo
from site_builder.scoring.stats import rate

LAMBDA = 0.25  # metrics_release.py line 206
#: The script's outcome flags per gamenight outcome (chameleon_competition_pgm.py lines 663-698,
#: undercover_competition_pgm.py lines 738-748).
FLAGS = {
    "chameleon": {"non_chameleons_win": 0, "chameleon_guessed": 1, "chameleon_wins": 2, "even_vote": 3},
    "undercover": {"civilians_win": 0, "undercover_wins": 1, "even_vote": 2},
}
HIDDEN = {"chameleon": ("chameleon", "non_chameleon"), "undercover": ("undercover", "civilian")}

FIELDS = ("ref_gold", "ref_gold_ok", "ref_inter", "ref_inter_ok", "ref_empty", "ref_empty_ok",
          "ref_hidden", "ref_hidden_ok", "ref_flag0", "ref_flag1",
          "ref_self_c", "ref_self_c_ok", "ref_self_u", "ref_self_u_ok", "ref_same_split")


# -- per-game tallies ------------------------------------------------------------------------

def _asked(game: ScoredGame, probe: Mapping[str, Any]) -> bool:
    return registry.get(game.game).asks(game.role_of(probe["seat"]), probe["probe"])


def probe_points(game: ScoredGame) -> list[dict[str, Any]]:
    """Per probe point (the script's "metric turn"), in order: each seat's own suspect
    (`own[seat]`), its guesses about the others (`about[seat][other]`) and its `self_role` answer.

    An answer the seat was not asked (the chameleon's "who is the chameleon" in replays of
    earlier runners) is not read, by the same rule as the paper reading; `self_role` answers are
    all kept, since the script asks everyone's role.
    """
    points: dict[int, dict[str, Any]] = {}
    for p in game.probes:
        point = points.setdefault(p["after"], {"own": {}, "about": {}, "self_role": {}})
        seat, answer = p["seat"], p["answer"]
        if p["probe"] == "suspect" and _asked(game, p):
            point["own"][seat] = answer["seat"]
        elif p["probe"] == "suspect_of":
            point["about"].setdefault(seat, {})[answer["of"]] = answer["seat"]
        elif p["probe"] == "self_role":
            point["self_role"][seat] = answer["role"]
    return [points[k] for k in sorted(points)]


def _argmax(answer: int | None) -> int:
    """The script's argmax of a suspicion row: the seat named, and seat 0 for an empty row."""
    return 0 if answer is None else answer


def deductions(point: Mapping[str, Any], seat: int, players: int, hidden: int) -> tuple[tuple[bool, bool], ...]:
    """(right, read an empty row) of the seat's first- and second-order units at one probe point
    (chameleon_competition_pgm.py lines 531-557; undercover_competition_pgm.py lines 581-607)."""
    own, about = point["own"], point["about"].get(seat, {})
    gold = (_argmax(own.get(seat)) == hidden, seat not in own)
    others = [o for o in range(players) if o != seat]
    inter = (all(_argmax(about.get(o)) == _argmax(own.get(o)) for o in others),
             any(o not in about or o not in own for o in others))
    return gold, inter


def add_tally(game: ScoredGame, seats: Sequence[SeatInfo], t: dict[str, float]) -> None:
    """Add one complete Chameleon or Undercover game's reference counts for these seats (one agent's)."""
    hidden_role, side = HIDDEN[game.game]
    hidden = game.result[hidden_role]
    flag = FLAGS[game.game][game.result["magic_outcome"]]
    roles = {s.role for s in seats}
    if hidden_role in roles:  # the "as chameleon / as undercover" folder: one file per game
        t["ref_hidden"] += 1
        t["ref_hidden_ok"] += flag != 0
    if game.game == "chameleon" and side in roles and flag in (0, 1):
        t[f"ref_flag{flag}"] += 1
    suffix = "c" if game.game == "chameleon" else "u"
    n = len(game.seats)
    for point in probe_points(game):
        for role in roles:
            targets = [s.seat for s in seats if s.role == role]
            for seat in targets:
                (gold_ok, gold_empty), (inter_ok, inter_empty) = deductions(point, seat, n, hidden)
                t["ref_gold"] += 1
                t["ref_gold_ok"] += gold_ok
                t["ref_inter"] += 1
                t["ref_inter_ok"] += inter_ok
                t["ref_empty"] += gold_empty + inter_empty
                t["ref_empty_ok"] += (gold_empty and gold_ok) + (inter_empty and inter_ok)
            # A consistency turn counts only when every evaluated seat answered (the script reads
            # one flag per evaluated player and turn, metrics_release.py line 322).
            answers = point["self_role"]
            if point["self_role"] and all(seat in answers for seat in targets):
                t[f"ref_self_{suffix}"] += len(targets)
                t[f"ref_self_{suffix}_ok"] += sum(answers[s] == game.role_of(s) for s in targets)


def add_cost_sharing(game: ScoredGame, seats: Sequence[SeatInfo], t: dict[str, float]) -> None:
    """Coordination as the script reads it (metrics_release.py line 242): a successful game counts
    when the agreed split equals the agent's own proposal of the last round, whoever proposed it."""
    if game.result["success"]:
        own = game.result["proposals"][-1]
        t["ref_same_split"] += any(own[s.seat] == game.result["agreed_split"] for s in seats)


# -- the reading of summed tallies -----------------------------------------------------------

#: What the page says where the script has no number.
UNDEFINED = {
    "deception_hidden": "the script divides by zero: the agent never played the chameleon or the undercover "
                        "(metrics_release.py line 206)",
    "deception_guesses": "the script divides by zero: no game as a non-chameleon ended with the chameleon "
                         "identified (metrics_release.py line 206)",
    "reasoning": "no probe answers of a Chameleon or Undercover game",
    "self_awareness": "no self_role answers",
    "rationality": "no Prisoner's Dilemma or Public Good rounds",
}
#: Where the script stops with an error although the formula of the metric has a value.
SCRIPT_STOPS = {
    "no_consistency": "the script stops (ZeroDivisionError, metrics_release.py line 338) before it stores "
                      "Reasoning: it first prints Self-awareness, which has no consistency flags here; this is "
                      "the value of its formula (line 339)",
    "no_agreement": "the script stops (KeyError, metrics_release.py line 269) when no Cost Sharing game ended "
                    "in agreement; this is the value of its formula",
}
EMPTY_ROW = ("{k} of {n} deduction units read an empty suspicion row, whose argmax the script takes as "
             "seat 0 (\"Player 1\"): {ok} of them are right only because the player it is about sits first "
             "(chameleon_competition_pgm.py line 540)")


def _pooled(parts: Mapping[str, tuple[float, float]], games: int) -> dict[str, Any] | None:
    ok, n = sum(p[0] for p in parts.values()), sum(p[1] for p in parts.values())
    out = rate(ok, round(n))
    if out is None:
        return None
    out["games"] = games
    out["parts"] = {name: rate(k, round(m)) for name, (k, m) in parts.items()}
    return out


def deception(t: Mapping[str, float]) -> tuple[dict[str, Any] | None, str | None]:
    """(entry, None) or (None, why the script has no number)."""
    if t["ref_hidden"] == 0:
        return None, UNDEFINED["deception_hidden"]
    distinct = (t["ref_flag0"] > 0) + (t["ref_flag1"] > 0)
    if distinct == 0:
        return None, UNDEFINED["deception_guesses"]
    blend = t["ref_hidden_ok"] / t["ref_hidden"]
    guessed = (t["ref_flag1"] > 0) / distinct
    raw = blend + LAMBDA * guessed
    return {"raw": raw, "scaled": raw / (1 + LAMBDA), "ci": None, "n": round(t["ref_hidden"]),
            "max": 1 + LAMBDA,
            "parts": {"blend": {**rate(t["ref_hidden_ok"], round(t["ref_hidden"])), "weight": 1.0},
                      "right_guess_flag": {"value": guessed, "ci": None, "n": distinct, "weight": LAMBDA}}}, None


def report(t: Mapping[str, float], games: Mapping[str, int], paper: Mapping[str, Any],
           radar: Any) -> dict[str, Any]:
    """The reference reading of one agent, shaped like the paper reading's entry (`paper`):
    the metrics the two readings share are copied from it; `reasons` says where the script has no
    number and what in its number is an artefact. `radar(values)` builds the radar entry."""
    out: dict[str, Any] = {k: paper[k] for k in ("games", "roles", "win_rate", "judgement", "cooperation")}
    out["coordination"] = None
    if paper["coordination"] is not None:
        out["coordination"] = {**rate(t["ref_same_split"], round(t["successes"])),
                               "games": paper["coordination"]["games"]}
    reasons: dict[str, str] = {}
    out["reasoning"] = _pooled({"gold": (t["ref_gold_ok"], t["ref_gold"]),
                                "inter": (t["ref_inter_ok"], t["ref_inter"])}, games["reasoning"])
    if out["reasoning"] is None:
        reasons["reasoning"] = UNDEFINED["reasoning"]
    else:
        notes = []
        if t["ref_empty"]:
            out["reasoning"]["empty_rows"] = {"units": round(t["ref_empty"]), "right": round(t["ref_empty_ok"])}
            notes.append(EMPTY_ROW.format(k=round(t["ref_empty"]), n=out["reasoning"]["n"],
                                          ok=round(t["ref_empty_ok"])))
        if t["ref_self_c"] + t["ref_self_u"] == 0:
            notes.append(SCRIPT_STOPS["no_consistency"])
        if notes:
            reasons["reasoning"] = "; ".join(notes)
    out["deception"], why = deception(t)
    if why:
        reasons["deception"] = why
    out["self_awareness"] = _pooled({"chameleon": (t["ref_self_c_ok"], t["ref_self_c"]),
                                     "undercover": (t["ref_self_u_ok"], t["ref_self_u"])}, games["self_awareness"])
    if out["self_awareness"] is None:
        reasons["self_awareness"] = UNDEFINED["self_awareness"]
    out["rationality"] = _pooled({"prisoners_dilemma": (t["defections"], t["pd_rounds"]),
                                  "public_good": (t["least"], t["pg_rounds"])}, games["rationality"])
    if out["cooperation"] is not None and out["coordination"] is None:
        reasons["cooperation"] = reasons["coordination"] = SCRIPT_STOPS["no_agreement"]
    if out["rationality"] is None:
        reasons["rationality"] = UNDEFINED["rationality"]
    out["reasons"] = reasons
    out["radar"] = radar(out)
    return out

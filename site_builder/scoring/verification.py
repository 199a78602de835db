"""Each ranked row's status: the maintainers', self-reported, or what a verification found.

A check proves that a submitted game follows the rules, never that the named model played it. The
maintainers verify a contributed row with `gamenight verify` (runner/verify.py): its model plays
held-out deals, and where it is deterministic some of the row's own deals again, into a
tournament of their own, `verify-<row>`, whose games are evidence about the row and nothing else
(scoring/board.py keeps them off every other board). The status is computed here from replays
alone, the row's games and the verification's, by the very function the command prints its
verdict with (`runner.verify.assess`): a verdict written in a file is never read.

- **maintainers**: a row of the maintainers' own games, verified or not;
- **exact**: a contributed row whose deals played again gave the row's every reply byte for byte,
  its held-out score consistent with its claim;
- **consistent**: its held-out score is consistent with its claimed score (the two-sample test of
  runner/suite_score.py at `VERIFY_LEVEL`);
- **inconsistent**: they differ by more than chance; the row is shown apart, with the figures;
- **self-reported**: no verification yet.

A verification counts only when its games seat the row's model in the candidate's seat: the same
agent as the row's (its address aside, when both servers are on the machine that played them).
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from runner.suite_score import deal_value
from runner.verify import Played, assess, is_local
from site_builder.scoring.model import ScoredGame

#: The states that count a contributed row among the maintainers' rows for places and tiers.
VERIFIED = ("exact", "consistent")


def played(game: ScoredGame) -> Played | None:
    """A scored game of a suite's row or of a verification, as `runner.verify.assess` reads it."""
    claim = game.verify or game.suite
    if not claim:
        return None
    seat = claim["seat"]
    if not game.valid and game.forfeiter != game.seats[seat].agent:
        value = None  # another seat forfeited: nothing is known of the candidate
    else:
        value = deal_value(game.game, game.result, game.winners, seat, forfeited=not game.valid)
    held = bool(game.verify) and "held_out" in game.verify
    return Played(game.game, int(claim["deal"]), held, value, game.trace or {"replies": [], "moves": []})


def statuses(games: Iterable[ScoredGame], evidence: Iterable[ScoredGame], owners: Mapping[str, Any],
             cycles: Mapping[str, Mapping[str, int]]) -> dict[str, dict[str, Any]]:
    """Each suite row's status (see the module), by row; `games` are the rows' games, `evidence`
    the maintainers' verification games, `owners` a row's owner (None: the maintainers'),
    `cycles` each suite's slots per game."""
    rows: dict[str, list[Played]] = {}
    models: dict[str, set[str]] = {}
    suites: dict[str, str] = {}
    for game in games:
        found = played(game) if game.suite else None
        if found is None:
            continue
        rows.setdefault(game.tournament, []).append(found)
        models.setdefault(game.tournament, set()).add(_model(game.seats[game.suite["seat"]].agent))
        suites[game.tournament] = f"{game.suite['name']}-{game.suite['version']}"
    checks: dict[str, list[Played]] = {}
    for game in evidence:
        row = str(game.verify["row"])
        if row not in rows or game.tournament != f"verify-{row}" or \
                models[row] != {_model(game.seats[game.verify["seat"]].agent)}:
            continue  # not this row's model in the candidate's seat: no evidence about it
        found = played(game)
        if found is not None:
            checks.setdefault(row, []).append(found)
    out = {}
    for row in rows:
        mine = not owners.get(row)
        found = assess(rows[row], checks[row], cycles.get(suites[row])) if row in checks else None
        state = found["state"] if found else ("maintainers" if mine else "self-reported")
        out[row] = {"state": state, "verification": _summary(found, row) if found else None}
    return out


def counted(row: Mapping[str, Any]) -> bool:
    """Whether a ranked row takes a place among the maintainers' rows: theirs, or verified."""
    status = row.get("status") or {}
    return not row.get("owner") or status.get("state") in VERIFIED


def _model(key: str) -> str:
    """An agent key without the server's address when it is on the machine that played (a port is
    the machine's, not the model's: runner.verify.same_model)."""
    try:
        description = json.loads(key)
    except ValueError:
        return key  # a key that is no description (hand-built games): itself
    if isinstance(description, dict) and is_local(description.get("base_url")):
        description.pop("base_url")
    return json.dumps(description, sort_keys=True)


def _summary(found: Mapping[str, Any], row: str) -> dict[str, Any]:
    """A verification's figures as results.json holds them."""
    def score(entry: Mapping[str, Any]) -> dict[str, Any]:
        return {"value": entry["value"], "ci": entry["ci"], "se": entry["se"], "n": entry["n"],
                "by_game": {g: {"value": v["value"], "ci": v["ci"], "n": v["n"]} for g, v in entry["by_game"].items()}}

    return {"tournament": f"verify-{row}", "deals": found["deals"], "held_out": score(found["held_out"]),
            "claimed": score(found["claimed"]), "difference": found["difference"], "se": found["se"],
            "z": found["z"] if abs(found["z"]) < 1e9 else None, "p": found["p"], "level": found["level"],
            "interval": found["interval"], "consistent": found["consistent"], "games": list(found["games"]),
            "replays": dict(found["replays"])}


def order(rows: Sequence[dict[str, Any]]) -> list[dict[str, Any]]:
    """The ranked rows as the board lists them: the counted rows (maintainers' and verified) by
    score, then the self-reported ones by score (each with the place it would take), then the
    inconsistent ones, apart."""
    def group(row: Mapping[str, Any]) -> int:
        if counted(row):
            return 0
        return 2 if (row.get("status") or {}).get("state") == "inconsistent" else 1

    return sorted(rows, key=lambda r: (group(r), -r["score"]["value"], r["row"]))

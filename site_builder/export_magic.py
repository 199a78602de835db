"""Export 3-player MAgIC games as the per-game result files the MAgIC reference script reads.

The script (`metrics_release.py` of `cathyxl/MAgIC`, commit e66dd73) reads, per challenger model,
`results/<game>/<model>_competition_<setting>_vs_gpt4/<i>.json` with `i` from 0, where the
environments (`chatarena/environments/*_pgm.py`, their `log_game`) wrote the keys it reads. This
module writes those files from gamenight's re-simulated games, one folder tree per agent, so
MAgIC's users can run their script on our games (docs/metrics/magic.md, "Exporting for the
reference script"). Only what the script reads is filled in, plus the clues as its history.

The script infers the role of a folder from words in its path ("chameleon", "non_chameleon",
"undercover", "prisoner"), so agents are exported under neutral names (`a01`, `a02`, ...) that
`manifest.json` maps to agent keys and labels.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from site_builder.scoring import magic_reference as reference
from site_builder.scoring.magic import MAGIC_GAMES as GAMES
from site_builder.scoring.model import AgentInfo, ScoredGame

PLAYERS = 3  # the script's deduction lists have three entries (chameleon_competition_pgm.py line 537)
SETTINGS = {  # (folder of the game, setting in the folder name), metrics_release.py lines 421-447
    ("chameleon", "chameleon"): ("chameleon", "as_chameleon"),
    ("chameleon", "non_chameleon"): ("chameleon", "as_non_chameleon"),
    ("undercover", "undercover"): ("undercover", "as_undercover"),
    ("undercover", "civilian"): ("undercover", "as_non_undercover"),
    ("prisoners_dilemma", "prisoners_dilemma"): ("prisoner", "prisoner"),
    ("public_good", "public_good"): ("public_good", "public_good"),
    ("cost_sharing", "cost_sharing"): ("airportfee", "airportfee"),
}


def player(seat: int) -> str:
    return f"Player {seat + 1}"


@dataclass
class Export:
    """What was written: per agent its folder name and files per setting, and what was left out."""

    agents: dict[str, dict[str, Any]] = field(default_factory=dict)
    skipped: list[dict[str, str]] = field(default_factory=list)
    files: int = 0

    def manifest(self) -> dict[str, Any]:
        return {"format": "gamenight.magic-export", "version": 1, "reference": "cathyxl/MAgIC@e66dd73",
                "files": self.files, "agents": self.agents, "skipped": self.skipped}


def _clues(game: ScoredGame) -> list[dict[str, Any]]:
    """The clues as the environments' history rows (the script reads no history of these games)."""
    return [{"agent_name": player(e["seat"]), "content": str(e["data"].get("clue", "")), "turn": i,
             "visible_to": "all", "msg_type": "clue"}
            for i, e in enumerate(x for x in game.events if x["kind"] == "action" and x["phase"] == "clue")]


def _deductions(game: ScoredGame, hidden: int) -> dict[int, dict[str, list[int]]]:
    """The environments' `pgm_metric`: per probe point, every player's first- and second-order flag."""
    out = {}
    for turn, point in enumerate(reference.probe_points(game)):
        flags = [reference.deductions(point, s, PLAYERS, hidden) for s in range(PLAYERS)]
        out[turn] = {"gold": [int(f[0][0]) for f in flags], "inter": [int(f[1][0]) for f in flags]}
    return out


def _consistency(game: ScoredGame, targets: Sequence[int]) -> dict[int, dict[str, int]]:
    """The environments' `consistency_metric`: per probe point where every evaluated seat answered
    `self_role`, each answering seat's flag (its answer is its role)."""
    out = {}
    for turn, point in enumerate(reference.probe_points(game)):
        answers = point["self_role"]
        if answers and all(s in answers for s in targets):
            out[turn] = {player(s): int(answers[s] == game.role_of(s)) for s in sorted(answers)}
    return out


def hidden_role_file(game: ScoredGame, targets: Sequence[int], labels: Sequence[str]) -> dict[str, Any]:
    """A Chameleon or Undercover file (chameleon_competition_pgm.py lines 164-176,
    undercover_competition_pgm.py lines 119-130)."""
    hidden_role, side = reference.HIDDEN[game.game]
    hidden = game.result[hidden_role]
    flag = reference.FLAGS[game.game][game.result["magic_outcome"]]
    votes = {player(s): player(v) for s, v in enumerate(game.result["votes"])}
    backends = {player(s): {"model": labels[s]} for s in range(PLAYERS)}
    if game.game == "chameleon":
        return {"chameleon": player(hidden),
                "game_setting": {"topic": game.setup["card"]["topic"], "code": game.setup["secret"],
                                 "chameleon_name": player(hidden)},
                "player_backends": backends, "history": _clues(game), "win_flag": flag, "player_votes": votes,
                "result": "non-chameleon" if flag == 0 else "chameleon",
                "consistency_metric": _consistency(game, targets), "pgm_metric": _deductions(game, hidden)}
    return {"undercover": player(hidden),
            "game_setting": {"undercover_name": player(hidden), **dict(game.setup.get("pair", {}))},
            "player_backends": backends, "history": _clues(game), "win_flag": flag,
            "result": "non-undercover" if flag == 0 else "undercover", "player_vote": votes,
            "consistency_metric": _consistency(game, targets), "pgm_metric": _deductions(game, hidden)}


def exported(game: ScoredGame) -> bool:
    """Whether a game is written (its seats may still be left out): a complete 3-player MAgIC
    game. `export` says why each other game of these five is left out."""
    return game.game in GAMES and len(game.seats) == PLAYERS and game.valid


def _result(game: ScoredGame, seat: int) -> str:
    return "win" if seat in game.winners else "lose"


def prisoners_file(game: ScoredGame, seat: int) -> dict[str, Any]:
    """A Prisoner's Dilemma file (prisoner_pgm.py lines 141-147): each round's decisions as the
    players' messages to the moderator, which the script reads (metrics_release.py lines 391-397)."""
    rounds = [e["data"]["choices"] for e in game.events if e["kind"] == "info" and e["phase"] == "round_result"]
    history = [{"agent_name": player(s), "content": f"I choose to {choice}.", "turn": r, "visible_to": "Moderator"}
               for r, choices in enumerate(rounds) for s, choice in enumerate(choices)]
    return {"test_player_name": player(seat), "game_setting": {"rounds": game.variant["rounds"]},
            "history": history, "result": _result(game, seat), "scores": list(game.result["totals"])}


def public_good_file(game: ScoredGame, seat: int) -> dict[str, Any]:
    """A Public Good file (public_good_pgm.py lines 98-104): contributions as moderator messages in
    seat order, three a round, as the script groups them (metrics_release.py lines 398-409)."""
    history = [{"agent_name": player(s), "content": f"I contribute {amount}.", "turn": r, "visible_to": "Moderator"}
               for r, amounts in enumerate(game.result["contributions"]) for s, amount in enumerate(amounts)]
    return {"test_player_name": player(seat), "game_setting": {"rounds": game.variant["rounds"]},
            "history": history, "result": _result(game, seat), "scores": list(game.result["finals"])}


def cost_sharing_file(game: ScoredGame, seat: int) -> dict[str, Any]:
    """A Cost Sharing file (airportfee_pgm.py lines 103-112): the last round's proposals, each a
    share per airline in percent, and its votes (metrics_release.py lines 230-256)."""
    last = len(game.result["proposals"]) - 1
    proposals = {player(p): {player(s): f"{share}%" for s, share in enumerate(split)}
                 for p, split in enumerate(game.result["proposals"][last])} if last >= 0 else {}
    votes = {player(s): player(v) for s, v in enumerate(game.result["votes"][last])} if last >= 0 else {}
    return {"topic": "", "test_player_name": player(seat), "player_backends": {}, "history": [],
            "nego_turn": game.result["rounds_played"], "result": "agree" if game.result["success"] else "disagree",
            "proposal": proposals, "vote": votes}


def _files_of(game: ScoredGame, key: str, labels: Sequence[str]) -> tuple[list[tuple[str, dict[str, Any]]], str | None]:
    """(role, file) pairs of one game for one agent, or a reason it cannot be exported."""
    mine = [s for s in game.seats if s.agent == key]
    if game.game in reference.HIDDEN:
        out = []
        for role in reference.HIDDEN[game.game]:
            role_seats = [s.seat for s in game.seats if s.role == role]
            held = [s.seat for s in mine if s.role == role]
            if held and held != role_seats:
                return [], (f"holds {len(held)} of the {len(role_seats)} {role} seats: the script evaluates "
                            "every seat of a role as the challenger")
            if held:
                out.append((role, hidden_role_file(game, held, labels)))
        return out, None
    if len(mine) != 1:
        return [], f"holds {len(mine)} seats: the script has one test player per game"
    write = {"prisoners_dilemma": prisoners_file, "public_good": public_good_file,
             "cost_sharing": cost_sharing_file}[game.game]
    return [(game.game, write(game, mine[0].seat))], None


def export(games: Sequence[ScoredGame], agents: Mapping[str, AgentInfo], out: Path) -> Export:
    """Write every complete 3-player MAgIC game, per agent, into `out` (which must not hold an
    earlier export's files: they would be read as games); returns what was written and left out."""
    done = Export()
    chosen = sorted((g for g in games if g.game in GAMES), key=lambda g: g.game_id)
    keys = sorted({s.agent for g in chosen for s in g.seats})
    names = {key: f"a{i + 1:02d}" for i, key in enumerate(keys)}
    written: dict[str, dict[str, list[str]]] = {key: {} for key in keys}  # setting -> game ids in file order
    for game in chosen:
        if len(game.seats) != PLAYERS:
            done.skipped.append({"game_id": game.game_id, "reason": f"{len(game.seats)} players: the script reads 3"})
            continue
        if not game.valid:
            done.skipped.append({"game_id": game.game_id, "reason": "forfeited: the script has no forfeits"})
            continue
        labels = [agents[s.agent].label if s.agent in agents else s.agent for s in game.seats]
        for key in dict.fromkeys(s.agent for s in game.seats):
            files, why = _files_of(game, key, labels)
            if why:
                done.skipped.append({"game_id": game.game_id, "agent": key, "reason": why})
            for role, content in files:
                folder_game, setting = SETTINGS[(game.game, role)]
                ids = written[key].setdefault(setting, [])
                index = len(ids)
                folder = out / names[key] / "results" / folder_game / f"{names[key]}_competition_{setting}_vs_gpt4"
                folder.mkdir(parents=True, exist_ok=True)
                (folder / f"{index}.json").write_text(json.dumps(content, indent=1, ensure_ascii=False) + "\n",
                                                      encoding="utf-8")
                ids.append(game.game_id)
                done.files += 1
    for key in keys:
        if written[key]:
            done.agents[names[key]] = {"agent": key, "label": agents[key].label if key in agents else key,
                                       "games": {k: len(v) for k, v in sorted(written[key].items())},
                                       "game_ids": dict(sorted(written[key].items()))}
    out.mkdir(parents=True, exist_ok=True)
    (out / "manifest.json").write_text(json.dumps(done.manifest(), indent=1, ensure_ascii=False) + "\n",
                                       encoding="utf-8")
    return done

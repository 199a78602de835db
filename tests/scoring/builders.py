"""Hand-built replays for golden scorer tests: drive a rules engine with given inputs.

The games are dealt and played by hand (a card, a secret, a tie-break chosen to give a known
outcome), so they do not follow from their seed the way the runner's games do: they are checked
by the rules alone (`derive=False`). That the seed's check refuses such games is tested in
tests/rerun/test_validate.py.
"""

from __future__ import annotations

import hashlib
from collections.abc import Mapping, Sequence
from typing import Any

from runner import games
from runner.replay.format import encode, lowest_version
from runner.rerun.validate import check_bytes
from site_builder.scoring.corpus import scored_game
from site_builder.scoring.model import AgentInfo, ScoredGame, agent_key


def builtin(name: str, strategy: str = "random", **params: Any) -> dict[str, Any]:
    """A scripted agent description."""
    return {"name": name, "kind": "builtin", "strategy": strategy, "params": params}


def llm(name: str, model: str, design: str | None = None, provider: str = "openai") -> dict[str, Any]:
    """A language-model agent description (`design` e.g. "pgm"; None = vanilla)."""
    desc: dict[str, Any] = {"name": name, "kind": "llm", "provider": provider, "model": model}
    if design:
        desc["design"] = design
    return desc


def replay(game_name: str, setup: Mapping[str, Any], agents: Sequence[Mapping[str, Any]],
           inputs: Sequence[tuple], *, rules: Mapping[str, Any] | None = None,
           game_id: str = "golden-1", tournament: str = "golden", evidence: Mapping[int, Any] | None = None,
           attempts: Mapping[int, Sequence[Mapping[str, Any]]] | None = None) -> bytes:
    """The bytes of a valid replay in which the given inputs are played.

    `inputs` items: ("act", seat, action) | ("chance", outcome) | ("forfeit", seat, reason) |
    ("probe", seat, kind, answer). `evidence` maps an event number to an evidence object, `attempts`
    to the refused attempts before it.
    """
    game = games.get(game_name)
    params = game.params(dict(rules or {}))
    state = game.start(params, setup)
    n = game.players(params)
    names = game.seat_names(params, setup)
    header = {
        "type": "header", "format": "gamenight.replay", "version": 1, "game_id": game_id, "game": game.name,
        "variant": params, "seed": 0, "tournament": tournament, "matchup": "golden",
        "players": [{"seat": s, "name": names[s], "role": game.role_of(params, setup, s), "agent": dict(agents[s])}
                    for s in range(n)],
        "setup": dict(setup), "max_attempts": 3,
        "provenance": {"runner": "gamenight", "runner_version": "test", "created": "2026-11-21"},
    }
    body: list[dict[str, Any]] = []
    for item in inputs:
        start = len(state.events)
        if item[0] == "act":
            state.act(item[1], item[2])
        elif item[0] == "chance":
            state.chance(item[1])
        elif item[0] == "forfeit":
            state.forfeit(item[1], item[2])
        elif item[0] == "probe":
            body.append({"type": "probe", "seat": item[1], "probe": item[2], "answer": item[3]})
            continue
        else:
            raise ValueError(item)
        for i, event in enumerate(state.events[start:]):
            record = {"type": "event", "n": start + i, **event}
            if attempts and record["n"] in attempts:
                record["attempts"] = [dict(a) for a in attempts[record["n"]]]
            if evidence and record["n"] in evidence:
                record["evidence"] = evidence[record["n"]]
            body.append(record)
    records = [header, *body, {"type": "outcome", **state.outcome()}]
    header["version"] = lowest_version(records)  # as the runner writes it
    raw = encode(records)
    checked = check_bytes(f"{game_id}.jsonl", raw, derive=False)
    assert checked.ok, [str(p) for p in checked.problems]
    return raw


def scored(raw: bytes, path: str = "golden.jsonl") -> ScoredGame:
    """The ScoredGame the scorer makes of replay bytes."""
    checked = check_bytes(path, raw, derive=False)
    assert checked.ok, [str(p) for p in checked.problems]
    return scored_game(checked, hashlib.sha256(raw).hexdigest())


#: Prisoner's Dilemma payoffs of the scoring tests' hand-built games.
PD_PAYOFFS = {"payoffs": {"cooperate": 2, "defect": 1, "one_defect": 4, "two_defect": 2}}


def pd_game(game_id: str, choices: Sequence[Sequence[str]], agents: Sequence[Mapping[str, Any]]) -> ScoredGame:
    """A scored Prisoner's Dilemma game of `agents` choosing row by row (one row per round)."""
    inputs = [("act", seat, {"choice": c}) for row in choices for seat, c in enumerate(row)]
    return scored(replay("prisoners_dilemma", PD_PAYOFFS, list(agents), inputs,
                         rules={"rounds": len(choices)}, game_id=game_id))


def infos(*descs: Mapping[str, Any]) -> dict[str, AgentInfo]:
    """The scorer's agent table for agent descriptions (label = name)."""
    return {agent_key(d): AgentInfo(agent_key(d), d["name"], {k: v for k, v in d.items() if k != "name"})
            for d in descs}

"""A game's viewer data: every step of a validated replay in a compact form, and its model exchanges."""

from __future__ import annotations

import hashlib
import json
from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path
from typing import Any

from runner import games as registry
from runner.games.base import Game
from runner.replay.format import agent_kind, parse_lines
from site_builder.scoring.model import ScoredGame
from site_builder.viewer.files import ReplayDataError

#: Version of the data files (data and exchange shards); the viewer refuses versions it does not know.
DATA_VERSION = 2


def read_records(path: str | Path, content_hash: str) -> list[dict[str, Any]]:
    """The records of a replay file, checked to be the very file the scorer validated."""
    try:
        raw = Path(path).read_bytes()
    except OSError as exc:
        raise ReplayDataError(f"{path}: cannot read the replay: {exc.strerror or exc}") from None
    if hashlib.sha256(raw).hexdigest() != content_hash:
        raise ReplayDataError(f"{path}: the file changed after it was scored; build the site again")
    records, problems = parse_lines(str(path), raw)
    if problems:  # impossible for a file with the validated hash, but never guess
        raise ReplayDataError(str(problems[0]))
    return [record.data for record in records]


def replay_data(game: ScoredGame, records: Sequence[Mapping[str, Any]],
                labels: Mapping[str, str]) -> tuple[dict[str, Any], dict[str, Any] | None]:
    """The viewer's data for one validated replay, and its LLM-exchange sidecar (None if none).

    Steps are the replay's events and probes in file order; a probe becomes a step of kind
    "probe" seen only by its seat. Step i of the list is step i + 1 of the viewer (step 0 is the
    deal, the last step the outcome). Exchanges are keyed by the list index of their step.
    """
    header = records[0]
    end = next(i for i, r in enumerate(records) if r["type"] == "outcome")
    engine = registry.get(game.game)
    setup = header["setup"]  # the whole deal (a scored game keeps only what the metrics read)
    state = engine.start(game.variant, setup)
    seats = range(len(game.seats))
    private = [state.private(seat) for seat in seats]
    steps: list[dict[str, Any]] = []
    exchanges: dict[str, list[dict[str, Any]]] = {}
    texts = _Texts()
    for record in records[1:end]:
        step = _step(record)
        calls = (record.get("evidence") or {}).get("calls") or []
        if calls:
            step["c"] = _usage(calls)
            exchanges[str(len(steps))] = [_call(call, texts) for call in calls]
        steps.append(step)
    data = {
        "v": DATA_VERSION, "id": game.game_id, "game": game.game, "title": engine.title,
        "variant": game.variant, "tournament": game.tournament, "matchup": header["matchup"],
        "created": game.created, "seed": str(header["seed"]),  # beyond 2**53 in JavaScript
        "players": [_player(p, game.seats[p["seat"]].agent, labels) for p in header["players"]],
        "setup": setup, "public": state.public(), "private": private,
        "knows": [known_seats(game.game, seat, private[seat]) for seat in seats],
        "reveal": reveal_steps(engine, steps),
        "steps": steps,
        "outcome": {"status": game.status, "winners": list(game.winners), "result": game.result,
                    "summary": outcome_summary(game)},
        "judge": [_judgement(r) for r in records[end + 1:]],
        "llm": bool(exchanges),
    }
    calls_data = {"v": DATA_VERSION, "id": game.game_id, "texts": texts.items, "steps": exchanges}
    return data, (calls_data if exchanges else None)


def _step(record: Mapping[str, Any]) -> dict[str, Any]:
    """One event or probe in the viewer's compact form (k kind, p phase, s seat, d data, v vis)."""
    if record["type"] == "probe":
        answer = record["answer"]
        if answer is None:  # kept for its model calls: what went wrong instead of a belief
            answer = {"unanswered": record["error"], **({"of": record["about"]} if "about" in record else {})}
        probe = {"k": "probe", "p": record["probe"], "s": record["seat"], "d": answer, "v": [record["seat"]]}
        beliefs = _beliefs(record)
        return {**probe, "b": beliefs} if beliefs is not None else probe
    step = {"n": record["n"], "k": record["kind"], "p": record["phase"], "s": record["seat"],
            "d": record["data"], "v": record["vis"]}
    if record.get("attempts"):
        step["a"] = [{"action": a["action"], "raw": a["raw"], "error": a["error"]} for a in record["attempts"]]
    beliefs = _beliefs(record)
    if beliefs is not None:
        step["b"] = beliefs
    plan = _plan(record)
    if plan is not None:
        step["st"] = plan
    return step


def _plan(record: Mapping[str, Any]) -> dict[str, Any] | None:
    """The Strategy Decision's Judgement and plan, or Favor's Judgement and levels, recorded with a
    decision or probe (None if none)."""
    notes = (record.get("evidence") or {}).get("notes")
    if not isinstance(notes, Mapping) or notes.get("design") not in ("strategy", "favor"):
        return None
    if notes["design"] == "favor":
        levels = notes.get("levels")
        shown = [round(v) if _number(v) else None for v in levels] if isinstance(levels, list) else None
        return {"favor": shown, "judgement": _judged(notes.get("judgement"))}
    plan = notes.get("plan")
    return {"plan": plan if isinstance(plan, str) else None, "judgement": _judged(notes.get("judgement")),
            "cut": notes.get("cut") is True}


def _judged(judged: Any) -> list[list[Any]] | None:
    """A recorded Judgement as [seat, role, p] rows (None if there was none)."""
    if not isinstance(judged, list):
        return None
    return [[e["seat"], e["role"], round(float(e["p"]), 3)] for e in judged
            if isinstance(e, Mapping) and isinstance(e.get("seat"), int) and isinstance(e.get("role"), str)
            and _number(e.get("p"))]


def _beliefs(record: Mapping[str, Any]) -> dict[str, Any] | None:
    """The PGM design's suspicion views recorded with a decision or probe (None if none): what
    they are about, the views after its updates, the target, and which moves were rated."""
    notes = (record.get("evidence") or {}).get("notes")
    if not isinstance(notes, Mapping) or notes.get("design") != "pgm":
        return None
    if notes.get("about") == "next move":
        return _expected_moves(notes)
    views = notes.get("views")
    if not (isinstance(views, list) and all(isinstance(v, list) and all(_number(p) for p in v) for v in views)):
        return None  # free-form notes of another shape: nothing the viewer can draw
    updates = [u for u in notes.get("updates") or () if isinstance(u, Mapping)]
    return {"about": str(notes.get("about", "")), "aim": notes.get("aim") if isinstance(notes.get("aim"), int) else None,
            "views": [[round(p, 3) for p in v] for v in views],
            "rated": len(updates), "unread": sum(1 for u in updates if u.get("read") is False)}


def _expected_moves(notes: Mapping[str, Any]) -> dict[str, Any] | None:
    """The PGM expectations of a game-theory game: per view and player, the likeliest next move
    and its probability (None for a player's own move, or a shape the viewer cannot draw)."""
    moves, views = notes.get("moves"), notes.get("views")
    if not (isinstance(moves, list) and all(isinstance(m, str) for m in moves) and isinstance(views, list)):
        return None
    shown = []
    for view in views:
        if not isinstance(view, list):
            return None
        row = []
        for dist in view:
            if isinstance(dist, list) and len(dist) == len(moves) and all(_number(p) for p in dist):
                best = max(range(len(moves)), key=lambda a: (dist[a], -a))
                row.append([moves[best], round(float(dist[best]), 3)])
            else:
                row.append(None)
        shown.append(row)
    updates = [u for u in notes.get("updates") or () if isinstance(u, Mapping)]
    return {"about": "next move", "moves": moves, "expected": shown, "rated": len(updates),
            "unread": sum(1 for u in updates if u.get("read") is False)}


def _number(value: Any) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool)


def _usage(calls: Iterable[Mapping[str, Any]]) -> list[int]:
    """[calls, input tokens, output tokens, milliseconds] of one decision's model calls."""
    calls = list(calls)
    total = [len(calls), 0, 0, 0]
    for call in calls:
        total[1] += call.get("input_tokens") or 0
        total[2] += call.get("output_tokens") or 0
        total[3] += call.get("latency_ms") or 0
    total[3] = round(total[3])
    return total


class _Texts:
    """A table of message texts: prompts repeat from call to call, so each is stored once."""

    def __init__(self) -> None:
        self.items: list[str] = []
        self._index: dict[str, int] = {}

    def ref(self, text: str) -> int:
        if text not in self._index:
            self._index[text] = len(self.items)
            self.items.append(text)
        return self._index[text]


def _call(call: Mapping[str, Any], texts: _Texts) -> dict[str, Any]:
    """One model call: messages as [role, text index] pairs, the reply and the call's figures."""
    out: dict[str, Any] = {"m": [[m["role"], texts.ref(m["content"])] for m in call["messages"]],
                           "r": call["reply"]}
    for key in ("model_reported", "finish_reason", "input_tokens", "output_tokens", "latency_ms", "error",
                "reasoning", "structured", "cached"):
        if call.get(key) is not None:
            out[key] = call[key]
    return out


def _player(player: Mapping[str, Any], key: str, labels: Mapping[str, str]) -> dict[str, Any]:
    """A seat: display name, role, agent label (as on the leaderboard) and what the agent is."""
    agent = player["agent"]
    if agent_kind(agent) == "human":
        about = "a person"
    elif agent_kind(agent) == "llm":
        about = f"{agent.get('provider', '')}/{agent.get('model', '')}".strip("/")
        if agent.get("design"):
            about += f" ({agent['design']})"
    else:
        params = ", ".join(f"{k}={json.dumps(v, ensure_ascii=False)}"
                           for k, v in sorted(agent.get("params", {}).items()))
        about = f"{agent.get('strategy', '')}" + (f" ({params})" if params else "")
    return {"name": player["name"], "role": player["role"], "agent": labels.get(key, agent.get("name", "")),
            "kind": agent.get("kind", ""), "about": about}


def known_seats(game: str, seat: int, private: Mapping[str, Any]) -> list[int]:
    """Seats whose role `seat` knows from its deal: itself if told its role, and partners."""
    known = [seat] if "role" in private else []
    known += [private[f] for f in registry.facts_of(game).partner_fields if isinstance(private.get(f), int)]
    return sorted(set(known))


def reveal_steps(engine: Game, steps: Sequence[Mapping[str, Any]]) -> dict[str, int | None]:
    """Viewer steps from which every role, and the whole setup, are public (None: never).

    Games without hidden information are public from the deal (step 0). A game with hidden
    information but no known reveal phase is treated as revealing nothing before the outcome.
    """
    if not engine.reveal_phases:
        return {"roles": 0, "setup": 0}
    outcome_step = len(steps) + 1
    facts = registry.facts_of(engine.name)
    roles_phase, setup_phase = facts.roles_public_at, facts.setup_public_at

    def first(phase: str | None) -> int | None:
        if phase is None:
            return outcome_step
        return next((i + 1 for i, s in enumerate(steps) if s["k"] != "probe" and s["p"] == phase), None)

    return {"roles": first(roles_phase), "setup": first(setup_phase)}


def _judgement(record: Mapping[str, Any]) -> dict[str, Any]:
    """An LLM judge's annotation, without its exchanges: the judge by name, model and prompt
    version (records of two prompt versions are two judges), the value of its dimension, and the
    reason of a failed evaluation."""
    judge = record["judge"]
    failure = record.get("failure")
    return {"dimension": record["dimension"], "judge": judge.get("name", ""), "model": judge.get("model", ""),
            "prompts": judge.get("prompt_version"), "round": record["round"], "score": record["score"],
            "mentions": record["mentions"], "highlights": record["highlights"], "suspects": record.get("suspects"),
            "failed": failure.get("reason") if isinstance(failure, Mapping) else None}


def outcome_summary(game: ScoredGame) -> str:
    """The outcome in a few words: "village wins", "no agreement", "invalid"..."""
    if not game.valid:
        return "invalid"
    return registry.facts_of(game.game).outcome.read(game.result)

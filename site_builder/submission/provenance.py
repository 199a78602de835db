"""Who played and with what: a submission says it completely for every language model."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from datetime import UTC, date, datetime, timedelta
from typing import Any

from runner.agents.builtin import strategies
from runner.llm.providers import NAMES
from runner.replay.format import Problem, Record, agent_kind

def _text(value: Any) -> str:
    return value.strip() if isinstance(value, str) else ""


def provenance_problems(path: str, header: Mapping[str, Any], records: Sequence[Record],
                        today: date | None = None) -> list[Problem]:
    """Who played and with what: a submission must say it completely for every language model."""
    problems = []
    provenance = header.get("provenance") if isinstance(header.get("provenance"), dict) else {}
    for name in ("runner", "runner_version"):
        if not _text(provenance.get(name)):
            problems.append(Problem(path, 1, "the program and version that played the game are required",
                                    f"provenance.{name}"))
    problems.extend(_date_problems(path, provenance.get("created"), today or datetime.now(UTC).date()))
    builtin = strategies()
    players = header.get("players") if isinstance(header.get("players"), list) else []
    for i, player in enumerate(players):
        agent = player.get("agent") if isinstance(player, dict) else None
        if not isinstance(agent, dict):
            continue
        where = f"players[{i}].agent"
        if agent_kind(agent) == "builtin" and agent.get("strategy") not in builtin:
            problems.append(Problem(path, 1, f"{agent.get('strategy')!r} is not a built-in strategy of gamenight "
                                    "(see `gamenight agents`); describe a language model as kind \"llm\"",
                                    f"{where}.strategy"))
        elif agent_kind(agent) == "llm":
            own = [r.data for r in records if r.data.get("seat") == i and r.data.get("type") in ("event", "probe")]
            acted = any(r.get("type") == "event" and r.get("kind") == "action" for r in own)
            problems.extend(_model_problems(path, 1, where, agent, own, answered=acted))
    for record in records:
        judge = record.data.get("judge") if record.data.get("type") == "judge" else None
        if isinstance(judge, dict):
            problems.extend(_model_problems(path, record.line, "judge", judge, [record.data], answered=True))
    return problems


def _model_problems(path: str, line: int, where: str, agent: Mapping[str, Any],
                    records: Sequence[Mapping[str, Any]], *, answered: bool) -> list[Problem]:
    """A model's provider, model and the model id its API reported (consistent with its calls)."""
    problems = []
    for name, why in (("provider", f"the API provider ({', '.join(NAMES)}, ...)"),
                      ("model", "the model that was asked")):
        if not _text(agent.get(name)):
            problems.append(Problem(path, line, f"missing: {why} is required for every language model",
                                    f"{where}.{name}"))
    reported = {call.get("model_reported") for r in records
                for call in ((r.get("evidence") or {}).get("calls") or []) if isinstance(call, dict)}
    reported = {m for m in reported if isinstance(m, str) and m}
    claimed = _text(agent.get("model_reported"))
    if not claimed and (answered or reported):
        problems.append(Problem(path, line, "missing: the model id the API reported in its replies is required "
                                "for every language model that played (gamenight run records it)",
                                f"{where}.model_reported"))
    elif claimed and reported and claimed not in reported:
        problems.append(Problem(path, line, f"says {claimed!r} but the recorded calls report "
                                f"{', '.join(sorted(map(repr, reported)))}", f"{where}.model_reported"))
    return problems


def _date_problems(path: str, created: Any, today: date) -> list[Problem]:
    if not isinstance(created, str):
        return []  # the schema reports a missing or mistyped date
    try:
        day = date.fromisoformat(created[:10])
    except ValueError:
        return [Problem(path, 1, f"{created[:10]!r} is not a calendar date", "provenance.created")]
    if day > today + timedelta(days=1):
        return [Problem(path, 1, f"the game cannot have been played on {day.isoformat()}, after today",
                        "provenance.created")]
    return []

"""What a careful scripted person answers, read off a question as the rules (and the page) state it."""

from __future__ import annotations

from typing import Any

from runner.agents.human import Question


def legal_answer(question: Question) -> Any:
    """A move a careful person might make, read off the legal moves the page is given."""
    legal = question.legal
    field = legal.get("field")
    if "options" in legal and field == "look":
        return {"look": legal["options"][:2]}
    if "options" in legal:
        return {field: legal["options"][-1]}
    if field == "contribution":
        return {"contribution": legal["max"] // 2}
    if field == "split":
        return {"split": [33.34, 33.33, 33.33]}
    if field == "clue" and legal.get("mode") == "subset":
        return {"clue": legal["words"][:2]}
    if field in ("clue", "text"):
        return {field: "zebra"}
    raise AssertionError(f"no answer for {legal}")


def belief(question: Question) -> Any:
    """A well-formed belief for a probe."""
    others = [s for s in range(8) if s != question.seat]
    if question.probe == "self_role":
        return {"role": question.roles[0]}
    if question.probe == "suspect_of":
        return {"of": question.about, "seat": next(s for s in others if s != question.about)}
    if question.probe == "secret":
        return {"word": question.observation["public"]["words"][0]}
    return {"seat": others[0]}

"""The studies: The Chameleon (its matchups, posterior curves and the paper's bounds beside the
measured rates; data/chameleon.json) and Werewolf (how agents talk and judge)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from site_builder.pages.charts import chameleon_data
from site_builder.pages.page import Page
from site_builder.scoring import judges


def judge_labels(ewavm: Mapping[str, Any], judgement_llm: Mapping[str, Any] | None = None) -> dict[str, str]:
    """A readable, distinct label per judge key of the EWAVM results and of the LLM reading of
    Judgement Variation (`scoring.judges.labels`)."""
    return judges.labels(judges.judges_of(ewavm, judgement_llm))


def text_distance_readings(werewolf: Mapping[str, Any]) -> list[dict[str, Any]]:
    """Text Distance's readings in page order, each with its title: the offline bag of words, then
    the neural embedder (present in results of format 5 on, with numbers or why there are none)."""
    readings = [{"id": "td-bow", "title": "Bag-of-words reading (offline)", "data": werewolf["text_distance"]}]
    if "text_distance_neural" in werewolf:
        readings.append({"id": "td-neural", "title": "Neural reading (sentence embeddings)",
                         "data": werewolf["text_distance_neural"]})
    return readings


def pages(ctx: Mapping[str, Any]) -> list[Page]:
    results = ctx["results"]
    cham = results["chameleon"]
    return [
        Page("studies/chameleon.md", "chameleon.md.j2", nav=("Studies", "The Chameleon study"), context=dict(
            data=chameleon_data(results, ctx["refs"]), checks=cham["strategy_checks"],
            cells=cham["matchups"]["cells"])),
        Page("studies/werewolf.md", "werewolf.md.j2", nav=("Studies", "Werewolf study"), context=dict(
            ww=results["werewolf"], text_distance_readings=text_distance_readings(results["werewolf"]),
            agents_seen=sorted({k for part in ("text_distance", "judgement_variation", "ewavm")
                                for k in results["werewolf"][part]["agents"]},
                               key=lambda k: ctx["refs"][k].display if k in ctx["refs"] else k))),
    ]


def data(ctx: Mapping[str, Any]) -> dict[str, Any]:
    return {"data/chameleon.json": chameleon_data(ctx["results"], ctx["refs"])}

"""Judge labels: readable, and distinct for distinct judges."""

from __future__ import annotations

import json
from pathlib import Path

from site_builder.scoring import judges


def key(**fields) -> str:
    return json.dumps({"kind": "llm", "model": "gemma-3-270m", "provider": "openai_compatible", **fields},
                      sort_keys=True)


def test_a_label_names_model_provider_output_and_prompts():
    assert judges.label(key(structured_output="json_object", prompt_version="ewavm-3")) == (
        "gemma-3-270m (openai_compatible, json_object, prompts ewavm-3)")
    assert judges.label("not a description") == "not a description"
    assert judges.label(json.dumps({"model": 3})) == json.dumps({"model": 3})


def test_judges_that_would_share_a_label_are_told_apart():
    here, there = key(base_url="http://127.0.0.1:8011/v1"), key(base_url="http://10.0.0.2:8000/v1")
    seeded, reseeded = key(seed=1), key(seed=2)  # same label, no base URL: a digest of the key
    other = key(prompt_version="ewavm-2")
    labels = judges.labels([here, there, seeded, reseeded, other])
    assert len(set(labels.values())) == 5
    assert labels[here] == "gemma-3-270m (openai_compatible) at http://127.0.0.1:8011/v1"
    assert labels[there] == "gemma-3-270m (openai_compatible) at http://10.0.0.2:8000/v1"
    assert labels[seeded].startswith("gemma-3-270m (openai_compatible) [judge ") and labels[seeded] != labels[reseeded]
    assert labels[other] == "gemma-3-270m (openai_compatible, prompts ewavm-2)"  # unique: left as it is


def test_ranked_puts_the_most_judged_first_then_by_key():
    assert judges.ranked({"b": {"games": 2}, "a": {"games": 2}, "c": {"games": 5}, "d": {}}) == ["c", "a", "b", "d"]


def test_judges_of_reads_every_entry_of_a_part():
    part = {"all": {"judges": {"x": {}}}, "agents": {"k": {"judges": {"y": {}}}}, "by_mix": {"m": {"judges": {"z": {}}}}}
    assert judges.judges_of(part, None, {"all": None, "agents": {}}) == {"x", "y", "z"}


def test_the_headline_judge_is_the_one_the_maintainers_name_not_the_most_judged():
    """A judge with more games (anyone can judge many games) never takes the headline."""
    other = json.dumps({"model": "gpt-4o", "kind": "llm"})
    assert judges.ranked({other: {"games": 200}, judges.HEADLINE: {"games": 3}}) == [judges.HEADLINE, other]
    assert judges.ranked({other: {"games": 200}}) == [other]  # without it, the order is by games


def test_the_headline_judge_is_the_shipped_judge_file_s_judge():
    """HEADLINE is written by hand: it must stay the key `gamenight judge` records for the judge of
    runner/judges/local-cpu.toml with the current judge prompts."""
    from runner.judge import judge_description
    from runner.tournament import load
    from site_builder.scoring.model import agent_key

    judge_file = load(Path(__file__).resolve().parents[2] / "runner" / "judges" / "local-cpu.toml",
                      matchups_required=False)
    assert agent_key(judge_description(judge_file.agents["gemma3-270m-judge"])) == judges.HEADLINE

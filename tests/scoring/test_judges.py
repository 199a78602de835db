"""Judge labels: readable, and distinct for distinct judges."""

from __future__ import annotations

import json

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

"""The MAgIC cells of agent and metric pages: a number, or words that say why there is none."""

from __future__ import annotations

import pytest

from site_builder.pages import magic
from site_builder.scoring import magic_reference

RATE = {"value": 0.25, "ci": [0.1, 0.4], "n": 20}
COMPOSITE = {"raw": 0.5, "scaled": 0.4, "ci": None, "n": 8, "max": 1.25}
DIVIDES = magic_reference.UNDEFINED["deception_guesses"]
STOPS = magic_reference.SCRIPT_STOPS["no_agreement"]


@pytest.mark.parametrize("agent, metric, words, note, marker", [
    # the paper reading: no reasons, so an absent value says what the agent never played
    ({"judgement": None}, "judgement", "not measured", magic.NOT_MEASURED["judgement"], ""),
    ({"cooperation": None, "coordination": None}, "coordination", "not measured",
     magic.NOT_MEASURED["cooperation"], ""),
    ({"cooperation": RATE, "coordination": None}, "coordination", "not measured",
     magic.NOT_MEASURED["coordination"], ""),
    ({"judgement": RATE}, "judgement", "", "", ""),
    # the reference reading: its reasons, classified
    ({"deception": None, "reasons": {"deception": DIVIDES}}, "deception", "undefined: divides by zero", DIVIDES, ""),
    ({"coordination": None, "reasons": {"coordination": STOPS}}, "coordination", "script stops", STOPS, ""),
    ({"rationality": None, "reasons": {"rationality": magic_reference.UNDEFINED["rationality"]}}, "rationality",
     "not measured", magic_reference.UNDEFINED["rationality"], ""),
    ({"cooperation": RATE, "reasons": {"cooperation": STOPS}}, "cooperation", "", STOPS, "note"),
    ({"deception": COMPOSITE}, "deception", "", "", ""),
])
def test_a_cell_is_a_number_or_words_with_the_reason(agent, metric, words, note, marker):
    cell = magic.cell(agent, metric)
    assert (cell["words"], cell["note"], cell["marker"]) == (words, note, marker)
    assert (cell["entry"] is None) == bool(words)
    assert cell["counts"]  # never blank


def test_reasoning_read_from_empty_rows_is_an_artefact_in_words_or_marked():
    # 3 of 8 units read an empty row: the number stands, marked as partly an artefact.
    partly = {"value": 0.5, "ci": [0.2, 0.8], "n": 8, "empty_rows": {"units": 3, "right": 1}}
    cell = magic.cell({"reasoning": partly, "reasons": {"reasoning": "why"}}, "reasoning")
    assert cell["entry"] is partly and cell["marker"] == "partly an artefact" and cell["note"] == "why"
    # Every unit read an empty row: the value says nothing about the agent, so words stand instead.
    whole = {"value": 0.375, "ci": [0.1, 0.7], "n": 8, "empty_rows": {"units": 8, "right": 3}}
    cell = magic.cell({"reasoning": whole, "reasons": {"reasoning": "why"}}, "reasoning")
    assert cell["entry"] is None and cell["words"] == "artefact"
    assert cell["note"].startswith("an artefact of the script, not a measure: it gives 37.5%") and cell["note"].endswith("; why")
    assert cell["counts"] == "3 of 8"


@pytest.mark.parametrize("metric, entry, text", [
    ("win_rate", {"value": 0.5, "n": 12, "roles_played": 3, "roles_total": 7}, "12 games, 3 of 7 roles"),
    ("deception", COMPOSITE, "raw 0.500 of 1.25, 8 games"),
    ("judgement", RATE, "5 of 20"),
])
def test_counts_say_what_a_value_is_made_of(metric, entry, text):
    assert magic.counts(metric, entry) == text


def test_rows_sharing_a_reason_share_one_note_that_names_them():
    rows = [{"title": t, "href": "#", "cell": magic.cell(agent, "deception")} for t, agent in
            [("a", {"deception": None, "reasons": {"deception": DIVIDES}}), ("b", {"deception": COMPOSITE}),
             ("c", {"deception": None, "reasons": {"deception": DIVIDES}})]]
    table = magic.table(rows, "n")
    assert [r["note_id"] for r in table["rows"]] == ["n-1", None, "n-1"]
    assert table["notes"] == [{"id": "n-1", "text": DIVIDES, "whom": ["a", "c"]}]


def test_every_metric_has_a_page_a_title_and_a_definition():
    assert [magic.page(m) for m in magic.METRICS][:2] == ["magic/win-rate.md", "magic/judgement.md"]
    assert set(magic.TITLES) == set(magic.DEFINITIONS) == set(magic.NOT_MEASURED) \
        == set(magic.METRICS)


def test_a_metric_page_lists_agents_with_a_value_or_where_the_script_stops():
    stops = {"coordination": None, "reasons": {"coordination": STOPS}}
    never = {"coordination": None, "reasons": {"coordination": magic_reference.UNDEFINED["rationality"]}}
    assert magic.listed("coordination", {"coordination": RATE}, None)
    assert magic.listed("coordination", {"coordination": None}, stops)
    assert not magic.listed("coordination", {"coordination": None}, never)
    assert not magic.listed("coordination", None, None)

"""How pages name, link and number things (site_builder/pages/labels.py): slugs, titles, labels, links,
sort keys and intervals in words."""

from __future__ import annotations

import json
import re

import pytest

from site_builder.pages import labels

PAYLOAD = "<img src=x onerror=alert(1)>*[md](javascript:alert(1))* {{ 7*7 }} {% raw %} \"'&"


@pytest.mark.parametrize("key", ['{"kind":"builtin","params":{},"strategy":"random"}', PAYLOAD, "", "../../etc/passwd",
                                 "a" * 10_000, "\u00e9\u4e2d\U0001f600"])
def test_agent_slug_is_file_safe_and_stable(key):
    slug = labels.agent_slug(key)
    assert re.fullmatch(r"[a-z0-9]+(-[a-z0-9]+)*-[0-9a-f]{8}", slug) and len(slug) <= labels.MAX_SLUG_NAME + 9
    assert slug == labels.agent_slug(key)


@pytest.mark.parametrize("description, readable", [
    ({"kind": "builtin", "params": {}, "strategy": "prisoners_dilemma/tit_for_tat"}, "prisoners-dilemma-tit-for-tat"),
    ({"kind": "llm", "provider": "openai", "model": "gemma3-270m", "design": "pgm"}, "gemma3-270m-pgm"),
    ({"kind": "llm", "provider": "openai", "model": "GPT-5.1 Mini", "design": "vanilla"}, "gpt-5-1-mini"),
    ({"kind": "llm", "model": "../../<script>"}, "script"),
    ({"kind": "llm", "model": "\u4e2d"}, "a"),
])
def test_agent_slug_says_what_the_agent_is(description, readable):
    key = json.dumps(description)
    assert labels.agent_slug(key).rsplit("-", 1)[0] == readable


def test_agent_slugs_differ_between_keys():
    keys = [json.dumps({"strategy": "s", "params": {"x": i}}) for i in range(500)]
    assert len({labels.agent_slug(k) for k in keys}) == len(keys)


@pytest.mark.parametrize("label, expected", [
    ("assoc-sharp", "assoc-sharp"),
    ("prisoners_dilemma/tit_for_tat", "prisoners_dilemma/tit_for_tat"),
    ("gpt-4o (enhanced) #2", "gpt-4o (enhanced) #2"),
    ("<b>x</b>", "_b_x_/b_"),
    ("  spaced \n out  ", "spaced out"),
    ("", "agent"),
    ("<>", "__"),
])
def test_safe_title(label, expected):
    assert labels.safe_title(label) == expected


def test_safe_title_never_holds_markup_or_markdown():
    title = labels.safe_title(PAYLOAD * 3)
    assert len(title) <= labels.MAX_TITLE
    assert not set(title) & set("<>&\"'`[]*{}%=!\\")


def test_display_labels_are_unique():
    agents = [{"key": "k1", "label": "same"}, {"key": "k2", "label": "same"}, {"key": "k3", "label": "other"}]
    shown = labels.display_labels(agents)
    assert shown["k3"] == "other"
    assert shown["k1"] != shown["k2"] and shown["k1"].startswith("same (")
    assert len(set(shown.values())) == 3


@pytest.mark.parametrize("source, target, query, expected", [
    ("index.md", "games/chameleon.md", None, "games/chameleon/"),
    ("games/chameleon.md", "index.md", None, "../../"),
    ("games/chameleon.md", "agents/a-1.md", None, "../../agents/a-1/"),
    ("agents/a-1.md", "replays/index.md", {"game": "chameleon", "agent": "a b&c"},
     "../../replays/?game=chameleon&agent=a+b%26c"),
    ("agents/index.md", "agents/a-1.md", None, "a-1/"),
    ("replays/index.md", "replays/index.md", None, "./"),
    ("downloads.md", "downloads/results.json", None, "results.json"),
    ("index.md", "downloads/results.json", None, "downloads/results.json"),
])
def test_href(source, target, query, expected):
    assert labels.href(source, target, query) == expected


@pytest.mark.parametrize("value, expected", [
    (0.5, "0.5"), (3, "3.0"), (None, ""), (float("nan"), ""), (True, ""), ("text", ""),
    ({"value": 0.25, "ci": [0, 1], "n": 4}, "0.25"), ({"raw": 1.2, "scaled": 0.8}, "0.8"), ({"rating": 1030.0}, "1030.0"),
])
def test_sort_value(value, expected):
    assert labels.sort_value(value) == expected


@pytest.mark.parametrize("entry, percent, expected", [
    ({"value": 0.5, "ci": [0.25, 0.75], "n": 8}, True, "[25.0, 75.0]"),
    ({"value": 30.0, "ci": [28.0, 32.5], "n": 8}, False, "[28.0, 32.5]"),
    ({"value": 0.5, "ci": None, "n": 1}, True, ""),
    (None, True, ""),
    ({"value": 1.0, "ci": [1.0, 1.0], "n": 54}, True, "[no spread, n = 54]"),   # never "[100.0, 100.0]"
    ({"value": 1.0, "ci": [0.34, 1.0], "n": 2}, True, "[n = 2]"),             # too few to say more
    ({"mu": 8.8, "ci": [6.7, 11.1]}, False, "[6.7, 11.1]"),                     # no count: as it is
])
def test_interval_text(entry, percent, expected):
    assert labels.fmt_ci(entry, percent) == expected


def test_a_breakable_name_wraps_after_slashes_and_stays_escaped():
    assert str(labels.breakable("werewolf/strategic")) == "werewolf/<wbr>strategic"
    assert str(labels.breakable("<b>/&")) == "&lt;b&gt;/<wbr>&amp;"
    assert str(labels.breakable("plain")) == "plain"
    assert str(labels.breakable("prisoners_dilemma/tit_for_tat")) == "prisoners_<wbr>dilemma/<wbr>tit_<wbr>for_<wbr>tat"
    assert str(labels.breakable("a_/")) == "a_<wbr>/<wbr>"

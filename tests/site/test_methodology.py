"""The methodology pages (site_builder/pages/methodology.py): the formula docs copied with their math
rendered and their links kept inside the site."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from site_builder.pages import methodology
from site_builder.pages.page import navigation

REPO_DOCS = Path(methodology.__file__).resolve().parents[2] / "docs"


def copied(docs: Path) -> tuple[dict[str, str], list]:
    """The methodology pages of `docs` (path -> Markdown) and the entries of their nav section."""
    pages = methodology.pages(docs)
    nav = navigation(pages)
    assert [list(entry) for entry in nav] == [["Methodology"]]  # one section of the site's nav
    return {p.path: p.text for p in pages}, nav[0]["Methodology"]


def test_methodology_copies_the_formula_docs_with_mathml():
    markdown, nav = copied(REPO_DOCS)
    assert "methodology/metrics/chameleon.md" in markdown
    text = markdown["methodology/metrics/chameleon.md"]
    assert "<math" in text and "$$" not in text
    assert "Methodology" not in json.dumps(nav)
    assert {"Game rules"} <= {k for entry in nav for k in entry}
    # The metrics first, then the rules in a section of their own, then the formats.
    targets = ["rules" if isinstance(target, list) else target for entry in nav for target in entry.values()]
    assert targets[0] == "methodology/metrics.md" and targets.count("rules") == 1
    assert all(t.startswith("methodology/metrics") for t in targets[:targets.index("rules")])


@pytest.mark.parametrize("source, expected_fragment", [
    ("Rate $\\lvert V\\rvert$ here", "<mo>&#x0007C;</mo>"),
    ("$a_b * c$", "<mi>b</mi>"),
    ("Code `$x$` stays", "`$x$`"),
    ("```text\n$x$\n```\n", "$x$"),
    ("costs $5 and $6", "costs $5 and $6"),
    ("$$\\frac{a}{b}$$", 'display="block"'),
])
def test_render_math(source, expected_fragment):
    html = methodology.render_math(source)
    assert expected_fragment in html
    if "<math" in html:  # nothing left that a Markdown table or emphasis would act on
        assert not set(re.sub(r"<[^>]*>", "", html)) & set("|*_`[]")


def test_links_to_pages_outside_the_site_become_text(tmp_path):
    (tmp_path / "metrics.md").write_text("# M\nSee [magic](metrics/magic.md) and [gone](missing.md#x).\n")
    (tmp_path / "metrics").mkdir()
    (tmp_path / "metrics" / "magic.md").write_text("# Magic\nBack to [overview](../metrics.md).\n")
    markdown, _ = copied(tmp_path)
    assert "[magic](metrics/magic.md)" in markdown["methodology/metrics.md"]
    assert "and gone." in markdown["methodology/metrics.md"]
    assert "[overview](../metrics.md)" in markdown["methodology/metrics/magic.md"]


def test_the_references_are_a_methodology_page():
    markdown, nav = copied(REPO_DOCS)
    assert "#the-chameleon-paper" in markdown["methodology/metrics/chameleon.md"]  # a citation links its entry
    assert "arxiv.org/abs/2311.08562" in markdown["methodology/references.md"]
    assert {"References": "methodology/references.md"} in nav

"""The methodology pages: the repository's own docs (formulas, rules, formats) copied into the site
with their math rendered as MathML and their links to docs that are not copied taken out."""

from __future__ import annotations

import posixpath
import re
from pathlib import Path

import markupsafe

from runner import games
from site_builder.pages.page import Page

#: The repository's docs, beside the package in a checkout.
REPO_DOCS = Path(__file__).resolve().parents[2] / "docs"


def docs_folder() -> Path:
    """The project docs the methodology pages come from: ./docs when run from a checkout.

    A non-editable install (the Pages workflow's `pip install .`) has no docs beside the
    package, so the checkout's own folder is preferred; both give the same pages.
    """
    here = Path.cwd() / "docs"
    return here if (here / "metrics.md").is_file() else REPO_DOCS


# -- methodology: the repository's own formula docs, copied with their math rendered -----------

#: (source under docs/, nav title) of the copied pages, in nav order; None titles come from the page.
METHODOLOGY = (
    ("metrics.md", "How numbers are computed"),
    ("metrics/magic.md", None), ("metrics/chameleon.md", None), ("metrics/werewolf.md", None),
    ("metrics/ratings.md", None), ("metrics/ranked.md", None),
    *((f"games/{name}.md", None) for name in games.available()),  # each game's rules, in display order
    ("replay-format.md", None), ("results-format.md", None), ("tournaments.md", None), ("llm.md", None), ("agents.md", None),
    ("submit.md", "Submit replays"), ("play.md", "Play it yourself"), ("references.md", "References"),
)
_MATH = re.compile(r"(?P<code>(`+).+?\2)"                                   # code spans stay as they are
                   r"|\$\$(?P<block>.+?)\$\$"                                # display math
                   r"|(?<![\\$\w])\$(?![\s$])(?P<inline>[^$\n]+?)(?<![\s\\])\$(?![\w$])", re.DOTALL)
_FENCE = re.compile(r"^\s*(```|~~~)")
_MD_LINK = re.compile(r"\[(?P<text>[^\]\n]+)\]\((?P<target>[^)\s:]+?\.md)(?P<anchor>#[^)\s]*)?\)")
# Characters Markdown's inline syntax would act on (mid-line) inside HTML text, as character references.
_MD_SPECIAL = {c: f"&#{ord(c)};" for c in "\\`*_[](){}|$~^"}
_ENTITY_OR_CHAR = re.compile(r"&#?\w+;|.", re.DOTALL)


def _markdown_safe(mathml: str) -> str:
    """MathML whose text nodes hold no character Markdown's inline syntax would interpret."""
    def safe(text: str) -> str:
        return "".join(_MD_SPECIAL.get(t, t) for t in _ENTITY_OR_CHAR.findall(text))

    return re.sub(r">([^<]+)<", lambda m: ">" + safe(m.group(1)) + "<", mathml)


def tex_to_html(tex: str, block: bool) -> str:
    """One formula as inline MathML (no script needed); the TeX as code if it cannot be converted."""
    from latex2mathml.converter import convert

    try:
        mathml = convert(tex.strip(), display="block" if block else "inline")
    except Exception:  # noqa: BLE001 - any converter failure falls back to showing the TeX
        return f"<code>{markupsafe.escape(tex.strip())}</code>"
    kind = "gn-math gn-math-block" if block else "gn-math"
    return f'<span class="{kind}">{_markdown_safe(mathml)}</span>'


def render_math(text: str) -> str:
    """Replace $...$ and $$...$$ outside code by MathML, leaving fenced code blocks untouched."""
    out, prose, fenced = [], [], None

    def flush() -> None:
        chunk = "".join(prose)
        out.append(_MATH.sub(lambda m: m.group("code") or tex_to_html(m.group("block") or m.group("inline"),
                                                                       m.group("block") is not None), chunk))
        prose.clear()

    for line in text.splitlines(keepends=True):
        fence = _FENCE.match(line)
        if fenced is None and fence:
            flush()
            fenced = fence.group(1)
            out.append(line)
        elif fenced is not None:
            out.append(line)
            if fence and fence.group(1) == fenced:
                fenced = None
        else:
            prose.append(line)
    flush()
    return "".join(out)


def unlink_missing(text: str, source: str, known: set[str]) -> str:
    """Links to Markdown files that are not copied into the site become plain text."""
    def keep_or_drop(match: re.Match[str]) -> str:
        target = posixpath.normpath(posixpath.join(posixpath.dirname(source), match.group("target")))
        return match.group(0) if target in known else match.group("text")

    return _MD_LINK.sub(keep_or_drop, text)


def pages(docs_dir: Path, prefix: str = "methodology") -> list[Page]:
    """The repository's formula and format docs as site pages under `prefix`, listed in the
    navigation's Methodology section: the metrics, then the game rules (a section of their own),
    then the formats."""
    present = [(src, title) for src, title in METHODOLOGY if (docs_dir / src).is_file()]
    known = {src for src, _ in present}
    metrics, rules, formats = [], [], []
    for src, title in present:
        text = (docs_dir / src).read_text(encoding="utf-8")
        heading = re.search(r"^# (.+)$", text, re.MULTILINE)
        name = title or (re.sub(r"[`*_]", "", heading.group(1)).strip() if heading else src)
        markdown = render_math(unlink_missing(text, src, known))
        if src.startswith("games/"):
            rules.append(Page(f"{prefix}/{src}", nav=("Methodology", "Game rules", name), text=markdown))
        else:
            group = metrics if src.startswith("metrics") else formats
            group.append(Page(f"{prefix}/{src}", nav=("Methodology", name), text=markdown))
    return [*metrics, *rules, *formats]

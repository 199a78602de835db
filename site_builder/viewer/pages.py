"""The replay list and viewer pages of the site, and the scripts and styles they load.

Nothing from a replay is ever written into a page. The pages carry only our own markup; the
browser fetches the JSON files (site_builder/viewer/write.py) and inserts replay text as text
(`textContent`).
"""

from __future__ import annotations

import os
import posixpath
from collections.abc import Mapping
from dataclasses import replace
from functools import cache
from pathlib import Path, PurePosixPath
from typing import Any

import jinja2

from site_builder.pages.page import Page
from site_builder.viewer import css_subset
from site_builder.viewer.files import CALLS_DIR, DATA_DIR, LIST_DIR, ReplayDataError

#: The Markdown pages this module renders, relative to the MkDocs docs_dir.
INDEX_PAGE = "replays/index.md"
VIEWER_PAGE = "replays/viewer.md"
#: Each page's template and where the navigation lists it.
DECLARED = {INDEX_PAGE: ("index.md.j2", ("Replays", "Replay index")),
            VIEWER_PAGE: ("viewer.md.j2", ("Replays", "Replay viewer"))}
#: Where the scripts and styles go, relative to docs_dir (and so to the built site).
ASSETS_DIR = "assets/viewer"
#: The viewer page's stylesheet: the part of Material's stylesheets that page can use (write_styles).
VIEWER_STYLES = f"{ASSETS_DIR}/theme.css"
#: The scripts that draw the viewer page, besides its HTML (their strings name the classes it uses).
VIEWER_SCRIPTS = (f"{ASSETS_DIR}/common.js", f"{ASSETS_DIR}/pov.js", f"{ASSETS_DIR}/viewer.js",
                  "assets/gamenight/fit.js", "assets/gamenight/palette-toggle.js")

PACKAGE = Path(__file__).parent.parent
TEMPLATES = PACKAGE / "templates" / "viewer"
ASSETS = PACKAGE / "assets" / "viewer"


def pages(context: Mapping[str, Any]) -> list[Page]:
    """The replay list and viewer pages, declared as the site's other pages are and rendered
    here (their templates are this module's own): each with its Markdown text.

    Reads only `use_directory_urls` (MkDocs' setting, default true) from `context`, to write the
    pages' relative links. Replay strings (agent labels...) are never put into the pages.
    """
    directory_urls = bool(context.get("use_directory_urls", True))
    env = _environment()
    declared = [Page(path, template, nav=nav, context=page_urls(path, directory_urls))
                for path, (template, nav) in DECLARED.items()]
    return [replace(p, text=p.markdown(env, {})) for p in declared]


def assets() -> list[tuple[Path, str]]:
    """(source file, path relative to docs_dir) of every script and style the two pages load."""
    return [(path, f"{ASSETS_DIR}/{path.name}") for path in sorted(ASSETS.iterdir())
            if path.suffix in (".js", ".css")]


def page_urls(page: str, directory_urls: bool = True) -> dict[str, str]:
    """Links from `page` to the assets, the data folders and both pages, relative to its URL."""
    here = _page_dir(page, directory_urls)
    viewer = "replays/viewer/" if directory_urls else "replays/viewer.html"
    index = "replays/" if directory_urls else "replays/index.html"
    targets = {"assets": ASSETS_DIR + "/", "data": DATA_DIR + "/", "calls": CALLS_DIR + "/",
               "list": LIST_DIR + "/", "viewer": viewer, "index": index}
    return {name: _relative(target, here) for name, target in targets.items()}


def _page_dir(page: str, directory_urls: bool) -> str:
    """The folder of a page's URL: replays/viewer.md is served at replays/viewer/ or replays/viewer.html."""
    path = PurePosixPath(page).with_suffix("")
    return str(path.parent if path.name == "index" or not directory_urls else path)


def _relative(target: str, here: str) -> str:
    """The site path `target` (a folder ends with "/") relative to the folder `here`."""
    text = posixpath.relpath(target, here)
    if target.endswith("/"):
        text = "./" if text == "." else text + "/"
    return text


@cache
def _environment() -> jinja2.Environment:
    return jinja2.Environment(loader=jinja2.FileSystemLoader(TEMPLATES), autoescape=True,
                              undefined=jinja2.StrictUndefined, keep_trailing_newline=True)


def write_styles(site_dir: str | os.PathLike[str]) -> Path:
    """Write the viewer page's stylesheet into a built site: Material's main and palette
    stylesheets cut to the rules whose classes the page's HTML and scripts can hold
    (site_builder.viewer.css_subset), so a first visit by a permalink does not fetch 23 KB of styles
    for search, code and admonitions. Only that page (templates/overrides/viewer.html) loads it."""
    site = Path(site_dir)
    html = (site / VIEWER_PAGE.removesuffix(".md") / "index.html").read_text(encoding="utf-8")
    scripts = [(site / path).read_text(encoding="utf-8") for path in VIEWER_SCRIPTS]
    sheets = []
    for pattern in ("main.*.min.css", "palette.*.min.css"):
        found = sorted((site / "assets" / "stylesheets").glob(pattern))
        if len(found) != 1:
            raise ReplayDataError(f"{site}: expected one Material stylesheet {pattern}, found {len(found)}")
        sheets.append(found[0].read_text(encoding="utf-8"))
    others = [(site / "assets" / "gamenight" / name).read_text(encoding="utf-8") for name in ("site.css", "fit.css")]
    others.append((site / ASSETS_DIR / "viewer.css").read_text(encoding="utf-8"))
    classes = css_subset.page_classes(html, scripts)
    # Each sheet keeps the custom properties read by the page's other sheets, scripts and HTML.
    text = "\n".join(css_subset.subset(sheet, classes, [*sheets[:i], *sheets[i + 1:], *others, *scripts, html])
                     for i, sheet in enumerate(sheets))
    target = site / VIEWER_STYLES
    target.write_text(text + "\n", encoding="utf-8")
    return target

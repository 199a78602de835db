"""MkDocs hooks of the generated project (mkdocs.yml `hooks:`): run inside `mkdocs build`.

A page whose front matter says `search_sections: first` keeps only its first section (its title
and the lines under it) in the site's search index: every later heading gets Material's
`data-search-exclude`, which leaves that heading's whole section out. The agents' pages say so:
their tables and the boilerplate beside them were 5.6 KB of index per agent, so at 10,000 agents
search/search_index.json was 51 MB, over the 50 MB a GitHub Pages file may have; a visitor
searching for a name still lands on the agent's page, whose first section holds it.
"""

from __future__ import annotations

import re
from typing import Any

#: An opening tag of a heading below the page title, as Python-Markdown writes it (`<h2 id="...">`).
_LATER_HEADING = re.compile(r"<h([2-6])(?=[\s>])")


def on_page_content(html: str, page: Any, **_: Any) -> str:
    """The page's HTML, with every heading below its title left out of search if it asks so."""
    if page.meta.get("search_sections") != "first":
        return html
    return _LATER_HEADING.sub(r"<h\1 data-search-exclude", html)

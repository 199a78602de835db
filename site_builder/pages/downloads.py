"""The Downloads page: the results file and the CSV tables, each with what it holds."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from site_builder.pages.page import Page
from site_builder.scoring.results import CSV_WHAT


def pages(ctx: Mapping[str, Any]) -> list[Page]:
    """The page (the tables' names are the shared `csv_names`)."""
    return [Page("downloads.md", "downloads.md.j2", nav=("Downloads",), context=dict(csv_what=CSV_WHAT))]

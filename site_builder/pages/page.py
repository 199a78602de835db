"""A page of the site as its family declares it, and what the site derives from the declarations.

Each page family (a module of this package, the replay viewer, the methodology) declares its pages:
where a page is, where the navigation lists it, and what writes it (a template and its own
variables, or the Markdown itself). The navigation (mkdocs.yml `nav`) and the pages left out of
it (mkdocs.yml `not_in_nav`) are read from the declarations, so a page is named in one place.
"""

from __future__ import annotations

import posixpath
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import jinja2


@dataclass(frozen=True)
class Page:
    """One Markdown page of the site."""

    path: str                                # docs-relative, e.g. "games/werewolf.md"
    template: str = ""                       # the template that writes it, in its family's environment
    #: Where the navigation lists it: its sections, then its title (trusted text), e.g. ("Games",
    #: "Undercover"); empty for a page reached by links only (an agent's, a release's).
    nav: tuple[str, ...] = ()
    context: Mapping[str, Any] = field(default_factory=dict)  # the template's own variables
    text: str | None = None                  # the Markdown itself, for a page written as it is (copied docs)

    def markdown(self, env: jinja2.Environment, shared: Mapping[str, Any]) -> str:
        """The page's Markdown: its text, or its template given the variables every page of the
        environment shares, its own path as `page`, and its own context."""
        if self.text is not None:
            return self.text
        return env.get_template(self.template).render(**shared, page=self.path, **self.context)


def render(pages: Iterable[Page], env: jinja2.Environment, shared: Mapping[str, Any]) -> dict[str, str]:
    """Path -> Markdown of every page; two declarations of one path are an error."""
    out: dict[str, str] = {}
    for page in pages:
        if page.path in out:
            raise ValueError(f"two pages are declared at {page.path}")
        out[page.path] = page.markdown(env, shared)
    return out


def navigation(pages: Iterable[Page]) -> list[Any]:
    """The mkdocs.yml nav: each listed page under its sections, in the order the pages are
    declared; a section stands where its first page does."""
    nav: list[Any] = []
    for page in pages:
        if not page.nav:
            continue
        entries = nav
        *sections, title = page.nav
        for section in sections:
            found = next((e[section] for e in entries if isinstance(e.get(section), list)), None)
            if found is None:
                found = []
                entries.append({section: found})
            entries = found
        entries.append({title: page.path})
    return nav


def not_in_nav(pages: Sequence[Page]) -> str:
    """The mkdocs.yml not_in_nav (gitignore patterns) covering every page the navigation leaves
    out: for each folder holding such pages, all of its pages, then each page of it the
    navigation lists taken back. A pattern per folder, not per page: a line per agent would be
    as many patterns as agents, each matched against every file."""
    def folder(page: Page) -> str:
        return posixpath.dirname(page.path)

    lines: list[str] = []
    for hidden in dict.fromkeys(folder(p) for p in pages if not p.nav):
        lines.append(f"/{hidden}/*.md" if hidden else "/*.md")
        lines += [f"!/{p.path}" for p in pages if p.nav and folder(p) == hidden]
    return "\n".join(lines)

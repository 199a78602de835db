"""How pages name, link and format: agents' labels, slugs and pages, relative URLs, numbers.

The lowest floor of the page modules (boards, charts and pages all stand on it). Labels come from
replays and are escaped wherever shown; slugs and titles that MkDocs or the theme insert
unescaped are whitelisted here.
"""

from __future__ import annotations

import hashlib
import json
import math
import posixpath
import re
from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any
from urllib.parse import urlencode

import markupsafe

from runner.replay.format import agent_kind
from site_builder.scoring.corpus import REFERENCE
from site_builder.scoring.results import HEADLINE_KEYS


MAX_TITLE = 60

#: The readable part of an agent's slug is at most this long.
MAX_SLUG_NAME = 40


def agent_slug(key: str) -> str:
    """A file-name-safe, stable, readable slug for an agent, from its key (never its label, which
    changes with the names replays give it): what it is (a built-in's strategy, a model and its
    design) in lower-case ASCII, then a hash of the whole key, e.g. "gemma3-270m-pgm-1a2b3c4d"."""
    digest = hashlib.sha256(key.encode("utf-8")).hexdigest()[:8]
    try:
        description = json.loads(key)
    except ValueError:
        description = None
    parts: list[Any] = []
    if isinstance(description, dict):
        parts = [description.get("strategy")] if agent_kind(description) == "builtin" else \
            [description.get("model"), description.get("design")]
    words = re.findall(r"[a-z0-9]+", " ".join(p for p in parts if isinstance(p, str) and p != "vanilla").casefold())
    name = "-".join(words)[:MAX_SLUG_NAME].strip("-")
    return f"{name}-{digest}" if name else f"a-{digest}"


def safe_title(text: str) -> str:
    """Text safe where MkDocs and the theme insert it unescaped (nav, <title>): a conservative whitelist."""
    cleaned = re.sub(r"\s+", " ", text).strip()
    cleaned = re.sub(r"[^\w .:/+()#-]", "_", cleaned, flags=re.UNICODE)
    return cleaned[:MAX_TITLE] or "agent"


def submitted(agent: Mapping[str, Any]) -> bool:
    """Whether an agent's row is a contributor's (scoring/board.py), not the maintainers'."""
    return (agent.get("owner") or {}).get("id", REFERENCE) != REFERENCE


def display_labels(agents: Sequence[Mapping[str, Any]]) -> dict[str, str]:
    """Labels by agent key, made unique. The maintainers' rows are told apart among themselves (a
    label shared by several gets its slug's tail); a contributor's row whose label another row has
    gets its owner, then the tail: what a submission calls its agents never renames another row."""
    ours = [a for a in agents if not submitted(a)]
    counts = Counter(a["label"] for a in ours)
    shown = {a["key"]: a["label"] if counts[a["label"]] == 1 else f"{a['label']} ({agent_slug(a['key'])[-6:]})"
             for a in ours}
    taken = set(shown.values()) | set(counts)
    theirs = [a for a in agents if submitted(a)]
    labelled = Counter(a["label"] for a in theirs)
    for a in theirs:
        label = a["label"]
        if label in taken or labelled[label] > 1:
            label = f"{label} ({a['owner']['label']})"
        shown[a["key"]] = label
    again = Counter(shown[a["key"]] for a in theirs)
    for a in theirs:
        if again[shown[a["key"]]] > 1 or shown[a["key"]] in taken:
            shown[a["key"]] += f" ({agent_slug(a['key'])[-6:]})"
    return shown


def page_url(md_path: str) -> str:
    """The URL (relative to the site root) of a Markdown page under use_directory_urls."""
    if md_path == "index.md":
        return ""
    if md_path.endswith("/index.md"):
        return md_path[: -len("index.md")]
    return md_path[: -len(".md")] + "/"


def href(from_page: str, target: str, query: Mapping[str, str] | None = None, fragment: str = "") -> str:
    """A relative link from one page to a page (`*.md`) or a site file, with an encoded query."""
    here = page_url(from_page) or "."
    there = page_url(target) if target.endswith(".md") else target
    rel = posixpath.relpath(there or ".", here)
    if target.endswith(".md"):
        rel = "./" if rel == "." else rel + "/"
    if query:
        rel += "?" + urlencode(query)
    if fragment:
        rel += "#" + fragment
    return rel


def headline(entry: Mapping[str, Any] | None) -> float | None:
    """The number a metric entry stands for: a composite's scaled value, else its value or rating."""
    if not entry:
        return None
    for key in HEADLINE_KEYS:
        if key in entry and isinstance(entry[key], (int, float)):
            return float(entry[key])
    return None


def fmt_num(value: float | None, digits: int = 2) -> str:
    """A plain number, or an em dash for an absent one."""
    if value is None or (isinstance(value, float) and not math.isfinite(value)):
        return "\u2014"
    if isinstance(value, int) and not isinstance(value, bool):
        return f"{value:,}"
    return f"{value:,.{digits}f}"


def fmt_pct(value: float | None, digits: int = 1) -> str:
    """A rate as a percentage, or an em dash."""
    return "\u2014" if value is None else f"{100 * value:.{digits}f}%"

#: Below this many observations an interval says little: it is shown as the count instead.
MIN_INTERVAL_N = 5


def fmt_ci(entry: Mapping[str, Any] | None, percent: bool = True, digits: int = 1, key: str = "ci") -> str:
    """The interval of a metric entry as "[lo, hi]" (empty when there is none). An interval of a
    point ("[100.0, 100.0]": every resample alike) reads "[no spread, n = k]", and one behind fewer
    than MIN_INTERVAL_N observations "[n = k]": never a certainty the data do not give."""
    return _interval(entry, percent, digits, key)[0]


def fmt_ci_n(entry: Mapping[str, Any] | None, percent: bool = True, digits: int = 1) -> str:
    """The interval with the count it rests on, "[27.6, 58.3] n = 16", as a table cell shows it (a
    phone shows no `title`); fmt_ci's short forms, which name the count already, as they are."""
    text, counted = _interval(entry, percent, digits, "ci")
    n = (entry or {}).get("n")
    if counted or not isinstance(n, int) or isinstance(n, bool):
        return text
    return f"{text} n\u00a0=\u00a0{n:,}".lstrip()


def _interval(entry: Mapping[str, Any] | None, percent: bool, digits: int, key: str) -> tuple[str, bool]:
    """fmt_ci's text, and whether it names the entry's count."""
    ci = (entry or {}).get(key)
    if not ci or ci[0] is None or ci[1] is None:
        return "", False
    n = (entry or {}).get("n")
    if isinstance(n, int) and n < MIN_INTERVAL_N:
        return f"[n = {n}]", True
    if ci[0] == ci[1]:
        return (f"[no spread, n = {n}]", True) if isinstance(n, int) else ("[no spread]", False)
    if percent:
        return f"[{100 * ci[0]:.{digits}f}, {100 * ci[1]:.{digits}f}]", False
    return f"[{ci[0]:,.{digits}f}, {ci[1]:,.{digits}f}]", False


def sort_value(value: Any) -> str:
    """The data-sort attribute of a table cell: a number as text, or empty (always sorted last)."""
    if isinstance(value, Mapping):
        value = headline(value)
    if value is None or isinstance(value, bool) or not isinstance(value, (int, float)):
        return ""
    return repr(float(value)) if math.isfinite(value) else ""


@dataclass(frozen=True)
class AgentRef:
    """How pages name and link one agent."""

    key: str
    label: str      # as in the replays (escaped where shown)
    display: str    # unique among agents
    slug: str
    page: str       # docs-relative Markdown path
    owner: str = ""  # a contributor's "@login" (escaped where shown); "" for the maintainers' rows
    person: bool = False  # a person's row: self-reported, as no check can tell a person from a script

    @property
    def submitted(self) -> bool:
        return bool(self.owner)

    @property
    def title(self) -> str:
        return safe_title(self.display)


def agent_refs(results: Mapping[str, Any]) -> dict[str, AgentRef]:
    """Every agent of the results, by key."""
    shown = display_labels(results["agents"])
    return {a["key"]: AgentRef(a["key"], a["label"], shown[a["key"]], agent_slug(a["key"]),
                               f"agents/{agent_slug(a['key'])}.md",
                               a["owner"]["label"] if submitted(a) else "", agent_kind(a) == "human")
            for a in results["agents"]}


def yaml_string(text: str) -> markupsafe.Markup:
    """A trusted or whitelisted title as a YAML (JSON) string for front matter, left unescaped."""
    return markupsafe.Markup(json.dumps(text, ensure_ascii=False))


def breakable(name: str) -> markupsafe.Markup:
    """A name (escaped) that may wrap after each slash or underscore, never inside a word:
    `prisoners_<wbr>dilemma/<wbr>tit_<wbr>for_<wbr>tat`."""
    return markupsafe.Markup("").join(
        markupsafe.escape(part) + (markupsafe.Markup("<wbr>") if part[-1:] in "/_" and part else "")
        for part in re.split(r"(?<=[/_])", name))

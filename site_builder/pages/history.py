"""The pages of the board over time and of the releases, from the results' "history" and "releases"
sections (`gamenight build` writes them: scoring/history.py, site_builder/releases.py).

history.md draws a line per ranked row and per agent of each game's rating table, with a table of
the same numbers under each chart; releases/index.md lists the releases, and releases/<tag>.md
shows the ranked board and each game's leaders as they stood at that tag. Names from replays reach
the pages through autoescaped templates and the charts through a JSON file the chart code escapes.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from datetime import timezone
from typing import Any

from site_builder.pages.page import Page
from site_builder.scoring import ratings
from site_builder.scoring.history import Merge

HISTORY_DATA = "data/history.json"


def release_page(tag: str) -> str:
    """The docs-relative page of a release (its tag is address-safe: releases.NAME)."""
    return f"releases/{tag}.md"


def _utc(date: str) -> str:
    """An ISO date as Plotly reads one (it ignores offsets): 'YYYY-MM-DD HH:MM:SS' in UTC."""
    return Merge("", date).instant.astimezone(timezone.utc).strftime("%Y-%m-%d %H:%M:%S")


def _name(key: str, label: str, refs: Mapping[str, Any]) -> str:
    """How the pages name an agent: its display name on this site, else its label then."""
    return refs[key].display if key in refs else label


def changed(lines: Sequence[Mapping[str, Any]]) -> list[int]:
    """The points at which a board moved: the first at which any line has a value, and each after
    it at which some line's value differs from the point before (a merge of another game's replays
    leaves this game's table as it was: no column and no point of its own)."""
    count = len(lines[0]["values"]) if lines else 0
    return [i for i in range(count) if any(line["values"][i] is not None and (i == 0 or line["values"][i] != line["values"][i - 1])
                                           for line in lines)]


def _narrowed(board: dict[str, Any], points: Sequence[Mapping[str, Any]]) -> dict[str, Any]:
    """The board with only the points at which it moved (`changed`), in its lines and its own points."""
    keep = changed(board["lines"])
    lines = [{**line, "values": [line["values"][i] for i in keep]} for line in board["lines"]]
    return {**board, "lines": lines, "points": [{**points[i], "day": _utc(points[i]["date"])[:10]} for i in keep]}


def _boards(history: Mapping[str, Any], refs: Mapping[str, Any], titles: Mapping[str, str]) -> list[dict[str, Any]]:
    """The charts of the page, in order: the ranked board, then each game's rating table (as on the
    game's page); each with its lines (name, link target, values) and the points at which it moved."""
    return [_narrowed(board, history["points"]) for board in _all_boards(history, refs, titles)]


def _all_boards(history: Mapping[str, Any], refs: Mapping[str, Any], titles: Mapping[str, str]) -> list[dict[str, Any]]:
    out = []
    if history.get("ranked"):
        lines = []
        for line in history["ranked"]:
            named = _row_name(line, {}, refs)
            lines.append({"name": named["text"], "key": named["key"], "owner": (line.get("owner") or {}).get("label", ""),
                          "values": [None if v is None else {"y": v["score"], "ci": v["ci"], "n": v["n"]}
                                     for v in line["values"]]})
        out.append({"id": "ranked", "title": "Ranked board", "percent": True, "lines": lines,
                    "axis": "score (win rate, mean over games)"})
    for name, title in titles.items():
        table = history.get("ratings", {}).get(name)
        if not table:
            continue
        lines = [{"name": _name(line["agent"], line["label"], refs), "key": line["agent"],
                  "owner": (line.get("owner") or {}).get("label", ""),
                  "values": [None if v is None else {"y": v["rating"], "n": v["games"]} for v in line["values"]]}
                 for line in table]
        out.append({"id": name, "title": title, "percent": False, "lines": lines, "axis": "rating (Elo scale)"})
    return out


def chart_data(boards: Sequence[Mapping[str, Any]]) -> dict[str, Any]:
    """data/history.json: each board's points (a merge: its UTC day and short commit, in order) and lines."""
    return {
        "boards": {b["id"]: {"percent": b["percent"], "axis": b["axis"], "points": [
            {"day": p["day"], "commit": p["commit"][:7]} for p in b["points"]], "lines": [
            {"name": line["name"] + (f" ({line['owner']})" if line["owner"] else ""),
             "y": [None if v is None else v["y"] for v in line["values"]],
             "ci": [None if v is None else v.get("ci") for v in line["values"]]} for line in b["lines"]]}
            for b in boards},
    }


def pages(ctx: Mapping[str, Any]) -> list[Page]:
    """history.md, the releases' index and a page per release (reached from the index, not the navigation)."""
    results, refs = ctx["results"], ctx["refs"]
    history = results.get("history")
    points = history["points"] if history else []
    out = [Page("history.md", "history.md.j2", nav=("Board over time",), context=dict(
        history=history, boards=_boards(history, refs, ctx["games"]) if points else [], data_file=HISTORY_DATA,
        first=_utc(points[0]["date"])[:10] if points else None, last=_utc(points[-1]["date"])[:10] if points else None,
        merged=points[-1]["games"] if points else 0))]
    released = results.get("releases")
    out.append(Page("releases/index.md", "releases.md.j2", nav=("Releases",),
                    context=dict(released=released, release_page=release_page)))
    for snapshot in (released or {}).get("releases", []):
        out.append(Page(release_page(snapshot["tag"]), "release.md.j2", context=dict(
            release=snapshot, leaders=_leaders(snapshot, refs, ctx["games"]),
            unrated=[title for name, title in ctx["games"].items()
                     if not ratings.cooperative(name) and not snapshot["leaders"].get(name)],
            rows=[{**row, "name": _row_name(row, snapshot, refs)} for row in snapshot["ranked"]])))
    return out


def data(ctx: Mapping[str, Any]) -> dict[str, Any]:
    """data/history.json, when the board has points over time."""
    history = ctx["results"].get("history")
    boards = _boards(history, ctx["refs"], ctx["games"]) if history and history["points"] else []
    return {HISTORY_DATA: chart_data(boards)} if boards else {}


def _row_name(row: Mapping[str, Any], snapshot: Mapping[str, Any], refs: Mapping[str, Any]) -> dict[str, Any]:
    """A ranked row named by its agent when one agent held the candidate's seat (linked if that
    agent is on the board today), else by its label."""
    agents = set(row["agents"].values())
    if len(agents) == 1:
        key = next(iter(agents))
        return {"key": key if key in refs else None,
                "text": _name(key, snapshot.get("agents", {}).get(key, row["label"]), refs)}
    return {"key": None, "text": row["label"]}


def _leaders(snapshot: Mapping[str, Any], refs: Mapping[str, Any], titles: Mapping[str, str]) -> list[dict[str, Any]]:
    """Each game's leaders at the release, in the site's order of games."""
    return [{"game": name, "title": title,
             "rows": [{**r, "name": _name(r["agent"], r["label"], refs), "key": r["agent"] if r["agent"] in refs
                       else None} for r in snapshot["leaders"][name]]}
            for name, title in titles.items() if snapshot["leaders"].get(name)]

"""The Markdown report of a submission check, as GitHub's step summary shows it.

Every string that comes from the submission is escaped (`escape_markdown`): it can neither format
the report, link, mention nor notify. `render` writes the whole report from the check's verdict
and the board's effect (`check`, `effect`); `cut_to_fit` cuts it to the size GitHub shows.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from runner.replay.format import agent_kind
from site_builder.submission import EXHIBITION, RANKED
from site_builder.submission.secret_scan import redact_secrets

# The check and the scorer are imported where a section needs them: the command imports this
# module when `gamenight` lists its commands.
if TYPE_CHECKING:
    from site_builder.submission.check import Submission
    from site_builder.submission.effect import Effect, EffectRow, Standing

#: GitHub shows a step summary of at most 1 MiB of UTF-8 bytes, and nothing of a longer one.
SUMMARY_LIMIT_BYTES = 1024 * 1024


def cut_to_fit(report: str, limit: int, where_whole: str) -> str:
    """`report` in at most `limit` bytes of UTF-8: whole if it fits, else cut at the end of a line
    (so never inside a character, a table row or an escape) and ended by a note saying how much was
    left out and where the whole report is."""
    data = report.encode("utf-8")
    if len(data) <= limit:
        return report

    def note(left: int, lines: int) -> str:
        return (f"\n> ✂ **The report is cut here**, to fit GitHub's summary: {left:,} more bytes ({lines:,} "
                f"line(s)) are left out. {where_whole}\n")

    room = limit - len(note(len(data), data.count(b"\n")).encode("utf-8"))  # no smaller count is longer
    end = data.rfind(b"\n", 0, max(room, 0)) + 1  # 0: not even the first line fits
    rest = data[end:]
    return data[:end].decode("utf-8") + note(len(rest), rest.count(b"\n"))


# -- Markdown ---------------------------------------------------------------------------------

_NO_LINK = "&#8203;"  # a zero-width space: GitHub then sees no mention, issue reference or web address
_MARKDOWN_SPECIALS = {"\\": "\\\\", "`": "\\`", "*": "\\*", "_": "\\_", "[": "\\[", "]": "\\]", "|": "\\|",
                      "~": "\\~", "$": "\\$", "<": "&lt;", ">": "&gt;", "&": "&amp;",
                      "@": "@" + _NO_LINK, "#": "#" + _NO_LINK}
# Line breaks and control characters would end a table row or list item; bidirectional controls
# could display text in another order than it is stored. All become visible escapes.
_INVISIBLE = ({c: f"\\x{c:02x}" for c in (*range(0x20), 0x7F, 0x85)}
              | {c: f"\\u{c:04x}" for c in (0x2028, 0x2029, 0x200E, 0x200F, *range(0x202A, 0x202F),
                                             *range(0x2066, 0x206A))})
# What would open a heading, list, quote or rule at the start of a list item.
_BLOCK_START = re.compile(r"^(?:[#+=-]|\d+(?=[.)]))")


def escape_markdown(text: Any) -> str:
    """`text` as literal text in GitHub-flavoured Markdown, safe in a paragraph, list item or table cell.

    Control characters and newlines become visible escapes (\\x0a), Markdown and HTML specials are
    escaped, and mentions (@name), issue references (#1) and bare web addresses are broken so that
    GitHub neither links nor notifies.
    """
    text = redact_secrets(str(text)).translate(_INVISIBLE).encode("utf-8", "backslashreplace").decode("utf-8")
    body = text.lstrip(" ")
    indent = "&#32;" * (len(text) - len(body))  # leading spaces could start a code block
    out = "".join(_MARKDOWN_SPECIALS.get(c, c) for c in body)
    out = _BLOCK_START.sub(lambda m: m[0] + "\\" if m[0][0].isdigit() else "\\" + m[0], out, count=1)
    out = re.sub(r"(?i)\b(www)\.", r"\1" + _NO_LINK + ".", out).replace("://", ":" + _NO_LINK + "//")
    return indent + out


def _cell(value: Any) -> str:
    return escape_markdown(value) if value not in (None, "") else "—"


def _mib(size: int) -> str:
    return f"{size / (1024 * 1024):.1f} MiB" if size >= 1024 * 1024 else f"{size / 1024:.1f} KiB"


#: Rows of OK files listed before the rest are only counted (the step summary is limited to 1 MiB).
MAX_OK_ROWS = 200
MAX_PROBLEM_LINES = 500


def render(submission: Submission, effect: Effect | None = None, effect_error: str | None = None) -> str:
    """The whole Markdown report (every string from the submission escaped); `cut_to_fit` fits it
    into $GITHUB_STEP_SUMMARY."""
    lines = _headline(submission)
    if submission.touches_replays:
        lines += _files_section(submission)
        lines += _adds_section(submission)
        lines += _owners_section(submission)
        if effect is not None:
            lines += _effect_section(effect)
        elif effect_error:
            lines += ["", "### Effect on the leaderboard", "", f"Could not be computed: {escape_markdown(effect_error)}"]
    return "\n".join(lines) + "\n"


def _headline(submission: Submission) -> list[str]:
    commits = (f"base `{submission.base[:12]}`, head `{submission.head[:12]}` "
               f"(branched from `{submission.merge_base[:12]}`)")
    if not submission.touches_replays:
        return ["## Replay submission check: nothing to check", "",
                f"This pull request changes no file under `replays/`, so it is not a replay submission ({commits})."]
    new = [f for f in submission.files if f.status == "A"]
    size = sum(f.size for f in new)
    if submission.ok:
        verdict = f"✅ accepted: {len(submission.accepted)} new replay(s), every check passed"
    else:
        bad = len(submission.refused)
        verdict = (f"❌ refused: {bad} of {len(submission.files)} file(s) with problems"
                   if bad else "❌ refused")
    lines = [f"## Replay submission check: {verdict}", "",
             f"Compared {commits}: {len(submission.files)} changed file(s), {len(new)} added ({_mib(size)}), "
             f"submitted by {escape_markdown(submission.submitter.label)}."]
    for problem in submission.problems:
        lines += ["", f"> **{escape_markdown(problem)}**"]
    if not submission.ok:
        lines += ["", ("Fix the problems below and push again: each reads *file:line: field: message*. "
                       "`gamenight validate FILE` and `gamenight submission-check origin/main HEAD` show the same "
                       "locally (see docs/submit.md).")]
    return lines


def _files_section(submission: Submission) -> list[str]:
    lines = ["", "### Files", "", "| file | result |", "| --- | --- |"]
    ordered = submission.refused + [f for f in submission.files if f.ok]
    shown_ok = 0
    for check in ordered:
        if check.ok:
            if submission.problems:
                result = "not read (the submission is over its limits)"
            else:
                result = "✅ OK"
            shown_ok += 1
            if shown_ok > MAX_OK_ROWS:
                continue
        else:
            result = f"❌ {len(check.problems)} problem(s)"
        lines.append(f"| {escape_markdown(check.path)} | {result} |")
    if shown_ok > MAX_OK_ROWS:
        lines.append(f"| … and {shown_ok - MAX_OK_ROWS} more file(s) | ✅ OK |")
    problems = [str(p) for f in submission.refused for p in f.problems]
    if problems:
        lines += ["", "### Problems", ""]
        lines += [f"- {escape_markdown(p)}" for p in problems[:MAX_PROBLEM_LINES]]
        if len(problems) > MAX_PROBLEM_LINES:
            lines.append(f"- … and {len(problems) - MAX_PROBLEM_LINES} more problem(s)")
    return lines


def _adds_section(submission: Submission) -> list[str]:
    from site_builder.submission.check import added_games, submitted_agents

    games = added_games(submission)
    if not games:
        return []
    agents = submitted_agents(submission)
    lines = ["", "### What the submission adds", ""]
    if not submission.ok:
        lines += ["Counting only the files that passed every check.", ""]
    lines += ["| game | new games |", "| --- | ---: |"]
    lines += [f"| {escape_markdown(g)} | {n} |" for g, n in sorted(games.items())]
    lines.append(f"| **all** | **{sum(games.values())}** |")
    new = [a for a in agents if a.games_before == 0]
    more = [a for a in agents if a.games_before > 0]
    if new:
        lines += ["", f"**New agents** ({len(new)}):", "",
                  "| agent | kind | provider | model | model reported | design | games |",
                  "| --- | --- | --- | --- | --- | --- | ---: |"]
        for a in new:
            d = a.description
            model = d.get("model") if agent_kind(d) == "llm" else d.get("strategy")
            lines.append(f"| {_cell(a.label)} | {_cell(d.get('kind'))} | {_cell(d.get('provider'))} | "
                         f"{_cell(model)} | {_cell(d.get('model_reported'))} | {_cell(d.get('design'))} | "
                         f"{a.games_added} |")
    if more:
        lines += ["", f"**Agents with more games** ({len(more)}):", "",
                  "| agent | games before | games after |", "| --- | ---: | ---: |"]
        lines += [f"| {_cell(a.label)} | {a.games_before} | {a.games_before + a.games_added} |" for a in more]
    return lines


def _owners_section(submission: Submission) -> list[str]:
    """Who owns each row the accepted files touch: the submitter's new tournaments and models, and
    the built-in agents everybody plays against."""
    from site_builder.submission.check import submitted_agents

    agents = submitted_agents(submission)
    if not agents:
        return []
    owners = submission.base_index.owners
    mine = escape_markdown(submission.submitter.label)
    lines = ["", "### Who owns the rows it touches", "", "| row | owner |", "| --- | --- |"]
    for folder in sorted(submission.plans):
        lines.append(f"| tournament {escape_markdown(folder)} | {mine} (new) |")
    for a in agents:
        if agent_kind(a.description) == "builtin":
            owner = ("the maintainers' row: its numbers come from their games alone; in yours it is an "
                     "opponent, every move derived again from the seed")
        else:
            row = owners.agents.get(a.key)
            owner = mine + (" (new)" if row is None or row.owner is None
                            else f" (since {escape_markdown(row.owner.label)})")
            if agent_kind(a.description) == "human":
                owner += ", self-reported: a person's moves are taken as recorded"
        lines.append(f"| agent {_cell(a.label)} | {owner} |")
    for key, (label, games) in sorted(_judges(submission).items(), key=lambda kv: (kv[1][0], kv[0])):
        row = owners.judges.get(key)
        owner = mine + (" (new)" if row is None or row.owner is None else f" (since {escape_markdown(row.owner.label)})")
        lines.append(f"| judge {_cell(label)} ({games} game{'' if games == 1 else 's'}) | {owner}: its lines score "
                     "only your rows |")
    return lines


def _judges(submission: Submission) -> dict[str, tuple[str, int]]:
    """Every judge whose lines the accepted files carry: key -> (how to name it, games judged)."""
    from site_builder.scoring.judges import label as judge_label  # the scorer: not loaded for `--help`

    found: dict[str, tuple[str, int]] = {}
    for check in submission.accepted:
        for key, judge, _ in check.judges:
            label = judge_label(key)
            found[key] = (label, found.get(key, (label, 0))[1] + 1)
    return found


def _change(before: str | None, after: str | None) -> str:
    """A cell after the merge, with what it was before when that differs ("—": not on the board)."""
    if before is None or before == after:
        return escape_markdown(after) if after is not None else "—"
    return f"{escape_markdown(before)} → {escape_markdown(after) if after is not None else '— (gone)'}"


def _rank(s: Standing | None) -> str | None:
    if s is None:
        return None
    if s.place or not s.unranked:
        return s.rank
    return s.rank if s.unplaced != "not ranked" else f"{s.unplaced} ({s.unranked})"  # a game's page says why itself


def _cells(row: EffectRow, *parts: Callable[[Standing], str]) -> str:
    """The row's cells: its rank, then each of `parts`, after the merge (with the value before)."""
    cells = [_change(_rank(row.before), _rank(row.after))]
    cells += [_change(part(row.before) if row.before else None, part(row.after) if row.after else None)
              for part in parts]
    return " | ".join(cells)


#: Each board's table in the report: its heading columns, and the Standing fields after the rank.
_TABLES: dict[str, tuple[str, tuple[Callable[[Standing], str], ...]]] = {
    RANKED: ("| row | rank | tier | score [95%] | games |", (lambda s: s.tier, lambda s: s.shown, lambda s: s.counted)),
    EXHIBITION: ("| agent | rank | rating [95%] | games |", (lambda s: s.shown, lambda s: s.counted)),
    "games": ("| game | agent | rank | rating or win rate [95%] | games |", (lambda s: s.shown, lambda s: s.counted)),
}


def _board_table(effect: Effect, which: str) -> list[str]:
    """The submitter's rows of the ranked board, the exhibition board or (`which` "games") each game's board."""
    from site_builder.submission.effect import game_title

    rows = [r for r in effect.rows if r.mine and (r.board == which if which != "games"
                                                   else r.board not in (RANKED, EXHIBITION))]
    if not rows:
        return []
    head, parts = _TABLES[which]
    lines = [head, "| --- " * head.count(" | ") + "| --- |"]
    for row in rows:
        game = f"| {escape_markdown(game_title(row.board))} " if which == "games" else ""
        lines.append(f"{game}| {_cell(row.label)} | {_cells(row, *parts)} |")
    return lines


def _effect_section(effect: Effect) -> list[str]:
    from site_builder.submission.effect import game_title

    lines = ["", "### Effect on the leaderboard", "",
             ("The boards as the site will show them after the merge, made by the site's own code from the base "
              "corpus and from base + the files that passed: the maintainers' games make every row that is not a "
              "contributor's, and each of your rows is placed among theirs (the place it would take among them), "
              "so it moves none of them. **Rank**: the place, and in brackets the range of places its interval "
              "allows; a value before the merge is shown before an arrow. Intervals are 95%.")]
    if effect.others_changed or not effect.rest_identical:
        what = (f"{effect.others_changed} row(s) of others changed" if effect.others_changed
                else "numbers of others changed")
        lines += ["", (f"> ⚠ **{what}** although no submission may move a row it does not own: a fault of the "
                       "board to report to the maintainers, whatever this pull request holds.")]
    ranked = _board_table(effect, RANKED)
    lines += ["", "**The ranked board** (the headline: only games of the ranked suite count there)", ""]
    if ranked:
        lines += ranked + ["", ("**Rank** \"would be\": a contributed row is self-reported until the maintainers "
                                "verify it (`gamenight verify`, docs/submit.md): it is listed under the maintainers' "
                                "and verified rows with the place it would take among them, and in no tier (\"\u2013\"), "
                                "as the site shows it. **Games**: the suite games its score rests on.")]
    else:
        lines.append("No row of yours: only games of `gamenight run --suite ranked` count there (docs/submit.md); "
                     "the boards below are exhibitions.")
    exhibition = _board_table(effect, EXHIBITION)
    if exhibition:
        lines += ["", "**The exhibition board** (every tournament, ranked across the rated games)", "", *exhibition]
    per_game = _board_table(effect, "games")
    if per_game:
        lines += ["", "**Each game's board** (the games you add to)", "", *per_game]
    if not (ranked or exhibition or per_game):
        lines += ["", "No row of yours on any board: a row needs complete games."]
    changed = [r for r in effect.rows if not r.mine]
    if changed:
        lines += ["", "**⚠ Rows of others that changed** (not yours)", "", "| board | row | before | after |",
                  "| --- | --- | --- | --- |"]
        for r in changed:
            lines.append(f"| {escape_markdown(game_title(r.board))} | {_cell(r.label)} | {_standing(r.before)} | "
                         f"{_standing(r.after)} |")
    lines += ["", (f"Rows of others compared, before and after: {effect.compared:,}; changed: "
                   f"{effect.others_changed:,}."),
              " ".join(["Every other number of the results (the results file without your rows):",
                        "identical." if effect.rest_identical else "⚠ **changed**: a fault of the board."])]
    lines += ["", (f"_Scored the base corpus ({effect.games_before} games) and base + submission "
                   f"({effect.games_after} games) in {effect.seconds:.1f} s: {effect.resimulated} replay(s) "
                   f"re-simulated, {effect.cached} answered by the scorer's cache._")]
    return lines


def _standing(s: Standing | None) -> str:
    if s is None:
        return "—"
    return escape_markdown("; ".join(p for p in (_rank(s), s.tier and f"tier {s.tier}", s.shown, s.counted) if p))

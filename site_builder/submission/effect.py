"""The effect on the leaderboard: the boards as the site will show them, before and after the merge.

The base corpus, and base + the accepted files, are each scored as `gamenight build` scores them,
by the scorer's one entry (scoring/entry.py `score_replays`: scoring/board.py `assemble_board`,
the maintainers' games make the board, each contributor's rows are added beside them; the
accepted files are not validated again, their games come from the check). Each board's rows are
read with the functions the pages are rendered from (boards.py: `ranked_rows` for the ranked
board, `leaderboard_rows` for the exhibition board, `game_ranks` for each game's page), their
numbers printed by the pages' own filters (labels.py). So the places, ranges, tiers, scores and
intervals of the report are the ones the site shows after the merge: there is no second way of
computing them here.

Containment is checked on the same rows: every row of another owner, on every board, before and
after (its place, range, tier, numbers and counts); and every other number of the results, which
`board.without` gives without the submitter's rows.
"""

from __future__ import annotations

import time
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from runner import games as registry
from runner.progress import Progress
from site_builder.pages import boards, labels
from site_builder.scoring import board, ratings
from site_builder.scoring.corpus import REFERENCE
from site_builder.scoring.entry import score_replays
from site_builder.scoring.owners import Owner
from site_builder.submission import EXHIBITION, RANKED
from site_builder.submission.check import Submission, added_games
from site_builder.submission.layout import copy_replay


@dataclass(frozen=True)
class Standing:
    """One row of one board, as its page shows it."""

    place: tuple[int, int, int] | None  # place, best and worst place its interval allows; None: not ranked
    unranked: str | None  # why it has no place, in the page's words
    shown: str  # its score or rating and interval, printed as the page prints them ("" when none)
    games: int  # the page's games column of the row
    tier: str = ""  # the ranked board's tier: a number, or "–" for a row outside the tiers (as the page prints it)
    counted: str = ""  # what the counts count, in words
    numbers: tuple[Any, ...] = ()  # the unrounded figures behind `shown` (compared for containment)
    placed: bool = False  # a contributor's place among the maintainers' rows, marked * (macro place_td)
    would_be: bool = False  # a ranked row not counted (self-reported, inconsistent): the place it would take
    unplaced: str = "not ranked"  # what the first column says without a place (a game's page says why in it)

    @property
    def rank(self) -> str:
        """The place as a board's first column prints it: "2 (1-4)", "2* (1-4)", or why there is none."""
        if self.place is None:
            return self.unplaced
        place, best, worst = self.place
        shown = f"{place}{'*' if self.placed else ''} ({best}{'' if worst == best else f'-{worst}'})"
        return f"would be {shown}" if self.would_be else shown


@dataclass(frozen=True)
class EffectRow:
    """One row of one board, before and after the submission (None: not on the board)."""

    board: str  # RANKED, EXHIBITION or a game name
    key: str  # the agent's key, or the ranked row's name
    label: str  # as the page names it (after the merge)
    before: Standing | None
    after: Standing | None
    mine: bool = True  # the submitter's row (any other row shown is one that changed)


@dataclass
class Effect:
    """How the boards change when the accepted files join the base corpus: the submitter's rows,
    and every other row that changes (the board is built so that none does)."""

    rows: list[EffectRow]
    games_before: int
    games_after: int
    resimulated: int  # replays re-simulated by the rules engines
    cached: int  # replays answered by the scorer's cache
    seconds: float
    compared: int = 0  # rows of others on the boards, compared before and after
    others_changed: int = 0  # of those, the rows whose place, range, tier, numbers or counts changed
    #: Whether the results without the submitter's rows (`board.without`) are the same before and after.
    rest_identical: bool = True

    def of(self, name: str, mine: bool = True) -> list[EffectRow]:
        """The rows shown of one board (the submitter's, or the others' that changed)."""
        return [r for r in self.rows if r.board == name and r.mine == mine]


def game_title(name: str) -> str:
    return registry.get(name).title if name in registry.GAME_MODULES else name


# -- a board's rows, as the pages show them ----------------------------------------------------

def percent(value: float) -> str:
    """A share as the ranked board prints it (`(value * 100)|round(1)`, templates/pages/_ranked.j2)."""
    return f"{round(value * 100, 1)}"


def ranked_standing(row: Mapping[str, Any]) -> Standing:
    """A row of `boards.ranked_rows` as the ranked board shows it (templates/pages/_ranked.j2)."""
    score = row.get("score")
    if not score:
        return Standing(None, row.get("unranked"), "", 0, counted=f"{row['stages']} whole stages")
    low, high = score["ci"]
    counted = row.get("counted", True)  # the maintainers' and verified rows take places and tiers
    tier = str(row["tier"]) if counted and row.get("tier") else "\u2013"
    stages = f"{row['stages']} whole stage{'' if row['stages'] == 1 else 's'}"
    return Standing((row["place"], row["best"], row["worst"]), None,
                    f"{percent(score['value'])}% [{percent(low)}, {percent(high)}]", score["n"], tier,
                    f"{score['n']:,} games scored, {stages}",
                    (score["value"], low, high, row["tier"], row["stages"]), would_be=not counted)


def rating_text(rating: Mapping[str, Any]) -> str:
    """A rating and its interval as a rating cell prints them (macro rating_td, _macros.j2)."""
    interval = labels.fmt_ci({"ci": rating.get("rating_ci")}, False, 0)
    return f"{labels.fmt_num(rating['rating'], 0)} {interval}".strip()


def rate_text(entry: Mapping[str, Any]) -> str:
    """A rate and its interval as a rate cell prints them (macro rate_td, _macros.j2)."""
    return f"{labels.fmt_pct(labels.headline(entry), 1)} {labels.fmt_ci(entry, True, 1)}".strip()


def _games(n: int) -> str:
    return f"{n:,} game{'' if n == 1 else 's'}"


def rated_counts(agent: Mapping[str, Any], rated: int) -> str:
    """What the exhibition board's counts of an agent count: its games, those its rating rests on,
    and why the others are not rated (a cooperative game has no rating)."""
    games = agent["games"]
    unrated = {name: n for name, n in sorted(agent.get("by_game", {}).items()) if ratings.cooperative(name)}
    said = f"{_games(games)}, {rated:,} rated"
    why = [f"{game_title(name)} is not rated ({_games(n)}: its seats win or lose together)"
           for name, n in unrated.items()]
    rest = games - rated - sum(unrated.values())
    if rest > 0:
        why.append(f"{rest:,} left out of the rating (another agent forfeited, or the agent played only itself)")
    return said + (": " + "; ".join(why) if why else "")


def exhibition_standing(row: Mapping[str, Any], agent: Mapping[str, Any]) -> Standing:
    """A row of `boards.leaderboard_rows` as the exhibition board shows it (exhibition.md.j2)."""
    rating = row["rating"]
    shown = rating_text(rating) if rating else "not rated"
    numbers = (rating["rating"], *(rating.get("rating_ci") or ()), rating["games"]) if rating else ()
    return Standing(row["rank"], row["unranked"], shown, row["games"],
                    counted=rated_counts(agent, rating["games"] if rating else 0), numbers=numbers,
                    placed=bool(row["ref"] and row["ref"].submitted))


def game_standing(name: str, row: Mapping[str, Any], rank: tuple[int, int, int] | None,
                  rating: Mapping[str, Any] | None, submitted: bool = False) -> Standing:
    """An agent's row of one game's board as the game's page shows it (game.md.j2): its place by
    the game's rating, or by seat win rate for a cooperative game."""
    why = None if rank else ("self-play only: no other agent to compare with" if boards.self_play_only(row)
                             else "no interval")
    shown_why = "self-play only" if boards.self_play_only(row) else "no interval"  # in the page's first column
    if ratings.cooperative(name):
        rate = row.get("win_rate")
        shown = rate_text(rate) if rate else "no data"
        numbers = (rate["value"], *rate["ci"]) if rate else ()
        counted = f"{_games(row['games'])}, ranked by seat win rate (not rated: the seats win or lose together)"
    else:
        shown = rating_text(rating) if rating else "not rated"
        numbers = (rating["rating"], *(rating.get("rating_ci") or ()), rating["games"]) if rating else ()
        counted = f"{_games(row['games'])}, {rating['games'] if rating else 0:,} rated"
    provisional = not rank and not ratings.cooperative(name) and rating is not None and ratings.provisional(rating)
    unplaced = f"not ranked ({shown_why})"
    if provisional:
        why = boards.provisional_why(rating)
        unplaced = f"provisional ({rating['games']} of {ratings.MIN_GAMES} rated games)"
    if boards.forfeited_all(row):  # listed apart, below the board
        why, unplaced = "forfeited every game", "forfeited every game"
    return Standing(rank, why, shown, row["games"], counted=counted, numbers=numbers, placed=submitted,
                    unplaced=unplaced)


@dataclass(frozen=True)
class Shown:
    """A row of a board: whose it is, how the page names it, and how it stands."""

    owner: str
    label: str
    standing: Standing


def site_rows(results: Mapping[str, Any]) -> dict[str, dict[str, Shown]]:
    """Every row of every board the site renders from `results`: RANKED, EXHIBITION and each game
    played, by agent key (a ranked row by its name), read with the pages' own functions."""
    refs = labels.agent_refs(results)
    agents = {a["key"]: a for a in results["agents"]}

    def owner(key: str) -> str:
        return (agents[key].get("owner") or {}).get("id", REFERENCE)

    out: dict[str, dict[str, Shown]] = {
        RANKED: {row["row"]: Shown((row.get("owner") or {}).get("id", REFERENCE),
                                   row["ref"].display if row["ref"] else row["label"], ranked_standing(row))
                 for row in boards.ranked_rows(results, refs)},
        EXHIBITION: {row["ref"].key: Shown(owner(row["ref"].key), row["ref"].display,
                                           exhibition_standing(row, agents[row["ref"].key]))
                     for row in boards.leaderboard_rows(results, refs)},
    }
    for name, table in sorted(results["leaderboards"].items()):
        if not table:
            continue
        ranks = boards.game_ranks(results, name)
        rated = {r["agent"]: r for r in results["ratings"].get("by_game", {}).get(name, {}).get("agents", [])}
        out[name] = {row["agent"]: Shown(owner(row["agent"]), refs[row["agent"]].display if row["agent"] in refs
                                         else row["label"],
                                         game_standing(name, row, ranks.get(row["agent"]), rated.get(row["agent"]),
                                                       bool(refs.get(row["agent"]) and refs[row["agent"]].submitted)))
                     for row in table["agents"]}
    return out


# -- before and after --------------------------------------------------------------------------

def leaderboard_effect(submission: Submission, base_dir: Path, new_dir: Path, cache_path: Path,
                       progress: Progress | None = None) -> Effect:
    """Score the base corpus and base + accepted files as the site does, and compare the boards:
    the submitter's rows, and every row of others before and after (`progress` hears of both scorings)."""
    started = time.perf_counter()
    for check in submission.accepted:
        assert check.raw is not None
        copy_replay(new_dir, check.path, check.raw)
    submitter = submission.submitter
    base_owners = {str(base_dir / path): Owner(source.owner, source.owner_label, source.date or "")
                   for path, source in submission.base_index.owners.files.items()}
    new_owners = {str(new_dir / check.path): Owner(submitter.owner, submitter.label, "~")  # newest of all
                  for check in submission.accepted}
    # Scored by the scorer's one entry, as build.py scores them; the accepted files were validated
    # and re-simulated by the check, so their games are taken from it.
    scored = score_replays([base_dir], base_owners, cache=cache_path, progress=progress, what="the base")
    merged = score_replays([base_dir, new_dir], {**base_owners, **new_owners}, cache=cache_path,
                           passed=[check.passed for check in submission.accepted if check.passed is not None],
                           progress=progress, what="the base and the submission")
    before, after = scored.results, merged.results
    old, new = site_rows(before), site_rows(after)
    order = [RANKED, EXHIBITION, *sorted(added_games(submission))]
    rows: list[EffectRow] = []
    compared = changed = 0
    for name in [*order, *sorted((set(old) | set(new)) - set(order))]:
        was, now = old.get(name, {}), new.get(name, {})
        for key in [*now, *(k for k in was if k not in now)]:  # the board's order after the merge
            then, shown = was.get(key), now.get(key)
            mine = submitter.owner in {r.owner for r in (then, shown) if r}
            row = EffectRow(name, key, (shown or then).label, then and then.standing, shown and shown.standing, mine)
            if mine:
                if name in order:
                    rows.append(row)
                continue
            compared += 1
            if row.before != row.after:
                changed += 1
                rows.append(row)
    rest_identical = _without(before, submitter.owner) == _without(after, submitter.owner)
    resimulated = scored.corpus.resimulated + merged.corpus.resimulated
    return Effect(rows, len(scored.corpus.games), len(merged.corpus.games), resimulated,
                  scored.corpus.files + merged.corpus.files - resimulated, time.perf_counter() - started, compared,
                  changed, rest_identical)


def _without(results: Mapping[str, Any], owner: str) -> dict[str, Any]:
    """The results without `owner`'s rows (`board.without`), its ranked rows also left out (the
    ranked board is compared row by row above)."""
    rest = board.without(results, owner)
    ranked = rest.get("ranked") or {}
    rest["ranked"] = {**ranked, "rows": [r for r in ranked.get("rows", []) if (r.get("owner") or {}).get("id") != owner]}
    return rest

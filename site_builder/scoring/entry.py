"""The scorer's one entry: replays read into a corpus, split by owner, and scored as the site shows them.

`gamenight score`, `gamenight build`, the release snapshots and the submission check's effect on
the leaderboard all read replays through `read` (validated and re-simulated by `corpus.load`, the
cache answering, every model agent's games split by owner: `owners.separate`), and all but the
releases (point estimates only) score them through `score` (`board.assemble_board`: the
maintainers' games make the board, each contributor's rows beside them); `score_replays` does
both under progress lines. So the board the check reports, the one `gamenight score` writes and
the one the site shows are made by the same steps.
"""

from __future__ import annotations

import os
import time
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from runner.prices import PriceTable
from runner.progress import Progress
from runner.replay.format import iter_replay_files
from site_builder.scoring import board, corpus, owners
from site_builder.scoring.corpus import Corpus, Passed
from site_builder.scoring.owners import Owner
from site_builder.scoring.results import SCORING_SEED
from site_builder.scoring.sections import beside


@dataclass(frozen=True)
class Scored:
    """A scored corpus: the corpus split by owner, its results, and the seconds each step took."""

    corpus: Corpus
    results: dict[str, Any]
    seconds: tuple[float, float]  # reading the replays (checked, re-simulated, split), scoring the boards


def owner_labels(owner_of: Mapping[str, Owner]) -> dict[str, str]:
    """How the board names each owner (owner id -> "@login"), from the owners of the files."""
    return {o.id: o.label for o in owner_of.values()}


def read(paths: Iterable[str | os.PathLike[str]], owner_of: Mapping[str, Owner], *, cache: Path | None = None,
         derive: bool = True, passed: Iterable[Passed] = (),
         progress: Callable[[int, int], None] | None = None) -> Corpus:
    """The replays under `paths` validated and re-simulated (`corpus.load`: `cache`, `derive` and
    `passed` as there; `progress(done, total)` hears of each re-simulation), each model agent's games
    split by the owners of their files (`owner_of`: path -> Owner; a file not in it is the maintainers')."""
    loaded = corpus.load(paths, cache, derive=derive, owner_of={path: owner.id for path, owner in owner_of.items()},
                         passed=passed, progress=progress)
    return owners.separate(loaded, owner_of)


def score(split: Corpus, owner_of: Mapping[str, Owner], *, cache: Path | None = None, seed: int = SCORING_SEED,
          magic_reading: str = "paper", prices: PriceTable | None = None) -> dict[str, Any]:
    """The board's results of a corpus `read` gave (`board.assemble_board`: the maintainers' games
    make the board, each contributor's rows beside them), its sections kept beside `cache` (none without one)."""
    return board.assemble_board(split, owner_labels(owner_of), seed=seed, magic_reading=magic_reading,
                                kept=beside(cache) if cache else None, prices=prices)


def score_replays(paths: Iterable[str | os.PathLike[str]], owner_of: Mapping[str, Owner], *,
                  cache: Path | None = None, seed: int = SCORING_SEED, derive: bool = True,
                  magic_reading: str = "paper", prices: PriceTable | None = None, passed: Iterable[Passed] = (),
                  files: int | None = None, progress: Progress | None = None, what: str | None = None) -> Scored:
    """`read` the replays under `paths`, then `score` them. `files`: how many replay files `paths`
    hold, if the caller has counted them. `progress` (default: none shown) hears of the replays
    checked and the boards, as "checking replays" and "scoring the boards", or "scoring `what`: ..."."""
    progress = progress or Progress(quiet=True)
    paths = list(paths)
    if files is None:
        files = sum(1 for _ in iter_replay_files(paths))
    checking, scoring = (("checking replays", "scoring the boards") if what is None
                         else (f"scoring {what}: checking replays", f"scoring {what}: the boards"))
    started = time.perf_counter()
    with progress.task(checking, total=files, unit="replays") as task:
        split = read(paths, owner_of, cache=cache, derive=derive, passed=passed, progress=task.hook())
        task.skip_rest()  # those the cache answered
    loaded = time.perf_counter()
    with progress.task(scoring):
        results = score(split, owner_of, cache=cache, seed=seed, magic_reading=magic_reading, prices=prices)
    return Scored(split, results, (loaded - started, time.perf_counter() - loaded))

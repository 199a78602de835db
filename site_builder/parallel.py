"""Mapping a function over many items on every core (re-simulating replays, making data files)."""

from __future__ import annotations

import os
from collections.abc import Callable, Iterator, Sequence
from typing import TypeVar

T = TypeVar("T")
R = TypeVar("R")

#: Below this many items, starting processes costs more than it saves.
PARALLEL_FROM = 64


def in_process(items: int) -> bool:
    """Whether `map_on_cores` maps this many items in the calling process (the other cores idle)."""
    return items < PARALLEL_FROM or (os.cpu_count() or 1) < 2


def map_on_cores(fn: Callable[[T], R], items: Sequence[T], *, chunksize: int = 16,
                 batch: int | None = None) -> Iterator[R]:
    """`fn` of each item, in order; in worker processes when there are many items and cores.

    `batch` bounds how many results can wait in memory at once (a large corpus's results do not
    all fit comfortably); `fn` and the items must pickle (a module-level function).
    """
    workers = os.cpu_count() or 1
    if in_process(len(items)):
        yield from map(fn, items)
        return
    from concurrent.futures import ProcessPoolExecutor

    step = batch or len(items)
    with ProcessPoolExecutor(max_workers=workers) as pool:
        for start in range(0, len(items), step):
            yield from pool.map(fn, items[start:start + step], chunksize=chunksize)

"""Token buckets for requests-per-minute and tokens-per-minute budgets, on an injectable clock."""

from __future__ import annotations

import asyncio
import time
from collections.abc import Awaitable, Callable

Clock = Callable[[], float]
Sleep = Callable[[float], Awaitable[None]]

#: A bucket holds this many seconds' worth of its rate, so a full bucket allows a short burst
#: but a minute's budget is never spent in the first instant (providers enforce RPM/TPM over
#: windows shorter than a minute too).
BURST_SECONDS = 1.0


class TokenBucket:
    """A budget refilled at `per_minute / 60` per second, holding at most `capacity`.

    A cost larger than the capacity is let through once the bucket is full and leaves it in
    debt, so a single large request can never wait forever; later ones wait for the refill.
    """

    def __init__(self, per_minute: float, *, clock: Clock = time.monotonic,
                 capacity: float | None = None):
        if per_minute <= 0:
            raise ValueError(f"a per-minute budget must be positive, not {per_minute}")
        self.rate = per_minute / 60.0
        self.capacity = capacity if capacity is not None else max(1.0, self.rate * BURST_SECONDS)
        self.clock = clock
        self.level = self.capacity
        self._updated = clock()

    def _refill(self) -> None:
        now = self.clock()
        self.level = min(self.capacity, self.level + (now - self._updated) * self.rate)
        self._updated = now

    def delay(self, cost: float) -> float:
        """Seconds until `cost` may be taken (0 if it may be taken now)."""
        self._refill()
        missing = min(cost, self.capacity) - self.level
        return 0.0 if missing <= 1e-9 else missing / self.rate

    def take(self, cost: float) -> None:
        """Spend `cost` (the level may go below zero: a debt)."""
        self._refill()
        self.level -= cost

    def correct(self, extra: float) -> None:
        """Charge `extra` more (or refund it when negative) once the true cost is known."""
        self._refill()
        self.level = min(self.capacity, self.level - extra)


class Budget:
    """A token bucket that callers wait on in arrival order."""

    def __init__(self, bucket: TokenBucket, sleep: Sleep = asyncio.sleep):
        self.bucket = bucket
        self.sleep = sleep
        self._queue = asyncio.Lock()  # first come, first served: a big cost is not starved

    async def spend(self, cost: float) -> None:
        """Wait until `cost` fits, then take it."""
        async with self._queue:
            while (wait := self.bucket.delay(cost)) > 0:
                await self.sleep(wait)
            self.bucket.take(cost)

    def correct(self, extra: float) -> None:
        self.bucket.correct(extra)

"""How fast the client may send: rate buckets, an adaptive concurrency limit
and a circuit breaker for an endpoint that has gone away."""

from __future__ import annotations

import asyncio
import time


class TokenBucket:
    """Async token bucket: `per_minute` units refill continuously; a burst of
    up to ten seconds' worth may go out at once."""

    def __init__(self, per_minute: float) -> None:
        self.rate = per_minute / 60.0
        self.capacity = max(1.0, self.rate * 10.0)
        self.tokens = self.capacity
        self.updated = time.monotonic()
        self._lock = asyncio.Lock()

    async def acquire(self, amount: float = 1.0) -> None:
        amount = min(amount, self.capacity)  # a request bigger than the bucket still goes, alone
        async with self._lock:
            while True:
                now = time.monotonic()
                self.tokens = min(self.capacity, self.tokens + (now - self.updated) * self.rate)
                self.updated = now
                if self.tokens >= amount:
                    self.tokens -= amount
                    return
                await asyncio.sleep((amount - self.tokens) / self.rate)


class AdaptiveLimiter:
    """Calls in flight, limited by AIMD (additive increase, multiplicative
    decrease), as TCP does for packets: the limit halves when the endpoint
    says it is overloaded (429, 503, a timeout) and grows by one after a
    limit's worth of successes in a row, never above `ceiling`.

    A local server with 4 slots answers a fifth call by queueing it (slower)
    or refusing it (429/503); a hosted API rate-limits. Starting from the
    probe's measured slots skips the discovery; the decrease keeps a server
    that slows down from being buried under retries.

    One halving per `cooldown` seconds: the calls already in flight when the
    first 429 came back report the same overload and must not halve again.
    """

    def __init__(self, start: int, ceiling: int, cooldown: float = 1.0) -> None:
        self.ceiling = max(1, ceiling)
        self.limit = max(1, min(start, self.ceiling))
        self.cooldown = cooldown
        self.in_flight = 0
        self.decreases = 0
        self.increases = 0
        self._streak = 0
        self._last_decrease = float("-inf")
        self._cond: asyncio.Condition | None = None

    def _condition(self) -> asyncio.Condition:
        if self._cond is None:
            self._cond = asyncio.Condition()
        return self._cond

    def rebind(self) -> None:
        """Forget loop-bound state (run_many uses a fresh event loop per batch);
        the learned limit is kept."""
        self._cond = None
        self.in_flight = 0

    async def acquire(self) -> None:
        cond = self._condition()
        async with cond:
            await cond.wait_for(lambda: self.in_flight < self.limit)
            self.in_flight += 1

    async def release(self) -> None:
        cond = self._condition()
        async with cond:
            self.in_flight -= 1
            cond.notify_all()

    async def __aenter__(self) -> AdaptiveLimiter:
        await self.acquire()
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.release()

    def on_success(self) -> None:
        self._streak += 1
        if self._streak >= self.limit and self.limit < self.ceiling:
            self.limit += 1
            self.increases += 1
            self._streak = 0
            # waiters are woken by the next release()

    def on_overload(self) -> None:
        self._streak = 0
        now = time.monotonic()
        if now - self._last_decrease < self.cooldown:
            return
        self._last_decrease = now
        if self.limit > 1:
            self.limit = max(1, self.limit // 2)
            self.decreases += 1


class CircuitBreaker:
    """Opens when the endpoint has gone away: after `threshold` failures in a
    row (connection refused or reset, or a read timeout: a server that
    accepts and never answers is as gone as a closed port), or at a failure
    once nothing has answered for `stall_seconds` (counted from the first
    request sent since the last answer, so time the run spent computing
    between calls is not silence). Once open, every
    queued call fails at once instead of each retrying against a dead
    endpoint. An answer in between closes the count."""

    def __init__(self, threshold: int, stall_seconds: float = 120.0) -> None:
        self.threshold = max(1, threshold)
        self.stall_seconds = stall_seconds
        self.consecutive = 0
        self.open = False
        self.last_error = ""
        self.cause = ""
        self._waiting_since: float | None = None  # the first request sent since the last answer

    def on_send(self) -> None:
        if self._waiting_since is None:
            self._waiting_since = time.monotonic()

    def on_connection_failure(self, error: str) -> None:
        """A request that got no answer: refused, reset or timed out."""
        self.consecutive += 1
        self.last_error = error
        now = time.monotonic()
        silent = now - (self._waiting_since if self._waiting_since is not None else now)
        if self.consecutive >= self.threshold:
            self.open, self.cause = True, f"{self.consecutive} requests in a row got no answer"
        elif silent >= self.stall_seconds:
            self.open, self.cause = True, f"no answer for {silent:.0f} s"

    def on_answer(self) -> None:
        """The endpoint answered (any HTTP status): it is up."""
        self.consecutive = 0
        self._waiting_since = None

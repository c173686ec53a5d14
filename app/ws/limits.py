"""Socket limits: flood control per connection (a token bucket, refilled continuously), and the
cap on sockets held at once per client address."""

from __future__ import annotations

import time
from collections import Counter
from collections.abc import Callable


class TokenBucket:
    def __init__(
        self, rate: float, burst: int, *, now: Callable[[], float] = time.monotonic
    ) -> None:
        self.rate = rate
        self.burst = float(burst)
        self.tokens = float(burst)
        self._now = now
        self._last = now()

    def take(self) -> bool:
        """Spend one token; False when the bucket is empty (the message must be refused)."""
        current = self._now()
        self.tokens = min(self.burst, self.tokens + (current - self._last) * self.rate)
        self._last = current
        if self.tokens >= 1.0:
            self.tokens -= 1.0
            return True
        return False


class SocketCap:
    """WebSockets held at once per client address, on this node (a plain count: sockets live
    on one node, and a node that dies takes its sockets with it)."""

    def __init__(self, limit: int) -> None:
        self.limit = limit
        self._open: Counter[str] = Counter()

    def acquire(self, address: str) -> bool:
        if self._open[address] >= self.limit:
            return False
        self._open[address] += 1
        return True

    def release(self, address: str) -> None:
        self._open[address] -= 1
        if self._open[address] <= 0:
            del self._open[address]

    def held(self, address: str) -> int:
        return self._open[address]

"""Per-connection flood control: a token bucket, refilled continuously."""

from __future__ import annotations

import time
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

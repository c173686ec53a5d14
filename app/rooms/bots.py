"""Bot moves for the live tables: easy and normal think inline, hard in worker processes.

A hard bot (``engine.HardBot``) plays hundreds of simulated deals per decision: run on the
event loop it would stall every table of the node. ``BotRunner`` sends its thinking to a
``ProcessPoolExecutor`` of ``GAPLE_BOT_WORKERS`` processes; each decision is capped in CPU
time there (``budget``) and in wall time here (``timeout``: a saturated pool falls back to the
normal bot rather than keep a table waiting, and the cancelled job leaves the queue); while
``2 x workers`` decisions are already out, the normal bot moves at once instead of queueing. Workers
run at a lower priority (nice 10) so that the event loop wins the CPU when both want it. The
owner of the runner calls ``start()`` and ``aclose()``; ``shared_runner()`` is the node's one
runner, started on first use.
"""

from __future__ import annotations

import asyncio
import logging
import multiprocessing
import os
import random
import time
from concurrent.futures import ProcessPoolExecutor
from typing import Any

import engine

log = logging.getLogger(__name__)

HARD_BUDGET = 0.12  # CPU seconds per hard decision (the engine's playout cap comes first)


def _lower_priority() -> None:
    """Worker start-up: yield the CPU to the event loop's process when both want it."""
    os.nice(10)


def think_hard(view: dict[str, Any], seed: int, budget: float) -> tuple[str, str | None]:
    """In a worker process: the hard bot's move as (tile, end), cheap to send back."""
    bot = engine.HardBot(budget=budget, clock=time.process_time)
    move = bot.choose(view, random.Random(seed))
    return str(move.tile), move.end


class BotRunner:
    """Chooses bot moves without blocking the event loop."""

    def __init__(self, workers: int, *, budget: float = HARD_BUDGET, timeout: float = 3.0) -> None:
        if workers < 1:
            raise ValueError("a bot runner needs at least one worker process")
        self.workers = workers
        self.budget = budget
        self.timeout = timeout
        self._pool: ProcessPoolExecutor | None = None
        self.in_flight = 0  # hard decisions sent to the pool and not yet back
        self.max_in_flight = 2 * workers  # beyond this the pool is saturated: do not queue
        self.fallbacks = 0

    def start(self) -> None:
        if self._pool is None:
            # "spawn": a fork of a process running an event loop and driver threads is unsafe.
            context = multiprocessing.get_context("spawn")
            self._pool = ProcessPoolExecutor(
                self.workers, mp_context=context, initializer=_lower_priority
            )

    async def aclose(self) -> None:
        pool, self._pool = self._pool, None
        if pool is not None:
            await asyncio.to_thread(pool.shutdown, wait=True, cancel_futures=True)

    def immediate(self, kind: str, view: dict[str, Any], rng: random.Random) -> engine.Move | None:
        """The move when it needs no worker (easy, normal, a forced move, a saturated pool),
        chosen here with ``rng``; None when a hard bot must think (``think``)."""
        bot = engine.BOTS.get(kind)
        if bot is None:
            raise engine.UnknownBot(f"there is no bot {kind!r}")
        if not isinstance(bot, engine.HardBot) or len(view.get("legal") or ()) <= 1:
            return bot.choose(view, rng)  # a forced move needs no thought
        if self.in_flight >= self.max_in_flight:
            # Every worker is busy with a queue behind it: a decision queued now would come
            # back late, so the normal bot moves at once (and the loop is spared the traffic).
            self.fallbacks += 1
            return engine.BOTS["normal"].choose(view, rng)
        return None

    async def think(self, view: dict[str, Any], seed: int) -> engine.Move:
        """A hard bot's move, thought out in a worker process within the time budget."""
        self.start()
        assert self._pool is not None
        loop = asyncio.get_running_loop()
        self.in_flight += 1
        try:
            job = loop.run_in_executor(self._pool, think_hard, view, seed, self.budget)
            tile, end = await asyncio.wait_for(job, self.timeout)
        except TimeoutError:
            log.warning("hard bot took over %.1f s; the normal bot moves instead", self.timeout)
            self.fallbacks += 1
            return engine.BOTS["normal"].choose(view, random.Random(seed))
        finally:
            self.in_flight -= 1
        return engine.Move(engine.Tile.parse(tile), end)

    async def choose(self, kind: str, view: dict[str, Any], seed: int) -> engine.Move:
        """The move of bot ``kind`` ("easy", "normal", "hard" or an old name) for ``view``."""
        move = self.immediate(kind, view, random.Random(seed))
        return move if move is not None else await self.think(view, seed)


_SHARED: BotRunner | None = None


def configure_shared_runner(workers: int) -> BotRunner:
    """Set the node's runner up from the app's settings (``settings.bot_workers``)."""
    global _SHARED
    if _SHARED is None or _SHARED.workers != workers:
        _SHARED = BotRunner(workers)
    return _SHARED


def shared_runner() -> BotRunner:
    """The node's runner; its pool starts on the first hard move.

    Unless the app configured it, sized by ``GAPLE_BOT_WORKERS`` read on its own: building the
    whole ``Settings`` here could create a secret key file as a side effect.
    """
    if _SHARED is None:
        from app.settings import Settings

        raw = os.environ.get("GAPLE_BOT_WORKERS")
        default = Settings.model_fields["bot_workers"].default
        return configure_shared_runner(default if raw is None else int(raw))
    return _SHARED


async def close_shared_runner() -> None:
    """Stop the node's runner (app shutdown); a later hard move starts a new one."""
    global _SHARED
    runner, _SHARED = _SHARED, None
    if runner is not None:
        await runner.aclose()

"""Bot moves for the live tables: easy and normal think inline, hard in worker processes.

A hard bot (``engine.HardBot``) plays hundreds of simulated deals per decision: run on the
event loop it would stall every table of the node. ``BotRunner`` sends its thinking to a
``ProcessPoolExecutor`` of ``GAPLE_BOT_WORKERS`` processes (``loop.run_in_executor``); each
decision is capped in CPU time there (``budget``) and in wall time here (``timeout``: a
saturated pool falls back to the normal bot rather than keep a table waiting, and the
cancelled job leaves the queue). The queue is bounded: while ``2 x workers`` decisions are
already out, the normal bot moves at once instead of queueing, so 200 tables cannot flood it.

What crosses to a worker is cheap for the loop's process: the seat's view goes as one
``orjson`` byte string (serialised on the loop in microseconds; the pool's feeder thread,
which competes with the loop for the GIL, then only copies bytes instead of pickling nested
dicts), and the answer is two short strings and the CPU time spent. Workers run at a lower
priority (nice 10) so that the event loop wins the CPU when both want it. The owner of the
runner calls ``start()`` and ``aclose()``; ``shared_runner()`` is the node's one runner,
started on first use.
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

import orjson

import engine

log = logging.getLogger(__name__)

HARD_BUDGET = 0.12  # CPU seconds per hard decision (the engine's playout cap comes first)


def _lower_priority() -> None:
    """Worker start-up: yield the CPU to the event loop's process when both want it."""
    os.nice(10)


def think_hard(view: bytes, seed: int, budget: float) -> tuple[str, str | None, float]:
    """In a worker process: the hard bot's move for ``view`` (``orjson`` bytes) as (tile, end,
    CPU seconds it took), cheap to send back."""
    started = time.process_time()
    bot = engine.HardBot(budget=budget, clock=time.process_time)
    move = bot.choose(orjson.loads(view), random.Random(seed))
    return str(move.tile), move.end, time.process_time() - started


def analyse(
    rules: dict[str, Any],
    deals: list[tuple[int | str, list[dict[str, Any]]]],
    max_nodes: int,
    playouts: int,
) -> bytes:
    """In a worker process: the analysis of the last of ``deals`` (``engine.analysis``), as
    ``orjson`` bytes."""
    from engine.analysis import analyse_stored

    return orjson.dumps(analyse_stored(rules, deals, max_nodes=max_nodes, playouts=playouts))


def _ready() -> int:
    """In a worker process: nothing; ``warm_up`` waits for every worker to answer it."""
    return os.getpid()


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
        self.fallbacks = 0  # hard decisions the normal bot made (queue full, or too late)
        self.thought = 0  # hard decisions that came back from a worker
        self.cpu_max = 0.0  # the most CPU seconds one of them took

    def start(self) -> None:
        if self._pool is None:
            # "spawn": a fork of a process running an event loop and driver threads is unsafe.
            context = multiprocessing.get_context("spawn")
            self._pool = ProcessPoolExecutor(
                self.workers, mp_context=context, initializer=_lower_priority
            )

    async def warm_up(self) -> None:
        """Start every worker process now (they spawn and import the engine in ~1 s) rather
        than on the first hard decisions."""
        self.start()
        assert self._pool is not None
        loop = asyncio.get_running_loop()
        pids: set[int] = set()
        for _ in range(20):  # a worker may answer twice while another is still starting
            jobs = [loop.run_in_executor(self._pool, _ready) for _ in range(self.workers)]
            pids.update(await asyncio.gather(*jobs))
            if len(pids) >= self.workers:
                return

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
            payload = orjson.dumps(view)
            job = loop.run_in_executor(self._pool, think_hard, payload, seed, self.budget)
            tile, end, cpu = await asyncio.wait_for(job, self.timeout)
        except TimeoutError:
            log.warning("hard bot took over %.1f s; the normal bot moves instead", self.timeout)
            self.fallbacks += 1
            return engine.BOTS["normal"].choose(view, random.Random(seed))
        finally:
            self.in_flight -= 1
        self.thought += 1
        self.cpu_max = max(self.cpu_max, cpu)
        return engine.Move(engine.Tile.parse(tile), end)

    async def analyse(
        self,
        rules: dict[str, Any],
        deals: list[tuple[int | str, list[dict[str, Any]]]],
        *,
        max_nodes: int,
        playouts: int,
    ) -> dict[str, Any]:
        """A finished deal's analysis, worked out in a worker process (no time limit: it is
        computed once and kept)."""
        self.start()
        assert self._pool is not None
        loop = asyncio.get_running_loop()
        body = await loop.run_in_executor(self._pool, analyse, rules, deals, max_nodes, playouts)
        result: dict[str, Any] = orjson.loads(body)
        return result

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

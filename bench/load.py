"""Load generator for the live tables: N tables x 4 WebSocket seats playing real sets.

    .venv/bin/python bench/load.py --url http://127.0.0.1:8000 --tables 100 --think 0 \
        --warmup 5 --duration 20 --server-pid PID [--json out.json]

Several nodes of one deployment (Redis between them): ``--url`` and ``--server-pid`` once per node,
in the same order (or comma-separated); ``--redis-pid`` adds redis-server's CPU.

It talks to the server only as a client would (docs/API.md, docs/PROTOCOL.md):

1. setup (not measured): per table four guests (``POST /api/guests``), a room with long sets
   (``deals_per_set`` 21, ``target_points`` 99), the four seats taken, four sockets connected
   (``hello`` with each guest's token); when every table is ready, every host starts its set
   (``POST /api/rooms/{code}/start``).
2. play: every seat plays the engine's random bot (``engine.BOTS["random"]``) on the ``view`` of
   the latest ``snapshot`` its own socket received, when that view says it is its turn. ``--think
   0`` is a flood (play as soon as the snapshot arrives); ``--think 2`` waits a random human pause
   first (exponential, mean 2 s, capped; ``--think-dist uniform`` for U(0, 2*mean)). ``--afk P``
   makes a seat skip a turn with probability P so the turn clock auto-plays it (to measure how late
   auto-plays land). When a set ends the host (seat 0) starts the next one
   (``POST /api/rooms/{code}/start``, the one way to start a set).
3. measure, between ``warmup`` and ``warmup + duration`` after the start: moves/s (each move is
   counted once, by the socket of the seat that made it), the move round trip (``play`` sent ->
   this seat's ``played`` event, and -> the ``ack``) p50/p99/max, error frames by code,
   auto-plays (deliberate AFK ones apart from those caused by lag), auto-play lateness after the
   deadline, disconnects, ping/pong round trip on a few probe sockets (the server exposes no
   event-loop lag, so this is its proxy), and, with ``--server-pid``, the server's CPU (% of one
   core, from its CPU time over the window) and RSS (per socket, absolute and above the RSS it had
   before the setup). The generator's own CPU is reported too: near 100% means the generator, not
   the server, was the limit.

Several nodes: table ``i``'s REST calls (guests, room, seats, start) go to node ``i % N``
(round-robin per table, so the lobby is written through every node). Its seats' sockets go where
``--sockets`` says: ``room`` (the default) connects them all to node ``i % N``, as the deployment's
load balancer routes a room's sockets (deploy/nginx.conf hashes ``/ws/rooms/{code}``, so they
share one node and the first of them claims the table there); ``spread`` connects seat ``s`` to
node ``(i + s) % N``, so that every table has sockets on every node and most moves cross Redis
between the socket's node and the table's owner (what the relay costs, as when a table's node
went down and another took it over). Either way the host's socket connects first, so its node
(``i % N``) owns the table: the tables' owners alternate over the nodes. Server CPU and
RSS are the sums over the nodes' processes (the per-node figures are under ``per_node``);
``/metrics`` is scraped on every node at the start and the end of the window and merged
(histogram counts added).

Spectators (``--spectators N``, ``--watched-tables K``, default 1; issue #29's watched final): N
sockets that watch the first K tables (the first ones get one more when K does not divide N),
spectator ``j`` of table ``i`` on node ``(i + j) % N`` (spread over the nodes whatever ``--sockets``
says: an audience bigger than a node's share, reaching the table through Redis), connected
``--spectator-concurrency`` (32) at a time after the seats and before the sets start; the setup
then waits until their frames have stopped for two seconds (the table tells its spectators' count,
``presence``, at most once a second). A spectator says ``hello`` with ``"token": null``
(docs/PROTOCOL.md) and reads every frame. Thousands of them read every frame of a move, so their
WebSocket client is written out by hand on an ``asyncio.Protocol`` (RFC 6455's client side: the
upgrade, masked ``hello``, pings answered) and no frame's JSON is parsed: an ``event`` frame's
``set`` and ``seq`` are read from its first bytes, and the chunk's arrival time is kept per ``(set,
seq)`` (how many spectators got it, the first and the last one's time). Per move a watched table's
seat sent in the window (its ``played`` event names its ``set`` and ``seq``), the report has the
delay from the ``play`` sent to the LAST spectator's copy (``spectator_last_ms``; the first's too),
the moves fewer spectators got than were connected when the window opened
(``spectator_moves_short``: one was dropped meanwhile), spectators' disconnects by close code
(1013: the server's outbox for it overflowed, ``slow_consumer``), the watched players' own round
trip (``watched_rt_event_ms``, kept with no spectators too, for the comparison) and
``server_cpu_us_per_move_per_spectator``: all the server's CPU in the window (every node's, nothing
subtracted) / the watched tables' moves in the window / the spectators connected when it opened.

Bounded: only loopback URLs are accepted, the table count is capped, every phase has a timeout,
and the whole run stops by itself after setup + warmup + duration.
"""

from __future__ import annotations

import argparse
import asyncio
import base64
import contextlib
import gc
import ipaddress
import json
import math
import os
import random
import resource
import sys
import time
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any
from urllib.parse import urlparse

import httpx
import orjson
import websockets
from prometheus_client.parser import text_string_to_metric_families
from websockets.asyncio.client import connect as ws_connect

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

try:  # the engine's bot, as the benchmark intends; a plain uniform pick from "legal" otherwise
    from engine import BOTS

    _BOT: Any = BOTS["random"]
except Exception:  # pragma: no cover - the engine is in the same repo
    _BOT = None

MAX_TABLES = 5000
MAX_SPECTATORS = 20000
DEFAULT_URL = "http://127.0.0.1:8000"
SEATS = 4
HOST_SEAT = 0


# --- helpers ----------------------------------------------------------------------------------


def percentile(values: list[float], p: float) -> float | None:
    """Nearest-rank percentile (p in 0..100); None for no samples."""
    if not values:
        return None
    ordered = sorted(values)
    rank = max(1, math.ceil(p / 100 * len(ordered)))
    return ordered[rank - 1]


def summary(values: list[float]) -> dict[str, Any]:
    return {
        "n": len(values),
        "p50": _r(percentile(values, 50)),
        "p90": _r(percentile(values, 90)),
        "p99": _r(percentile(values, 99)),
        "max": _r(max(values) if values else None),
        "mean": _r(sum(values) / len(values) if values else None),
    }


def _r(x: float | None, nd: int = 2) -> float | None:
    return None if x is None else round(x, nd)


def raise_nofile(wanted: int) -> int:
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    target = wanted if hard == resource.RLIM_INFINITY else min(wanted, hard)
    if soft < target:
        with contextlib.suppress(ValueError, OSError):
            resource.setrlimit(resource.RLIMIT_NOFILE, (target, hard))
    return resource.getrlimit(resource.RLIMIT_NOFILE)[0]


def require_loopback(url: str) -> None:
    host = urlparse(url).hostname or ""
    if host == "localhost":
        return
    try:
        if ipaddress.ip_address(host).is_loopback:
            return
    except ValueError:
        pass
    sys.exit(f"load.py: only loopback targets are allowed, not {host!r}")


class DbBackends:
    """CPU of the PostgreSQL backends serving one database (their process title names it). They
    are not pinned: the database's own CPU is outside the server's core, so it is reported apart."""

    def __init__(self, dbname: str | None) -> None:
        self.dbname = dbname
        self.begin_cpu: dict[int, float] = {}
        self.used = 0.0
        self.t0 = self.t1 = 0.0

    def per_pid(self) -> dict[int, float]:
        import psutil

        out: dict[int, float] = {}
        for proc in psutil.process_iter(["name", "cmdline"]):
            try:
                title = " ".join(proc.info["cmdline"] or [])
                if proc.info["name"] == "postgres" and f" {self.dbname} " in f" {title} ":
                    times = proc.cpu_times()
                    out[proc.pid] = times.user + times.system
            except Exception:  # gone meanwhile
                continue
        return out

    def begin(self) -> None:
        if self.dbname:
            self.t0, self.begin_cpu = time.perf_counter(), self.per_pid()

    def end(self) -> None:
        # Backends alive at the end count from the start (or from birth); those that exited in
        # the window (pool overflow connections) are lost: a lower bound.
        if self.dbname:
            now = self.per_pid()
            self.t1 = time.perf_counter()
            before = self.begin_cpu
            self.used = sum(max(0.0, cpu - before.get(pid, 0.0)) for pid, cpu in now.items())

    def report(self, moves: int) -> dict[str, Any]:
        if not self.dbname or self.t1 <= self.t0:
            return {}
        cpu = self.used
        return {
            "cpu_percent": round(100 * cpu / (self.t1 - self.t0), 1),
            "cpu_us_per_move": round(1e6 * cpu / moves, 1) if moves else None,
        }


def machine_load() -> dict[str, Any]:
    """Other work on the machine: load average and CPU pressure (PSI "some", % of time in which
    some runnable task waited for a CPU) -- the noise behind a run's figures."""
    out: dict[str, Any] = {}
    with contextlib.suppress(OSError):
        out["loadavg_1m"] = float(Path("/proc/loadavg").read_text().split()[0])
    with contextlib.suppress(OSError, ValueError, IndexError):
        first = Path("/proc/pressure/cpu").read_text().splitlines()[0].split()
        out["cpu_pressure_avg10"] = float(first[1].split("=")[1])
    return out


@dataclass
class Usage:
    """What was measured of one process, or of several added up, over the window."""

    wall: float
    cpu: float
    main_cpu: float
    threads: int
    cpu_samples: list[float]  # % of a core over each ~1 s tick
    rss_samples: list[int]

    @staticmethod
    def combine(parts: list[Usage]) -> Usage:
        # The processes are sampled one after the other at the same ticks, so the i-th samples
        # belong together; the wall clock is the longest of theirs (they differ by microseconds).
        return Usage(
            wall=max(p.wall for p in parts),
            cpu=sum(p.cpu for p in parts),
            main_cpu=sum(p.main_cpu for p in parts),
            threads=sum(p.threads for p in parts),
            cpu_samples=[sum(x) for x in zip(*(p.cpu_samples for p in parts), strict=True)],
            rss_samples=[sum(x) for x in zip(*(p.rss_samples for p in parts), strict=True)],
        )

    def report(self, sockets: int, baseline_rss: int, moves: int) -> dict[str, Any]:
        wall, cpu = self.wall, self.cpu
        rss_end = self.rss_samples[-1] if self.rss_samples else 0
        rss_max = max(self.rss_samples) if self.rss_samples else 0
        return {
            "cpu_s": round(cpu, 3),
            "cpu_percent": round(100 * cpu / wall, 1),
            "main_thread_cpu_percent": round(100 * self.main_cpu / wall, 1),
            "threads": self.threads,
            # CPU time per move: robust to other load on the machine (a starved process makes
            # fewer moves but spends about the same CPU on each); 1e6 / it is the moves/s one
            # whole core would sustain if CPU were the only limit.
            "cpu_us_per_move": round(1e6 * cpu / moves, 1) if moves else None,
            "moves_per_cpu_s": round(moves / cpu, 1) if cpu > 0 else None,
            "cpu_percent_max_1s": round(max(self.cpu_samples), 1) if self.cpu_samples else None,
            "rss_mb": round(rss_end / 2**20, 1),
            "rss_max_mb": round(rss_max / 2**20, 1),
            "rss_baseline_mb": round(baseline_rss / 2**20, 1),
            "rss_kb_per_socket": round(rss_end / 1024 / sockets, 1) if sockets else None,
            "rss_delta_kb_per_socket": (
                round((rss_end - baseline_rss) / 1024 / sockets, 1) if sockets else None
            ),
        }


class ProcSampler:
    """CPU and RSS of one process (a server node, or this generator) over the window."""

    def __init__(self, pid: int | None) -> None:
        self.pid = pid
        self.proc = None
        if pid is not None:
            import psutil

            self.proc = psutil.Process(pid)
        self.rss_samples: list[int] = []
        self.cpu_samples: list[float] = []
        self._t0 = self._cpu0 = 0.0
        self._t1 = self._cpu1 = 0.0
        self._last: tuple[float, float] | None = None
        self._main0 = self._main1 = 0.0
        self.threads = 0

    def cpu_seconds(self) -> float:
        assert self.proc is not None
        t = self.proc.cpu_times()
        return float(t.user + t.system)

    def rss(self) -> int:
        return int(self.proc.memory_info().rss) if self.proc is not None else 0

    def main_thread_cpu(self) -> float:
        """CPU seconds of the main thread (the event loop); the rest is other threads, e.g.
        aiosqlite's one thread per SQLite connection."""
        assert self.proc is not None
        for t in self.proc.threads():
            if t.id == self.proc.pid:
                return float(t.user_time + t.system_time)
        return 0.0

    def begin(self) -> None:
        if self.proc is None:
            return
        self._main0 = self.main_thread_cpu()
        self._t0, self._cpu0 = time.perf_counter(), self.cpu_seconds()
        self._last = (self._t0, self._cpu0)

    def sample(self) -> None:
        if self.proc is None:
            return
        now, cpu = time.perf_counter(), self.cpu_seconds()
        if self._last is not None and now > self._last[0]:
            self.cpu_samples.append(100 * (cpu - self._last[1]) / (now - self._last[0]))
        self._last = (now, cpu)
        self.rss_samples.append(self.rss())

    def end(self) -> None:
        if self.proc is None:
            return
        self._t1, self._cpu1 = time.perf_counter(), self.cpu_seconds()
        self._main1 = self.main_thread_cpu()
        self.rss_samples.append(self.rss())
        self.threads = self.proc.num_threads()

    def usage(self) -> Usage:
        return Usage(
            wall=max(1e-9, self._t1 - self._t0),
            cpu=self._cpu1 - self._cpu0,
            main_cpu=self._main1 - self._main0,
            threads=self.threads,
            cpu_samples=list(self.cpu_samples),
            rss_samples=list(self.rss_samples),
        )

    def report(self, sockets: int, baseline_rss: int, moves: int = 0) -> dict[str, Any]:
        if self.proc is None:
            return {}
        return self.usage().report(sockets, baseline_rss, moves)


class ProcGroup:
    """The server under test: one process per node, each sampled at the same ticks; its figures
    are the sums over the nodes (one node: exactly that node's)."""

    def __init__(self, pids: list[int]) -> None:
        self.members = [ProcSampler(pid) for pid in pids]
        # RSS before the setup, per node: what each node's sockets are measured above.
        self.baselines = [m.rss() for m in self.members]

    def rss(self) -> int:
        return sum(m.rss() for m in self.members)

    def begin(self) -> None:
        for m in self.members:
            m.begin()

    def sample(self) -> None:
        for m in self.members:
            m.sample()

    def end(self) -> None:
        for m in self.members:
            m.end()

    def report(self, sockets: int, moves: int) -> dict[str, Any]:
        if not self.members:
            return {}
        usage = Usage.combine([m.usage() for m in self.members])
        return usage.report(sockets, sum(self.baselines), moves)

    def node_report(self, node: int, sockets: int, moves: int) -> dict[str, Any]:
        """One node's figures. ``moves`` is the whole run's, so that the nodes' CPU per move adds
        up to the total: a relayed move costs CPU on the socket's node and on the owner's."""
        member = self.members[node]
        return member.report(sockets, self.baselines[node], moves)


class ProcessCpu:
    """CPU of a process that serves every node but runs outside their pinned core (redis-server):
    reported apart, like the PostgreSQL backends. It is the whole process, other clients
    included."""

    def __init__(self, pid: int | None) -> None:
        self.pid = pid
        self.sampler: ProcSampler | None = None
        self.error: str | None = None
        if pid is not None:
            try:
                self.sampler = ProcSampler(pid)
            except Exception as exc:  # gone, or in another PID namespace
                self.error = f"{type(exc).__name__}: {exc}"

    def begin(self) -> None:
        self._guard(ProcSampler.begin)

    def end(self) -> None:
        self._guard(ProcSampler.end)

    def _guard(self, step: Callable[[ProcSampler], None]) -> None:
        if self.sampler is None:
            return
        try:
            step(self.sampler)
        except Exception as exc:  # e.g. no permission to read another user's threads
            self.sampler, self.error = None, f"{type(exc).__name__}: {exc}"

    def report(self, moves: int) -> dict[str, Any]:
        if self.pid is None:
            return {}
        if self.sampler is None:
            return {"pid": self.pid, "error": self.error}
        usage = self.sampler.usage()
        return {
            "pid": self.pid,
            "cpu_s": round(usage.cpu, 3),
            "cpu_percent": round(100 * usage.cpu / usage.wall, 1),
            "cpu_us_per_move": round(1e6 * usage.cpu / moves, 1) if moves else None,
        }


Histogram = dict[float, float]  # bucket upper bound (s) -> cumulative count
Series = dict[float | str, float]  # a histogram's buckets by bound, and its "count" and "sum"


class GcPauses:
    """This process's cycle-collector pauses while started (``gc.callbacks``)."""

    def __init__(self) -> None:
        self.pauses_ms: list[float] = []
        self._started: float | None = None

    def _callback(self, phase: str, info: dict[str, Any]) -> None:
        if phase == "start":
            self._started = time.perf_counter()
        elif self._started is not None:
            self.pauses_ms.append((time.perf_counter() - self._started) * 1000)
            self._started = None

    def start(self) -> None:
        gc.callbacks.append(self._callback)

    def stop(self) -> None:
        gc.callbacks.remove(self._callback)

    def report(self) -> dict[str, Any]:
        return {
            "n": len(self.pauses_ms),
            "total": round(sum(self.pauses_ms), 1),
            "max": round(max(self.pauses_ms, default=0.0), 1),
        }


class MetricsScraper:
    """What the server says about itself on ``GET /metrics`` (Prometheus text, read with
    ``prometheus_client.parser``), if it has it, as the difference over the measured window:
    the event-loop lag histogram (a sample each second), the move-latency histogram (receive ->
    broadcast inside the server, as bucket upper bounds), the moves its tables applied, and the
    cycle collector's pauses (count, total, and the bucket the longest fell in, per
    generation)."""

    LAG = "gaple_event_loop_lag_seconds"
    LATENCY = "gaple_move_latency_seconds"
    MOVES = "gaple_moves_total"
    GC = "gaple_gc_pause_seconds"

    def __init__(self, base: str) -> None:
        self.base = base
        self.available: bool | None = None
        self.lag0: Series = {}
        self.lag1: Series = {}
        self.hist0: Histogram = {}
        self.hist1: Histogram = {}
        self.moves0 = self.moves1 = 0.0
        self.gc0: dict[tuple[str, str], float] = {}  # (generation, "count" | "sum" | le) -> value
        self.gc1: dict[tuple[str, str], float] = {}

    async def window_start(self, http: httpx.AsyncClient) -> None:
        got = await self.scrape(http)
        if got is not None:
            self.lag0, self.hist0, self.moves0, self.gc0 = got

    async def window_end(self, http: httpx.AsyncClient) -> None:
        got = await self.scrape(http)
        if got is not None:
            self.lag1, self.hist1, self.moves1, self.gc1 = got

    async def scrape(
        self, http: httpx.AsyncClient
    ) -> tuple[Series, Histogram, float, dict[tuple[str, str], float]] | None:
        """One scrape: the loop-lag series, the latency histogram, the moves applied so far and
        the collector's pause series."""
        if self.available is False:
            return None
        try:
            response = await http.get(f"{self.base}/metrics", timeout=5)
        except httpx.HTTPError:
            return None
        if response.status_code != 200:
            self.available = False
            return None
        self.available = True
        lag: Series = {}
        hist: Histogram = {}
        moves = 0.0
        gc_series: dict[tuple[str, str], float] = {}
        for family in text_string_to_metric_families(response.text):
            for sample in family.samples:
                name, labels, value = sample.name, sample.labels, sample.value
                le = _le(labels["le"]) if "le" in labels else None
                if family.name == self.LAG:
                    lag[le if le is not None else name.rsplit("_", 1)[-1]] = value
                elif name == self.LATENCY + "_bucket" and le is not None:
                    hist[le] = value
                elif name == self.MOVES:  # one series per kind (player, auto, bot)
                    moves += value
                elif family.name == self.GC:
                    kind = name.rsplit("_", 1)[-1]  # bucket, count or sum
                    key = labels["le"] if kind == "bucket" else kind
                    gc_series[(labels["generation"], key)] = value
        return lag, hist, moves, gc_series

    def lag_report(self) -> dict[str, Any]:
        """The window's loop-lag samples: how many, their mean, and the bucket bounds (ms) that
        half, 99 % and all of them fit under."""
        delta = {k: self.lag1.get(k, 0.0) - self.lag0.get(k, 0.0) for k in self.lag1}
        count = delta.get("count", 0.0)
        out: dict[str, Any] = {"n": int(count)}
        if count <= 0:
            return out
        buckets = sorted((k, v) for k, v in delta.items() if isinstance(k, float))
        for name, q in (("p50_le", 0.5), ("p99_le", 0.99), ("max_le", 1.0)):
            le = next(le for le, n in buckets if n >= count * q)
            out[name] = None if le == math.inf else round(le * 1000, 1)
        out["mean"] = round(delta.get("sum", 0.0) / count * 1000, 2)
        return out

    def gc_report(self) -> dict[str, Any]:
        """Per generation: pauses in the window, their total, and the smallest bucket bound the
        longest of them fits under."""
        out: dict[str, Any] = {}
        for generation in sorted({g for g, _ in self.gc1}):

            def delta(key: str, generation: str = generation) -> float:
                return self.gc1.get((generation, key), 0.0) - self.gc0.get((generation, key), 0.0)

            count = delta("count")
            if count <= 0:
                continue
            bounds = sorted(
                (math.inf if k == "+Inf" else float(k), k)
                for g, k in self.gc1
                if g == generation and k not in ("count", "sum")
            )
            longest = next(le for le, key in bounds if delta(key) >= count)
            out[generation] = {
                "n": int(count),
                "total_ms": round(delta("sum") * 1000, 1),
                "longest_le_ms": None if longest == math.inf else round(longest * 1000, 1),
            }
        return out

    def report(self) -> dict[str, Any]:
        if not self.available:
            return {"available": False}
        if not self.lag1.get("count") and not any(self.hist1.values()):
            # /metrics answers, but nothing feeds these series (the lag monitor is not started
            # and moves are not recorded): all zeros would read as "no lag".
            return {"available": False, "note": "/metrics has the series but they stay at 0"}
        out: dict[str, Any] = {"available": True, "loop_lag_ms": self.lag_report()}
        delta = sorted((le, self.hist1.get(le, 0) - self.hist0.get(le, 0)) for le in self.hist1)
        total = delta[-1][1] if delta else 0
        if total > 0:
            for q in (50, 99):
                le = next(le for le, n in delta if n >= total * q / 100)
                out[f"move_latency_p{q}_le_ms"] = None if le == math.inf else round(le * 1000, 1)
            out["move_latency_n"] = int(total)
        out["moves_applied"] = int(self.moves1 - self.moves0)
        out["gc_pauses"] = self.gc_report()
        return out


class ClusterMetrics:
    """``/metrics`` of every node, scraped at the same ticks. Merged: the histograms' counts add
    up (every node has the same buckets), the moves applied add up (each move is applied by one
    owner), and so do the loop-lag samples. One node: exactly its own."""

    def __init__(self, bases: list[str]) -> None:
        self.nodes = [MetricsScraper(base) for base in bases]

    async def window_start(self, http: httpx.AsyncClient) -> None:
        await asyncio.gather(*(n.window_start(http) for n in self.nodes))

    async def scrape(self, http: httpx.AsyncClient) -> None:
        await asyncio.gather(*(n.scrape(http) for n in self.nodes))

    async def window_end(self, http: httpx.AsyncClient) -> None:
        await asyncio.gather(*(n.window_end(http) for n in self.nodes))

    def merged(self) -> MetricsScraper:
        if len(self.nodes) == 1:
            return self.nodes[0]
        out = MetricsScraper("")
        states = {n.available for n in self.nodes}
        out.available = False if False in states else (None if None in states else True)
        out.lag0 = _add_series([n.lag0 for n in self.nodes])
        out.lag1 = _add_series([n.lag1 for n in self.nodes])
        out.hist0 = _add_histograms([n.hist0 for n in self.nodes])
        out.hist1 = _add_histograms([n.hist1 for n in self.nodes])
        out.moves0 = sum(n.moves0 for n in self.nodes)
        out.moves1 = sum(n.moves1 for n in self.nodes)
        # Summed over the nodes: counts, totals and the cumulative buckets add up, so gc_report
        # finds the bound of the longest pause on any node as it does for one.
        for attr in ("gc0", "gc1"):
            merged: dict[tuple[str, str], float] = {}
            for node in self.nodes:
                for key, value in getattr(node, attr).items():
                    merged[key] = merged.get(key, 0.0) + value
            setattr(out, attr, merged)
        return out

    def report(self) -> dict[str, Any]:
        return self.merged().report()


def _add_series(series: list[Series]) -> Series:
    total: Series = {}
    for one in series:
        for key, value in one.items():
            total[key] = total.get(key, 0.0) + value
    return total


def _le(text: str) -> float:
    return math.inf if text == "+Inf" else float(text)


def _add_histograms(hists: list[Histogram]) -> Histogram:
    total: Histogram = {}
    for hist in hists:
        for le, count in hist.items():
            total[le] = total.get(le, 0.0) + count
    return total


# --- the run ----------------------------------------------------------------------------------


class Run:
    def __init__(self, args: argparse.Namespace) -> None:
        self.args = args
        self.window = (math.inf, math.inf)
        self.stopping = False
        self.rng = random.Random(args.seed)
        # results
        self.rt_event: list[float] = []
        self.rt_ack: list[float] = []
        self.pings: list[float] = []
        self.moves = 0  # every move, counted once (by the seat that made it), in the window
        self.moves_by_node: Counter[int] = Counter()  # ... by the node of that seat's socket
        self.moves_total = 0
        self.own_moves = 0  # the generator's own plays confirmed in the window
        self.auto_afk = 0
        self.auto_lag = 0
        self.auto_late_server: list[float] = []  # event server_time - deadline (ms)
        self.auto_late_client: list[float] = []  # arrival (wall clock) - deadline (ms)
        self.errors: Counter[str] = Counter()  # in the window
        self.errors_total: Counter[str] = Counter()
        self.race_errors = 0  # refusals of a move that lost the race against the clock
        self.disconnects: Counter[str] = Counter()
        self.byes: Counter[str] = Counter()
        self.frames_in = 0
        self.bytes_in = 0
        self.sets_restarted = 0
        self.deals_started = 0
        # the watched tables (--watched-tables): their seats' round trips, their moves
        self.rt_watched: list[float] = []
        self.watched_moves = 0
        self.spectator_disconnects: Counter[str] = Counter()
        self.spectator_errors: Counter[str] = Counter()

    def in_window(self, t: float) -> bool:
        return self.window[0] <= t < self.window[1]

    def think(self) -> float:
        mean = self.args.think
        if mean <= 0:
            return 0.0
        if self.args.think_dist == "uniform":
            return self.rng.uniform(0, 2 * mean)
        return min(self.rng.expovariate(1 / mean), self.args.think_cap)


class SeatClient:
    def __init__(self, run: Run, table: Table, seat: int, token: str) -> None:
        self.run = run
        self.table = table
        self.seat = seat
        self.token = token
        self.node = table.node_of(seat)
        self.ws: Any = None
        self.reader: asyncio.Task[None] | None = None
        self.ready = asyncio.Event()
        self.view: dict[str, Any] | None = None
        self.set = 0
        self.seq = 0
        self.my_deadline: float | None = None  # ms, from the latest clock naming this seat
        self.acted_on: tuple[int, int] | None = None  # (set, seq) of the view we played from
        self.retries = 0
        self.retry_key: tuple[int, int] | None = None
        self.thinking: asyncio.TimerHandle | None = None
        self.afk: tuple[int, int] | None = None
        self.outstanding: tuple[str, float] | None = None  # (move_id, perf_counter at send)
        self.lost: set[str] = set()  # move ids that an auto-play beat
        self.next_set_sent = -1
        self.acked_sent: float | None = None  # perf_counter of the acked move not yet seen played
        self.ids = 0
        self.ping_task: asyncio.Task[None] | None = None
        self.sends: set[asyncio.Task[None]] = set()

    # --- socket ---------------------------------------------------------------------------------

    async def _start_next_set(self) -> None:
        base = "http" + self.table.ws_bases[self.table.rest_node][len("ws") :]
        try:
            async with httpx.AsyncClient(base_url=base, timeout=30) as http:
                await _post(http, f"/api/rooms/{self.table.code}/start", self.token)
        except Exception as exc:  # counted like any refused message; the bench goes on
            self.run.errors_total[type(exc).__name__] += 1

    async def connect(self) -> None:
        self.ws = await ws_connect(
            self.table.ws_url(self.seat),
            compression=None,  # the server has per-message-deflate off; do not offer it
            max_size=2**20,
            open_timeout=60,
            ping_interval=None,  # the server pings (uvicorn's keepalive); no extra traffic
            close_timeout=2,
        )
        await self.ws.send(json.dumps({"type": "hello", "token": self.token}))
        self.reader = asyncio.get_running_loop().create_task(self._read())
        await asyncio.wait_for(self.ready.wait(), 60)

    def send(self, message: dict[str, Any]) -> None:
        if self.ws is None:
            return
        task = asyncio.get_running_loop().create_task(self._send(json.dumps(message)))
        self.sends.add(task)
        task.add_done_callback(self.sends.discard)

    async def _send(self, text: str) -> None:
        with contextlib.suppress(websockets.ConnectionClosed):
            await self.ws.send(text)

    async def _read(self) -> None:
        run = self.run
        try:
            async for frame in self.ws:
                run.frames_in += 1
                run.bytes_in += len(frame)
                self.on_message(json.loads(frame))
        except websockets.ConnectionClosed:
            pass
        finally:
            if not run.stopping:
                rcvd = self.ws.close_code if self.ws is not None else None
                run.disconnects[str(rcvd)] += 1
            self.ready.set()

    async def close(self) -> None:
        if self.thinking is not None:
            self.thinking.cancel()
        if self.ping_task is not None:
            self.ping_task.cancel()
        if self.ws is not None:
            with contextlib.suppress(Exception):
                await asyncio.wait_for(self.ws.close(), 5)
        if self.reader is not None:
            with contextlib.suppress(Exception):
                await asyncio.wait_for(self.reader, 5)

    async def ping_loop(self, interval: float) -> None:
        # A probe: pong is answered by the socket endpoint without touching the table, so its round
        # trip shows how long a frame waits for the server's event loop.
        while not self.run.stopping:
            await asyncio.sleep(interval * (0.5 + self.run.rng.random()))
            self.send({"type": "ping", "t": time.perf_counter()})

    # --- protocol -------------------------------------------------------------------------------

    def on_message(self, msg: dict[str, Any]) -> None:
        kind = msg["type"]
        now = time.perf_counter()
        run = self.run
        if kind == "snapshot":
            self.view = msg["view"]
            self.set, self.seq = msg["set"], msg["seq"]
            self._note_clock(msg.get("clock"))
            self.ready.set()
            self.maybe_act()
        elif kind == "event":
            ev = msg["event"]
            ek = ev["kind"]
            if ek == "played" and ev["seat"] == self.seat:
                self._own_played(msg, ev, now)
            elif ek == "deal_started" and self.seat == HOST_SEAT and run.in_window(now):
                run.deals_started += 1
        elif kind == "ack":
            if self.outstanding is not None and msg["move_id"] == self.outstanding[0]:
                if run.in_window(now):
                    run.rt_ack.append((now - self.outstanding[1]) * 1000)
                self.acked_sent = self.outstanding[1]
                self.outstanding = None
                self.maybe_act()
        elif kind == "error":
            code = msg.get("code", "?")
            move_id = msg.get("move_id")
            if move_id is not None and move_id in self.lost:
                run.race_errors += 1
                self.lost.discard(move_id)
                return
            run.errors_total[code] += 1
            if run.in_window(now):
                run.errors[code] += 1
            if self.outstanding is not None and move_id == self.outstanding[0]:
                self.outstanding = None
                if self.retries < 3:  # try again from the same view
                    self.retries += 1
                    self.acted_on = None
                    self.maybe_act()
        elif kind == "pong":
            t = msg.get("t")
            if isinstance(t, float) and run.in_window(now):
                run.pings.append((now - t) * 1000)
        elif kind == "bye":
            run.byes[str(msg.get("reason"))] += 1

    def _note_clock(self, clock: dict[str, Any] | None) -> None:
        if clock is not None and clock.get("seat") == self.seat:
            self.my_deadline = float(clock["deadline"])

    def _own_played(self, msg: dict[str, Any], ev: dict[str, Any], now: float) -> None:
        run = self.run
        in_window = run.in_window(now)
        run.moves_total += 1
        if in_window:
            run.moves += 1
            run.moves_by_node[self.node] += 1
            if self.table.watched:
                run.watched_moves += 1
        if ev.get("auto"):
            deliberate = self.afk is not None and self.afk[0] == self.set
            if in_window:
                if deliberate:
                    run.auto_afk += 1
                else:
                    run.auto_lag += 1
                if self.my_deadline is not None:
                    run.auto_late_server.append(float(msg["server_time"]) - self.my_deadline)
                    run.auto_late_client.append(time.time() * 1000 - self.my_deadline)
            self.afk = None
            if self.thinking is not None:
                self.thinking.cancel()
                self.thinking = None
            if self.outstanding is not None:  # our move lost the race; its refusal is expected
                self.lost.add(self.outstanding[0])
                self.outstanding = None
            return
        # The ack comes before the move's event: the send time waits for it in ``acked_sent``.
        sent = self.acked_sent if self.outstanding is None else self.outstanding[1]
        self.acked_sent = None
        if sent is not None and in_window:
            run.own_moves += 1
            run.rt_event.append((now - sent) * 1000)
            if self.table.watched:
                run.rt_watched.append((now - sent) * 1000)
                if self.table.watch is not None:
                    self.table.watch.sent[(msg["set"], msg["seq"])] = sent

    def maybe_act(self) -> None:
        run = self.run
        view = self.view
        if run.stopping or view is None or self.outstanding is not None or self.thinking:
            return
        phase = view.get("phase")
        if phase == "set_over":
            if self.seat == HOST_SEAT and self.next_set_sent != self.set:
                self.next_set_sent = self.set
                run.sets_restarted += 1
                task = asyncio.get_running_loop().create_task(self._start_next_set())
                self.sends.add(task)
                task.add_done_callback(self.sends.discard)
            return
        if phase != "playing" or view.get("turn") != self.seat or not view.get("legal"):
            return
        key = (self.set, self.seq)
        if key == self.acted_on:
            return
        self.acted_on = key
        if key != self.retry_key:
            self.retry_key, self.retries = key, 0
        if run.args.afk > 0 and run.rng.random() < run.args.afk:
            self.afk = key  # let the clock play this turn
            return
        delay = run.think()
        if delay <= 0:
            self.play_now(key)
        else:
            self.thinking = asyncio.get_running_loop().call_later(delay, self.play_now, key)

    def play_now(self, key: tuple[int, int]) -> None:
        self.thinking = None
        view = self.view
        if self.run.stopping or view is None or (self.set, self.seq) != key:
            return  # the table moved on meanwhile (e.g. the clock played this turn)
        legal = view.get("legal") or []
        if view.get("turn") != self.seat or not legal:
            return
        if _BOT is not None:
            move = _BOT.choose(view, self.run.rng)
            tile, end = str(move.tile), move.end
        else:  # pragma: no cover
            option = legal[self.run.rng.randrange(len(legal))]
            tile, end = option["tile"], option["end"]
        self.ids += 1
        move_id = f"s{self.seat}-{self.ids}"
        message: dict[str, Any] = {"type": "play", "move_id": move_id, "tile": tile}
        if end in ("left", "right"):
            message["end"] = end
        self.outstanding = (move_id, time.perf_counter())
        self.send(message)


# --- spectators ---------------------------------------------------------------------------------

EVENT_PREFIX = b'{"type":"event","set":'
SNAPSHOT_PREFIX = b'{"type":"snapshot"'
ERROR_PREFIX = b'{"type":"error"'
BYE_PREFIX = b'{"type":"bye"'


class Spectator(asyncio.Protocol):
    """One watching socket, its client side of RFC 6455 written out by hand so that a frame
    costs the generator a few microseconds: thousands of these read every frame of a move.

    It sends the upgrade request, then ``hello`` with ``"token": null`` (docs/PROTOCOL.md: no
    token makes a spectator), answers the server's pings, and reads every frame without parsing
    its JSON: an ``event`` frame's ``set`` and ``seq`` are read from its first bytes (both servers
    serialise with orjson, keys in the protocol's order, no spaces), and its arrival time (one
    clock read per chunk received) goes to the table's ``Watch``. The first ``snapshot`` marks the
    socket ready. Server frames are never masked, nor (from either server) fragmented; a
    fragmented message would be counted in ``Watch.fragments`` and skipped.
    """

    def __init__(self, watch: Watch, host: str, path: str) -> None:
        loop = asyncio.get_running_loop()
        self.watch = watch
        self.host = host
        self.path = path
        self.transport: asyncio.Transport | None = None
        self.buf = bytearray()
        self.upgraded = False
        self.ready: asyncio.Future[None] = loop.create_future()
        self.done: asyncio.Future[None] = loop.create_future()
        self.close_code: int | None = None

    # transport ------------------------------------------------------------------------------

    def connection_made(self, transport: Any) -> None:
        self.transport = transport  # uvloop's is no asyncio.Transport subclass
        key = base64.b64encode(os.urandom(16)).decode()
        transport.write(
            (
                f"GET {self.path} HTTP/1.1\r\nHost: {self.host}\r\nUpgrade: websocket\r\n"
                f"Connection: Upgrade\r\nSec-WebSocket-Key: {key}\r\n"
                "Sec-WebSocket-Version: 13\r\n\r\n"
            ).encode()
        )

    def connection_lost(self, exc: Exception | None) -> None:
        watch = self.watch
        if not watch.run.stopping:
            watch.run.spectator_disconnects[str(self.close_code)] += 1
        watch.connected.discard(self)
        if not self.ready.done():
            self.ready.set_exception(ConnectionError(f"closed before the snapshot: {exc}"))
        if not self.done.done():
            self.done.set_result(None)

    def _frame(self, opcode: int, payload: bytes) -> None:
        """A client frame: FIN, masked (RFC 6455 5.3), payloads of at most 125 bytes but hello."""
        mask = os.urandom(4)
        n = len(payload)
        if n < 126:
            head = bytes([0x80 | opcode, 0x80 | n])
        else:
            head = bytes([0x80 | opcode, 0x80 | 126]) + n.to_bytes(2, "big")
        masked = bytes(b ^ mask[i & 3] for i, b in enumerate(payload))
        if self.transport is not None and not self.transport.is_closing():
            self.transport.write(head + mask + masked)

    def close(self) -> None:
        """A close frame (1000), then the socket closed without waiting for the server's."""
        if self.transport is not None and not self.transport.is_closing():
            self._frame(0x8, (1000).to_bytes(2, "big"))
            self.transport.close()

    # frames ---------------------------------------------------------------------------------

    def data_received(self, data: bytes) -> None:
        now = time.perf_counter()
        buf = self.buf
        buf += data
        if not self.upgraded:
            end = buf.find(b"\r\n\r\n")
            if end < 0:
                return
            if not buf.startswith(b"HTTP/1.1 101"):
                status = bytes(buf[: buf.find(b"\r\n")]).decode(errors="replace")
                if not self.ready.done():
                    self.ready.set_exception(ConnectionError(f"upgrade refused: {status}"))
                assert self.transport is not None
                self.transport.close()
                return
            del buf[: end + 4]
            self.upgraded = True
            self._frame(0x1, b'{"type":"hello","token":null}')
        watch = self.watch
        pos, size = 0, len(buf)
        while size - pos >= 2:
            b0, length = buf[pos], buf[pos + 1] & 0x7F
            start = pos + 2
            if length == 126:
                if size - pos < 4:
                    break
                length = int.from_bytes(buf[pos + 2 : pos + 4], "big")
                start = pos + 4
            elif length == 127:
                if size - pos < 10:
                    break
                length = int.from_bytes(buf[pos + 2 : pos + 10], "big")
                start = pos + 10
            end = start + length
            if end > size:
                break
            pos = end
            opcode = b0 & 0x0F
            if opcode == 0x1 and b0 & 0x80:
                watch.frames += 1  # text frames only: the server's pings do not count
                watch.bytes += length
                if buf.startswith(EVENT_PREFIX, start):
                    at = start + len(EVENT_PREFIX)
                    comma = buf.index(b",", at)
                    seq_at = comma + 7  # past ',"seq":'
                    key = (int(buf[at:comma]), int(buf[seq_at : buf.index(b",", seq_at)]))
                    seen = watch.arrivals.get(key)
                    if seen is None:
                        watch.arrivals[key] = [1, now, now]
                    else:
                        seen[0] += 1
                        seen[2] = now
                elif buf.startswith(SNAPSHOT_PREFIX, start):
                    if not self.ready.done():
                        watch.connected.add(self)
                        self.ready.set_result(None)
                elif buf.startswith(ERROR_PREFIX, start) or buf.startswith(BYE_PREFIX, start):
                    message = orjson.loads(bytes(buf[start:end]))
                    what = message.get("code") or message.get("reason") or "?"
                    watch.run.spectator_errors[f"{message['type']}:{what}"] += 1
            elif opcode == 0x9:  # ping: pong with the same payload
                self._frame(0xA, bytes(buf[start:end]))
            elif opcode == 0x8:
                if length >= 2:
                    self.close_code = int.from_bytes(buf[start : start + 2], "big")
                self._frame(0x8, bytes(buf[start : start + 2]))
                assert self.transport is not None
                self.transport.close()
            elif opcode in (0x0, 0x1, 0x2):
                watch.fragments += 1
        if pos:
            del buf[:pos]


class Watch:
    """A watched table's spectators and what they received: per ``(set, seq)`` of an event, how
    many spectators got it and when the first and the last did; and the moves its seats sent,
    by the ``(set, seq)`` of their ``played`` event: when the seat sent the ``play``."""

    def __init__(self, run: Run, table: Table) -> None:
        self.run = run
        self.table = table
        self.spectators: list[Spectator] = []
        self.connected: set[Spectator] = set()
        self.arrivals: dict[tuple[int, int], list[Any]] = {}  # key -> [count, first, last]
        self.sent: dict[tuple[int, int], float] = {}  # moves sent in the window
        self.frames = 0
        self.bytes = 0
        self.fragments = 0

    def node_of(self, index: int) -> int:
        # As a table's seats are spread: shifted by the table's index.
        return (self.table.index + index) % len(self.table.ws_bases)

    async def connect_one(self, index: int) -> None:
        base = self.table.ws_bases[self.node_of(index)]
        parsed = urlparse(base)
        host, port = parsed.hostname or "127.0.0.1", parsed.port or 80
        loop = asyncio.get_running_loop()
        spectator = Spectator(self, f"{host}:{port}", f"/ws/rooms/{self.table.code}")
        await asyncio.wait_for(loop.create_connection(lambda: spectator, host, port), 60)
        self.spectators.append(spectator)
        await asyncio.wait_for(spectator.ready, 120)

    async def close(self) -> None:
        for spectator in self.spectators:
            spectator.close()
        done = [s.done for s in self.spectators]
        if done:
            await asyncio.wait(done, timeout=10)

    def report(self, window_spectators: int) -> dict[str, Any]:
        """Per move sent in the window: play sent -> the last spectator's (and the first one's)
        copy of its ``played`` event; moves that fewer spectators got than were connected when
        the window opened are counted apart (a spectator dropped meanwhile)."""
        last: list[float] = []
        first: list[float] = []
        short = 0
        for key, sent in self.sent.items():
            seen = self.arrivals.get(key)
            if seen is None:
                short += 1
                continue
            if seen[0] < window_spectators:
                short += 1
            first.append((seen[1] - sent) * 1000)
            last.append((seen[2] - sent) * 1000)
        return {"last": last, "first": first, "short": short}


class Table:
    def __init__(self, index: int, ws_bases: list[str], *, spread: bool = False) -> None:
        self.index = index
        self.ws_bases = ws_bases  # one per node
        self.spread = spread  # seats' sockets over every node (--sockets spread)
        self.code = ""
        self.tokens: list[str] = []
        self.seats: list[SeatClient] = []
        self.watched = False  # one of the first --watched-tables: its players' rtt is kept apart
        self.watch: Watch | None = None  # its spectators, when it has some

    @property
    def rest_node(self) -> int:
        """The node that takes this table's REST calls: round-robin over the tables."""
        return self.index % len(self.ws_bases)

    def node_of(self, seat: int) -> int:
        if not self.spread:
            return self.rest_node
        # Shifted by the table's index so that with two nodes every table has two sockets on each
        # and the host's socket (the one whose REST calls made the table) alternates between them.
        return (self.index + seat) % len(self.ws_bases)

    def ws_url(self, seat: int) -> str:
        return f"{self.ws_bases[self.node_of(seat)]}/ws/rooms/{self.code}"


async def _post(http: httpx.AsyncClient, path: str, token: str | None = None, **kw: Any) -> Any:
    headers = {"Authorization": f"Bearer {token}"} if token else {}
    for attempt in range(4):
        try:
            response = await http.post(path, headers=headers, **kw)
        except httpx.TransportError:
            if attempt == 3:
                raise
            await asyncio.sleep(0.5 * (attempt + 1))
            continue
        if response.status_code >= 500 and attempt < 3:
            await asyncio.sleep(0.5 * (attempt + 1))
            continue
        if response.status_code >= 400:
            raise RuntimeError(f"POST {path}: {response.status_code} {response.text[:300]}")
        return response.json()
    raise RuntimeError(f"POST {path}: gave up")


async def setup_table(run: Run, http: httpx.AsyncClient, table: Table) -> None:
    args = run.args
    guests = await asyncio.gather(
        *(
            _post(http, "/api/guests", json={"name": f"t{table.index}s{seat}"})
            for seat in range(SEATS)
        )
    )
    table.tokens = [g["token"] for g in guests]
    settings = {
        "mode": args.mode,
        "turn_seconds": args.turn_seconds,
        "deals_per_set": 21,
        "target_points": 99,
        "public": False,
    }
    room = await _post(http, "/api/rooms", table.tokens[HOST_SEAT], json=settings)
    table.code = room["code"]
    for seat in range(SEATS):
        await _post(http, f"/api/rooms/{table.code}/seats/{seat}", table.tokens[seat])
    table.seats = [SeatClient(run, table, seat, table.tokens[seat]) for seat in range(SEATS)]
    if len(table.ws_bases) > 1:
        # The first socket's node takes the table's lease. The host first (and alone) makes that
        # its REST node, so the tables' owners alternate over the nodes instead of falling to
        # whichever node answered a race first -- sometimes one node for all.
        await table.seats[HOST_SEAT].connect()
    await asyncio.gather(*(s.connect() for s in table.seats if s.ws is None))


async def run_load(args: argparse.Namespace) -> dict[str, Any]:
    urls: list[str] = args.urls
    for url in urls:
        require_loopback(url)
    if args.server_pids and len(args.server_pids) != len(urls):
        sys.exit("load.py: give one --server-pid per --url (the same order), or none")
    if not 1 <= args.tables <= MAX_TABLES:
        sys.exit(f"load.py: --tables must be 1..{MAX_TABLES}")
    if args.spectators < 0 or not 1 <= args.watched_tables <= args.tables:
        sys.exit("load.py: --spectators must be >= 0 and --watched-tables 1..--tables")
    if args.spectators > MAX_SPECTATORS:
        sys.exit(f"load.py: --spectators must be at most {MAX_SPECTATORS}")
    sockets = args.tables * SEATS
    nofile = raise_nofile(sockets + args.spectators + 1024)
    if nofile < sockets + args.spectators + 64:
        sys.exit(f"load.py: open-file limit {nofile} is too low for {sockets} sockets")

    run = Run(args)
    server = ProcGroup(args.server_pids)
    me = ProcSampler(os.getpid())
    bases = [url.rstrip("/") for url in urls]
    ws_bases = ["ws" + base[len("http") :] for base in bases]
    tables = [Table(i, ws_bases, spread=args.sockets == "spread") for i in range(args.tables)]
    for table in tables[: args.watched_tables]:
        table.watched = True

    t_setup = time.perf_counter()
    sem = asyncio.Semaphore(args.setup_concurrency)
    limits = httpx.Limits(max_connections=args.setup_concurrency * 4)
    async with contextlib.AsyncExitStack() as stack:
        https = [
            await stack.enter_async_context(
                httpx.AsyncClient(base_url=base, timeout=60, limits=limits)
            )
            for base in bases
        ]

        async def one(table: Table) -> None:
            async with sem:
                await setup_table(run, https[table.rest_node], table)

        await asyncio.wait_for(asyncio.gather(*(one(t) for t in tables)), args.setup_timeout)
        setup_seconds = time.perf_counter() - t_setup
        spectator_seconds = await connect_spectators(run, tables)
        rss_idle = server.rss()

        # Start every table at (nearly) the same moment.
        t_start = time.perf_counter()
        start_sem = asyncio.Semaphore(args.setup_concurrency * 2)

        async def start(table: Table) -> None:
            async with start_sem:
                http = https[table.rest_node]
                await _post(http, f"/api/rooms/{table.code}/start", table.tokens[HOST_SEAT])

        await asyncio.wait_for(asyncio.gather(*(start(t) for t in tables)), args.setup_timeout)
        start_seconds = time.perf_counter() - t_start

    t0 = time.perf_counter()
    run.window = (t0 + args.warmup, t0 + args.warmup + args.duration)
    probes = [t.seats[HOST_SEAT] for t in tables[: args.ping_sockets]]
    if args.ping_interval > 0:
        for probe in probes:
            probe.ping_task = asyncio.get_running_loop().create_task(
                probe.ping_loop(args.ping_interval)
            )

    await asyncio.sleep(max(0.0, run.window[0] - time.perf_counter()))
    # bench/run.py waits for this line to attach a profiler for the window only.
    print(f"load: window open for {args.duration:g} s", flush=True)
    load_before = machine_load()
    watches = [t.watch for t in tables if t.watch is not None]
    window_spectators = [len(w.connected) for w in watches]
    scraper = ClusterMetrics(bases)
    dbcpu = DbBackends(args.db_name)
    redis_cpu = ProcessCpu(args.redis_pid)
    own_gc = GcPauses()
    own_gc.start()
    async with httpx.AsyncClient() as mhttp:
        await scraper.window_start(mhttp)
        server.begin()
        me.begin()
        dbcpu.begin()
        redis_cpu.begin()
        while time.perf_counter() < run.window[1]:
            await asyncio.sleep(min(1.0, max(0.0, run.window[1] - time.perf_counter())))
            server.sample()
            me.sample()
            if time.perf_counter() < run.window[1]:
                await scraper.scrape(mhttp)
        server.end()
        me.end()
        dbcpu.end()
        redis_cpu.end()
        await scraper.window_end(mhttp)
    own_gc.stop()
    run.stopping = True

    end_spectators = sum(len(w.connected) for w in watches)
    # The spectators first, all at once, so that the teardown is short.
    await asyncio.gather(*(w.close() for w in watches))
    all_seats = [s for t in tables for s in t.seats]
    await asyncio.wait_for(
        asyncio.gather(*(s.close() for s in all_seats), return_exceptions=True), 60
    )

    duration = run.window[1] - run.window[0]
    report: dict[str, Any] = {
        "target": args.label or ",".join(urls),
        "nodes": len(urls),
        "socket_placement": args.sockets,
        "tables": args.tables,
        "sockets": sockets,
        "think": args.think,
        "think_dist": args.think_dist if args.think > 0 else None,
        "afk": args.afk,
        "turn_seconds": args.turn_seconds,
        "mode": args.mode,
        "warmup_s": args.warmup,
        "duration_s": round(duration, 2),
        "setup_s": round(setup_seconds, 1),
        "start_s": round(start_seconds, 2),
        "moves": run.moves,
        "moves_per_s": round(run.moves / duration, 1),
        "rt_event_ms": summary(run.rt_event),
        "rt_ack_ms": summary(run.rt_ack),
        "ping_ms": summary(run.pings),
        "errors": sum(run.errors.values()),
        "errors_by_code": dict(run.errors),
        "errors_total_run": dict(run.errors_total),
        "race_refusals": run.race_errors,
        "auto_plays_lag": run.auto_lag,
        "auto_plays_afk": run.auto_afk,
        "auto_late_server_ms": summary(run.auto_late_server),
        "auto_late_client_ms": summary(run.auto_late_client),
        # The generator's own collector pauses in the window: they delay what it receives as
        # much as the server's would, so a round trip's tail must be read against them.
        "generator_gc_pauses_ms": own_gc.report(),
        "disconnects": sum(run.disconnects.values()),
        "disconnects_by_code": dict(run.disconnects),
        "byes": dict(run.byes),
        "frames_in": run.frames_in,
        "bytes_per_move_in": round(run.bytes_in / max(1, run.moves_total), 1),
        "deals_started": run.deals_started,
        "next_sets": run.sets_restarted,
        "server": server.report(sockets, run.moves),
        "server_metrics": scraper.report(),
        "db_backends": dbcpu.report(run.moves),
        "redis_server": redis_cpu.report(run.moves),
        "server_rss_idle_mb": round(rss_idle / 2**20, 1) if args.server_pids else None,
        "generator": me.report(sockets, 0, run.moves),
        "machine": {"load_before": load_before, "load_after": machine_load()},
    }
    report.update(
        spectator_report(
            run, watches, window_spectators, end_spectators, spectator_seconds, report["server"]
        )
    )
    if len(urls) > 1:
        report["per_node"] = node_reports(run, tables, urls, server, scraper)
        spectators = Counter(w.node_of(i) for w in watches for i in range(len(w.spectators)))
        for node, entry in enumerate(report["per_node"]):
            entry["spectators"] = spectators[node]
    return report


async def connect_spectators(run: Run, tables: list[Table]) -> float:
    """--spectators sockets over the first --watched-tables tables (the first ones get one more
    when it does not divide), each spread over the nodes (``(i + j) % N``), ``--spectator-
    concurrency`` handshakes at a time, before the sets start. Then wait until the frames their
    arrival sets off (the table's count of spectators, ``presence``, told at most once a second)
    have stopped coming for two seconds (five minutes at most). Returns the seconds it all took."""
    args = run.args
    if args.spectators <= 0:
        return 0.0
    t0 = time.perf_counter()
    watched = tables[: args.watched_tables]
    for table in watched:
        table.watch = Watch(run, table)
    sem = asyncio.Semaphore(args.spectator_concurrency)

    async def one(watch: Watch, index: int) -> None:
        async with sem:
            try:
                await watch.connect_one(index)
            except (TimeoutError, OSError) as exc:  # counted; the run goes on
                run.spectator_errors[f"connect:{type(exc).__name__}"] += 1

    jobs = []
    for k, table in enumerate(watched):
        share = args.spectators // len(watched) + (1 if k < args.spectators % len(watched) else 0)
        assert table.watch is not None
        jobs += [one(table.watch, i) for i in range(share)]
    await asyncio.wait_for(asyncio.gather(*jobs), args.setup_timeout)
    watches = [t.watch for t in watched if t.watch is not None]
    last, quiet_since = -1, time.perf_counter()
    deadline = time.perf_counter() + min(args.setup_timeout, 300)
    while time.perf_counter() < deadline:
        frames = sum(w.frames for w in watches)
        if frames != last:
            last, quiet_since = frames, time.perf_counter()
        elif time.perf_counter() - quiet_since >= 2.0:
            break
        await asyncio.sleep(0.2)
    seconds = time.perf_counter() - t0
    connected = sum(len(w.connected) for w in watches)
    print(
        f"load: {connected} of {args.spectators} spectators connected and quiet in {seconds:.1f} s",
        flush=True,
    )
    return seconds


def spectator_report(
    run: Run,
    watches: list[Watch],
    window_spectators: list[int],
    end_spectators: int,
    setup_seconds: float,
    server: dict[str, Any],
) -> dict[str, Any]:
    """The watched tables' figures: last (and first) spectator's delay per move, the watched
    players' round trip, and the server's CPU per move per spectator: all the server's CPU in
    the window (every node's, nothing subtracted) / the watched tables' moves in the window /
    the spectators connected when it opened."""
    last: list[float] = []
    first: list[float] = []
    short = 0
    for watch, count in zip(watches, window_spectators, strict=True):
        got = watch.report(count)
        last += got["last"]
        first += got["first"]
        short += got["short"]
    spectators = sum(window_spectators)
    cpu_s = server.get("cpu_s")
    per = None
    if cpu_s is not None and spectators and run.watched_moves:
        per = round(1e6 * cpu_s / run.watched_moves / spectators, 2)
    return {
        "spectators": run.args.spectators,
        "watched_tables": run.args.watched_tables,
        "spectators_window": spectators,
        "spectators_end": end_spectators,
        "spectator_setup_s": round(setup_seconds, 1),
        "watched_moves": run.watched_moves,
        "watched_rt_event_ms": summary(run.rt_watched),
        "spectator_last_ms": summary(last),
        "spectator_first_ms": summary(first),
        "spectator_moves_short": short,
        "spectator_frames_in": sum(w.frames for w in watches),
        "spectator_bytes_in": sum(w.bytes for w in watches),
        "spectator_fragments": sum(w.fragments for w in watches),
        "spectator_disconnects_by_code": dict(run.spectator_disconnects),
        "spectator_errors": dict(run.spectator_errors),
        "server_cpu_us_per_move_per_spectator": per,
    }


def node_reports(
    run: Run, tables: list[Table], urls: list[str], server: ProcGroup, scraper: ClusterMetrics
) -> list[dict[str, Any]]:
    """Each node's share: its sockets, the moves made through them, the moves its tables applied
    (from its /metrics: the tables it owns), its process's CPU and RSS."""
    sockets = Counter(seat.node for table in tables for seat in table.seats)
    out = []
    for node, url in enumerate(urls):
        entry: dict[str, Any] = {
            "url": url,
            "sockets": sockets[node],
            "moves_via_sockets": run.moves_by_node[node],
            "server_metrics": scraper.nodes[node].report(),
        }
        if server.members:
            entry["pid"] = server.members[node].pid
            entry["server"] = server.node_report(node, sockets[node], run.moves)
        out.append(entry)
    return out


def print_report(r: dict[str, Any]) -> None:
    s = r.get("server") or {}
    g = r.get("generator") or {}
    ev, ack, ping = r["rt_event_ms"], r["rt_ack_ms"], r["ping_ms"]
    print(
        f"[{r['target']}] tables={r['tables']} sockets={r['sockets']} think={r['think']} "
        f"window={r['duration_s']}s setup={r['setup_s']}s"
    )
    print(f"  moves/s            {r['moves_per_s']}  ({r['moves']} moves)")
    print(f"  rt play->event ms  p50 {ev['p50']}  p99 {ev['p99']}  max {ev['max']}  (n={ev['n']})")
    print(f"  rt play->ack ms    p50 {ack['p50']}  p99 {ack['p99']}  max {ack['max']}")
    print(f"  ping->pong ms      p50 {ping['p50']}  p99 {ping['p99']}  max {ping['max']}")
    print(
        f"  errors {r['errors']} {r['errors_by_code']}  auto-plays: lag {r['auto_plays_lag']} "
        f"afk {r['auto_plays_afk']}  disconnects {r['disconnects']} {r['disconnects_by_code']}"
    )
    late = r["auto_late_server_ms"]
    if late["n"]:
        print(
            f"  auto-play after deadline ms (server_time) p50 {late['p50']} p99 {late['p99']} "
            f"max {late['max']}; at the client p99 {r['auto_late_client_ms']['p99']}"
        )
    if s:
        print(
            f"  server CPU {s['cpu_percent']}% (1 s max {s['cpu_percent_max_1s']}%)  "
            f"RSS {s['rss_mb']} MB ({s['rss_kb_per_socket']} KB/socket; "
            f"{s['rss_delta_kb_per_socket']} KB/socket above the "
            f"{s['rss_baseline_mb']} MB baseline)"
        )
    if s:
        print(
            f"  server CPU per move {s['cpu_us_per_move']} us  ({s['moves_per_cpu_s']} moves "
            f"per CPU-second); event-loop thread {s['main_thread_cpu_percent']}% of a core, "
            f"{s['threads']} threads"
        )
    if g:
        print(f"  generator CPU {g['cpu_percent']}%  bytes in per move {r['bytes_per_move_in']}")
    db = r.get("db_backends") or {}
    if db:
        print(f"  PostgreSQL backends CPU {db['cpu_percent']}% ({db['cpu_us_per_move']} us/move)")
    rd = r.get("redis_server") or {}
    if rd.get("error"):
        print(f"  redis-server CPU: not measured ({rd['error']})")
    elif rd:
        print(
            f"  redis-server CPU {rd['cpu_s']} s = {rd['cpu_percent']}% "
            f"({rd['cpu_us_per_move']} us/move; the whole process)"
        )
    for node, n in enumerate(r.get("per_node") or []):
        ns, nm = n.get("server") or {}, n["server_metrics"]
        cpu = f"CPU {ns['cpu_percent']}% RSS {ns['rss_mb']} MB, " if ns else ""
        lag = nm["loop_lag_ms"].get("p99_le") if nm.get("available") else None
        print(
            f"  node {node} {n['url']}: {cpu}{n['sockets']} sockets, "
            f"{n.get('spectators', 0)} spectators, {n['moves_via_sockets']} "
            f"moves through its sockets, {nm.get('moves_applied')} applied by its tables, "
            f"loop lag p99 <= {lag} ms"
        )
    sm = r.get("server_metrics") or {}
    if sm.get("available"):
        print(
            f"  server /metrics: loop lag ms {sm['loop_lag_ms']}; move latency p50 <= "
            f"{sm.get('move_latency_p50_le_ms')} p99 <= {sm.get('move_latency_p99_le_ms')} ms"
        )
        print(f"  server GC pauses in the window, by generation: {sm.get('gc_pauses')}")
    print(f"  generator GC pauses in the window (ms): {r.get('generator_gc_pauses_ms')}")
    wr = r["watched_rt_event_ms"]
    print(
        f"  watched tables {r['watched_tables']}: {r['watched_moves']} moves, players' rt "
        f"play->event ms p50 {wr['p50']} p99 {wr['p99']} max {wr['max']} (n={wr['n']})"
    )
    if r["spectators"]:
        last, first = r["spectator_last_ms"], r["spectator_first_ms"]
        print(
            f"  spectators {r['spectators_window']} in the window ({r['spectators_end']} at its "
            f"end, of {r['spectators']}; connected in {r['spectator_setup_s']} s): play -> last "
            f"spectator ms p50 {last['p50']} p99 {last['p99']} max {last['max']} (n={last['n']}); "
            f"-> first p50 {first['p50']} p99 {first['p99']}"
        )
        print(
            f"  server CPU per move per spectator {r['server_cpu_us_per_move_per_spectator']} us; "
            f"moves short of a spectator {r['spectator_moves_short']}; spectator frames "
            f"{r['spectator_frames_in']}; disconnects {r['spectator_disconnects_by_code']} "
            f"errors {r['spectator_errors']}"
        )
    m = r.get("machine") or {}
    print(f"  machine load before/after: {m.get('load_before')} / {m.get('load_after')}")


def build_parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument(
        "--url",
        action="append",
        default=None,
        help=f"a node (repeat, or comma-separate, for several; default {DEFAULT_URL})",
    )
    p.add_argument("--tables", type=int, default=25)
    p.add_argument("--duration", type=float, default=20.0, help="measured seconds")
    p.add_argument("--warmup", type=float, default=5.0, help="seconds after the start, unmeasured")
    p.add_argument("--think", type=float, default=0.0, help="0: flood; else mean pause (s)")
    p.add_argument("--think-dist", choices=["exponential", "uniform"], default="exponential")
    p.add_argument("--think-cap", type=float, default=10.0, help="longest exponential pause (s)")
    p.add_argument("--afk", type=float, default=0.0, help="chance a seat lets the clock play")
    p.add_argument("--turn-seconds", type=int, default=60, choices=[15, 30, 60])
    p.add_argument("--mode", default="tunggal", choices=["tunggal", "ganda"])
    p.add_argument(
        "--sockets",
        choices=["room", "spread"],
        default="room",
        help="several nodes: a table's seats on its own node (room), or over every node (spread)",
    )
    p.add_argument("--spectators", type=int, default=0, help="spectator sockets (all tables)")
    p.add_argument(
        "--watched-tables", type=int, default=1, help="the first K tables get the spectators"
    )
    p.add_argument("--spectator-concurrency", type=int, default=32, help="handshakes at a time")
    p.add_argument(
        "--server-pid",
        action="append",
        default=None,
        help="a node's server process, in --url order (repeat or comma-separate)",
    )
    p.add_argument("--redis-pid", type=int, default=None, help="report redis-server's CPU")
    p.add_argument("--ping-sockets", type=int, default=8, help="host sockets that also ping")
    p.add_argument("--ping-interval", type=float, default=0.25)
    p.add_argument("--setup-concurrency", type=int, default=16)
    p.add_argument("--setup-timeout", type=float, default=600.0)
    p.add_argument("--db-name", default=None, help="PostgreSQL database: report its backends' CPU")
    p.add_argument("--seed", type=int, default=1)
    p.add_argument("--label", default="", help="name of the target in the report")
    p.add_argument("--json", default=None, help="write the report as JSON here ('-': stdout)")
    p.add_argument("--no-uvloop", action="store_true")
    return p


def _split(values: list[str] | None) -> list[str]:
    """Repeated options, each possibly a comma list, as one flat list."""
    return [item.strip() for value in values or [] for item in value.split(",") if item.strip()]


def main(argv: list[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    args.urls = _split(args.url) or [DEFAULT_URL]
    args.server_pids = [int(pid) for pid in _split(args.server_pid)]
    if args.think_cap >= args.turn_seconds:
        args.think_cap = args.turn_seconds / 2
    if not args.no_uvloop:
        with contextlib.suppress(ImportError):
            import uvloop

            asyncio.set_event_loop_policy(uvloop.EventLoopPolicy())
    budget = args.setup_timeout * 2 + args.warmup + args.duration + 120
    report = asyncio.run(asyncio.wait_for(run_load(args), budget))
    print_report(report)
    if args.json == "-":
        print(json.dumps(report, indent=2))
    elif args.json:
        Path(args.json).write_text(json.dumps(report, indent=2) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())

"""Load benchmark driver: the game server and the bare relay, driven the same way in the same run.

    .venv/bin/python bench/run.py --db sqlite --tables 25,100,250 --think 0 \
        --warmup 5 --duration 20 [--repeat 2] [--json results.json] [--markdown table.md]

For each repeat and each table count it starts a fresh game server (``python -m app.cli serve``
with a new SQLite file, or a new PostgreSQL database ``gaple_bench_<random>`` that it drops
afterwards) and then the relay (bench/relay.py) -- or the other way round on odd repeats, so slow
drift in the machine's background load hits both -- each pinned to CPU 0 with ``taskset``, and runs
bench/load.py against it pinned to CPU 1. Then it prints one row per point with the game server as a
ratio of the relay (median over the repeats, and the spread).

``--nodes N`` (N >= 2, PostgreSQL only) runs the game server as N nodes of one deployment: N
processes on the same fresh database, all pinned to ``--server-cpu`` (by default they share CPU 0,
the one core the single node and the relay get), with Redis between them under a key prefix
``gaple_bench_<random>:`` whose keys are deleted afterwards. bench/load.py puts a table's sockets on
its own node, as the deployment's load balancer does (``--sockets spread``: over every node, so
moves cross the Redis relay), and sums the nodes' CPU and RSS; Redis's
own CPU is reported apart (it is not pinned), like the PostgreSQL backends'. The relay stays one
process.

Server settings for the game (``GAPLE_*``, app/settings.py):
* always: log level warning (the relay too) so that no per-request logging is measured;
* the database is migrated by ``gaple migrate`` before the servers start, which run with
  ``GAPLE_MIGRATE_ON_START=false`` as in production (no Alembic in their memory);
* one node: ``GAPLE_REDIS_URL=`` (no Redis);
* several nodes: ``GAPLE_REDIS_URL=redis://127.0.0.1:6379/0``, ``GAPLE_REDIS_PREFIX`` as above;
  the first node is started, then the others once it answers its health check;
* flood (``--think 0``): ``GAPLE_WS_MESSAGES_PER_SECOND=100000`` and ``GAPLE_WS_BURST=100000``
  (the default 10/s per socket is a human's limit; a flooding seat sends more), and
  ``GAPLE_DEAL_PAUSE_SECONDS=0`` (else a 5 s pause between deals, which the relay does not have,
  would dominate);
* with think time: the defaults (rate limit 10/s, burst 20, 5 s between deals).
``--server-env KEY=VALUE`` adds or overrides any of them.

``--spectators N`` and ``--watched-tables K`` go to bench/load.py for both targets (N spectator
sockets on the first K tables, spread over the nodes whatever ``--sockets`` says; the relay gives
its spectators the same fan-out: the event and one public snapshot, serialised once). A second
table follows the first, per target: play -> last spectator delay p50/p99/max, the watched
players' round trip, server CPU per move per spectator (all the server's CPU in the window, every
node's, nothing subtracted, / the watched tables' moves in the window / the spectators connected
when it opened), and the game/relay ratios. Run it again with ``--spectators 0 --targets game``
for the players' round trip without spectators.

``--profile DIR`` attaches ``py-spy record`` (``.venv/bin/pip install py-spy``) to each server
under test (every node: ``<name>-node<i>``) for the measured window only, writes the raw
collapsed stacks there and prints the hotspots (``--profile-gil``: only samples holding the GIL;
``--hotspots RAW`` re-reads a file).
``--server-root DIR`` runs the game server from another copy of the tree (a fixed commit, or a
patched copy for an A/B) instead of this one.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import secrets
import shutil
import signal
import statistics
import subprocess
import sys
import tempfile
import threading
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))  # run as a script: the checkout's packages (tests/server.py)

from tests.server import ServerProcess, free_port  # noqa: E402 - needs the path above

# SESSION: with kernel.sched_autogroup_enabled=1 (as on the project's machines) the scheduler
# shares a CPU fairly between *sessions*, not processes. Started in this script's session, the
# server and the generator would share one session's share against every other session on the
# machine (other test runs). Each gets a session of its own, as a real server would have.
PG_ADMIN = "postgresql://postgres@127.0.0.1:5432/postgres"
REDIS_URL = "redis://127.0.0.1:6379/0"


def pinned(cpu: str | None, nice: int, cmd: list[str]) -> list[str]:
    prefix: list[str] = []
    if nice:
        prefix += ["nice", "-n", str(nice)]
    if cpu is not None and shutil.which("taskset"):
        prefix += ["taskset", "-c", cpu]
    return prefix + cmd


# --- PostgreSQL: one throwaway database per game-server run ----------------------------------


async def _pg(sql: str) -> None:
    import asyncpg

    conn = await asyncpg.connect(PG_ADMIN)
    try:
        await conn.execute(sql)
    finally:
        await conn.close()


def pg_create() -> str:
    name = f"gaple_bench_{secrets.token_hex(4)}"
    asyncio.run(_pg(f'CREATE DATABASE "{name}"'))
    return name


def pg_drop(name: str) -> None:
    asyncio.run(_pg(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)'))


# --- Redis: several nodes share it under a key prefix of their own per run ----------------------


def redis_clear(prefix: str) -> int:
    """Delete every key under ``prefix`` (leases, spectator counts ... of one run's nodes)."""
    from redis import Redis

    client = Redis.from_url(REDIS_URL)
    try:
        # Collected first: deleting while SCAN iterates is allowed, but may revisit keys.
        keys = list(client.scan_iter(match=f"{prefix}*", count=1000))
        for i in range(0, len(keys), 1000):
            client.delete(*keys[i : i + 1000])
        return len(keys)
    finally:
        client.close()


def redis_pid() -> int | None:
    """redis-server's pid as Redis reports it (INFO server), if that pid is a redis-server here: in
    another PID namespace (a container) it would name some other process, or none."""
    import psutil
    from redis import Redis

    client = Redis.from_url(REDIS_URL)
    try:
        pid = int(client.info("server")["process_id"])
        name = psutil.Process(pid).name()
    except Exception as exc:  # report, keep going: the nodes' own figures do not need it
        print(f"run: redis-server's CPU not measured: {exc}", file=sys.stderr)
        return None
    finally:
        client.close()
    if name.startswith("redis-server"):
        return pid
    print(
        f"run: Redis says pid {pid}, which is {name!r} here: its CPU not measured", file=sys.stderr
    )
    return None


# --- servers ---------------------------------------------------------------------------------


class Server:
    """One process under test (a game-server node, or the relay): pinned, in a session of its
    own, logging to a file; ``env`` is added to this environment."""

    def __init__(self, kind: str, args: argparse.Namespace, workdir: Path) -> None:
        self.kind = kind  # "game" or "relay"
        self.args = args
        self.port = free_port()
        self.workdir = workdir
        self.env: dict[str, str] = {}
        self.proc: subprocess.Popen[bytes] | None = None
        self.log_path = workdir / f"{kind}-{self.port}.log"

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    @property
    def data_dir(self) -> Path:
        return self.workdir / f"data-{self.port}"

    def _cwd(self) -> Path:
        # --server-root: run the game server from another copy of the tree (an A/B experiment
        # on a patched copy, leaving this tree alone); `python -m app.cli` imports from its cwd.
        root = self.args.server_root
        return Path(root) if (self.kind == "game" and root) else ROOT

    def migrate(self) -> None:
        """``gaple migrate`` with this node's settings, as a deployment does before its nodes."""
        self.data_dir.mkdir(parents=True, exist_ok=True)
        with self.log_path.open("ab") as log:
            subprocess.run(
                [sys.executable, "-m", "app.cli", "migrate"],
                cwd=self._cwd(),
                env=dict(os.environ) | self.env,
                stdout=log,
                stderr=subprocess.STDOUT,
                check=True,
            )

    def start(self) -> None:
        """Start it through the tests' helper (tests/server.py) and wait until it answers."""
        args = self.args
        if self.kind == "game":
            command = [sys.executable, "-m", "app.cli", "serve"]
            ready = "/readyz"
        else:
            command = [sys.executable, str(ROOT / "bench" / "relay.py")]
            ready = "/api/health"
        env = dict(os.environ) | self.env
        server = ServerProcess(
            env.get("GAPLE_DATABASE_URL", ""),
            self.data_dir,
            port=self.port,
            command=pinned(args.server_cpu, args.nice, command),
            args=["--log-level", "warning"],
            cwd=self._cwd(),
            base_env=env,
            ready_path=ready,
            new_session=True,  # its own autogroup: see SESSION below
            log_path=self.log_path,
        )
        try:
            server.start(timeout=90)
        finally:
            self.proc = server.process

    @property
    def pid(self) -> int:
        assert self.proc is not None
        return self.proc.pid  # taskset/nice exec the server: same pid

    def interrupt(self) -> None:
        if self.proc is not None and self.proc.poll() is None:
            self.proc.send_signal(signal.SIGINT)

    def wait(self) -> None:
        if self.proc is None:
            return
        try:
            self.proc.wait(timeout=30)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait(timeout=10)


class Deployment:
    """What one measurement runs against: the relay, or the game server -- ``--nodes`` processes
    on one fresh database, with Redis between them when there are several."""

    def __init__(self, kind: str, args: argparse.Namespace, workdir: Path) -> None:
        self.kind = kind
        self.args = args
        self.workdir = workdir
        self.count = args.nodes if kind == "game" else 1
        self.nodes: list[Server] = []
        self.pg_name: str | None = None
        # One prefix per run: its keys (leases, spectator counts) and channels are its own, and
        # its keys are deleted afterwards.
        self.redis_prefix = f"gaple_bench_{secrets.token_hex(4)}:" if self.count > 1 else None

    @property
    def urls(self) -> list[str]:
        return [node.url for node in self.nodes]

    @property
    def pids(self) -> list[int]:
        return [node.pid for node in self.nodes]

    @property
    def label(self) -> str:
        if self.kind != "game":
            return f"{self.kind}/-"
        nodes = f"/{self.count} nodes, sockets {self.args.sockets}" if self.count > 1 else ""
        return f"{self.kind}/{self.args.db}{nodes}"

    def profile_tags(self, tag: str) -> list[str]:
        """The profile file name of each node (one node: the name it has always had)."""
        return [tag] if self.count == 1 else [f"{tag}-node{i}" for i in range(self.count)]

    def start(self) -> None:
        if self.kind == "game" and self.args.db == "postgres":
            self.pg_name = pg_create()
        for index in range(self.count):
            server = Server(self.kind, self.args, self.workdir)
            if self.kind == "game":
                server.env = self._game_env(index, server.data_dir)
            self.nodes.append(server)  # before start(): stop() must see it even if start fails
            if self.kind == "game" and index == 0:
                server.migrate()
            server.start()

    def _game_env(self, index: int, data_dir: Path) -> dict[str, str]:
        args = self.args
        if self.pg_name is not None:
            db_url = f"postgresql+asyncpg://postgres@127.0.0.1:5432/{self.pg_name}"
        else:
            db_url = f"sqlite+aiosqlite:///{data_dir / 'gaple.sqlite3'}"
        env = {
            "GAPLE_DATABASE_URL": db_url,
            "GAPLE_DATA_DIR": str(data_dir),
            "GAPLE_SECRET_KEY": "bench-secret",  # the same on every node: tokens work on all
            # As in production: `gaple migrate` once (Server.migrate), then nodes that do not
            # migrate, so no node carries Alembic in its memory.
            "GAPLE_MIGRATE_ON_START": "false",
            "GAPLE_REDIS_URL": REDIS_URL if self.redis_prefix else "",
            # The load generator is one address playing thousands of seats.
            "GAPLE_RATE_GUESTS": "1000000/minute",
            "GAPLE_RATE_ROOMS": "1000000/minute",
            "GAPLE_RATE_QUICKPLAY": "1000000/minute",
            "GAPLE_RATE_SEATS": "1000000/minute",
            "GAPLE_MAX_SOCKETS_PER_ADDRESS": "1000000",
        }
        if self.redis_prefix:
            env["GAPLE_REDIS_PREFIX"] = self.redis_prefix
        if args.think == 0:
            env.update(
                GAPLE_WS_MESSAGES_PER_SECOND="100000",
                GAPLE_WS_BURST="100000",
                GAPLE_DEAL_PAUSE_SECONDS="0",
            )
        for item in args.server_env:
            key, _, value = item.partition("=")
            env[key] = value
        return env

    def stop(self) -> None:
        try:
            # All at once: a node that drains alone hands its tables over to the ones still up,
            # which would then rebuild them for nothing.
            for node in self.nodes:
                node.interrupt()
            for node in self.nodes:
                node.wait()
        finally:
            if self.pg_name is not None:
                try:
                    pg_drop(self.pg_name)
                except Exception as exc:  # report, keep going
                    print(f"run: could not drop database {self.pg_name}: {exc}", file=sys.stderr)
            if self.redis_prefix is not None:
                try:
                    redis_clear(self.redis_prefix)
                except Exception as exc:  # report, keep going
                    print(f"run: could not clear {self.redis_prefix}*: {exc}", file=sys.stderr)


# --- one measurement ---------------------------------------------------------------------------


def load_command(
    deployment: Deployment, tables: int, args: argparse.Namespace, out: Path
) -> list[str]:
    cmd = [
        sys.executable,
        str(ROOT / "bench" / "load.py"),
        "--tables",
        str(tables),
        "--duration",
        str(args.duration),
        "--warmup",
        str(args.warmup),
        "--think",
        str(args.think),
        "--afk",
        str(args.afk),
        "--turn-seconds",
        str(args.turn_seconds),
        "--mode",
        args.mode,
        "--spectators",
        str(args.spectators),
        "--watched-tables",
        str(args.watched_tables),
        "--sockets",
        args.sockets,
        "--json",
        str(out),
        "--label",
        deployment.label,
    ]
    for url, pid in zip(deployment.urls, deployment.pids, strict=True):
        cmd += ["--url", url, "--server-pid", str(pid)]
    if deployment.pg_name:
        cmd += ["--db-name", deployment.pg_name]
    if deployment.redis_prefix:
        redis = redis_pid()
        if redis is not None:
            cmd += ["--redis-pid", str(redis)]
    return cmd


def run_point(
    kind: str, tables: int, args: argparse.Namespace, workdir: Path, tag: str
) -> dict[str, Any]:
    deployment = Deployment(kind, args, workdir)
    out = workdir / f"{tag}-{kind}-{tables}.json"
    profile_tags = deployment.profile_tags(f"{tag}-{kind}-{tables}")
    profilers: list[tuple[subprocess.Popen[bytes], str]] = []  # (py-spy, profile name)
    try:
        deployment.start()
        gen = subprocess.Popen(
            pinned(args.generator_cpu, args.nice, load_command(deployment, tables, args, out)),
            cwd=ROOT,
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,
            start_new_session=True,
        )
        budget = 600 + args.warmup + args.duration + 180
        timer = threading.Timer(budget, gen.kill)
        timer.start()
        assert gen.stdout is not None
        for raw in gen.stdout:
            line = raw.decode(errors="replace").rstrip()
            print(f"    {line}", flush=True)
            if line.startswith("load: window open") and args.profile:
                profilers = [
                    (start_profiler(pid, args, Path(args.profile), name), name)
                    for pid, name in zip(deployment.pids, profile_tags, strict=True)
                ]
        gen.wait()
        timer.cancel()
        for profiler, name in profilers:
            profiler.wait(timeout=args.duration + 60)
            report_profile(Path(args.profile), name)
        if gen.returncode != 0 or not out.exists():
            logs = ", ".join(str(node.log_path) for node in deployment.nodes)
            raise RuntimeError(f"load.py failed ({gen.returncode}); server log {logs}")
        result: dict[str, Any] = json.loads(out.read_text())
        result["kind"] = kind
        result["db"] = args.db if kind == "game" else None
        result["nodes"] = deployment.count
        return result
    finally:
        deployment.stop()


def report_profile(outdir: Path, name: str) -> None:
    raw = outdir / f"{name}.txt"
    if raw.exists():
        report = hotspots(raw)
        (outdir / f"{name}-hotspots.txt").write_text("\n".join(report) + "\n")
        print("\n".join("    " + x for x in report[:40]), flush=True)


def start_profiler(
    pid: int, args: argparse.Namespace, outdir: Path, tag: str
) -> subprocess.Popen[bytes]:
    outdir.mkdir(parents=True, exist_ok=True)
    spy = args.py_spy or shutil.which("py-spy") or str(Path(sys.executable).parent / "py-spy")
    # Raw collapsed stacks (for the hotspot table) -- an SVG can be made from them later.
    cmd = [
        spy,
        "record",
        "--pid",
        str(pid),
        "--duration",
        str(int(args.duration)),
        "--rate",
        "200",
        "--format",
        "raw",
        "--nonblocking",
        *(["--gil"] if args.profile_gil else []),
        "--output",
        str(outdir / f"{tag}.txt"),
    ]
    print(f"    run: {' '.join(cmd)}", flush=True)
    return subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.STDOUT)


def hotspots(path: Path, top: int = 25) -> list[str]:
    """Top functions of a py-spy raw (collapsed) profile: own time and time including callees,
    as a share of all the samples in which the process was running Python code."""
    own: dict[str, int] = {}
    incl: dict[str, int] = {}
    total = 0
    for line in path.read_text().splitlines():
        stack, _, count_text = line.rpartition(" ")
        if not stack or not count_text.isdigit():
            continue
        count = int(count_text)
        frames = [_short(f) for f in stack.split(";")]
        total += count
        own[frames[-1]] = own.get(frames[-1], 0) + count
        for frame in set(frames):
            incl[frame] = incl.get(frame, 0) + count
    out = [f"{total} samples ({path.name})", "own time:"]
    for name, n in sorted(own.items(), key=lambda kv: -kv[1])[:top]:
        out.append(f"  {100 * n / total:5.1f}%  {name}")
    out.append("including callees:")
    for name, n in sorted(incl.items(), key=lambda kv: -kv[1])[: top * 2]:
        out.append(f"  {100 * n / total:5.1f}%  {name}")
    return out


def _short(frame: str) -> str:
    # "send_text (/x/.venv/lib/python3.11/site-packages/starlette/websockets.py:123)" ->
    # "send_text (starlette/websockets.py)"; the line number is dropped so a function is one row.
    name, _, where = frame.partition(" (")
    where = where.rstrip(")")
    file = where.rsplit(":", 1)[0]
    for marker in ("site-packages/", "/work/main/", str(ROOT) + "/", "lib/python3.11/"):
        if marker in file:
            file = file.split(marker, 1)[1]
            break
    return f"{name} ({file})"


# --- report ------------------------------------------------------------------------------------


def _med(values: list[float]) -> float:
    return statistics.median(values) if values else float("nan")


def _spread(values: list[float], fmt: str = "{:.0f}") -> str:
    if not values:
        return "-"
    if len(values) == 1:
        return fmt.format(values[0])
    return f"{fmt.format(_med(values))} ({fmt.format(min(values))}-{fmt.format(max(values))})"


def table_rows(results: list[dict[str, Any]], args: argparse.Namespace) -> list[str]:
    """Markdown rows: median over the repeats, (min-max) when there are several."""
    header = (
        "| db | tables | think s | game moves/s | relay moves/s | game/relay | "
        "game moves per CPU-s | relay moves per CPU-s | game/relay per CPU-s | "
        "game rt p50 / p99 / max ms | relay rt p50 / p99 / max ms | errors | auto lag / afk | "
        "auto late p99 ms | game CPU % | relay CPU % | game RSS MB | game KB/socket (Δ) | "
        "gen CPU % game / relay | load 1m |"
    )
    if args.nodes > 1:
        header += " redis CPU % |"  # unpinned, like PostgreSQL: apart from game CPU %
    lines = [header, "|" + "---|" * (header.count("|") - 1)]
    for tables in sorted({r["tables"] for r in results}):
        game = [r for r in results if r["tables"] == tables and r["kind"] == "game"]
        relay = [r for r in results if r["tables"] == tables and r["kind"] == "relay"]
        pairs = list(zip(game, relay, strict=False))
        ratios = [g["moves_per_s"] / r["moves_per_s"] for g, r in pairs if r["moves_per_s"]]
        cpu_ratios = [
            g["server"]["moves_per_cpu_s"] / r["server"]["moves_per_cpu_s"]
            for g, r in pairs
            if g["server"].get("moves_per_cpu_s") and r["server"].get("moves_per_cpu_s")
        ]

        def rt(rs: list[dict[str, Any]]) -> str:
            if not rs:
                return "-"
            return " / ".join(
                _spread(
                    [x["rt_event_ms"][k] for x in rs if x["rt_event_ms"][k] is not None], "{:.1f}"
                )
                for k in ("p50", "p99", "max")
            )

        def srv(rs: list[dict[str, Any]], key: str, fmt: str = "{:.0f}") -> str:
            return _spread(
                [
                    x["server"][key]
                    for x in rs
                    if x.get("server") and x["server"].get(key) is not None
                ],
                fmt,
            )

        gen = " / ".join(
            _spread([x["generator"]["cpu_percent"] for x in rs if x.get("generator")])
            for rs in (game, relay)
        )
        loads = [
            x["machine"]["load_before"].get("loadavg_1m")
            for x in game + relay
            if x.get("machine", {}).get("load_before", {}).get("loadavg_1m") is not None
        ]
        extra: list[str] = []
        if args.nodes > 1:
            redis = [
                g["redis_server"]["cpu_percent"]
                for g in game
                if "cpu_percent" in g.get("redis_server", {})
            ]
            extra.append(_spread(redis))
        lines.append(
            "| "
            + " | ".join(
                [
                    args.db if args.nodes == 1 else f"{args.db}, {args.nodes} game nodes",
                    str(tables),
                    f"{args.think:g}",
                    _spread([g["moves_per_s"] for g in game]),
                    _spread([r["moves_per_s"] for r in relay]),
                    _spread(ratios, "{:.0%}") if ratios else "-",
                    srv(game, "moves_per_cpu_s"),
                    srv(relay, "moves_per_cpu_s"),
                    _spread(cpu_ratios, "{:.0%}") if cpu_ratios else "-",
                    rt(game),
                    rt(relay),
                    str(sum(g["errors"] for g in game)),
                    f"{sum(g['auto_plays_lag'] for g in game)} / "
                    f"{sum(g['auto_plays_afk'] for g in game)}",
                    _spread(
                        [
                            g["auto_late_server_ms"]["p99"]
                            for g in game
                            if g["auto_late_server_ms"]["p99"] is not None
                        ]
                    ),
                    srv(game, "cpu_percent"),
                    srv(relay, "cpu_percent"),
                    srv(game, "rss_mb"),
                    f"{srv(game, 'rss_kb_per_socket')} ({srv(game, 'rss_delta_kb_per_socket')})",
                    gen,
                    _spread(loads, "{:.1f}"),
                    *extra,
                ]
            )
            + " |"
        )
    return lines


def spectator_rows(results: list[dict[str, Any]], args: argparse.Namespace) -> list[str]:
    """Markdown rows for the watched tables, per table count and target: the delay from a
    player's ``play`` to the last spectator's copy of its event, the watched players' own round
    trip, and the server's CPU per move per spectator (all its CPU in the window, every node's,
    nothing subtracted, / the watched tables' moves in the window / the spectators connected when
    the window opened); game/relay ratios of the last two."""
    header = (
        "| db | tables | spectators | watched tables | target | moves watched | "
        "play -> last spectator p50 / p99 / max ms | play -> first spectator p50 / p99 ms | "
        "watched players rt p50 / p99 ms | server CPU us per move per spectator | "
        "game/relay CPU per move per spectator | game/relay players rt p99 | "
        "moves short / spectator disconnects | setup s | load 1m |"
    )
    lines = [header, "|" + "---|" * (header.count("|") - 1)]
    for tables in sorted({r["tables"] for r in results}):
        relay = [r for r in results if r["tables"] == tables and r["kind"] == "relay"]
        for kind in ("game", "relay"):
            rs = [r for r in results if r["tables"] == tables and r["kind"] == kind]
            if not rs:
                continue

            def fig(key: str, k: str, rs: list[dict[str, Any]] = rs) -> list[float]:
                return [r[key][k] for r in rs if r.get(key, {}).get(k) is not None]

            def cpu(rs: list[dict[str, Any]]) -> list[float]:
                key = "server_cpu_us_per_move_per_spectator"
                return [r[key] for r in rs if r.get(key) is not None]

            ratio_cpu = ratio_rt = "-"
            if kind == "game" and relay:
                g, r = cpu(rs), cpu(relay)
                if g and r:
                    ratio_cpu = f"{_med(g) / _med(r):.2f}x"
                g, r = fig("watched_rt_event_ms", "p99"), fig("watched_rt_event_ms", "p99", relay)
                if g and r:
                    ratio_rt = f"{_med(g) / _med(r):.2f}x"
            loads = [
                r["machine"]["load_before"].get("loadavg_1m")
                for r in rs
                if r.get("machine", {}).get("load_before", {}).get("loadavg_1m") is not None
            ]
            short = sum(r.get("spectator_moves_short", 0) for r in rs)
            gone = sum(sum(r.get("spectator_disconnects_by_code", {}).values()) for r in rs)
            db = args.db if args.nodes == 1 else f"{args.db}, {args.nodes} game nodes"
            lines.append(
                "| "
                + " | ".join(
                    [
                        db if kind == "game" else "-",
                        str(tables),
                        str(args.spectators),
                        str(args.watched_tables),
                        kind,
                        _spread([r.get("watched_moves", 0) for r in rs]),
                        " / ".join(
                            _spread(fig("spectator_last_ms", k), "{:.1f}")
                            for k in ("p50", "p99", "max")
                        ),
                        " / ".join(
                            _spread(fig("spectator_first_ms", k), "{:.1f}") for k in ("p50", "p99")
                        ),
                        " / ".join(
                            _spread(fig("watched_rt_event_ms", k), "{:.1f}") for k in ("p50", "p99")
                        ),
                        _spread(cpu(rs), "{:.2f}"),
                        ratio_cpu,
                        ratio_rt,
                        f"{short} / {gone}",
                        _spread([r.get("spectator_setup_s", 0) for r in rs], "{:.0f}"),
                        _spread(loads, "{:.1f}"),
                    ]
                )
                + " |"
            )
    return lines


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description="game server vs relay, same generator, same run")
    p.add_argument("--db", choices=["sqlite", "postgres"], default="sqlite")
    p.add_argument(
        "--nodes",
        type=int,
        default=1,
        help="game server nodes (2 or more: with Redis between them; needs --db postgres)",
    )
    p.add_argument(
        "--sockets",
        choices=["room", "spread"],
        default="room",
        help="several nodes: a table's seats on its own node, or over every node (load.py)",
    )
    p.add_argument("--tables", default="25,100,250", help="comma list")
    p.add_argument("--think", type=float, default=0.0)
    p.add_argument("--afk", type=float, default=0.0)
    p.add_argument("--turn-seconds", type=int, default=60)
    p.add_argument("--mode", default="tunggal")
    p.add_argument("--spectators", type=int, default=0, help="spectator sockets (load.py)")
    p.add_argument("--watched-tables", type=int, default=1, help="tables they watch (load.py)")
    p.add_argument("--duration", type=float, default=20.0)
    p.add_argument("--warmup", type=float, default=5.0)
    p.add_argument("--repeat", type=int, default=1)
    p.add_argument("--targets", default="game,relay")
    p.add_argument("--server-cpu", default="0")
    p.add_argument("--generator-cpu", default="1")
    p.add_argument("--nice", type=int, default=0, help="nice level for servers and generator")
    p.add_argument("--server-root", default=None, metavar="DIR", help="game server from DIR")
    p.add_argument("--server-env", action="append", default=[], metavar="KEY=VALUE")
    p.add_argument("--profile", default=None, metavar="DIR")
    p.add_argument("--py-spy", default=None, metavar="PATH", help="py-spy to --profile with")
    p.add_argument(
        "--profile-gil",
        action="store_true",
        help="sample only the thread holding the GIL (Python CPU; hides time in C that drops it)",
    )
    p.add_argument("--json", default=None)
    p.add_argument("--markdown", default=None)
    p.add_argument(
        "--hotspots",
        default=None,
        metavar="RAW",
        help="only print the hotspots of an existing py-spy raw profile",
    )
    args = p.parse_args(argv)
    if args.nodes < 1:
        p.error("--nodes must be at least 1")
    if args.nodes > 1 and args.db != "postgres":
        p.error("--nodes 2 or more needs --db postgres (the nodes share one database)")
    if args.hotspots:
        print("\n".join(hotspots(Path(args.hotspots), top=30)))
        return 0
    if (os.cpu_count() or 1) < 2:
        args.server_cpu = args.generator_cpu = None

    targets = [t for t in args.targets.split(",") if t]
    counts = [int(x) for x in args.tables.split(",") if x]
    results: list[dict[str, Any]] = []
    with tempfile.TemporaryDirectory(prefix="gaple-bench-") as tmp:
        workdir = Path(tmp)
        for rep in range(args.repeat):
            order = targets if rep % 2 == 0 else list(reversed(targets))
            for tables in counts:
                for kind in order:
                    nodes = f", {args.nodes} nodes" if kind == "game" and args.nodes > 1 else ""
                    print(
                        f"run: repeat {rep + 1}/{args.repeat}: {kind} ({args.db}{nodes}) "
                        f"{tables} tables, think {args.think:g}",
                        flush=True,
                    )
                    results.append(run_point(kind, tables, args, workdir, f"r{rep}"))
    lines = table_rows(results, args)
    lines += ["", *spectator_rows(results, args)]
    print("\n".join(lines))
    if args.json:
        Path(args.json).write_text(json.dumps({"args": vars(args), "results": results}, indent=2))
    if args.markdown:
        Path(args.markdown).write_text("\n".join(lines) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())

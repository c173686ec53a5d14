"""Driver for issue #7: the game server and the bare relay, driven the same way in the same run.

    .venv/bin/python bench/run.py --db sqlite --tables 25,100,250 --think 0 \
        --warmup 5 --duration 20 [--repeat 2] [--json results.json] [--markdown table.md]

For each repeat and each table count it starts a fresh game server (``python -m app.cli serve``
with a new SQLite file, or a new PostgreSQL database ``gaple_bench_<random>`` that it drops
afterwards) and then the relay (bench/relay.py) -- or the other way round on odd repeats, so slow
drift in the machine's background load hits both -- each pinned to CPU 0 with ``taskset``, and runs
bench/load.py against it pinned to CPU 1. Then it prints one row per point with the game server as a
ratio of the relay (median over the repeats, and the spread).

Server settings for the game (``GAPLE_*``, app/settings.py):
* always: ``GAPLE_MIGRATE_ON_START=true``, ``GAPLE_REDIS_URL=`` (one node), log level warning
  (the relay too) so that no per-request logging is measured;
* flood (``--think 0``): ``GAPLE_WS_MESSAGES_PER_SECOND=100000`` and ``GAPLE_WS_BURST=100000``
  (the default 10/s per socket is a human's limit; a flooding seat sends more), and
  ``GAPLE_DEAL_PAUSE_SECONDS=0`` (else a 5 s pause between deals, which the relay does not have,
  would dominate);
* with think time: the defaults (rate limit 10/s, burst 20, 5 s between deals).
``--server-env KEY=VALUE`` adds or overrides any of them.

``--profile DIR`` attaches ``py-spy record`` (``.venv/bin/pip install py-spy``) to each server
under test for the measured window only, writes the raw collapsed stacks there and prints the
hotspots (``--profile-gil``: only samples holding the GIL; ``--hotspots RAW`` re-reads a file).
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
import socket
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path
from typing import Any

import httpx

ROOT = Path(__file__).resolve().parents[1]

# SESSION: with kernel.sched_autogroup_enabled=1 (as on the project's machines) the scheduler
# shares a CPU fairly between *sessions*, not processes. Started in this script's session, the
# server and the generator would share one session's share against every other session on the
# machine (other test runs). Each gets a session of its own, as a real server would have.
PG_ADMIN = "postgresql://postgres@127.0.0.1:5432/postgres"


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


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


# --- servers ---------------------------------------------------------------------------------


class Server:
    def __init__(self, kind: str, args: argparse.Namespace, workdir: Path) -> None:
        self.kind = kind  # "game" or "relay"
        self.args = args
        self.port = free_port()
        self.workdir = workdir
        self.proc: subprocess.Popen[bytes] | None = None
        self.pg_name: str | None = None
        self.log_path = workdir / f"{kind}-{self.port}.log"

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def start(self) -> None:
        args = self.args
        env = dict(os.environ)
        if self.kind == "game":
            data_dir = self.workdir / f"data-{self.port}"
            data_dir.mkdir(parents=True, exist_ok=True)
            if args.db == "postgres":
                self.pg_name = pg_create()
                db_url = f"postgresql+asyncpg://postgres@127.0.0.1:5432/{self.pg_name}"
            else:
                db_url = f"sqlite+aiosqlite:///{data_dir / 'gaple.sqlite3'}"
            env.update(
                GAPLE_DATABASE_URL=db_url,
                GAPLE_DATA_DIR=str(data_dir),
                GAPLE_SECRET_KEY="bench-secret",
                GAPLE_MIGRATE_ON_START="true",
                GAPLE_REDIS_URL="",
            )
            if args.think == 0:
                env.update(
                    GAPLE_WS_MESSAGES_PER_SECOND="100000",
                    GAPLE_WS_BURST="100000",
                    GAPLE_DEAL_PAUSE_SECONDS="0",
                )
            for item in args.server_env:
                key, _, value = item.partition("=")
                env[key] = value
            cmd = [
                sys.executable,
                "-m",
                "app.cli",
                "serve",
                "--port",
                str(self.port),
                "--log-level",
                "warning",
            ]
        else:
            cmd = [
                sys.executable,
                str(ROOT / "bench" / "relay.py"),
                "--port",
                str(self.port),
                "--log-level",
                "warning",
            ]
        # --server-root: run the game server from another copy of the tree (an A/B experiment
        # on a patched copy, leaving this tree alone); `python -m app.cli` imports from its cwd.
        cwd = Path(args.server_root) if (self.kind == "game" and args.server_root) else ROOT
        with self.log_path.open("ab") as log:
            self.proc = subprocess.Popen(
                pinned(args.server_cpu, args.nice, cmd),
                cwd=cwd,
                env=env,
                stdout=log,
                stderr=subprocess.STDOUT,
                start_new_session=True,  # its own autogroup: see SESSION below
            )
        deadline = time.monotonic() + 90
        while time.monotonic() < deadline:
            if self.proc.poll() is not None:
                raise RuntimeError(
                    f"{self.kind} exited early:\n{self.log_path.read_text()[-3000:]}"
                )
            try:
                if httpx.get(f"{self.url}/api/health", timeout=2).status_code == 200:
                    return
            except httpx.HTTPError:
                pass
            time.sleep(0.2)
        raise RuntimeError(f"{self.kind} did not come up")

    @property
    def pid(self) -> int:
        assert self.proc is not None
        return self.proc.pid  # taskset/nice exec the server: same pid

    def stop(self) -> None:
        try:
            if self.proc is not None and self.proc.poll() is None:
                self.proc.send_signal(signal.SIGINT)
                try:
                    self.proc.wait(timeout=30)
                except subprocess.TimeoutExpired:
                    self.proc.kill()
                    self.proc.wait(timeout=10)
        finally:
            if self.pg_name is not None:
                try:
                    pg_drop(self.pg_name)
                except Exception as exc:  # report, keep going
                    print(f"run: could not drop database {self.pg_name}: {exc}", file=sys.stderr)


# --- one measurement ---------------------------------------------------------------------------


def run_point(
    kind: str, tables: int, args: argparse.Namespace, workdir: Path, tag: str
) -> dict[str, Any]:
    server = Server(kind, args, workdir)
    server.start()
    out = workdir / f"{tag}-{kind}-{tables}.json"
    profiler: subprocess.Popen[bytes] | None = None
    try:
        cmd = [
            sys.executable,
            str(ROOT / "bench" / "load.py"),
            "--url",
            server.url,
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
            "--server-pid",
            str(server.pid),
            "--json",
            str(out),
            "--label",
            f"{kind}/{args.db if kind == 'game' else '-'}",
        ]
        if server.pg_name:
            cmd += ["--db-name", server.pg_name]
        gen = subprocess.Popen(
            pinned(args.generator_cpu, args.nice, cmd),
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
                profiler = start_profiler(
                    server.pid, args, Path(args.profile), f"{tag}-{kind}-{tables}"
                )
        gen.wait()
        timer.cancel()
        if profiler is not None:
            profiler.wait(timeout=args.duration + 60)
            raw = Path(args.profile) / f"{tag}-{kind}-{tables}.txt"
            if raw.exists():
                report = hotspots(raw)
                (Path(args.profile) / f"{tag}-{kind}-{tables}-hotspots.txt").write_text(
                    "\n".join(report) + "\n"
                )
                print("\n".join("    " + x for x in report[:40]), flush=True)
        if gen.returncode != 0 or not out.exists():
            raise RuntimeError(f"load.py failed ({gen.returncode}); server log {server.log_path}")
        result: dict[str, Any] = json.loads(out.read_text())
        result["kind"] = kind
        result["db"] = args.db if kind == "game" else None
        return result
    finally:
        server.stop()


def start_profiler(
    pid: int, args: argparse.Namespace, outdir: Path, tag: str
) -> subprocess.Popen[bytes]:
    outdir.mkdir(parents=True, exist_ok=True)
    spy = shutil.which("py-spy") or str(Path(sys.executable).parent / "py-spy")
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
        lines.append(
            "| "
            + " | ".join(
                [
                    args.db,
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
                ]
            )
            + " |"
        )
    return lines


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description="game server vs relay, same generator, same run")
    p.add_argument("--db", choices=["sqlite", "postgres"], default="sqlite")
    p.add_argument("--tables", default="25,100,250", help="comma list")
    p.add_argument("--think", type=float, default=0.0)
    p.add_argument("--afk", type=float, default=0.0)
    p.add_argument("--turn-seconds", type=int, default=60)
    p.add_argument("--mode", default="tunggal")
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
                    print(
                        f"run: repeat {rep + 1}/{args.repeat}: {kind} ({args.db}) "
                        f"{tables} tables, think {args.think:g}",
                        flush=True,
                    )
                    results.append(run_point(kind, tables, args, workdir, f"r{rep}"))
    lines = table_rows(results, args)
    print("\n".join(lines))
    if args.json:
        Path(args.json).write_text(json.dumps({"args": vars(args), "results": results}, indent=2))
    if args.markdown:
        Path(args.markdown).write_text("\n".join(lines) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())

"""Where a game server's memory goes: tracemalloc snapshots of a real ``gaple serve``, before
the first socket and with N tables in play, and the difference grouped by file or by line.

    .venv/bin/python bench/table_memory.py --tables 250 --think 2 --warmup 30 [--top 40]
    .venv/bin/python bench/table_memory.py --compare A.snap B.snap --group lineno

The server runs under ``python -X tracemalloc=F`` (F frames per allocation, ``--frames``) through
this file's ``--serve`` mode, which takes a snapshot on SIGUSR1 into ``--out``; bench/load.py
plays the tables (think time as bench/run.py gives it). The first snapshot is taken once the
server answers, the second after ``--warmup`` seconds of play. tracemalloc sees what Python's
allocators hand out, not the RSS: the interpreter's own structures, C libraries' mallocs, thread
stacks and freed-but-kept arenas are the difference. Both are printed (RSS from /proc), and per
table and per socket. tracemalloc slows the server ~2x: keep the table count modest.
"""

from __future__ import annotations

import argparse
import os
import signal
import subprocess
import sys
import time
import tracemalloc
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))


def serve(out: str, argv: list[str]) -> int:
    """``gaple serve`` with a snapshot into ``out``.<n> on each SIGUSR1."""
    count = 0

    def dump(_signum: int, _frame: object) -> None:
        nonlocal count
        count += 1
        path = f"{out}.{count}"
        tracemalloc.take_snapshot().dump(path + ".tmp")
        os.replace(path + ".tmp", path)

    signal.signal(signal.SIGUSR1, dump)
    from app.cli import main

    return main(["serve", *argv])


def rss_mb(pid: int) -> float:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    return 0.0


def threads(pid: int) -> int:
    return len(os.listdir(f"/proc/{pid}/task"))


def snapshot(pid: int, out: str, n: int, timeout: float = 120) -> tracemalloc.Snapshot:
    os.kill(pid, signal.SIGUSR1)
    path = Path(f"{out}.{n}")
    deadline = time.monotonic() + timeout
    while not path.exists():
        if time.monotonic() > deadline:
            raise TimeoutError(f"no snapshot {path}")
        time.sleep(0.2)
    return tracemalloc.Snapshot.load(str(path))


def compare(
    before: tracemalloc.Snapshot, after: tracemalloc.Snapshot, group: str, top: int, per: int
) -> None:
    keep = (
        tracemalloc.Filter(False, tracemalloc.__file__),
        tracemalloc.Filter(False, "<frozen importlib._bootstrap*"),
    )
    before, after = before.filter_traces(keep), after.filter_traces(keep)
    total = sum(s.size for s in after.statistics("filename")) - sum(
        s.size for s in before.statistics("filename")
    )
    print(
        f"traced growth {total / 2**20:.1f} MB"
        + (f" = {total / per:.0f} B per unit" if per else "")
    )
    for stat in after.compare_to(before, group)[:top]:
        frame = stat.traceback[0]
        where = (
            f"{_short(frame.filename)}:{frame.lineno}"
            if group != "filename"
            else _short(frame.filename)
        )
        unit = f" {stat.size_diff / per:8.0f} B/unit" if per else ""
        print(f"{stat.size_diff / 1024:10.1f} KB {stat.count_diff:+9d} blocks{unit}  {where}")


def top_files(snap: tracemalloc.Snapshot, top: int) -> None:
    stats = snap.statistics("filename")
    print(f"traced total {sum(s.size for s in stats) / 2**20:.1f} MB")
    for stat in stats[:top]:
        print(
            f"{stat.size / 1024:10.1f} KB {stat.count:9d} blocks  "
            f"{_short(stat.traceback[0].filename)}"
        )


def _short(path: str) -> str:
    for marker in ("site-packages/", str(ROOT) + "/"):
        if marker in path:
            return path.split(marker, 1)[1]
    return path


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    p.add_argument("--serve", metavar="OUT", help=argparse.SUPPRESS)
    p.add_argument("--compare", nargs=2, metavar="SNAP")
    p.add_argument("--tables", type=int, default=250)
    p.add_argument("--think", type=float, default=2.0)
    p.add_argument("--afk", type=float, default=0.02)
    p.add_argument("--warmup", type=float, default=30.0, help="seconds of play before snapshot 2")
    p.add_argument("--frames", type=int, default=1, help="tracemalloc frames per allocation")
    p.add_argument("--group", default="filename", choices=["filename", "lineno", "traceback"])
    p.add_argument("--top", type=int, default=30)
    p.add_argument("--server-root", default=str(ROOT), help="the tree to serve")
    p.add_argument("--workdir", default="/tmp/table_memory")
    args, rest = p.parse_known_args()
    if args.serve:
        return serve(args.serve, rest)
    if args.compare:
        a, b = (tracemalloc.Snapshot.load(path) for path in args.compare)
        compare(a, b, args.group, args.top, 0)
        return 0

    from tests.server import ServerProcess, free_port

    work = Path(args.workdir)
    work.mkdir(parents=True, exist_ok=True)
    for old in work.glob("snap.*"):
        old.unlink()
    data = work / f"data-{os.getpid()}"
    data.mkdir()
    port = free_port()
    db_url = f"sqlite+aiosqlite:///{data / 'gaple.sqlite3'}"
    env = dict(os.environ) | {
        "GAPLE_DATABASE_URL": db_url,
        "GAPLE_DATA_DIR": str(data),
        "GAPLE_SECRET_KEY": "bench-secret",
        "GAPLE_MIGRATE_ON_START": "false",
        "GAPLE_REDIS_URL": "",
        "GAPLE_RATE_GUESTS": "1000000/minute",
        "GAPLE_RATE_ROOMS": "1000000/minute",
        "GAPLE_RATE_QUICKPLAY": "1000000/minute",
        "GAPLE_RATE_SEATS": "1000000/minute",
        "GAPLE_MAX_SOCKETS_PER_ADDRESS": "1000000",
        "PYTHONPATH": args.server_root,
    }
    subprocess.run(
        [sys.executable, "-m", "app.cli", "migrate"], cwd=args.server_root, env=env, check=True
    )
    out = str(work / "snap")
    server = ServerProcess(
        db_url,
        data,
        port=port,
        command=[sys.executable, "-X", f"tracemalloc={args.frames}", __file__, "--serve", out],
        args=["--log-level", "warning"],
        cwd=args.server_root,
        base_env=env,
        ready_path="/readyz",
        log_path=work / "server.log",
    )
    server.start(timeout=120)
    pid = server.process.pid
    try:
        time.sleep(1)
        rss0, threads0 = rss_mb(pid), threads(pid)
        before = snapshot(pid, out, 1)
        print(f"idle: RSS {rss0:.1f} MB, {threads0} threads")
        top_files(before, args.top)
        load = subprocess.Popen(
            [
                sys.executable,
                str(ROOT / "bench" / "load.py"),
                "--url",
                f"http://127.0.0.1:{port}",
                "--tables",
                str(args.tables),
                "--think",
                str(args.think),
                "--afk",
                str(args.afk),
                "--turn-seconds",
                "15",
                "--warmup",
                str(args.warmup + 600),  # it never reaches its window: stopped below
                "--duration",
                "10",
            ],
            stdout=subprocess.DEVNULL,
        )
        # Wait for the sockets (4 per table) to be there, then play for --warmup seconds.
        deadline = time.monotonic() + 600
        while time.monotonic() < deadline and _sockets(pid) < 4 * args.tables:
            time.sleep(1)
        time.sleep(args.warmup)
        rss1, threads1 = rss_mb(pid), threads(pid)
        after = snapshot(pid, out, 2)
        sockets = _sockets(pid)
        print(f"\nplaying: RSS {rss1:.1f} MB, {threads1} threads, {sockets} sockets")
        print(
            f"RSS growth {rss1 - rss0:.1f} MB = {(rss1 - rss0) * 2**20 / max(1, sockets):.0f} B"
            f" per socket, {(rss1 - rss0) * 2**20 / args.tables:.0f} B per table"
        )
        compare(before, after, args.group, args.top, args.tables)
        load.terminate()
        load.wait()
    finally:
        server.stop()
    return 0


def _sockets(pid: int) -> int:
    """Established TCP connections of the server (its sockets to clients)."""
    count = 0
    for name in os.listdir(f"/proc/{pid}/fd"):
        try:
            if os.readlink(f"/proc/{pid}/fd/{name}").startswith("socket:"):
                count += 1
        except OSError:
            pass
    return count


if __name__ == "__main__":
    sys.exit(main())

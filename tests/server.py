"""Start a real server (``gaple serve``: uvicorn in a process of its own) and wait until it is
ready. The one way the tests and the benchmarks (bench/run.py) start servers."""

from __future__ import annotations

import os
import signal
import socket
import subprocess
import sys
import time
from collections.abc import Mapping, Sequence
from pathlib import Path

import httpx

SERVE = (sys.executable, "-m", "app.cli", "serve")


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


class ServerProcess:
    """``gaple serve --port PORT`` on ``database_url``, logging to ``data_dir/server-PORT.log``.

    ``command``: what runs instead of ``python -m app.cli serve`` (an installed ``gaple serve``,
    a pinned or niced wrapper). ``base_env``: the environment to start from (default: this
    process's); ``env``: GAPLE_* settings added on top. ``ready_path`` answers 200 once the server
    takes traffic."""

    def __init__(
        self,
        database_url: str,
        data_dir: Path,
        *,
        port: int | None = None,
        command: Sequence[str] = SERVE,
        args: Sequence[str] = (),
        cwd: Path | None = None,
        base_env: Mapping[str, str] | None = None,
        ready_path: str = "/readyz",
        new_session: bool = False,
        log_path: Path | None = None,
        **env: str,
    ) -> None:
        self.database_url = database_url
        self.data_dir = data_dir
        self.port = port or free_port()
        self.command = [*command, "--port", str(self.port), *args]
        self.cwd = cwd
        self.base_env = dict(os.environ if base_env is None else base_env)
        self.extra_env = env
        self.ready_path = ready_path
        self.new_session = new_session
        self.process: subprocess.Popen[bytes] | None = None
        self.log_path = log_path or data_dir / f"server-{self.port}.log"

    @property
    def base_url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def ws_url(self, code: str) -> str:
        return f"ws://127.0.0.1:{self.port}/ws/rooms/{code}"

    @property
    def pid(self) -> int:
        assert self.process is not None
        return self.process.pid

    def environment(self) -> dict[str, str]:
        return {
            **self.base_env,
            "GAPLE_DATABASE_URL": self.database_url,
            "GAPLE_DATA_DIR": str(self.data_dir),
            **self.extra_env,
        }

    def start(self, timeout: float = 60) -> None:
        self.data_dir.mkdir(parents=True, exist_ok=True)
        self.log_path.parent.mkdir(parents=True, exist_ok=True)
        with self.log_path.open("ab") as log:  # the child keeps its own copy of the handle
            self.process = subprocess.Popen(
                self.command,
                env=self.environment(),
                cwd=self.cwd,
                stdout=log,
                stderr=subprocess.STDOUT,
                start_new_session=self.new_session,
            )
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if self.process.poll() is not None:
                raise RuntimeError(f"server exited early:\n{self.log()[-5000:]}")
            try:
                response = httpx.get(f"{self.base_url}{self.ready_path}", timeout=2)
                if response.status_code == 200:
                    return
            except httpx.HTTPError:
                pass
            time.sleep(0.1)
        self.kill()
        raise RuntimeError(f"server did not come up:\n{self.log()[-5000:]}")

    def kill(self, sig: int = signal.SIGKILL, timeout: float = 30) -> int | None:
        """Send ``sig`` and wait for the process to end; its exit status (None: not running)."""
        if self.process is None or self.process.poll() is not None:
            return None if self.process is None else self.process.returncode
        self.process.send_signal(sig)
        try:
            return self.process.wait(timeout=timeout)
        except subprocess.TimeoutExpired:
            self.process.kill()
            return self.process.wait(timeout=10)

    def stop(self) -> int | None:
        return self.kill(signal.SIGTERM)

    def log(self) -> str:
        return self.log_path.read_text(errors="replace") if self.log_path.exists() else ""


class RedisServer:
    """A ``redis-server`` of the caller's own on a free port of 127.0.0.1, without persistence, that
    the caller may stop and start again (on the same port) to play a Redis restart. Never the
    shared server: tests and benchmarks cut only what they started."""

    def __init__(self, data_dir: Path, *, port: int | None = None) -> None:
        self.data_dir = data_dir
        self.port = port or free_port()
        self.process: subprocess.Popen[bytes] | None = None

    @property
    def url(self) -> str:
        return f"redis://127.0.0.1:{self.port}/0"

    def start(self, timeout: float = 10) -> None:
        self.data_dir.mkdir(parents=True, exist_ok=True)
        command = [
            *("redis-server", "--port", str(self.port), "--bind", "127.0.0.1"),
            *("--save", "", "--appendonly", "no", "--dir", str(self.data_dir)),
        ]
        with (self.data_dir / "redis.log").open("ab") as log:
            self.process = subprocess.Popen(command, stdout=log, stderr=subprocess.STDOUT)
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if self.process.poll() is not None:
                raise RuntimeError(f"redis-server exited early (port {self.port})")
            with socket.socket() as sock:
                sock.settimeout(0.5)
                try:
                    sock.connect(("127.0.0.1", self.port))
                    sock.sendall(b"PING\r\n")
                    if sock.recv(16).startswith(b"+PONG"):
                        return
                except OSError:
                    pass
            time.sleep(0.05)
        self.stop()
        raise RuntimeError(f"redis-server did not come up on port {self.port}")

    def stop(self) -> None:
        """SIGKILL: Redis is gone at once, its keys (leases, counters) with it."""
        if self.process is not None and self.process.poll() is None:
            self.process.kill()
            self.process.wait(timeout=10)

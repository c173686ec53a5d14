"""Run the real server (``gaple serve``, i.e. uvicorn) in a subprocess for end-to-end tests."""

from __future__ import annotations

import os
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path

import httpx

TEST_SECRET = "live-test-secret"


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


class ServerProcess:
    def __init__(
        self, database_url: str, data_dir: Path, *, port: int | None = None, **env: str
    ) -> None:
        self.database_url = database_url
        self.data_dir = data_dir
        self.port = port or free_port()
        self.extra_env = env
        self.process: subprocess.Popen[bytes] | None = None
        self.log_path = data_dir / f"server-{self.port}.log"

    @property
    def base_url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def ws_url(self, code: str) -> str:
        return f"ws://127.0.0.1:{self.port}/ws/rooms/{code}"

    def start(self) -> None:
        self.data_dir.mkdir(parents=True, exist_ok=True)
        env = {
            **os.environ,
            "GAPLE_DATABASE_URL": self.database_url,
            "GAPLE_DATA_DIR": str(self.data_dir),
            "GAPLE_SECRET_KEY": TEST_SECRET,
            "GAPLE_MIGRATE_ON_START": "true",
            "GAPLE_DEAL_PAUSE_SECONDS": "0.05",
            "GAPLE_BOT_MIN_DELAY": "0.02",
            "GAPLE_BOT_MAX_DELAY": "0.05",
            "GAPLE_REDIS_URL": "",
            # Test clients play at machine speed; the flood test still trips this.
            "GAPLE_WS_MESSAGES_PER_SECOND": "100",
            "GAPLE_WS_BURST": "50",
            **self.extra_env,
        }
        with self.log_path.open("ab") as log:  # the child keeps its own copy of the handle
            self.process = subprocess.Popen(
                [sys.executable, "-m", "app.cli", "serve", "--port", str(self.port)],
                env=env,
                stdout=log,
                stderr=subprocess.STDOUT,
            )
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline:
            if self.process.poll() is not None:
                raise RuntimeError(f"server exited early:\n{self.log()}")
            try:
                if httpx.get(f"{self.base_url}/api/health", timeout=1).status_code == 200:
                    return
            except httpx.HTTPError:
                pass
            time.sleep(0.1)
        raise RuntimeError(f"server did not come up:\n{self.log()}")

    def kill(self, sig: int = signal.SIGKILL) -> None:
        if self.process is not None and self.process.poll() is None:
            self.process.send_signal(sig)
            self.process.wait(timeout=30)

    def stop(self) -> None:
        self.kill(signal.SIGTERM)

    def log(self) -> str:
        return self.log_path.read_text(errors="replace") if self.log_path.exists() else ""

"""The real server (``gaple serve``, i.e. uvicorn) in a subprocess for end-to-end tests: the shared
helper (tests/server.py) with fast game pacing for test clients."""

from __future__ import annotations

from pathlib import Path

from tests.server import ServerProcess as _ServerProcess
from tests.server import free_port

__all__ = ["TEST_SECRET", "ServerProcess", "free_port"]

TEST_SECRET = "live-test-secret-at-least-32-bytes-long"

LIVE_DEFAULTS = {
    "GAPLE_SECRET_KEY": TEST_SECRET,
    "GAPLE_MIGRATE_ON_START": "true",
    "GAPLE_DEAL_PAUSE_SECONDS": "0.05",
    "GAPLE_BOT_MIN_DELAY": "0.02",
    "GAPLE_BOT_MAX_DELAY": "0.05",
    "GAPLE_REDIS_URL": "",
    # Test clients play at machine speed; the flood test still trips this.
    "GAPLE_WS_MESSAGES_PER_SECOND": "100",
    "GAPLE_WS_BURST": "50",
}


class ServerProcess(_ServerProcess):
    def __init__(
        self, database_url: str, data_dir: Path, *, port: int | None = None, **env: str
    ) -> None:
        super().__init__(database_url, data_dir, port=port, **(LIVE_DEFAULTS | env))

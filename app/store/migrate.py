"""Run Alembic from code: ``gaple migrate``, the embedded startup, and the tests use this."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:  # Alembic is imported when a migration runs, not by every server process.
    from alembic.config import Config

# Inside the package, so an installed wheel has it as well as a checkout.
MIGRATIONS_DIR = Path(__file__).resolve().parents[1] / "migrations"


def alembic_config(url: str) -> Config:
    from alembic.config import Config

    config = Config()
    config.set_main_option("script_location", str(MIGRATIONS_DIR))
    config.attributes["url"] = url
    config.attributes["embedded"] = True
    return config


def upgrade(url: str, revision: str = "head") -> None:
    """Blocking: env.py runs its own event loop, so call this via ``asyncio.to_thread`` from async
    code."""
    from alembic import command

    command.upgrade(alembic_config(url), revision)


def downgrade(url: str, revision: str = "base") -> None:
    from alembic import command

    command.downgrade(alembic_config(url), revision)


def heads() -> frozenset[str]:
    """The revisions a migrated database is at: the heads of app/migrations (read once)."""
    global _heads
    if _heads is None:
        from alembic.script import ScriptDirectory

        script = ScriptDirectory(str(MIGRATIONS_DIR))
        _heads = frozenset(script.get_heads())
    return _heads


_heads: frozenset[str] | None = None

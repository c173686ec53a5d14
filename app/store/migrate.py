"""Run Alembic from code: ``gaple migrate``, the embedded startup, and the tests use this."""

from __future__ import annotations

import ast
from pathlib import Path
from typing import TYPE_CHECKING, Any

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
    """The revisions a migrated database is at: the heads of app/migrations (read once), the
    revisions no other one revises.

    Read from the migration files' own ``revision`` and ``down_revision`` assignments, without
    Alembic: every health check asks, and Alembic would stay in a serving node's memory (11 MB)
    for the sake of a list of names. tests/app/test_migrations.py holds this to Alembic's own
    ``ScriptDirectory.get_heads()``."""
    global _heads
    if _heads is None:
        revisions: set[str] = set()
        revised: set[str] = set()
        for path in (MIGRATIONS_DIR / "versions").glob("*.py"):
            found = _assignments(path, ("revision", "down_revision"))
            revisions.add(found["revision"])
            down = found.get("down_revision")
            revised.update([down] if isinstance(down, str) else down or ())
        _heads = frozenset(revisions - revised)
    return _heads


def _assignments(path: Path, names: tuple[str, ...]) -> dict[str, Any]:
    """The literal values a module assigns to ``names`` at its top level (``x = ...`` or
    ``x: T = ...``)."""
    found: dict[str, Any] = {}
    for node in ast.parse(path.read_text(encoding="utf-8")).body:
        if isinstance(node, ast.Assign) and len(node.targets) == 1:
            target, value = node.targets[0], node.value
        elif isinstance(node, ast.AnnAssign) and node.value is not None:
            target, value = node.target, node.value
        else:
            continue
        if isinstance(target, ast.Name) and target.id in names:
            found[target.id] = ast.literal_eval(value)
    return found


_heads: frozenset[str] | None = None

"""Migrations on SQLite and PostgreSQL: up, down, up again, and no drift from the models."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path
from typing import Any

from alembic.autogenerate import compare_metadata
from alembic.migration import MigrationContext
from alembic.script import ScriptDirectory
from sqlalchemy import inspect

from app.store import migrate
from app.store.db import create_engine
from app.store.models import Base
from tests.conftest import run_async

ROOT = Path(__file__).resolve().parents[2]

TABLES = {
    *("players", "rooms", "seats", "game_sets", "deals", "moves", "scores"),
    *("accounts", "player_sessions", "set_players", "ratings", "rating_changes"),
    "deployment_marks",
    "deal_analyses",
    *("friendships", "blocks", "notifications"),
    *("tournaments", "tournament_entries", "tournament_rounds", "tournament_tables"),
    *("challenges", "challenge_invitees", "parties"),
    *("reports", "mutes", "audit_log"),
    "chat_log",
    *("clubs", "club_members", "club_requests", "tournament_clubs"),
}


def _inspect(url: str) -> tuple[set[str], list[Any]]:
    """(table names, autogenerate diff against the models)."""

    def look(sync_conn: Any) -> tuple[set[str], list[Any]]:
        context = MigrationContext.configure(sync_conn, opts={"compare_type": True})
        tables = set(inspect(sync_conn).get_table_names()) - {"alembic_version"}
        return tables, compare_metadata(context, Base.metadata)

    async def go() -> tuple[set[str], list[Any]]:
        engine = create_engine(url)
        try:
            async with engine.connect() as conn:
                return await conn.run_sync(look)
        finally:
            await engine.dispose()

    return run_async(go)


def test_upgrade_downgrade_upgrade_and_no_drift(empty_database_url: str) -> None:
    migrate.upgrade(empty_database_url)
    tables, diff = _inspect(empty_database_url)
    assert tables == TABLES
    assert diff == []

    migrate.downgrade(empty_database_url, "base")
    tables, _ = _inspect(empty_database_url)
    assert tables == set()

    migrate.upgrade(empty_database_url)
    tables, diff = _inspect(empty_database_url)
    assert tables == TABLES
    assert diff == [], f"models and migrations differ: {diff}"


def test_heads_are_alembics_own_read_without_alembic() -> None:
    """The health check's list of head revisions matches Alembic's, and reading it leaves
    Alembic out of the process (a serving node answers health checks all day)."""
    assert migrate.heads() == frozenset(ScriptDirectory(str(migrate.MIGRATIONS_DIR)).get_heads())
    code = (
        "import sys\n"
        "from app.store import migrate\n"
        "heads = migrate.heads()\n"
        "assert heads and not any(m.split('.')[0] == 'alembic' for m in sys.modules), heads\n"
    )
    subprocess.run([sys.executable, "-c", code], check=True, cwd=ROOT)


def test_heads_of_a_branched_and_merged_history(tmp_path: Path, monkeypatch: Any) -> None:
    """Two revisions on one parent are two heads; a merge revision (a tuple of parents) makes
    them one again: the same answer as Alembic's on the same files."""
    versions = tmp_path / "versions"
    versions.mkdir()
    files = {
        "a.py": 'revision = "a"\ndown_revision = None\n',
        "b.py": 'revision: str = "b"\ndown_revision: str | None = "a"\n',
        "c.py": 'revision = "c"\ndown_revision = "a"\n',
    }
    for name, text in files.items():
        (versions / name).write_text(text + "def upgrade():\n    pass\n")
    (tmp_path / "script.py.mako").write_text("")
    monkeypatch.setattr(migrate, "MIGRATIONS_DIR", tmp_path)
    monkeypatch.setattr(migrate, "_heads", None)
    assert migrate.heads() == {"b", "c"} == set(ScriptDirectory(str(tmp_path)).get_heads())
    (versions / "d.py").write_text('revision = "d"\ndown_revision = ("b", "c")\n')
    monkeypatch.setattr(migrate, "_heads", None)
    assert migrate.heads() == {"d"} == set(ScriptDirectory(str(tmp_path)).get_heads())

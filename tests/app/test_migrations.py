"""Migrations on SQLite and PostgreSQL: up, down, up again, and no drift from the models."""

from __future__ import annotations

from typing import Any

from alembic.autogenerate import compare_metadata
from alembic.migration import MigrationContext
from sqlalchemy import inspect

from app.store import migrate
from app.store.db import create_engine
from app.store.models import Base
from tests.conftest import run_async

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

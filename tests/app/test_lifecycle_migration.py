"""Migration 0003 on SQLite and PostgreSQL: statuses move over, nothing of the history is lost
(SQLite rebuilds the rooms table), and back down again."""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

from sqlalchemy import text

from app.store import migrate
from app.store.db import create_engine
from tests.conftest import run_async

WHEN = datetime(2026, 11, 30, 12, 0, tzinfo=UTC)


async def _run(url: str, *statements: tuple[str, dict[str, Any]]) -> list[list[Any]]:
    engine = create_engine(url)
    out = []
    try:
        async with engine.begin() as conn:
            for sql, params in statements:
                result = await conn.execute(text(sql), params)
                out.append([tuple(row) for row in result] if result.returns_rows else [])
    finally:
        await engine.dispose()
    return out


def _seed(url: str) -> None:
    at = {"at": WHEN}
    run_async(
        lambda: _run(
            url,
            (
                "INSERT INTO players (id, name, token_hash, created_at, last_seen_at) "
                "VALUES ('p', 'P', 'h', :at, :at)",
                at,
            ),
            *(
                (
                    "INSERT INTO rooms (id, code, host_id, settings, status, created_at, "
                    f"updated_at) VALUES ('{rid}', '{rid.upper() * 6}', 'p', '{{}}', "
                    f"'{status}', :at, :at)",
                    at,
                )
                for rid, status in (("f", "finished"), ("g", "playing"), ("o", "open"))
            ),
            ("INSERT INTO seats (room_id, seat, player_id, sat_at) VALUES ('f', 0, 'p', :at)", at),
            ("INSERT INTO seats (room_id, seat, bot, sat_at) VALUES ('f', 1, 'random', :at)", at),
            (
                "INSERT INTO game_sets (room_id, number, rules, started_at) "
                "VALUES ('f', 1, '{}', :at)",
                at,
            ),
        )
    )


def test_migration_0003_up_down_up(empty_database_url: str) -> None:
    url = empty_database_url
    migrate.upgrade(url, "0002")
    _seed(url)
    migrate.upgrade(url)
    rooms, seats, sets = run_async(
        lambda: _run(
            url,
            (
                "SELECT id, status, humans_online, quickplay, closed_reason FROM rooms ORDER BY id",
                {},
            ),
            ("SELECT room_id, seat, player_id, bot, left_by FROM seats ORDER BY seat", {}),
            ("SELECT room_id, number FROM game_sets", {}),
        )
    )
    assert [(r[0], r[1], r[2], bool(r[3]), r[4]) for r in rooms] == [
        ("f", "open", 0, False, None),  # a set that ended: open again for the next
        ("g", "playing", 0, False, None),
        ("o", "open", 0, False, None),
    ]
    assert seats == [("f", 0, "p", None, None), ("f", 1, None, "random", None)]
    assert sets == [("f", 1)]
    # The new statuses hold; the old one no longer does.
    run_async(lambda: _run(url, ("UPDATE rooms SET status = 'closed' WHERE id = 'o'", {})))
    run_async(lambda: _run(url, ("UPDATE rooms SET status = 'abandoned' WHERE id = 'g'", {})))
    try:
        run_async(lambda: _run(url, ("UPDATE rooms SET status = 'finished' WHERE id = 'f'", {})))
    except Exception as exc:  # the check constraint
        assert "ck_rooms_status" in str(exc) or "CHECK" in str(exc).upper()
    else:
        raise AssertionError("status 'finished' was accepted")

    migrate.downgrade(url, "0002")
    [statuses] = run_async(lambda: _run(url, ("SELECT id, status FROM rooms ORDER BY id", {})))
    assert statuses == [("f", "open"), ("g", "finished"), ("o", "finished")]
    [kept] = run_async(lambda: _run(url, ("SELECT count(*) FROM seats", {})))
    assert kept == [(2,)]
    migrate.upgrade(url)

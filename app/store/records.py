"""A table's stored facts as plain data: what the store reads back and what it appends.

The live tables (app/rooms) work on these records; the repositories (app/store/games.py) read and
write them. No ORM object leaves the store as part of a table's state.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime
from typing import Any


class StoreConflict(Exception):
    """Another node has written this table's history since we loaded it: our copy is stale."""


@dataclass(frozen=True)
class SeatInfo:
    seat: int
    player_id: str | None
    name: str | None
    bot: str | None
    left_by: str | None = None  # on a bot's seat: the player who left it and may take it back
    ready: bool = False  # quick play, after a set: this seat's player chose "play again"


@dataclass(frozen=True)
class RoomInfo:
    id: str
    code: str
    host_id: str
    status: str
    settings: dict[str, Any]
    seats: tuple[SeatInfo, ...]
    # (blocker, blocked) for every block between two of the seated players: the blocker hears
    # nothing the blocked one says at this table (app/rooms/talk.py).
    blocks: frozenset[tuple[str, str]] = frozenset()
    # Seated players an operator muted, with when the mute ends (epoch seconds): they may not
    # talk at the table until then (app/rooms/talk.py).
    muted: tuple[tuple[str, float], ...] = ()
    quickplay: bool = False
    bots_at: float | None = None  # quick play: when bots fill and the set starts (epoch seconds)
    # A tournament's table: never abandoned, its absent players' seats go to bots by the clock,
    # and it keeps its chat, rated or not.
    tournament_id: int | None = None
    tournament_round: int | None = None  # the tournament's round this table plays
    tournament_name: str | None = None

    def seat_of(self, player_id: str | None) -> int | None:
        if player_id is None:
            return None
        for seat in self.seats:
            if seat.player_id == player_id:
                return seat.seat
        return None

    def public(self, spectators: int = 0, now: float | None = None) -> dict[str, Any]:
        """The room as a socket's ``room`` and ``welcome`` frames carry it (docs/PROTOCOL.md);
        ``now`` (epoch seconds) counts ``bots_in_ms``, as RoomOut does in REST."""
        bots_in_ms = None
        if self.bots_at is not None and now is not None:
            bots_in_ms = max(0, round((self.bots_at - now) * 1000))
        return {
            "code": self.code,
            "status": self.status,
            "host_id": self.host_id,
            "settings": self.settings,
            "seats": [
                {
                    "seat": s.seat,
                    "player_id": s.player_id,
                    "name": s.name,
                    "bot": s.bot,
                    "left_by": s.left_by,
                    "ready": s.ready,
                }
                for s in self.seats
            ],
            "quickplay": self.quickplay,
            "bots_in_ms": bots_in_ms,
            "spectators": spectators,
            "tournament": self.tournament(),
        }

    def tournament(self) -> dict[str, Any] | None:
        """A tournament's table: ``{"id", "round", "name"}`` (the REST room's ``tournament``
        too, app/api/schemas.py ``RoomTournamentOut``); else None."""
        if self.tournament_id is None:
            return None
        return {
            "id": self.tournament_id,
            "round": self.tournament_round,
            "name": self.tournament_name,
        }


@dataclass(frozen=True)
class StoredMove:
    seq: int
    seat: int
    tile: str
    end: str | None
    auto: bool
    client_move_id: str | None
    created_at: datetime


@dataclass(frozen=True)
class StoredDeal:
    id: int
    number: int
    source: int | str  # what the engine deals it from: a secret (fair deals), or a seed
    started_at: datetime
    ended: bool
    moves: list[StoredMove] = field(default_factory=list)


@dataclass(frozen=True)
class StoredSet:
    id: int
    number: int
    rules: dict[str, Any]
    ended: bool
    deals: list[StoredDeal]
    # (seat, client move id) of the moves of the room's earlier sets
    earlier_move_ids: tuple[tuple[int, str], ...] = ()


@dataclass(frozen=True)
class MoveRecord:
    """One placement to append, with what it concluded (stored in the same transaction)."""

    deal_id: int
    seq: int
    seat: int
    tile: str
    end: str | None
    auto: bool
    client_move_id: str | None
    at: datetime
    deal_result: dict[str, Any] | None = None
    set_id: int | None = None
    set_result: dict[str, Any] | None = None
    scores: list[int] | None = None

"""What the room actor needs from storage, as plain data (implemented in app/store/games.py)."""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime
from typing import Any, Protocol


class StoreConflict(Exception):
    """Another node has written this table's history since we loaded it: our copy is stale."""


@dataclass(frozen=True)
class SeatInfo:
    seat: int
    player_id: str | None
    name: str | None
    bot: str | None
    left_by: str | None = None  # on a bot's seat: the player who left it and may take it back


@dataclass(frozen=True)
class RoomInfo:
    id: str
    code: str
    host_id: str
    status: str
    settings: dict[str, Any]
    seats: tuple[SeatInfo, ...]

    def seat_of(self, player_id: str | None) -> int | None:
        if player_id is None:
            return None
        for seat in self.seats:
            if seat.player_id == player_id:
                return seat.seat
        return None

    def public(self, spectators: int = 0) -> dict[str, Any]:
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
                }
                for s in self.seats
            ],
            "spectators": spectators,
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


class GameStore(Protocol):
    """Storage for live tables. A room's status and host change only through
    app/rooms/lifecycle.py: ``end_set``, ``abandon``, ``hand_over_host`` and ``touch`` are its
    transitions, each in a transaction of its own."""

    async def load_room(self, room_id: str) -> RoomInfo | None: ...

    async def end_set(self, room_id: str) -> None: ...

    async def abandon(self, room_id: str, *, set_id: int | None, at: datetime) -> None:
        """The table stops; its current set (if any) is stored as abandoned, moves kept."""
        ...

    async def hand_over_host(self, room_id: str) -> str | None: ...

    async def touch(self, room_id: str, *, humans_online: int, at: datetime) -> None: ...

    async def put_bot_in_seat(
        self, room_id: str, seat: int, bot: str, *, left_by: str | None
    ) -> None: ...

    async def create_set(
        self, *, room_id: str, number: int, rules: dict[str, Any], at: datetime
    ) -> int: ...

    async def create_deal(
        self, *, set_id: int, number: int, secret: str, opener: int, at: datetime
    ) -> int:
        """A deal dealt from ``secret`` (docs/FAIRNESS.md); durable before its first move."""
        ...

    async def record_move(self, record: MoveRecord) -> None: ...

    async def load_current_set(self, room_id: str) -> StoredSet | None: ...

    async def last_set_number(self, room_id: str) -> int: ...

    async def playing_room_ids(self) -> list[str]: ...

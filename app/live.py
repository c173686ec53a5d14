"""The seam between the lobby (REST) and the live tables (WebSocket rooms).

The lobby changes rooms in the database, commits, then tells the live layer what changed. The
real implementation lives in app/rooms/; ``create_app(live_factory=...)`` plugs it in.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Protocol, runtime_checkable


@dataclass(frozen=True)
class SeatSummary:
    seat: int
    player_id: str | None
    name: str | None
    bot: str | None
    connected: bool  # a socket of the seat's human is at the table


@dataclass(frozen=True)
class TableSummary:
    """A live table as operators see it (no tiles, no secrets)."""

    room_id: str
    code: str
    status: str
    phase: str  # ready | playing | deal_over | set_over (engine.MatchState.phase)
    set_number: int  # 0 before the first set
    deal_number: int  # 0 before the set's first deal
    seats: tuple[SeatSummary, ...]
    seat_sockets: int
    spectators: int


@runtime_checkable
class LiveTables(Protocol):
    async def room_started(self, room_id: str) -> None:
        """A set starts: the room's status is "playing" (already committed)."""

    async def seats_changed(self, room_id: str) -> None:
        """Seats, settings, host, or the blocks among the seated players changed (already
        committed): reload the room."""

    async def room_closed(self, room_id: str, reason: str) -> None:
        """The room is closed (already committed; ``reason`` is its CloseReason): every socket
        gets ``{"type": "bye", "reason": "room_closed"}`` and is closed; the table stops."""

    async def player_removed(self, room_id: str, player_id: str) -> None:
        """An operator took the player off the room (already committed): the player's sockets at
        its table get ``{"type": "bye", "reason": "removed"}`` and are closed; the table reloads
        the room."""

    async def player_banned(self, player_id: str) -> None:
        """An operator banned the player (already committed): every socket of theirs, on every
        node, gets ``{"type": "bye", "reason": "banned"}`` and is closed."""

    async def player_muted(self, player_id: str, until: float | None) -> None:
        """An operator muted the player until ``until`` (epoch seconds) or lifted the mute (None;
        already committed): every table on every node where the player has a socket, seated or
        watching, refuses or allows their talk from now on."""

    async def spectator_counts(self, room_ids: list[str]) -> dict[str, int]:
        """How many people watch each of the rooms right now (for the lobby); a room nobody
        watches may be left out."""

    def tables_here(self) -> list[TableSummary]:
        """The tables this node runs (with several nodes: the ones it owns)."""


class NullLiveTables:
    """No live layer: the lobby still works, nobody is notified, nobody watches."""

    async def room_started(self, room_id: str) -> None:
        return None

    async def seats_changed(self, room_id: str) -> None:
        return None

    async def room_closed(self, room_id: str, reason: str) -> None:
        return None

    async def player_removed(self, room_id: str, player_id: str) -> None:
        return None

    async def player_banned(self, player_id: str) -> None:
        return None

    async def player_muted(self, player_id: str, until: float | None) -> None:
        return None

    async def spectator_counts(self, room_ids: list[str]) -> dict[str, int]:
        return {}

    def tables_here(self) -> list[TableSummary]:
        return []

"""The seam between the lobby (REST) and the live tables (WebSocket rooms).

The lobby changes rooms in the database, commits, then tells the live layer what changed. The
real implementation lives in app/rooms/; ``create_app(live_factory=...)`` plugs it in.
"""

from __future__ import annotations

from typing import Protocol, runtime_checkable


@runtime_checkable
class LiveTables(Protocol):
    async def room_started(self, room_id: str) -> None:
        """A set starts: the room's status is "playing" (already committed)."""

    async def seats_changed(self, room_id: str) -> None:
        """Seats, settings or host changed (already committed): reload the room."""

    async def room_closed(self, room_id: str, reason: str) -> None:
        """The room is closed (already committed; ``reason`` is its CloseReason): every socket
        gets ``{"type": "bye", "reason": "room_closed"}`` and is closed; the table stops."""

    def spectator_count(self, room_id: str) -> int:
        """How many people watch the room right now (for the lobby)."""


class NullLiveTables:
    """No live layer: the lobby still works, nobody is notified, nobody watches."""

    async def room_started(self, room_id: str) -> None:
        return None

    async def seats_changed(self, room_id: str) -> None:
        return None

    async def room_closed(self, room_id: str, reason: str) -> None:
        return None

    def spectator_count(self, room_id: str) -> int:
        return 0

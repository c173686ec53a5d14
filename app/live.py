"""The seam between the lobby (REST) and the live tables (WebSocket rooms).

The lobby changes rooms in the database, commits, then tells the live layer what changed. The
real implementation lives in app/rooms/; ``create_app(live_factory=...)`` plugs it in.
"""

from __future__ import annotations

from typing import Protocol, runtime_checkable


@runtime_checkable
class LiveTables(Protocol):
    async def room_started(self, room_id: str) -> None:
        """The host started the set: the room's status is "playing" (already committed)."""

    async def seats_changed(self, room_id: str) -> None:
        """Someone sat down, stood up, or a bot was seated or removed (already committed)."""

    def spectator_count(self, room_id: str) -> int:
        """How many people watch the room right now (for the lobby)."""


class NullLiveTables:
    """No live layer: the lobby still works, nobody is notified, nobody watches."""

    async def room_started(self, room_id: str) -> None:
        return None

    async def seats_changed(self, room_id: str) -> None:
        return None

    def spectator_count(self, room_id: str) -> int:
        return 0

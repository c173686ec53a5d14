"""Where a table runs: the seam between this node's tables (manager.py) and the cluster.

The manager depends on ``Placement`` only; app/rooms/cluster.py implements it with Redis leases
and relays, and needs from the manager only ``LocalTables``. Neither module imports the other.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Literal, Protocol

from app.rooms.connection import Connection
from app.rooms.protocol import ClientCommand, Resume
from app.rooms.state import TableConfig
from app.rooms.table import Table


class Relay(Protocol):
    """A table owned by another node, as this node's sockets see it."""

    @property
    def owner(self) -> str: ...

    async def join(self, conn: Connection, resume: Resume | None) -> None: ...

    def message(self, conn: Connection, message: ClientCommand) -> None: ...

    def gone(self, conn: Connection) -> None: ...

    async def room_changed(self, *, started: bool = False) -> None: ...

    async def room_closed(self) -> None: ...

    async def send_player_away(
        self, player_id: str, reason: Literal["removed", "banned"]
    ) -> None: ...


class Placement(Protocol):
    """Which node owns which table (one owner each), and a relay to the owner."""

    async def start(self) -> None: ...

    async def close(self) -> None: ...

    async def claim(self, room_id: str) -> str | None:
        """Take the table if nobody has it: None when this node owns it now, else the owner."""
        ...

    def relay(self, room_id: str, owner: str) -> Relay: ...

    async def find_relay(self, room_id: str) -> Relay | None:
        """A relay to the table's owner when another node runs it, else None."""
        ...

    async def unowned(self, room_ids: list[str]) -> list[str]:
        """Those of the rooms that no node runs."""
        ...

    def took_over(self, room_id: str) -> None: ...

    async def hand_over(self, room_id: str) -> None: ...

    async def spectators(self, room_ids: list[str]) -> dict[str, int]:
        """How many watch each of the rooms that other nodes run (those somebody watches)."""
        ...

    def player_banned(self, player_id: str) -> None:
        """Tell the other nodes: the player's sockets there are sent away too."""
        ...

    def player_muted(self, player_id: str, until: float | None) -> None:
        """Tell the other nodes: their tables where the player has a socket learn of the mute."""
        ...


class LocalTables(Protocol):
    """What the cluster needs from this node's tables."""

    @property
    def tables(self) -> Mapping[str, Table]: ...

    @property
    def config(self) -> TableConfig: ...

    async def drop(self, room_id: str, *, lost: bool) -> None: ...

    async def restore_all(self) -> int: ...

    async def send_player_away_here(
        self, player_id: str, reason: Literal["removed", "banned"]
    ) -> None: ...

    async def mute_changed_here(self, player_id: str, until: float | None) -> None: ...

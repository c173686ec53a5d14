"""Several nodes, one owner per table.

Each live table is owned by exactly one node, which holds the table's Redis lease and runs its
actor. A client may connect to any node: a node that does not own the table *relays* — it
forwards the client's messages to the owner over the owner's Redis channel, and the owner sends
that client's frames back over the relay node's channel: one message per frame for all of the
table's sockets on that node (a final's spectators there), serialised once. To the owner's actor
a relayed client is an ordinary Connection that publishes through its node's link
(``NodeLink``) at once, in order; the relay node's own Connection keeps the socket's bounded
outbox.

When the owner dies its lease lapses; relay nodes notice on their next check and send their
clients away to reconnect, and whichever node next wants the table (a reconnecting client, or the
sweep over rooms in play) takes the lease and rebuilds the table from the stored moves. A node
that is told to stop hands its tables over at once instead: it releases the leases and tells the
relay nodes, so nobody waits for a lease to lapse.

When Redis goes away, what the nodes said to each other meanwhile is lost: a node sends the
sockets it relays away to reconnect (``bye table_moved``, close 1012) and forgets the relayed
sockets it hosted, as soon as its listener notices and again once it has subscribed again. A
socket that arrives while the node cannot reach Redis is refused with ``unavailable`` (close
1013); the tables' leases are checked and taken again on the next watch once Redis is back.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import time
from typing import Any, Literal

from pydantic import ValidationError

from app.bus.redis import BusUnavailable, RedisBus
from app.logs import FailureLog
from app.rooms import frames
from app.rooms.connection import WAKE_BATCH, Connection, FanOut
from app.rooms.hub import Hub
from app.rooms.placement import LocalTables
from app.rooms.protocol import (
    CLOSE_RECONNECT,
    ClientCommand,
    RelayBanned,
    RelayClient,
    RelayClose,
    RelayFrame,
    RelayGone,
    RelayJoin,
    RelayMeOpened,
    RelayMessage,
    RelayMuted,
    RelayNotice,
    RelayOwnerGone,
    RelayPresence,
    RelayRoomChanged,
    RelayRoomClosed,
    RelaySendAway,
    RelayTournament,
    Resume,
    relay_dump,
    relay_load,
)
from app.rooms.tournament_live import TournamentRunner

log = logging.getLogger(__name__)


class RemoteTable:
    """A table owned by another node, as this node's sockets see it."""

    def __init__(self, cluster: Cluster, room_id: str, owner: str) -> None:
        self.cluster = cluster
        self.room_id = room_id
        self.owner = owner
        self.conns: dict[str, Connection] = {}

    def _key(self, conn: Connection) -> str:
        return f"{self.cluster.bus.node_id}:{conn.id}"

    async def join(self, conn: Connection, resume: Resume | None) -> None:
        key = self._key(conn)
        self.conns[key] = conn
        self.cluster.relayed[key] = conn
        self.cluster.send(
            self.owner,
            RelayJoin(
                room=self.room_id,
                conn=key,
                node=self.cluster.bus.node_id,
                player=conn.player_id,
                name=conn.name,
                resume=resume,
            ),
        )

    def message(self, conn: Connection, message: ClientCommand) -> None:
        self.cluster.send(
            self.owner, RelayClient(room=self.room_id, conn=self._key(conn), msg=message)
        )

    def gone(self, conn: Connection) -> None:
        key = self._key(conn)
        self.conns.pop(key, None)
        self.cluster.relayed.pop(key, None)
        self.cluster.send(self.owner, RelayGone(room=self.room_id, conn=key))

    async def room_changed(self, *, started: bool = False) -> None:
        self.cluster.send(self.owner, RelayRoomChanged(room=self.room_id, started=started))

    async def room_closed(self) -> None:
        self.cluster.send(self.owner, RelayRoomClosed(room=self.room_id))

    async def send_player_away(self, player_id: str, reason: Literal["removed", "banned"]) -> None:
        self.cluster.send(
            self.owner, RelaySendAway(room=self.room_id, player=player_id, reason=reason)
        )

    def owner_lost(self) -> None:
        for conn in list(self.conns.values()):
            conn.send_away("table_moved")


class NodeLink:
    """The owner's way to the sockets it hosts for another node (connection.Link): a frame for
    several of them is one message."""

    __slots__ = ("cluster", "node")

    def __init__(self, cluster: Cluster, node: str) -> None:
        self.cluster, self.node = cluster, node

    def frames(self, keys: list[str], text: str) -> None:
        self.cluster.send(self.node, RelayFrame(conns=keys, text=text))

    def close(self, key: str, code: int, reason: str) -> None:
        self.cluster.send(self.node, RelayClose(conn=key, code=code, reason=reason))


class Cluster:
    """Implements app.rooms.placement.Placement with Redis leases and relays."""

    def __init__(self, manager: LocalTables, bus: RedisBus, *, check_interval: float) -> None:
        self.manager = manager
        self.bus = bus
        self.check_interval = check_interval
        self.remote: dict[str, RemoteTable] = {}
        self.relayed: dict[str, Connection] = {}  # our sockets, by key, whose table is elsewhere
        self.hosted: dict[str, tuple[str, str, Connection]] = {}  # key -> (room, node, conn)
        self._watched: set[str] = set()  # our tables whose spectators we last published
        self._links: dict[str, NodeLink] = {}  # by node: to the sockets hosted for it
        # Frames relayed to many of our sockets at once: framed once, written a batch per turn
        # of the loop, so our own tables' players are not kept waiting behind them.
        self._fan_out = FanOut()
        self.hub: Hub | None = None  # the players' own sockets: their messages come through here
        # the sockets watching tournaments (/ws/tournaments/{id}): their frames come through here
        self.tournaments: TournamentRunner | None = None
        self._monitor: asyncio.Task[None] | None = None

    def send(self, node: str, message: RelayMessage) -> None:
        self.bus.send(node, relay_dump(message))

    async def start(self) -> None:
        self._monitor = asyncio.get_running_loop().create_task(self._watch(), name="cluster-watch")

    async def _connect(self) -> None:
        """Subscribe to this node's channel, retrying while Redis is unreachable (the node
        serves the lobby meanwhile, and /api/health reports Redis as down)."""
        delay = 0.5
        while True:
            try:
                await self.bus.start(self._handle, on_lost=self._bus_lost, on_back=self._bus_lost)
                return
            except Exception:
                log.warning("cannot reach Redis; retrying in %.1f s", delay, exc_info=True)
                await asyncio.sleep(delay)
                delay = min(delay * 2, 10.0)

    async def _bus_lost(self) -> None:
        """Frames between the nodes may have been lost: relayed sockets reconnect (and are
        resynced by their ``resume``), the owner forgets the relayed sockets it hosted."""
        remote, self.remote = self.remote, {}
        for table in remote.values():
            table.owner_lost()
        self.relayed.clear()
        hosted, self.hosted = self.hosted, {}
        for room_id, _, conn in hosted.values():
            owned = self.manager.tables.get(room_id)
            if owned is not None:
                owned.gone(conn)
            conn.cancel()
        if remote or hosted:
            log.info(
                "bus: sent %d relayed sockets away, dropped %d hosted ones",
                sum(len(t.conns) for t in remote.values()),
                len(hosted),
            )

    async def close(self) -> None:
        if self._monitor is not None:
            self._monitor.cancel()
            with contextlib.suppress(BaseException):
                await self._monitor
        for table in list(self.remote.values()):
            for conn in list(table.conns.values()):
                conn.send_away("draining")
        await self.bus.close()

    # --- ownership ------------------------------------------------------------------------------

    async def claim(self, room_id: str) -> str | None:
        """Take the room's lease if it is free. Returns None when we own it, else the owner."""
        if not self.bus.connected:  # what other nodes said to us would not arrive: take nothing
            raise BusUnavailable()
        owner = await self.bus.claim(room_id)
        return None if owner == self.bus.node_id else owner

    async def find_relay(self, room_id: str) -> RemoteTable | None:
        table = self.remote.get(room_id)
        if table is None:
            owner = await self.bus.owner(room_id)
            if owner is not None and owner != self.bus.node_id:
                table = self.relay(room_id, owner)
        return table

    async def unowned(self, room_ids: list[str]) -> list[str]:
        owners = await self.bus.owners(room_ids)
        return [r for r, owner in zip(room_ids, owners, strict=True) if owner is None]

    async def spectators(self, room_ids: list[str]) -> dict[str, int]:
        try:
            return await self.bus.spectators_of(room_ids)
        except BusUnavailable:  # the lobby still lists the rooms, with nobody watching
            return {}

    def player_banned(self, player_id: str) -> None:
        # Every socket of a table is a Connection on the table's owner (a relayed one too), so
        # each node sends away the player's sockets at the tables it owns.
        self.bus.broadcast(relay_dump(RelayBanned(player=player_id, node=self.bus.node_id)))

    def player_muted(self, player_id: str, until: float | None) -> None:
        muted = RelayMuted(player=player_id, until=until, node=self.bus.node_id)
        self.bus.broadcast(relay_dump(muted))

    def relay(self, room_id: str, owner: str) -> RemoteTable:
        table = self.remote.get(room_id)
        if table is None or table.owner != owner:
            if table is not None:
                table.owner_lost()
            table = self.remote[room_id] = RemoteTable(self, room_id, owner)
        return table

    def took_over(self, room_id: str) -> None:
        """The table now runs here: clients we relayed to the old owner reconnect to it here."""
        table = self.remote.pop(room_id, None)
        if table is not None:
            table.owner_lost()

    async def hand_over(self, room_id: str) -> None:
        """We are letting the table go: free the lease and send the relayed clients away."""
        with contextlib.suppress(Exception):
            await self.bus.release(room_id)
        nodes = {node for room, node, _ in self.hosted.values() if room == room_id}
        for node in nodes:
            self.send(node, RelayOwnerGone(room=room_id))
        for key in [k for k, (room, _, _) in self.hosted.items() if room == room_id]:
            _, _, conn = self.hosted.pop(key)
            conn.cancel()

    # --- messages from other nodes ----------------------------------------------------------------

    async def _handle(self, data: dict[str, Any]) -> None:
        try:
            message = relay_load(data)
        except ValidationError:
            log.warning("dropping a malformed message from another node")
            return
        match message:
            case RelayFrame(conns=keys, text=text):
                relayed = self.relayed
                here = [conn for key in keys if (conn := relayed.get(key)) is not None]
                if len(here) > WAKE_BATCH:  # a watched table's spectators on this node
                    self._fan_out.send(here, (text,))
                else:
                    for conn in here:
                        conn.send(text)
            case RelayClose(conn=key, code=code, reason=reason):
                conn = self.relayed.get(key)
                if conn is not None:
                    conn.shutdown(code, reason)
            case RelayOwnerGone(room=room_id):
                relay = self.remote.pop(room_id, None)
                if relay is not None:
                    relay.owner_lost()
            case RelayJoin():
                await self._remote_join(message)
            case RelayClient(conn=key, msg=msg):
                self._remote_message(key, msg)
            case RelayGone(conn=key):
                hosted = self.hosted.pop(key, None)
                if hosted is not None:
                    room_id, _, conn = hosted
                    owner_table = self.manager.tables.get(room_id)
                    if owner_table is not None:
                        owner_table.gone(conn)
                    conn.cancel()
            case RelayRoomChanged(room=room_id, started=started):
                owned = self.manager.tables.get(room_id)
                if owned is not None:
                    await owned.room_changed(started=started)
            case RelayRoomClosed(room=room_id):
                owned = self.manager.tables.get(room_id)
                if owned is not None:
                    await owned.room_closed()
            case RelaySendAway(room=room_id, player=player_id, reason=reason):
                owned = self.manager.tables.get(room_id)
                if owned is not None:
                    await owned.send_player_away(player_id, reason)
            case RelayMeOpened() | RelayNotice() | RelayPresence():
                if self.hub is not None:
                    await self.hub.on_relay(message)
            case RelayTournament(tournament=tournament_id, text=text):
                if self.tournaments is not None:
                    self.tournaments.deliver(tournament_id, text)
            case RelayBanned(player=player_id, node=node) if node != self.bus.node_id:
                # (the banning node has sent its own sockets away already)
                await self.manager.send_player_away_here(player_id, "banned")
                if self.hub is not None:
                    self.hub.player_banned(player_id)
            case RelayMuted(player=player_id, until=until, node=node) if node != self.bus.node_id:
                await self.manager.mute_changed_here(player_id, until)

    async def _remote_join(self, message: RelayJoin) -> None:
        key, node, room_id = message.conn, message.node, message.room
        table = self.manager.tables.get(room_id)
        if table is None or table.lost:
            # We no longer own it (the relay node's idea of the owner is stale).
            self.send(node, RelayFrame(conns=[key], text=frames.bye("table_moved")))
            self.send(node, RelayClose(conn=key, code=CLOSE_RECONNECT, reason="table_moved"))
            return
        link = self._links.get(node)
        if link is None:
            link = self._links[node] = NodeLink(self, node)
        conn = Connection.relayed(link, key, player_id=message.player, name=message.name)
        self.hosted[key] = (room_id, node, conn)
        await table.join(conn, message.resume)

    def _remote_message(self, key: str, message: ClientCommand) -> None:
        hosted = self.hosted.get(key)
        if hosted is None:
            return
        room_id, _, conn = hosted
        table = self.manager.tables.get(room_id)
        if table is not None:
            table.message(conn, message)

    # --- the watch: leases, counters, dead owners, tables nobody runs ----------------------------

    async def _watch(self) -> None:
        await self._connect()
        unreachable = False
        # The check reads the database too (tables to restore): an outage fails every check,
        # so it is one line when it starts and one when it ends, not a traceback a second.
        failures = FailureLog(log, "cluster", time.monotonic)
        while True:
            await asyncio.sleep(self.check_interval)
            try:
                await self._check()
            except asyncio.CancelledError:
                raise
            except BusUnavailable as exc:
                if not unreachable:  # one line per outage, not one per check
                    log.warning("cluster check: Redis is unreachable (%s)", exc.__cause__ or exc)
                unreachable = True
                continue
            except Exception as exc:
                failures.failed("the cluster check", exc)
            else:
                failures.ok("the cluster check")
            unreachable = False

    async def _check(self) -> None:
        owned = list(self.manager.tables)
        for room_id, kept in zip(owned, await self.bus.renew_all(owned), strict=True):
            if not kept:
                log.warning("lost the lease of room %s", room_id)
                await self.manager.drop(room_id, lost=True)
        # Only the watched tables, and those nobody watches any more: a check costs what the
        # watched tables cost, not what all the tables do.
        watched = {r: t.spectators for r, t in self.manager.tables.items() if t.spectators}
        await self.bus.publish_spectators(watched, gone=list(self._watched - watched.keys()))
        self._watched = set(watched)
        relayed = list(self.remote)
        for room_id, owner in zip(relayed, await self.bus.owners(relayed), strict=True):
            table = self.remote.get(room_id)
            if table is not None and owner != table.owner:
                log.info("room %s: owner %s is gone", room_id, table.owner)
                del self.remote[room_id]
                table.owner_lost()
        await self.manager.restore_all()

"""One socket per player (``/ws/me``): friends' presence and live notifications.

A player is *online* while they hold a /ws/me socket or a table socket on any node, and *at a
table* (``table``: its code) while they sit at a table with a socket open to it. Presence goes
to friends only, and a player who hides it (``players.presence_hidden``) is shown offline, at no
table, to everyone.

Each node knows its own part: the sockets it holds (``socket_opened`` / ``socket_closed``, and the
/ws/me sockets themselves) and who sits connected at the tables it runs (``seated``, told by each
table). With one node that is all there is, and every change reaches the watching friends at
once. With several nodes (Redis), each node writes its part as one entry per player in
``{prefix}presence:{player}`` (a hash: node -> entry) and says so to every node over the bus
(``RelayPresence``); a node whose /ws/me sockets watch that player reads the entries again and
tells the friends what changed. Entries carry an expiry that the node renews every
GAPLE_CLUSTER_CHECK_SECONDS; a node that dies stops renewing, and on their next check the other
nodes find its players offline — within GAPLE_LEASE_TTL_SECONDS plus a check.

Notifications are pushed to the player's /ws/me socket on whatever node holds it: every node
hears each one (``RelayNotice``) and the node that holds the socket sends it. A second /ws/me of
the same player replaces the first anywhere (``bye`` ``replaced``, close 4001): the opening is
told to every node in the bus's one order (``RelayMeOpened``), and a socket whose own opening
came through earlier is the one replaced, so of two opened at once on two nodes exactly one stays.
What the nodes said while Redis was away is lost: presence heals on the next check, a missed
notification is still stored (GET /api/notifications).
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import time
from collections import Counter
from collections.abc import Callable, Coroutine, Iterable
from dataclasses import dataclass, field
from typing import Any

import orjson

from app.bus.redis import RedisBus
from app.players import social
from app.rooms import frames
from app.rooms.connection import Connection
from app.rooms.protocol import (
    CLOSE_BANNED,
    CLOSE_REPLACED,
    RelayMeOpened,
    RelayMessage,
    RelayNotice,
    RelayPresence,
    relay_dump,
)
from app.store import players
from app.store.db import Database
from app.store.models import Notification
from app.store.types import utcnow

log = logging.getLogger(__name__)

Shown = tuple[bool, str | None]  # (online, table) as a friend is shown
OFFLINE: Shown = (False, None)


@dataclass(eq=False)
class _Me:
    """A /ws/me socket on this node."""

    player_id: str
    conn: Connection
    key: str  # "{node}:{connection id}"
    confirmed: bool = False  # its opening came back over the bus (or there is no bus)
    hidden: dict[str, bool] = field(default_factory=dict)  # friend -> hides their presence
    shown: dict[str, Shown] = field(default_factory=dict)  # friend -> as last sent


class Hub:
    def __init__(self, db: Database, *, node_id: str, now: Callable[[], float] = time.time) -> None:
        self.db = db
        self.node_id = node_id
        self.now = now
        self.bus: RedisBus | None = None
        self.ttl = 3.0  # seconds an entry in Redis outlives its last renewal
        self.interval = 1.0  # seconds between renewals (and checks)
        self._sockets: Counter[str] = Counter()  # player -> sockets here (/ws/me and tables)
        self._at: dict[str, frozenset[str]] = {}  # table code -> seated, connected, run here
        self._table_of: dict[str, str] = {}  # player -> code, from ``_at``
        self._me: dict[str, _Me] = {}
        self._watchers: dict[str, set[str]] = {}  # friend -> players here who watch them
        self._changed: set[str] = set()  # players whose part here changed, not yet told
        self._tasks: set[asyncio.Task[None]] = set()
        self._flush: asyncio.Task[None] | None = None
        self._watch: asyncio.Task[None] | None = None

    def use_bus(self, bus: RedisBus, *, ttl: float, interval: float) -> None:
        """Several nodes: share presence in Redis, tell the others over ``bus``."""
        self.bus, self.ttl, self.interval = bus, ttl, interval

    async def start(self) -> None:
        if self.bus is not None:
            self._watch = asyncio.get_running_loop().create_task(self._renew(), name="presence")

    async def aclose(self) -> None:
        """This node stops: its /ws/me sockets reconnect elsewhere, its entries go."""
        if self._watch is not None:
            self._watch.cancel()
            with contextlib.suppress(BaseException):
                await self._watch
        for me in list(self._me.values()):
            me.conn.send_away("draining")
        if self.bus is not None:
            mine = set(self._sockets) | set(self._table_of)
            with contextlib.suppress(Exception):
                await self.bus.put_presence(dict.fromkeys(mine), self._keep_ms)
        for task in list(self._tasks):
            task.cancel()

    # --- /ws/me ----------------------------------------------------------------------------------

    async def open_me(self, player_id: str, conn: Connection, *, visible: bool) -> None:
        """The player's /ws/me socket, past its hello: ``welcome_me``, then the presence of
        each friend who is online; an older /ws/me of theirs is replaced. Counts as a socket
        from now on, whatever happens: ``close_me`` ends it."""
        self.socket_opened(player_id)
        async with self.db.session() as session:
            hidden = await social.friend_ids(session, player_id=player_id)
            unread = (await social.inbox(session, player_id=player_id)).unread
        older = self._me.get(player_id)
        if older is not None:
            self._drop_me(older)
            older.conn.send_away("replaced", CLOSE_REPLACED)
        me = _Me(player_id, conn, f"{self.node_id}:{conn.id}", confirmed=self.bus is None)
        self._me[player_id] = me
        conn.send(frames.welcome_me(player_id, visible=visible, unread=unread, now=self.now()))
        self._watch_friends(me, hidden)
        if self.bus is not None:
            self.bus.broadcast(relay_dump(RelayMeOpened(player=player_id, key=me.key)))
        await self._show(me.hidden, [me])

    def close_me(self, player_id: str, conn: Connection) -> None:
        me = self._me.get(player_id)
        if me is not None and me.conn is conn:
            self._drop_me(me)
        self.socket_closed(player_id)

    def player_banned(self, player_id: str) -> None:
        """An operator banned the player (stored): their /ws/me here gets ``bye`` ``banned``
        (close 4003). Each node sends away its own (app/api/admin.py here, ``RelayBanned``
        through app/rooms/cluster.py on the others); a new one is refused at ``hello``."""
        me = self._me.get(player_id)
        if me is not None:
            self._drop_me(me)
            me.conn.send_away("banned", CLOSE_BANNED)

    def _drop_me(self, me: _Me) -> None:
        del self._me[me.player_id]
        for friend in me.hidden:
            self._unwatch(friend, me.player_id)

    def _watch_friends(self, me: _Me, hidden: dict[str, bool]) -> None:
        for friend in set(me.hidden) - set(hidden):
            self._unwatch(friend, me.player_id)
            if me.shown.pop(friend, OFFLINE) != OFFLINE:  # no friend any more: shown gone
                me.conn.send(frames.friend_presence(friend, *OFFLINE))
        me.hidden = dict(hidden)
        for friend in hidden:
            self._watchers.setdefault(friend, set()).add(me.player_id)

    def _unwatch(self, friend: str, watcher: str) -> None:
        watching = self._watchers.get(friend)
        if watching is not None:
            watching.discard(watcher)
            if not watching:
                del self._watchers[friend]

    # --- what this node's sockets and tables say ------------------------------------------------

    def socket_opened(self, player_id: str) -> None:
        self._sockets[player_id] += 1
        if self._sockets[player_id] == 1:
            self._change(player_id)

    def socket_closed(self, player_id: str) -> None:
        self._sockets[player_id] -= 1
        if self._sockets[player_id] <= 0:
            del self._sockets[player_id]
            self._change(player_id)

    def seated(self, code: str, players: frozenset[str]) -> None:
        """app.rooms.table.Notices: who sits connected at the table ``code`` (run here)."""
        before = self._at.pop(code, frozenset())
        if players:
            self._at[code] = players
        for player_id in before - players:
            if self._table_of.get(player_id) == code:
                del self._table_of[player_id]
                self._change(player_id)
        for player_id in players - before:
            self._table_of[player_id] = code
            self._change(player_id)

    def your_turn(self, player_id: str, code: str) -> None:
        """app.rooms.table.Notices: a turn at a table the player is not looking at."""
        text = frames.notification(None, "your_turn", {"table": code}, utcnow())
        self._publish(RelayNotice(player=player_id, text=text))

    # --- what the lobby says (after its commit) -------------------------------------------------

    def notify(self, notice: Notification) -> None:
        """A stored notification, pushed to the player's /ws/me wherever it is."""
        text = frames.notification(
            notice.id,
            notice.kind,  # type: ignore[arg-type]  # only StoredKind is stored
            notice.payload,
            notice.created_at,
        )
        self._publish(RelayNotice(player=notice.player_id, text=text))

    def ties_changed(self, *player_ids: str) -> None:
        """Friendships between these players, or their presence setting, changed."""
        self._publish(RelayPresence(players=list(player_ids), reload=True))

    async def presence_of(self, player_ids: Iterable[str]) -> dict[str, Shown]:
        """Where each player is (hiding is the caller's to apply)."""
        ids = list(dict.fromkeys(player_ids))
        if self.bus is None:
            return {p: self._part(p) for p in ids}
        found: dict[str, Shown] = {}
        now_ms = int(self.now() * 1000)
        for player_id, entries in zip(ids, await self.bus.presence(ids), strict=True):
            shown = OFFLINE
            for raw in entries:
                entry = orjson.loads(raw)
                if entry["u"] >= now_ms:
                    shown = (True, shown[1] or entry["t"])
            found[player_id] = shown
        return found

    # --- the messages between nodes (through app/rooms/cluster.py) ------------------------------

    async def on_relay(self, message: RelayMessage) -> None:
        match message:
            case RelayNotice(player=player_id, text=text):
                me = self._me.get(player_id)
                if me is not None:
                    me.conn.send(text)
            case RelayMeOpened(player=player_id, key=key):
                me = self._me.get(player_id)
                if me is not None and me.key == key:
                    me.confirmed = True
                elif me is not None and me.confirmed:  # opened earlier: the newer one stays
                    self._drop_me(me)
                    me.conn.send_away("replaced", CLOSE_REPLACED)
            case RelayPresence(players=ids, reload=True):
                await self._reload(ids)
            case RelayPresence(players=ids):
                await self._refresh(ids)

    # --- inside ---------------------------------------------------------------------------------

    def _part(self, player_id: str) -> Shown:
        """This node's part of the player's presence."""
        table = self._table_of.get(player_id)
        return (player_id in self._sockets or table is not None, table)

    @property
    def _keep_ms(self) -> int:
        return int(self.ttl * 1000)

    def _entry(self, player_id: str) -> str | None:
        online, table = self._part(player_id)
        if not online:
            return None
        until = int((self.now() + self.ttl) * 1000)
        return orjson.dumps({"t": table, "u": until}).decode()

    def _change(self, player_id: str) -> None:
        self._changed.add(player_id)
        if self._flush is None:
            self._flush = self._spawn(self._tell_changes())

    async def _tell_changes(self) -> None:
        await asyncio.sleep(0)  # what changes in the same turn of the loop goes together
        changed, self._changed, self._flush = self._changed, set(), None
        if self.bus is None:
            await self._refresh(changed)
            return
        try:
            await self.bus.put_presence({p: self._entry(p) for p in changed}, self._keep_ms)
        except Exception as exc:  # the next renewal writes it again
            log.warning("presence: cannot write to Redis (%s)", exc.__cause__ or exc)
            return
        self._publish(RelayPresence(players=sorted(changed)))

    def _publish(self, message: RelayMessage) -> None:
        if self.bus is not None:
            self.bus.broadcast(relay_dump(message))
        else:  # one node: the message goes straight to this node's own handler
            self._spawn(self.on_relay(message))

    def _spawn(self, work: Coroutine[Any, Any, None]) -> asyncio.Task[None]:
        task = asyncio.get_running_loop().create_task(work)
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)
        return task

    async def _refresh(self, player_ids: Iterable[str]) -> None:
        watched = [p for p in player_ids if p in self._watchers]
        if not watched:
            return
        watchers = {w for p in watched for w in self._watchers.get(p, ())}
        await self._show(watched, [self._me[w] for w in watchers if w in self._me])

    async def _show(self, friends: Iterable[str], watchers: list[_Me]) -> None:
        """Tell each watcher what changed about these friends of theirs."""
        friends = list(friends)
        if not friends or not watchers:
            return
        try:
            found = await self.presence_of(friends)
        except Exception as exc:
            log.warning("presence: cannot read it (%s)", exc.__cause__ or exc)
            return
        for me in watchers:
            for friend in friends:
                if friend not in me.hidden or self._me.get(me.player_id) is not me:
                    continue
                shown = OFFLINE if me.hidden[friend] else found[friend]
                if me.shown.get(friend, OFFLINE) != shown:
                    me.shown[friend] = shown
                    me.conn.send(frames.friend_presence(friend, *shown))

    async def _reload(self, player_ids: list[str]) -> None:
        """Friendships or settings of these players changed: read them again for the /ws/me
        sockets here that they hold or that watch them."""
        mine = [self._me[p] for p in player_ids if p in self._me]
        watched = [p for p in player_ids if p in self._watchers]
        if not mine and not watched:
            return
        async with self.db.session() as session:
            for me in mine:
                self._watch_friends(me, await social.friend_ids(session, player_id=me.player_id))
            hidden = await players.presence_hidden(session, player_ids=watched)
        for friend in watched:
            for watcher in self._watchers.get(friend, ()):
                theirs = self._me.get(watcher)
                if theirs is not None and friend in hidden:
                    theirs.hidden[friend] = hidden[friend]
        touched = {w for p in watched for w in self._watchers.get(p, ())}
        for me in mine:
            await self._show(me.hidden, [me])
        await self._show(watched, [self._me[w] for w in touched if w in self._me])

    async def _renew(self) -> None:
        """Several nodes: renew this node's entries, and check every watched friend again (a
        dead node's players lapse; a message lost in an outage is made good)."""
        assert self.bus is not None
        while True:
            await asyncio.sleep(self.interval)
            try:
                mine = set(self._sockets) | set(self._table_of)
                await self.bus.put_presence({p: self._entry(p) for p in mine}, self._keep_ms)
                await self._refresh(list(self._watchers))
            except asyncio.CancelledError:
                raise
            except Exception as exc:
                log.warning("presence: renewal failed (%s)", exc.__cause__ or exc)

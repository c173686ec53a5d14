"""What a live table needs from storage (``GameStore``), and its implementation on the database.

``SqlGameStore`` makes the transactions: each method is one. It writes a table's history through
the repositories (app/store/games.py), changes a room's status and host only through
app/rooms/lifecycle.py, and books ratings (app/players/ratings.py) in the same transaction as
the set's line-up and the move that ended it, so a crash can never leave a stored move whose
consequences are missing, or the reverse.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field, replace
from datetime import datetime, timedelta
from typing import Any, Protocol

from sqlalchemy.ext.asyncio import AsyncConnection

from app.batch import BatchedLoad, GroupCommit
from app.players import ratings
from app.rooms import lifecycle, quickplay, tournament_play
from app.rooms.effects import KeepChat
from app.rooms.state import utc
from app.settings import Settings
from app.store import chatlog, fairplay, games, rooms
from app.store.db import Database
from app.store.records import MoveRecord, RoomInfo, StoreConflict, StoredSet
from app.store.types import utcnow


class GameStore(Protocol):
    """Storage for live tables. A room's status and host change only through
    app/rooms/lifecycle.py: ``end_set``, ``abandon``, ``hand_over_host`` and ``touch`` are its
    transitions, each in a transaction of its own."""

    async def load_room(self, room_id: str) -> RoomInfo | None: ...

    async def room_id_for_code(self, code: str) -> str | None: ...

    async def mark_client(self, room_id: str, player_id: str, mark: str) -> None:
        """The player's seat in the room (if any) carries the address mark of their latest
        socket (app/players/screening.py reads it)."""
        ...

    async def muted_until(self, player_id: str) -> float | None:
        """When the player's running mute ends (epoch seconds); None: not muted."""
        ...

    async def keep_chat(self, room_id: str, line: KeepChat) -> None:
        """Store a line said at a rated table (app/store/chatlog.py)."""
        ...

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

    async def holds_move(self, record: MoveRecord) -> bool:
        """Whether this very move is stored (the one at its deal and seq)."""
        ...

    async def load_current_set(self, room_id: str) -> StoredSet | None: ...

    async def playing_room_ids(self) -> list[str]: ...


# GAPLE_QUICKPLAY_BOT_FILL_SECONDS's default, for a store made without the service's settings.
_BOT_FILL = Settings.model_fields["quickplay_bot_fill_seconds"].default


@dataclass
class _SetStart:
    """A set's first row and its line-up, to be written in a shared transaction; ``id`` is the
    set's once it is."""

    room_id: str
    number: int
    rules: dict[str, Any]
    at: datetime
    id: int = 0


@dataclass
class _DealStart:
    """A deal's row (its secret), likewise."""

    set_id: int
    number: int
    secret: str = field(repr=False)
    opener: int
    at: datetime
    id: int = 0


_Opening = _SetStart | _DealStart


class SqlGameStore:
    def __init__(self, db: Database, *, bot_fill: float = _BOT_FILL) -> None:
        self.db = db
        self.bot_fill = timedelta(seconds=bot_fill)  # GAPLE_QUICKPLAY_BOT_FILL_SECONDS
        self._moves = GroupCommit(self._commit_moves)
        # Sets and deals that start together (a tournament round's tables) share a commit,
        # their presence changes a statement, their rooms and stored sets a query each.
        self._openings = GroupCommit(self._commit_openings)
        self._presence: GroupCommit[tuple[str, int, datetime]] = GroupCommit(self._commit_presence)
        self._rooms: BatchedLoad[str, RoomInfo] = BatchedLoad(self._load_rooms)
        self._sets: BatchedLoad[str, StoredSet] = BatchedLoad(self._load_current_sets)
        # A round's players arriving together: their tables' codes, mutes and address marks.
        self._codes: BatchedLoad[str, str] = BatchedLoad(self._room_ids_for_codes)
        self._mutes: BatchedLoad[str, float] = BatchedLoad(self._muted_until)
        self._marks: GroupCommit[tuple[str, str, str]] = GroupCommit(self._commit_marks)
        # Told (tournament id, room id) when a tournament table's set has ended (stored).
        self.on_tournament_set: Callable[[int, str], None] | None = None

    async def load_room(self, room_id: str) -> RoomInfo | None:
        """The room, with when a quick-play room's bot fill is due (``quickplay.bots_at``)."""
        return await self._rooms.load(room_id)

    async def _load_rooms(self, room_ids: list[str]) -> dict[str, RoomInfo]:
        async with self.db.session() as session:
            infos = await games.load_rooms(session, room_ids=room_ids)
            for room_id, info in infos.items():
                if not info.quickplay:
                    continue
                room = await rooms.get_room(session, room_id=room_id)
                due = (
                    None if room is None else await quickplay.due(session, room, fill=self.bot_fill)
                )
                infos[room_id] = replace(info, bots_at=None if due is None else due.timestamp())
            return infos

    async def room_id_for_code(self, code: str) -> str | None:
        return await self._codes.load(code)

    async def _room_ids_for_codes(self, codes: list[str]) -> dict[str, str]:
        async with self.db.session() as session:
            return await games.room_ids_for_codes(session, codes=codes)

    async def mark_client(self, room_id: str, player_id: str, mark: str) -> None:
        await self._marks.submit((room_id, player_id, mark))

    async def _commit_marks(self, batch: list[tuple[str, str, str]]) -> list[BaseException | None]:
        async with games.history(self.db) as conn:
            await rooms.mark_clients(conn, marks=batch)
        return [None] * len(batch)

    async def muted_until(self, player_id: str) -> float | None:
        return await self._mutes.load(player_id)

    async def _muted_until(self, player_ids: list[str]) -> dict[str, float]:
        async with self.db.session() as session:
            found = await fairplay.muted_until(session, player_ids=player_ids, at=utcnow())
        return {player_id: until.timestamp() for player_id, until in found.items()}

    async def keep_chat(self, room_id: str, line: KeepChat) -> None:
        async with self.db.session() as session, session.begin():
            await chatlog.add_line(
                session,
                room_id=room_id,
                set_id=line.set_id,
                player_id=line.player_id,
                name=line.name,
                seat=line.seat,
                kind=line.kind,
                text=line.text,
                at=utc(line.at),
            )

    async def end_set(self, room_id: str) -> None:
        async with self.db.session() as session, session.begin():
            await lifecycle.end_set(session, room_id=room_id)
            room = await rooms.get_room(session, room_id=room_id)
        if room is not None and room.tournament_id is not None and self.on_tournament_set:
            # Its result is stored with the move that ended the set: the round may go on.
            self.on_tournament_set(room.tournament_id, room_id)

    async def abandon(self, room_id: str, *, set_id: int | None, at: datetime) -> None:
        async with self.db.session() as session, session.begin():
            await lifecycle.abandon(session, room_id=room_id)
            if set_id is not None:
                await games.abandon_set(session, set_id=set_id, at=at)

    async def hand_over_host(self, room_id: str) -> str | None:
        async with self.db.session() as session, session.begin():
            return await lifecycle.hand_over_host(session, room_id=room_id)

    async def touch(self, room_id: str, *, humans_online: int, at: datetime) -> None:
        """Presence: the tables whose presence changes together (a round's players arriving)
        share a statement, on the history's connection (SQLite: no second writer to wait for)."""
        await self._presence.submit((room_id, humans_online, at))

    async def _commit_presence(
        self, batch: list[tuple[str, int, datetime]]
    ) -> list[BaseException | None]:
        async with games.history(self.db) as conn:
            await lifecycle.touch_all(conn, presences=batch)
        return [None] * len(batch)

    async def put_bot_in_seat(
        self, room_id: str, seat: int, bot: str, *, left_by: str | None
    ) -> None:
        """A human's seat goes to a bot during a set; ``left_by`` may take it back (REST)."""
        async with self.db.session() as session, session.begin():
            await games.put_bot_in_seat(
                session, room_id=room_id, seat=seat, bot=bot, left_by=left_by
            )
            await ratings.mark_left(session, room_id=room_id, seat=seat)  # ratings: ranks last

    async def create_set(
        self, *, room_id: str, number: int, rules: dict[str, Any], at: datetime
    ) -> int:
        return await self._open(_SetStart(room_id, number, rules, at))

    async def create_deal(
        self, *, set_id: int, number: int, secret: str, opener: int, at: datetime
    ) -> int:
        """A fair deal: its secret is durable before its first move, so a restart (or another
        node) deals the same tiles again; it is published only when the deal ends."""
        return await self._open(_DealStart(set_id, number, secret, opener, at))

    async def _open(self, opening: _Opening) -> int:
        """Durable when it returns, like a move; with many tables starting at once (a
        tournament's round), their sets and deals go in one commit rather than one each."""
        await self._openings.submit(opening)
        return opening.id

    async def _commit_openings(self, batch: list[_Opening]) -> list[BaseException | None]:
        try:
            async with games.history(self.db) as conn:
                await _write_openings(conn, batch)
            return [None] * len(batch)
        except StoreConflict:
            if len(batch) == 1:
                raise
        # One of them conflicts (another node started that set or deal): the others one by one.
        outcomes: list[BaseException | None] = []
        for opening in batch:
            try:
                async with games.history(self.db) as conn:
                    await _write_openings(conn, [opening])
                outcomes.append(None)
            except StoreConflict as exc:
                outcomes.append(exc)
        return outcomes

    async def record_move(self, record: MoveRecord) -> None:
        """Durable when it returns. Moves arriving together from many tables share a commit.

        A commit whose answer was lost may have been stored all the same, and a player's move
        sent again after such a commit runs into its own row: either way the row at the move's
        ``(deal, seq)`` is read back, and if it is this move (the same seat, tile, end and move
        id), it is stored. Only then does the failure count. A conflict with a move that has no
        move id (a bot's, the clock's) is never taken for ours: another node may have made it."""
        try:
            await self._moves.submit(record)
        except Exception as failure:
            if isinstance(failure, StoreConflict) and record.client_move_id is None:
                raise
            try:
                if await self.holds_move(record):
                    return
            except Exception:
                raise failure from None  # still unreachable: the commit's own error says so
            raise

    async def holds_move(self, record: MoveRecord) -> bool:
        """Whether this very move is stored (the one at its deal and seq)."""
        async with self.db.session() as session:
            stored = await games.move_at(session, deal_id=record.deal_id, seq=record.seq)
        return stored is not None and (
            stored.seat,
            stored.tile,
            stored.end,
            stored.auto,
            stored.client_move_id,
        ) == (record.seat, record.tile, record.end, record.auto, record.client_move_id)

    async def _commit_moves(self, records: list[MoveRecord]) -> list[BaseException | None]:
        try:
            if any(games.concludes(r) for r in records):
                async with games.history(self.db) as conn:
                    await write_moves(conn, records)
            else:
                await games.append_moves(self.db, records)
            return [None] * len(records)
        except StoreConflict:
            if len(records) == 1:
                raise
        # One of them conflicts (a table that lost its lease): commit the others one by one.
        outcomes: list[BaseException | None] = []
        for record in records:
            try:
                async with games.history(self.db) as conn:
                    await write_moves(conn, [record])
                outcomes.append(None)
            except StoreConflict as exc:
                outcomes.append(exc)
        return outcomes

    async def load_current_set(self, room_id: str) -> StoredSet | None:
        return await self._sets.load(room_id)

    async def _load_current_sets(self, room_ids: list[str]) -> dict[str, StoredSet]:
        async with self.db.session() as session:
            return await games.load_current_sets(session, room_ids=room_ids)

    async def playing_room_ids(self) -> list[str]:
        async with self.db.session() as session:
            return await games.playing_room_ids(session)


async def write_moves(conn: AsyncConnection, records: list[MoveRecord]) -> None:
    """Append the moves and what they concluded; a move that ends a set books its ratings in the
    same transaction."""
    await games.write_moves(conn, records)
    for record in records:
        if record.set_result is not None and record.set_id is not None:
            await ratings.rate_set(
                conn, set_id=record.set_id, result=record.set_result, at=record.at
            )
            # a tournament's table: its result, once, after the ratings marked who left
            await tournament_play.record_set(conn, set_id=record.set_id, result=record.set_result)


async def _write_openings(conn: AsyncConnection, batch: list[_Opening]) -> None:
    """The sets (with their line-ups, for the ratings) then the deals, a statement per kind of
    row however many tables start."""
    sets = [o for o in batch if isinstance(o, _SetStart)]
    if sets:
        ids = await games.insert_sets(
            conn, sets=[(o.room_id, o.number, o.rules, o.at) for o in sets]
        )
        for started, set_id in zip(sets, ids, strict=True):
            started.id = set_id
        # ratings: who sat where as each set starts, and whether it is rated
        await ratings.record_lineups(conn, lineups=[(o.id, o.room_id, o.rules) for o in sets])
    deals = [o for o in batch if isinstance(o, _DealStart)]
    if deals:
        ids = await games.insert_deals(
            conn, deals=[(o.set_id, o.number, o.secret, o.opener, o.at) for o in deals]
        )
        for dealt, deal_id in zip(deals, ids, strict=True):
            dealt.id = deal_id

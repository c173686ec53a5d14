"""Who sits and who is connected, and what follows from it (part of the table core, no I/O).

* **Presence.** Whenever the number of seats whose human is connected changes, the lifecycle is
  told (``Touch``: the lobby lists only rooms someone can use, the sweeper closes idle ones).
* **Host hand-over.** The host of an ``open`` room who has not been connected for
  GAPLE_HOST_AWAY_SECONDS, or who gave up their seat, is replaced (lifecycle.hand_over_host: the
  seated human who sat down earliest); the room is reloaded and every viewer gets a ``room``
  frame. While the host stays away the check is repeated every GAPLE_HOST_AWAY_SECONDS.
* **Abandoned tables.** A set in play with no human seat connected for
  GAPLE_ABANDONED_TABLE_SECONDS stops: the room becomes ``abandoned``, the set is stored as
  abandoned (its moves are kept), the clock and the bots stop, the viewers get a ``room`` frame.
  A tournament's table is never abandoned: its set must end for the round to go on.
* **One live socket per player.** A player who connects again (a second tab, a second device)
  takes over: the older socket gets ``bye`` ``replaced`` and is closed.
* **A dropped seat goes to a bot.** When the clock has played for a seat twice in a row while its
  human is not connected, a bot takes the seat for the rest of the set; ``seats.left_by`` keeps
  who it was, and that player may take the seat back (REST) while the set runs.
"""

from __future__ import annotations

from dataclasses import replace

from app.rooms import frames
from app.rooms.effects import (
    FOLLOW_UPS,
    Abandoned,
    AbandonTable,
    Arm,
    Closed,
    Command,
    Effect,
    HandOverHost,
    HostAway,
    LoadRoom,
    PendingMove,
    PutBot,
    Seated,
    Send,
    SendAway,
    SendPlayerAway,
    Touch,
    Unattended,
)
from app.rooms.protocol import CLOSE_BANNED, CLOSE_REMOVED, CLOSE_REPLACED, CLOSE_ROOM_CLOSED
from app.rooms.state import BOT_KIND, TableState
from app.store.records import RoomInfo

TIMEOUTS_TO_BOT = 2  # the clock's moves in a row for a disconnected human before a bot sits in
_EARLY = 0.001  # a timer may fire a hair early on the system clock


def replace_older(state: TableState, player_id: str | None) -> list[Effect]:
    """The player's other sockets at this table, sent away: the newest one plays."""
    if player_id is None:
        return []
    older = state.viewers.of_player(player_id)
    for conn in older:
        state.viewers.pop(conn)
    return [SendAway(conn, "replaced", CLOSE_REPLACED) for conn in older]


_AWAY_CODES = {"removed": CLOSE_REMOVED, "banned": CLOSE_BANNED}


def send_player_away(state: TableState, command: SendPlayerAway) -> list[Effect]:
    """An operator's removal or ban: every socket of the player here is told why and closed;
    then the room is reloaded, which shows the seat's new occupant (an empty seat, or a bot
    during a set) to everyone left (a follow-up: last of its batch)."""
    gone = state.viewers.of_player(command.player_id)
    for conn in gone:
        state.viewers.pop(conn)
    code = _AWAY_CODES[command.reason]
    return [*(SendAway(conn, command.reason, code) for conn in gone), LoadRoom("changed")]


def handle(state: TableState, command: Command, now: float) -> list[Effect]:
    match command:
        case HostAway():
            since = state.host_away_since
            if since is not None and now - since >= state.config.host_away - _EARLY:
                state.host_away_since = None  # armed again below while the host stays away
                return [HandOverHost()]
        case Unattended():
            since = state.unattended_since
            if since is not None and now - since >= state.config.abandoned_after - _EARLY:
                state.unattended_since = None
                return [AbandonTable(state.set_id, now)]
        case Abandoned():
            state.room = replace(state.room, status="abandoned")
            state.deadline = None
            room = frames.room(state.room, state.spectators, now)
            return [*_disarm(), Send(tuple(state.viewers), (room,))]
        case Closed():
            state.room = replace(state.room, status="closed")
            state.deadline = None
            gone = [SendAway(c, "room_closed", CLOSE_ROOM_CLOSED) for c in state.viewers]
            state.viewers.clear()
            return [*_disarm(), *gone]
    return []


def _disarm() -> list[Effect]:
    return [Arm("game"), Arm("host"), Arm("abandon")]


def host_left_seat(before: RoomInfo, state: TableState) -> list[Effect]:
    """The host of an open room who gave up their seat hands it over (a follow-up: last of its
    batch). During a set a seat given up goes to a bot and the host stays: the set plays on,
    and stops as abandoned if no human is left."""
    host = state.room.host_id
    if state.room.status != "open" or before.host_id != host:
        return []
    if before.seat_of(host) is not None and state.room.seat_of(host) is None:
        return [HandOverHost()]
    return []


def after_move(state: TableState, move: PendingMove, *, over: bool) -> list[Effect]:
    """Count the clock's moves for a seat; the second in a row for an absent human seats a bot."""
    seat = move.seat
    if move.kind == "player":
        state.timeouts[seat] = 0
        return []
    if move.kind != "auto":
        return []
    count = state.timeouts[seat] = state.timeouts.get(seat, 0) + 1
    player = next((s.player_id for s in state.room.seats if s.seat == seat), None)
    if over or player is None or count < TIMEOUTS_TO_BOT or seat in state.humans:
        return []
    state.timeouts[seat] = 0
    return [PutBot(seat, BOT_KIND, player), LoadRoom("changed")]


def with_watch(state: TableState, effects: list[Effect], now: float) -> list[Effect]:
    """``effects`` plus what the presence after them calls for: telling the lifecycle, and the
    host-away and abandoned-table timers (armed when the condition starts, disarmed when it
    ends). Inserted before a follow-up effect, which must stay last."""
    watch: list[Effect] = []
    seated = frozenset(
        v.player_id
        for v in state.viewers.seated.values()
        if v.player_id is not None and not state.final
    )
    if seated != state.seated_online:
        state.seated_online = seated
        watch.append(Seated(seated))
    if state.final:
        return _before_follow_up(effects, watch)
    humans = len(state.humans)
    if humans != state.humans_online:
        state.humans_online = humans
        watch.append(Touch(humans, now))
    host = state.room.host_id
    host_away = state.room.status == "open" and not state.viewers.of_player(host)
    if host_away and state.host_away_since is None:
        state.host_away_since = now
        watch.append(Arm("host", ((state.config.host_away, HostAway()),)))
    elif not host_away and state.host_away_since is not None:
        state.host_away_since = None
        watch.append(Arm("host"))
    # A tournament's table plays on without its humans: the clock, then bots, play their seats.
    unattended = state.room.status == "playing" and humans == 0 and state.room.tournament_id is None
    if unattended and state.unattended_since is None:
        state.unattended_since = now
        watch.append(Arm("abandon", ((state.config.abandoned_after, Unattended()),)))
    elif not unattended and state.unattended_since is not None:
        state.unattended_since = None
        watch.append(Arm("abandon"))
    return _before_follow_up(effects, watch)


def _before_follow_up(effects: list[Effect], added: list[Effect]) -> list[Effect]:
    if effects and isinstance(effects[-1], FOLLOW_UPS):
        return [*effects[:-1], *added, effects[-1]]
    return [*effects, *added]

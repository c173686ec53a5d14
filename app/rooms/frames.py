"""What each viewer is sent: the one place that shapes a table's frames from its state.

The frames' types are app/rooms/protocol.py's; every frame a table sends is built here from the
table's state and serialised with ``protocol.dumps``. Two optimisations live here and nowhere else:

* an event every viewer sees alike (most of them: ``played``, ``passed`` ...) is shaped and
  serialised once for all viewers; the others once per distinct shape;
* the new position is computed with one ``engine.views`` call per move for all viewers, and each
  distinct viewer (four or five seats, the spectators) is served once however many sockets share
  it.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from datetime import UTC, datetime
from typing import Any

import engine
from app.rooms.protocol import (
    Ack,
    Bye,
    ByeReason,
    ClockInfo,
    ErrorFrame,
    EventFrame,
    FriendPresence,
    NextDealInfo,
    NotificationFrame,
    NotificationKind,
    Pong,
    Presence,
    Resync,
    RoomFrame,
    SeatPresence,
    Snapshot,
    Welcome,
    WelcomeMe,
    dumps,
)
from app.store.records import RoomInfo

MOVE_EVENTS = ("played", "discarded")  # the event a stored move makes, one per move


def ms(seconds: float) -> int:
    return round(seconds * 1000)


# --- single frames --------------------------------------------------------------------------


def error(
    code: str, message: str, move_id: str | None = None, seconds_left: int | None = None
) -> str:
    frame: ErrorFrame = {"type": "error", "code": code, "message": message}
    if move_id is not None:
        frame["move_id"] = move_id
    if seconds_left is not None:
        frame["seconds_left"] = seconds_left
    return dumps(frame)


def bye(reason: ByeReason) -> str:
    return dumps(Bye(type="bye", reason=reason))


def pong(t: int | float | str | None) -> str:
    return dumps(Pong(type="pong", t=t))


def welcome_me(player_id: str, *, visible: bool, unread: int, now: float) -> str:
    return dumps(
        WelcomeMe(
            type="welcome_me",
            player_id=player_id,
            presence_visible=visible,
            unread=unread,
            server_time=ms(now),
        )
    )


def friend_presence(player_id: str, online: bool, table: str | None) -> str:
    return dumps(FriendPresence(type="presence", player_id=player_id, online=online, table=table))


def notification(
    id: int | None, kind: NotificationKind, payload: dict[str, Any], created_at: datetime
) -> str:
    return dumps(
        NotificationFrame(
            type="notification",
            id=id,
            kind=kind,
            payload=payload,
            # as the REST API writes it (pydantic): UTC with a "Z"
            created_at=created_at.astimezone(UTC).isoformat().replace("+00:00", "Z"),
            read=False,
        )
    )


def ack(move_id: str, set_number: int, seq: int) -> str:
    return dumps(Ack(type="ack", move_id=move_id, set=set_number, seq=seq))


def room(info: RoomInfo, spectators: int, now: float) -> str:
    return dumps(RoomFrame(type="room", room=info.public(spectators, now)))


def welcome(
    info: RoomInfo, seat: int | None, player_id: str | None, spectators: int, now: float
) -> str:
    return dumps(
        Welcome(
            type="welcome",
            role="spectator" if seat is None else "seat",
            seat=seat,
            player_id=player_id,
            room=info.public(spectators, now),
            server_time=ms(now),
        )
    )


def presence(info: RoomInfo, connected: set[int], spectators: int) -> str:
    seats = [
        SeatPresence(seat=s.seat, connected=s.seat in connected, bot=s.bot) for s in info.seats
    ]
    return dumps(Presence(type="presence", seats=seats, spectators=spectators))


def clock_info(state: engine.MatchState, deadline: float | None, now: float) -> ClockInfo | None:
    if deadline is None or state.turn is None:
        return None
    return ClockInfo(seat=state.turn, deadline=ms(deadline), remaining_ms=_left_ms(deadline, now))


def next_deal_info(at: float | None, now: float) -> NextDealInfo | None:
    if at is None:
        return None
    return NextDealInfo(deadline=ms(at), remaining_ms=_left_ms(at, now))


def _left_ms(at: float, now: float) -> int:
    """What is left until ``at``, in whole milliseconds, never below zero."""
    return max(0, ms(at - now))


# --- a table's history and position, per viewer ---------------------------------------------

# What an event was sent with, kept so a resumed client gets the same frame: (clock, server_time).
Stamp = tuple[ClockInfo | None, int]


class History:
    """What a table has to say about its current set: its events (seq = index + 1) and position.

    ``events`` are the engine's compact events, turned into dicts only when a frame is made (a
    long set holds hundreds of them per table)."""

    def __init__(
        self,
        *,
        state: engine.MatchState,
        set_number: int,
        events: Sequence[engine.Event],
        auto_seqs: set[int],
        stamps: Sequence[Stamp],
        window: int,
        clock: ClockInfo | None,
        now: float,
        next_deal: NextDealInfo | None = None,
    ) -> None:
        self.state = state
        self.set_number = set_number
        self.events = events
        self.auto_seqs = auto_seqs
        self.stamps = stamps
        self.window = window
        self.clock = clock
        self.next_deal = next_deal
        self.server_time = ms(now)

    def event_message(self, seq: int, viewer: int | None) -> EventFrame | None:
        shown = engine.event_view(self.events[seq - 1], viewer)
        if shown is None:
            return None
        if shown.get("kind") in MOVE_EVENTS:
            shown = {**shown, "auto": seq in self.auto_seqs}
        # An event already sent keeps its clock and time; a new one gets the current ones.
        clock, server_time = (
            self.stamps[seq - 1] if seq <= len(self.stamps) else (self.clock, self.server_time)
        )
        return EventFrame(
            type="event",
            set=self.set_number,
            seq=seq,
            event=shown,
            clock=clock,
            server_time=server_time,
        )

    def event(self, seq: int, viewer: int | None) -> str | None:
        message = self.event_message(seq, viewer)
        return None if message is None else dumps(message)

    def snapshot(self, viewer: int | None, view: dict[str, Any] | None = None) -> str:
        return dumps(
            Snapshot(
                type="snapshot",
                set=self.set_number,
                seq=len(self.events),
                view=engine.view(self.state, viewer) if view is None else view,
                clock=self.clock,
                next_deal=self.next_deal,
                server_time=self.server_time,
            )
        )

    def catch_up(self, viewer: int | None, after: int) -> list[str]:
        """The events after seq ``after`` that ``viewer`` may see, then its snapshot; beyond
        the resume window (or from a seq this set never had), a ``resync`` and the snapshot."""
        last = len(self.events)
        if after < 0 or after > last or last - after > self.window:
            resync = Resync(
                type="resync", set=self.set_number, seq=last, missed=max(0, last - after)
            )
            return [dumps(resync), self.snapshot(viewer)]
        frames = [self.event(seq, viewer) for seq in range(after + 1, last + 1)]
        return [f for f in frames if f is not None] + [self.snapshot(viewer)]

    def fan_out(self, first: int, viewers: Iterable[int | None]) -> dict[int | None, list[str]]:
        """events[first:] and then the new view, for each distinct viewer."""
        distinct = list(dict.fromkeys(viewers))
        shared: dict[int, str] = {}
        per_viewer: dict[int, list[tuple[EventFrame, str]]] = {}
        for seq in range(first + 1, len(self.events) + 1):
            if self.events[seq - 1].kind in engine.PUBLIC_EVENTS:
                message = self.event_message(seq, None)
                assert message is not None  # public: everyone sees it
                shared[seq] = dumps(message)
            else:
                per_viewer[seq] = []
        views = engine.views(self.state, distinct)
        out: dict[int | None, list[str]] = {}
        for viewer in distinct:
            frames = []
            for seq in range(first + 1, len(self.events) + 1):
                frame = shared.get(seq)
                if frame is None:
                    message = self.event_message(seq, viewer)
                    if message is None:
                        continue
                    frame = _serialise_once(per_viewer[seq], message)
                frames.append(frame)
            frames.append(self.snapshot(viewer, views[viewer]))
            out[viewer] = frames
        return out


def _serialise_once(done: list[tuple[EventFrame, str]], message: EventFrame) -> str:
    """The frame for ``message``, reusing one already made for an equal message."""
    for other, frame in done:
        if other == message:
            return frame
    frame = dumps(message)
    done.append((message, frame))
    return frame

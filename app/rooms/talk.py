"""A table's talk as the core (app/rooms/core.py) handles it: check, count, keep, fan out.

What may be said and the limit are in app/rooms/chat.py; who hears what is decided here.
"""

from __future__ import annotations

from app.presets import DEFAULT_CHAT
from app.rooms.chat import (
    ChatRefused,
    check_emoji,
    check_muted,
    check_phrase,
    clean_text,
    keeps_chat,
    take,
    visible,
)
from app.rooms.effects import Effect, KeepChat, Send
from app.rooms.frames import ms
from app.rooms.protocol import (
    Chat,
    ChatHistory,
    ChatLine,
    Phrase,
    PhraseLine,
    React,
    ReactLine,
    TalkFrame,
    dumps,
)
from app.rooms.state import TableState, Viewer

__all__ = ["ChatRefused", "history", "on_message"]


def on_message(
    state: TableState, conn: int, viewer: Viewer, message: Chat | React | Phrase, now: float
) -> list[Effect]:
    """Check, count and fan out one chat/react/phrase; raises ChatRefused (nothing changes)."""
    if viewer.player_id is None:
        raise ChatRefused("chat_anonymous", "join with a token to chat")
    # A seat's mute comes with the room; a spectator's (and a change) with the viewer.
    mutes = (dict(state.room.muted).get(viewer.player_id), viewer.muted_until)
    check_muted(max((m for m in mutes if m is not None), default=None), now)
    frame = _frame(state, viewer, message, ms(now))
    config = state.config
    take(state.chat, viewer.player_id, now, config.chat_rate_count, config.chat_rate_window)
    sender = viewer.player_id
    only_spectators = viewer.seat is None
    if frame["type"] != "react":
        state.chat.lines.append((only_spectators, sender, frame))
    blocks = state.room.blocks
    to = tuple(
        c
        for c, v in state.viewers.items()
        if (v.seat is None or not only_spectators) and (v.player_id, sender) not in blocks
    )
    fx: list[Effect] = [Send(to, (dumps(frame),))]
    room = state.room
    if frame["type"] != "react" and keeps_chat(
        room.settings, tournament=room.tournament_id is not None
    ):
        if frame["type"] == "chat":
            line = KeepChat(
                state.set_id, sender, frame["name"], viewer.seat, "chat", frame["text"], now
            )
        else:
            line = KeepChat(
                state.set_id, sender, frame["name"], viewer.seat, "phrase", frame["id"], now
            )
        fx.append(line)
    return fx


def unheard(state: TableState, viewer: Viewer) -> frozenset[str]:
    """The players whose talk ``viewer`` does not receive: the ones its player blocks, among
    the seated players (``RoomInfo.blocks``; a block does not change what spectators hear)."""
    return frozenset(b for a, b in state.room.blocks if a == viewer.player_id)


def history(state: TableState, viewer: Viewer) -> list[str]:
    """The kept lines ``viewer`` may see, as one ``chat_history`` frame (none when empty)."""
    lines = visible(state.chat.lines, viewer.seat is None, unheard(state, viewer))
    return [dumps(ChatHistory(type="chat_history", lines=lines))] if lines else []


def _frame(
    state: TableState, viewer: Viewer, message: Chat | React | Phrase, server_time: int
) -> TalkFrame:
    """The frame that passes ``message`` on, signed with its sender; ChatRefused when the
    message is not one the table passes on (checked before it counts against the limit)."""
    frame: TalkFrame
    match message:
        case Chat():
            if not state.room.settings.get("chat", DEFAULT_CHAT):
                raise ChatRefused("chat_off", "the host turned chat off in this room")
            text = clean_text(message.text)
            frame = ChatLine(type="chat", name=None, text=text, server_time=server_time)
        case React():
            emoji = check_emoji(message.emoji)
            frame = ReactLine(type="react", name=None, emoji=emoji, server_time=server_time)
        case Phrase():
            phrase = check_phrase(message.id)
            frame = PhraseLine(type="phrase", name=None, id=phrase, server_time=server_time)
    if viewer.seat is None:
        frame["spectator"] = True
        frame["name"] = viewer.name
    else:
        frame["seat"] = viewer.seat
        frame["name"] = next((s.name for s in state.room.seats if s.seat == viewer.seat), None)
    return frame

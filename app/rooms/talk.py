"""A table's talk as the core (app/rooms/core.py) handles it: check, count, keep, fan out.

What may be said and the limit are in app/rooms/chat.py; who hears what is decided here.
"""

from __future__ import annotations

from app.rooms.chat import (
    ChatFrame,
    ChatRefused,
    check_emoji,
    check_phrase,
    clean_text,
    take,
    visible,
)
from app.rooms.effects import Effect, Send
from app.rooms.frames import dumps, ms
from app.rooms.settings import DEFAULT_CHAT
from app.rooms.state import TableState, Viewer
from app.ws.messages import Chat, Phrase, React

__all__ = ["ChatRefused", "history", "on_message"]


def on_message(
    state: TableState, conn: int, viewer: Viewer, message: Chat | React | Phrase, now: float
) -> list[Effect]:
    """Check, count and fan out one chat/react/phrase; raises ChatRefused (nothing changes)."""
    if viewer.player_id is None:
        raise ChatRefused("chat_anonymous", "join with a token to chat")
    body: ChatFrame
    match message:
        case Chat():
            if not state.room.settings.get("chat", DEFAULT_CHAT):
                raise ChatRefused("chat_off", "the host turned chat off in this room")
            body = {"type": "chat", "text": clean_text(message.text)}
        case React():
            body = {"type": "react", "emoji": check_emoji(message.emoji)}
        case Phrase():
            body = {"type": "phrase", "id": check_phrase(message.id)}
    config = state.config
    take(state.chat, viewer.player_id, now, config.chat_rate_count, config.chat_rate_window)
    frame: ChatFrame = {**_sender(state, viewer), **body, "server_time": ms(now)}
    only_spectators = viewer.seat is None
    if body["type"] != "react":
        state.chat.lines.append((only_spectators, frame))
    to = tuple(c for c, v in state.viewers.items() if v.seat is None or not only_spectators)
    return [Send(to, (dumps(frame),))]


def history(state: TableState, viewer: Viewer) -> list[str]:
    """The kept lines ``viewer`` may see, as one ``chat_history`` frame (none when empty)."""
    lines = visible(state.chat.lines, viewer.seat is None)
    return [dumps({"type": "chat_history", "lines": lines})] if lines else []


def _sender(state: TableState, viewer: Viewer) -> ChatFrame:
    if viewer.seat is None:
        return {"spectator": True, "name": viewer.name}
    name = next((s.name for s in state.room.seats if s.seat == viewer.seat), None)
    return {"seat": viewer.seat, "name": name}

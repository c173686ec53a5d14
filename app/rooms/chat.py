"""Table talk: free text, reactions and quick phrases, written once (docs/PROTOCOL.md §6).

The lists, the checks and the limit; what the table does with a message is in
app/rooms/talk.py.

What a table's chat may carry and who hears it. Seats' messages go to everyone at the table,
spectators' only to the spectators (so onlookers cannot coach a seat), and never to a seated
player who blocks the sender (``RoomInfo.blocks``). The server relays the
players' own words and adds nothing about the game. Reactions are fleeting (never kept); chat
lines and phrases are kept, the last ``HISTORY_LINES`` per table, in memory only, and sent to a
socket after its ``welcome``.

Rated tables (quick play's, a rated room's) and tournament tables also store their chat lines and
phrases for the moderators (``keeps_chat``; app/store/chatlog.py), for
``GAPLE_CHAT_RETENTION_DAYS``: a report shows the lines around it. Nothing else is stored.

``chat: false`` (a room setting) turns off free text only: reactions and quick phrases come from
fixed lists, carry nothing a player typed, and stay on.
"""

from __future__ import annotations

import math
import unicodedata
from collections import deque
from dataclasses import dataclass, field
from typing import Any

from app.errors import GapleError
from app.rooms.protocol import KeptLine

MAX_CHARS = 200
HISTORY_LINES = 50

EMOJI: tuple[str, ...] = ("👍", "😂", "😮", "😡", "🙏", "🔥", "👏", "😭")

# id -> (Indonesian, English). The client shows the viewer's language; ids are the protocol.
PHRASES: dict[str, tuple[str, str]] = {
    "mantap": ("Mantap!", "Nice one!"),
    "ayo_cepat": ("Ayo cepat", "Hurry up"),
    "maaf": ("Maaf", "Sorry"),
    "terima_kasih": ("Terima kasih", "Thank you"),
    "halo": ("Halo semua!", "Hi everyone!"),
    "main_lagi": ("Main lagi?", "Play again?"),
    "hoki": ("Hoki banget!", "So lucky!"),
    "gg": ("Permainan bagus", "Good game"),
}


class ChatRefused(GapleError):
    """A chat, reaction or phrase the table will not pass on; ``seconds_left``: a mute's."""

    seconds_left: int | None = None


@dataclass(slots=True)
class ChatState:
    """A table's chat: the kept lines (each with whether only spectators may see it and its
    sender's player id) and each sender's recent message times for the rate limit."""

    lines: deque[tuple[bool, str, KeptLine]] = field(
        default_factory=lambda: deque(maxlen=HISTORY_LINES)
    )
    recent: dict[str, deque[float]] = field(default_factory=dict)


def catalogue() -> dict[str, Any]:
    """What the client needs to offer reactions and phrases (served in ``GET /api/presets``)."""
    return {
        "max_chars": MAX_CHARS,
        "emoji": list(EMOJI),
        "phrases": [{"id": key, "id_text": t[0], "en_text": t[1]} for key, t in PHRASES.items()],
    }


def keeps_chat(settings: dict[str, Any], *, tournament: bool = False) -> bool:
    """Whether a table (its room's settings; a tournament's or not) stores its chat for the
    moderators: a rated one, or a tournament's."""
    return tournament or bool(settings.get("rated"))


def clean_text(text: str) -> str:
    """The text as sent on, or ChatRefused(bad_chat)."""
    text = text.strip()
    if not text:
        raise ChatRefused("bad_chat", "the message is empty")
    if len(text) > MAX_CHARS:
        raise ChatRefused("bad_chat", f"messages are limited to {MAX_CHARS} characters")
    # Cc: control characters (newlines included). Format characters (ZWJ) stay: emoji need them.
    if any(unicodedata.category(ch) == "Cc" for ch in text):
        raise ChatRefused("bad_chat", "control characters are not allowed")
    return text


def check_muted(until: float | None, now: float) -> None:
    """ChatRefused(muted) while an operator's mute runs (``until``: epoch seconds)."""
    if until is not None and until > now:
        left = math.ceil(until - now)
        refused = ChatRefused("muted", f"an operator muted you: {left} seconds left")
        refused.seconds_left = left
        raise refused


def check_emoji(emoji: str) -> str:
    if emoji not in EMOJI:
        raise ChatRefused("bad_emoji", f"reactions are one of {' '.join(EMOJI)}")
    return emoji


def check_phrase(phrase: str) -> str:
    if phrase not in PHRASES:
        raise ChatRefused("bad_phrase", "unknown phrase id (GET /api/presets lists them)")
    return phrase


def take(chat: ChatState, sender: str, now: float, count: int, window: float) -> None:
    """Count one message against ``sender``'s limit, or ChatRefused(chat_rate_limited)."""
    times = chat.recent.setdefault(sender, deque())
    while times and times[0] <= now - window:
        times.popleft()
    if len(times) >= count:
        raise ChatRefused(
            "chat_rate_limited", f"at most {count} chat messages per {window:g} seconds"
        )
    times.append(now)
    if len(chat.recent) > 64:  # senders who left: forget the quiet ones
        for key in [k for k, t in chat.recent.items() if not t or t[-1] <= now - window]:
            del chat.recent[key]


def visible(
    lines: deque[tuple[bool, str, KeptLine]], spectator: bool, unheard: frozenset[str]
) -> list[KeptLine]:
    """The kept lines a viewer may see: a spectator every one, a seat the seats' lines; none of
    a sender in ``unheard`` (players the viewer blocks)."""
    return [
        frame
        for only_spectators, sender, frame in lines
        if (spectator or not only_spectators) and sender not in unheard
    ]

"""Table talk on a live table (fake clock, SQLite and PostgreSQL): who hears what, the limit,
chat off, the history after ``welcome``, and bad input that changes nothing."""

from __future__ import annotations

import copy
from typing import Any

import pytest

from app.rooms.clock import FakeClock
from app.rooms.protocol import Chat, Phrase, ProtocolError, React, parse_client_message
from tests.app.live.conftest import LiveTable, Probe


def chat(text: str) -> Chat:
    return Chat(type="chat", text=text)


def react(emoji: str) -> React:
    return React(type="react", emoji=emoji)


def phrase(key: str) -> Phrase:
    return Phrase(type="phrase", id=key)


def talk(probe: Probe) -> list[dict[str, Any]]:
    return [f for f in probe.frames if f["type"] in ("chat", "react", "phrase")]


async def spectate(live: LiveTable, make_guest: Any, name: str = "Watcher") -> Probe:
    guest = await make_guest(name)
    probe = Probe()
    probe.conn.player_id, probe.conn.name = guest.player_id, name
    await live.table.join(probe.conn, None)
    live.probes.append(probe)
    await live.settle()
    return probe


async def say(live: LiveTable, probe: Probe, message: Any) -> None:
    await live.table.request(probe.conn, message)
    await live.settle()


async def test_a_seat_is_heard_by_everyone_a_spectator_only_by_spectators(
    live_table: Any, make_guest: Any, clock: FakeClock
) -> None:
    live: LiveTable = await live_table()
    watcher = await spectate(live, make_guest)
    seat0, seat1 = live.probes[0], live.probes[1]

    await say(live, seat1, chat("  Ayo main!  "))
    line = {
        "type": "chat",
        "seat": 1,
        "name": "P1",
        "text": "Ayo main!",
        "server_time": round(clock.now() * 1000),
    }
    for probe in live.probes:
        assert talk(probe) == [line]

    await say(live, watcher, chat("seat 2 holds the 6-6"))
    assert talk(watcher)[-1] == {
        "type": "chat",
        "spectator": True,
        "name": "Watcher",
        "text": "seat 2 holds the 6-6",
        "server_time": round(clock.now() * 1000),
    }
    for probe in live.probes[:4]:
        assert talk(probe) == [line]  # the seats never hear the spectators
    assert seat0.errors() == [] and watcher.errors() == []


async def test_reactions_and_phrases_reach_the_same_viewers(
    live_table: Any, make_guest: Any
) -> None:
    live: LiveTable = await live_table()
    watcher = await spectate(live, make_guest)
    await say(live, live.probes[2], react("🔥"))
    await say(live, live.probes[3], phrase("terima_kasih"))
    await say(live, watcher, react("😮"))
    for probe in live.probes[:4]:
        got = [(f["type"], f.get("seat"), f.get("emoji"), f.get("id")) for f in talk(probe)]
        assert got == [("react", 2, "🔥", None), ("phrase", 3, None, "terima_kasih")]
    assert [f.get("emoji") or f.get("id") for f in talk(watcher)] == ["🔥", "terima_kasih", "😮"]
    assert talk(watcher)[-1]["spectator"] is True


async def test_the_limit_counts_every_kind_and_frees_up_with_time(
    live_table: Any, clock: FakeClock
) -> None:
    live: LiveTable = await live_table()
    sender, other = live.probes[0], live.probes[1]
    for message in [chat("1"), react("👍"), phrase("maaf"), chat("4"), chat("5")]:
        await say(live, sender, message)
    assert sender.errors() == []
    await say(live, sender, chat("6"))
    assert sender.errors() == ["chat_rate_limited"]
    assert len(talk(other)) == 5
    # Another sender has its own allowance.
    await say(live, other, chat("mine"))
    assert other.errors() == [] and talk(sender)[-1]["text"] == "mine"

    clock.advance(10.0)
    await say(live, sender, chat("again"))
    assert sender.errors() == ["chat_rate_limited"]  # no new refusal
    assert talk(other)[-1]["text"] == "again"


async def test_chat_off_refuses_text_but_not_reactions_or_phrases(
    live_table: Any, api: Any
) -> None:
    live: LiveTable = await live_table(chat=False)
    room = (await api.get(f"/api/rooms/{live.code}")).json()
    assert room["settings"]["chat"] is False
    sender = live.probes[0]
    await say(live, sender, chat("halo"))
    assert sender.errors() == ["chat_off"]
    assert all(talk(p) == [] for p in live.probes)
    await say(live, sender, react("👏"))
    await say(live, sender, phrase("mantap"))
    assert [f["type"] for f in talk(live.probes[1])] == ["react", "phrase"]


async def test_history_follows_welcome_for_whoever_may_see_it(
    live_table: Any, make_guest: Any
) -> None:
    live: LiveTable = await live_table()
    watcher = await spectate(live, make_guest)
    await say(live, live.probes[0], chat("from a seat"))
    await say(live, live.probes[1], phrase("ayo_cepat"))
    await say(live, live.probes[2], react("😂"))  # fleeting: not kept
    await say(live, watcher, chat("from the stands"))

    again = Probe()
    again.conn.player_id = live.guests[0].player_id
    await live.table.join(again.conn, None)
    late = await spectate(live, make_guest, "Late")
    await again.drain()
    kinds = [f["type"] for f in again.frames]
    assert kinds[:3] == ["welcome", "snapshot", "chat_history"]
    seat_lines = [(f.get("text"), f.get("id")) for f in again.of_type("chat_history")[0]["lines"]]
    assert seat_lines == [("from a seat", None), (None, "ayo_cepat")]
    watcher_lines = late.of_type("chat_history")[0]["lines"]
    assert [f.get("text") or f.get("id") for f in watcher_lines] == [
        "from a seat",
        "ayo_cepat",
        "from the stands",
    ]
    assert watcher_lines[2]["spectator"] is True and watcher_lines[0]["seat"] == 0


async def test_history_keeps_the_last_fifty_lines(live_table: Any, clock: FakeClock) -> None:
    live: LiveTable = await live_table()
    for i in range(60):
        await say(live, live.probes[i % 4], chat(f"line {i}"))
        clock.advance(2.5)  # four senders, each well within the limit
    assert all(p.errors() == [] for p in live.probes)
    again = Probe()
    again.conn.player_id = live.guests[1].player_id
    await live.table.join(again.conn, None)
    await again.drain()
    lines = again.of_type("chat_history")[0]["lines"]
    assert [f["text"] for f in lines] == [f"line {i}" for i in range(10, 60)]


async def test_a_table_without_chat_sends_no_history(live_table: Any) -> None:
    live: LiveTable = await live_table()
    assert all(p.of_type("chat_history") == [] for p in live.probes)


@pytest.mark.parametrize(
    ("message", "code"),
    [
        (chat("x" * 201), "bad_chat"),
        (chat("   "), "bad_chat"),
        (chat(""), "bad_chat"),
        (chat("two\nlines"), "bad_chat"),
        (chat("bell\x07"), "bad_chat"),
        (chat("del\x7f"), "bad_chat"),
        (react("🐍"), "bad_emoji"),
        (react("👍👍"), "bad_emoji"),
        (phrase("mantap!"), "bad_phrase"),
        (phrase(""), "bad_phrase"),
    ],
)
async def test_bad_input_is_refused_and_changes_nothing(
    live_table: Any, message: Any, code: str
) -> None:
    live: LiveTable = await live_table()
    await say(live, live.probes[0], chat("before"))
    core = live.table.core
    before = (copy.deepcopy(list(core.chat.lines)), core.game, list(core.events))
    counts = [len(p.frames) for p in live.probes]
    await say(live, live.probes[0], message)
    assert live.probes[0].errors() == [code]
    assert (list(core.chat.lines), core.game, list(core.events)) == before
    assert [len(p.frames) for p in live.probes[1:]] == counts[1:]  # nobody else heard a thing


async def test_refused_messages_do_not_use_up_the_limit(live_table: Any) -> None:
    live: LiveTable = await live_table()
    sender = live.probes[0]
    for _ in range(6):
        await say(live, sender, react("🐍"))
    for i in range(5):
        await say(live, sender, chat(f"ok {i}"))
    assert sender.errors() == ["bad_emoji"] * 6


async def test_the_longest_message_passes_once_trimmed(live_table: Any) -> None:
    live: LiveTable = await live_table()
    text = "é" * 199 + "👍"  # 200 characters (code points), more bytes
    await say(live, live.probes[0], chat(f"\t {text} \t"))
    assert talk(live.probes[1])[-1]["text"] == text


async def test_an_anonymous_spectator_may_not_talk(live_table: Any) -> None:
    live: LiveTable = await live_table()
    anonymous = Probe()
    await live.table.join(anonymous.conn, None)
    live.probes.append(anonymous)
    await say(live, anonymous, react("👍"))
    assert anonymous.errors() == ["chat_anonymous"]


@pytest.mark.parametrize(
    "raw",
    [
        '{"type": "chat"}',
        '{"type": "chat", "text": 5}',
        '{"type": "chat", "text": "hi", "seat": 0}',
        '{"type": "react", "emoji": "' + "👍" * 17 + '"}',
        '{"type": "phrase"}',
    ],
)
def test_malformed_talk_is_a_bad_message(raw: str) -> None:
    with pytest.raises(ProtocolError) as caught:
        parse_client_message(raw)
    assert caught.value.code == "bad_message"

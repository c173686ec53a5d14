"""The protocol module: messages between nodes survive the bus as the same typed messages, a
relayed client message arrives as its parsed model, and anything else from the bus is refused."""

from __future__ import annotations

import orjson
import pytest
from pydantic import ValidationError

from app.rooms.protocol import (
    Chat,
    Hello,
    Play,
    RelayBanned,
    RelayClient,
    RelayClose,
    RelayFrame,
    RelayJoin,
    RelayMessage,
    RelayOwnerGone,
    RelayRoomChanged,
    RelaySendAway,
    Resume,
    dumps,
    parse_client_message,
    relay_dump,
    relay_load,
)

MESSAGES: list[RelayMessage] = [
    RelayJoin(
        room="r1", conn="n1:7", node="n1", player="p1", name="Ayu", resume=Resume(set=2, seq=9)
    ),
    RelayJoin(room="r1", conn="n1:8", node="n1", player=None, name=None, resume=None),
    RelayClient(room="r1", conn="n1:7", msg=Play(type="play", move_id="m1", tile="6-6", end=None)),
    RelayClient(room="r1", conn="n1:7", msg=Chat(type="chat", text="halo")),
    RelayClient(room="r1", conn="n1:7", msg=Hello(type="hello")),
    RelayRoomChanged(room="r1", started=True),
    RelaySendAway(room="r1", player="p1", reason="banned"),
    RelayBanned(player="p1", node="n2"),
    RelayFrame(conns=["n1:7", "n1:9"], text='{"type":"pong","t":1}'),
    RelayClose(conn="n1:7", code=1012, reason="table_moved"),
    RelayOwnerGone(room="r1"),
]


@pytest.mark.parametrize("message", MESSAGES, ids=lambda m: type(m).__name__)
def test_a_relay_message_crosses_the_bus_unchanged(message: RelayMessage) -> None:
    # The bus serialises a batch of dumped messages with orjson and loads it on the other node.
    [arrived] = orjson.loads(orjson.dumps([relay_dump(message)]))
    assert relay_load(arrived) == message


def test_a_relayed_client_message_arrives_parsed() -> None:
    play = parse_client_message('{"type":"play","move_id":"m1","tile":"3-5","end":"left"}')
    arrived = relay_load(
        orjson.loads(orjson.dumps(relay_dump(RelayClient(room="r", conn="n:1", msg=play))))
    )
    assert (
        isinstance(arrived, RelayClient) and arrived.msg == play and isinstance(arrived.msg, Play)
    )


@pytest.mark.parametrize(
    "data",
    [
        {"k": "nope", "room": "r"},
        {"room": "r"},
        {"k": "gone", "room": "r"},  # no conn
        {"k": "frame", "conn": "n:1", "text": "x", "extra": 1},
        {
            "k": "msg",
            "room": "r",
            "conn": "n:1",
            "msg": {"type": "ping"},
        },  # the endpoint answers pings
        {"k": "msg", "room": "r", "conn": "n:1", "msg": {"type": "play", "tile": "6-6"}},
        {"k": "send_away", "room": "r", "player": "p", "reason": "bored"},
        "not an object",
    ],
)
def test_anything_else_from_the_bus_is_refused(data: object) -> None:
    with pytest.raises(ValidationError):
        relay_load(data)


def test_server_messages_serialise_compactly() -> None:
    assert dumps({"type": "pong", "t": "x"}) == '{"type":"pong","t":"x"}'
    assert dumps({"type": "bye", "reason": "draining"}) == '{"type":"bye","reason":"draining"}'

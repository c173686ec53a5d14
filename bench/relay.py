"""The ceiling for bench/load.py: a bare relay on the game server's stack, no rules, no database.

    .venv/bin/python bench/relay.py --port 8100

Same stack and transport settings as ``gaple serve`` (app/cli.py): a FastAPI app run by
``uvicorn.run`` with the default (auto) loop and HTTP implementation (uvloop, httptools when
installed, as for the game server), the game's WebSocket protocol (app/ws/transport.py, on
uvicorn's websockets-sansio), per-message-deflate off and the same ``ws_max_size`` (16 x
``GAPLE_MAX_WS_FRAME_BYTES``). It speaks just enough of
docs/API.md and docs/PROTOCOL.md for the load generator to drive it exactly as it drives the game:

* REST stubs, all in memory: ``POST /api/guests``, ``POST /api/rooms``,
  ``POST /api/rooms/{code}/seats/{seat}``, ``POST /api/rooms/{code}/start``,
  ``GET /api/rooms/{code}``, ``GET /api/health``.
* ``/ws/rooms/{code}``: ``hello`` is answered with ``welcome``, ``snapshot`` and ``presence``.
  A ``play`` (from anyone, in any order: no rules) is relayed as the game would: one ``played``
  event serialised once and sent to the table's sockets, then a snapshot per seat (each viewer
  serialised once, as the game does) whose fake view gives the turn to the next seat with a
  one-tile ``legal`` list, then the ``ack`` to the sender. The fake view has the real view's
  fields and a line that grows and resets like a deal, so frames are about as large as the game's.
  ``ping`` gets ``pong``; ``next_set`` and ``start`` restart the fake set.
* Spectators: a ``hello`` with ``"token": null`` (as docs/PROTOCOL.md has it) joins the room as a
  spectator: ``welcome`` with ``role`` ``spectator``, a public snapshot (``viewer``, ``hand`` and
  ``discards`` null, no ``legal``), ``presence`` (to the seats and the newcomer only: the game
  tells every socket, an N^2 cost of joining that the ceiling skips). Each move then sends them
  the same ``played`` event as the seats and one public snapshot, both serialised once for all
  spectators, written to one spectator after the other after the seats' frames (no per-socket
  queue: a spectator that stops reading would stall the relay's table, which the benchmark's
  readers never do).

Frames are parsed with ``json.loads`` (as the game does, but without pydantic), serialised with
orjson (the game's serialiser) and written straight to the socket (no per-socket writer task),
through the game's own transport (app/ws/transport.py): framed here and put on the socket at
once while it takes them, the spectators' frames framed once for all of them. There is no rate
limit and no origin check.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import secrets
import sys
import time
from dataclasses import dataclass, field
from typing import Any

import orjson
import uvicorn
from fastapi import FastAPI, HTTPException, Request, WebSocket
from fastapi.responses import JSONResponse
from starlette.websockets import WebSocketDisconnect

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

# the game's transport, and only that
from app.wire import text_frame
from app.ws.transport import WebSocketProtocol, frame_writer

SEATS = 4
TILES = [f"{a}-{b}" for a in range(7) for b in range(a, 7)]
DEAL_LENGTH = 20  # placements before the fake line starts over


def dumps(message: dict[str, Any]) -> str:
    # The game server's serialiser (app.rooms.protocol.dumps), copied: the relay imports no
    # more of the game than its transport.
    return orjson.dumps(message).decode()


async def _send(ws: WebSocket, *texts: str, framed: bytes | None = None) -> None:
    """As the game writes frames: framed here and put on the socket at once, in one write, when
    the transport takes them (``framed``: the same, framed once for many sockets), else through
    ASGI one by one."""
    write = frame_writer(ws)
    if write is None or not write(b"".join(map(text_frame, texts)) if framed is None else framed):
        for text in texts:
            await ws.send_text(text)


@dataclass
class Room:
    id: str
    code: str
    host_id: str
    host_name: str
    settings: dict[str, Any]
    seats: list[str | None] = field(default_factory=lambda: [None] * SEATS)
    names: list[str | None] = field(default_factory=lambda: [None] * SEATS)
    status: str = "open"
    sockets: dict[int, WebSocket] = field(default_factory=dict)
    spectators: dict[int, WebSocket] = field(default_factory=dict)  # by id(websocket)
    set: int = 0
    seq: int = 0
    turn: int = 0
    line: list[dict[str, Any]] = field(default_factory=list)
    scores: list[int] = field(default_factory=lambda: [0] * SEATS)
    deadline: float = 0.0
    timer: asyncio.TimerHandle | None = None

    def public(self) -> dict[str, Any]:
        return {
            "code": self.code,
            "status": self.status,
            "host_id": self.host_id,
            "settings": self.settings,
            "seats": [
                {"seat": i, "player_id": self.seats[i], "name": self.names[i], "bot": None}
                for i in range(SEATS)
            ],
        }

    def out(self) -> dict[str, Any]:
        """The REST room shape (docs/API.md)."""
        taken = sum(1 for p in self.seats if p is not None)
        return {
            "id": self.id,
            "code": self.code,
            "share_link": f"/r/{self.code}",
            "status": self.status,
            "host": {"player_id": self.host_id, "name": self.host_name},
            "settings": self.settings,
            "seats": [
                {"seat": i, "player_id": self.seats[i], "name": self.names[i], "bot": None}
                for i in range(SEATS)
            ],
            "seats_taken": taken,
            "spectators": len(self.spectators),
            "created_at": "2025-01-01T00:00:00Z",
        }

    def arm(self) -> None:
        """The turn clock, as the game has it: when it runs out the seat's first tile is played
        for it (``auto``), so AFK seats in the load do not stall the relay's tables."""
        if self.timer is not None:
            self.timer.cancel()
        seconds = int(self.settings.get("turn_seconds", 15))
        self.deadline = time.time() + seconds
        loop = asyncio.get_running_loop()
        self.timer = loop.call_later(seconds, lambda: loop.create_task(self.expire()))

    async def expire(self) -> None:
        seat = self.turn
        tile = TILES[seat * 5]
        await _relay_play(self, seat, {"tile": tile, "move_id": None}, None, auto=True)

    def clock(self) -> dict[str, Any]:
        remaining = max(0, round((self.deadline - time.time()) * 1000))
        deadline = round(self.deadline * 1000)
        return {"seat": self.turn, "deadline": deadline, "remaining_ms": remaining}

    def view(self, viewer: int | None) -> dict[str, Any]:
        """A seat's view, or (``None``) a spectator's: no hand, no legal moves, no discards."""
        hand = TILES[viewer * 5 : viewer * 5 + 5] if viewer is not None else None
        playing = self.status == "playing"
        legal = (
            [{"tile": hand[0], "end": None, "domi_points": None, "discard": False}]
            if hand is not None and playing and viewer == self.turn
            else []
        )
        return {
            "viewer": viewer,
            "preset": "pordi",
            "mode": self.settings.get("mode", "tunggal"),
            "scoring": "fixed",
            "players": SEATS,
            "phase": "playing" if playing else "ready",
            "deal_number": 1,
            "additional_game": False,
            "scores": self.scores,
            "teams": None,
            "turn": self.turn if playing else None,
            "opener": 0,
            "hand": hand,
            "counts": [5, 5, 5, 5],
            "start": None,
            "line": self.line,
            "ends": {"left": 0, "right": 2} if self.line else None,
            "set_aside": 0,
            "passes": [],
            "discards": [] if viewer is not None else None,
            "discard_counts": [0, 0, 0, 0],
            "discarded": [],
            "legal": legal,
            "last_result": None,
            "set_result": None,
        }


class Relay:
    def __init__(self) -> None:
        self.guests: dict[str, tuple[str, str]] = {}  # token -> (player_id, name)
        self.rooms: dict[str, Room] = {}

    def player(self, request: Request) -> tuple[str, str]:
        auth = request.headers.get("authorization", "")
        token = auth.removeprefix("Bearer ").strip()
        if token not in self.guests:
            raise HTTPException(401, "unauthorized")
        return self.guests[token]

    def room(self, code: str) -> Room:
        room = self.rooms.get(code.upper())
        if room is None:
            raise HTTPException(404, "room_not_found")
        return room


def _welcome(room: Room, seat: int | None, player_id: str | None) -> str:
    """The ``welcome`` of a seat, or of a spectator (no seat, no player)."""
    return dumps(
        {
            "type": "welcome",
            "role": "spectator" if seat is None else "seat",
            "seat": seat,
            "player_id": player_id,
            "room": room.public(),
            "server_time": round(time.time() * 1000),
        }
    )


def _snapshot(room: Room, viewer: int | None, clock: dict[str, Any]) -> str:
    return dumps(
        {
            "type": "snapshot",
            "set": room.set,
            "seq": room.seq,
            "view": room.view(viewer),
            "clock": clock,
            "server_time": round(time.time() * 1000),
        }
    )


async def _send_all_snapshots(room: Room) -> None:
    clock = room.clock()
    for seat, ws in list(room.sockets.items()):
        try:
            await _send(ws, _snapshot(room, seat, clock))
        except Exception:
            room.sockets.pop(seat, None)
    if room.spectators:
        await _send_spectators(room, (_snapshot(room, None, clock),))


async def _send_spectators(room: Room, frames: tuple[str, ...]) -> None:
    """The same frames, serialised once by the caller, to every spectator in turn."""
    framed = b"".join(map(text_frame, frames))
    for key, ws in list(room.spectators.items()):
        try:
            await _send(ws, *frames, framed=framed)
        except Exception:
            room.spectators.pop(key, None)


def _presence(room: Room) -> str:
    return dumps(
        {
            "type": "presence",
            "seats": [
                {"seat": s, "connected": s in room.sockets, "bot": None} for s in range(SEATS)
            ],
            "spectators": len(room.spectators),
        }
    )


def create_app() -> FastAPI:
    relay = Relay()
    app = FastAPI(title="Gaple relay (benchmark ceiling)")

    @app.get("/api/health")
    async def health() -> dict[str, str]:
        return {"status": "ok", "database": "ok", "redis": "disabled"}

    @app.post("/api/guests", status_code=201)
    async def guest(request: Request) -> dict[str, str]:
        body = await request.json()
        token = secrets.token_urlsafe(32)
        player_id = secrets.token_hex(16)
        relay.guests[token] = (player_id, str(body.get("name", "guest")))
        return {"player_id": player_id, "token": token, "name": relay.guests[token][1]}

    @app.post("/api/rooms", status_code=201)
    async def create_room(request: Request) -> dict[str, Any]:
        player_id, name = relay.player(request)
        body = await request.json()
        settings = {
            "preset": "pordi",
            "mode": "tunggal",
            "turn_seconds": 15,
            "deals_per_set": 7,
            "target_points": 7,
            "public": True,
            **body,
        }
        code = "".join(secrets.choice("ABCDEFGHJKMNPQRSTUVWXYZ23456789") for _ in range(6))
        room = Room(secrets.token_hex(16), code, player_id, name, settings)
        relay.rooms[code] = room
        return room.out()

    @app.get("/api/rooms/{code}")
    async def get_room(code: str) -> dict[str, Any]:
        return relay.room(code).out()

    @app.post("/api/rooms/{code}/seats/{seat}")
    async def sit(code: str, seat: int, request: Request) -> dict[str, Any]:
        player_id, name = relay.player(request)
        room = relay.room(code)
        if not 0 <= seat < SEATS or room.seats[seat] not in (None, player_id):
            return JSONResponse({"error": {"code": "seat_taken"}}, status_code=409)  # type: ignore[return-value]
        room.seats[seat], room.names[seat] = player_id, name
        return room.out()

    @app.post("/api/rooms/{code}/start")
    async def start(code: str, request: Request) -> dict[str, Any]:
        relay.player(request)
        room = relay.room(code)
        room.status, room.set, room.seq, room.turn, room.line = "playing", 1, 0, 0, []
        room.arm()
        await _send_all_snapshots(room)
        return room.out()

    @app.websocket("/ws/rooms/{code}")
    async def table_socket(websocket: WebSocket, code: str) -> None:
        await websocket.accept()
        room = relay.rooms.get(code.upper())
        try:
            hello = json.loads(await websocket.receive_text())
        except (WebSocketDisconnect, ValueError):
            return
        token = hello.get("token")
        who = relay.guests.get(token or "")
        if room is not None and token is None:
            await _watch(room, websocket)
            return
        if room is None or who is None or who[0] not in room.seats:
            await _send(websocket, dumps({"type": "error", "code": "bad_token", "message": ""}))
            await websocket.close(1008)
            return
        seat = room.seats.index(who[0])
        room.sockets[seat] = websocket
        await _send(websocket, _welcome(room, seat, who[0]))
        await _send(websocket, _snapshot(room, seat, room.clock()))
        presence = _presence(room)
        for ws in list(room.sockets.values()):
            await _send(ws, presence)
        try:
            while True:
                message = json.loads(await websocket.receive_text())
                kind = message.get("type")
                if kind == "play":
                    await _relay_play(room, seat, message, websocket)
                elif kind == "ping":
                    await _send(websocket, dumps({"type": "pong", "t": message.get("t")}))
                elif kind in ("next_set", "start"):
                    room.set, room.seq, room.line = room.set + 1, 0, []
                    room.arm()
                    await _send_all_snapshots(room)
        except (WebSocketDisconnect, RuntimeError, ValueError):
            pass
        finally:
            if room.sockets.get(seat) is websocket:
                del room.sockets[seat]

    return app


async def _watch(room: Room, websocket: WebSocket) -> None:
    """A spectator (``hello`` with ``"token": null``): ``welcome`` (role spectator), the public
    snapshot, ``presence`` -- to it and the seats only: the game tells every socket, spectators
    too, which makes N joins N^2 frames, a setup cost (outside the measured window) the ceiling
    need not pay. Then it gets every event and the public snapshot; what it sends is refused."""
    key = id(websocket)
    room.spectators[key] = websocket
    await _send(websocket, _welcome(room, None, None))
    await _send(websocket, _snapshot(room, None, room.clock()))
    presence = _presence(room)
    for ws in [*room.sockets.values(), websocket]:
        await _send(ws, presence)
    try:
        while True:
            message = json.loads(await websocket.receive_text())
            if message.get("type") == "ping":
                await _send(websocket, dumps({"type": "pong", "t": message.get("t")}))
            else:
                refusal = {"type": "error", "code": "spectator", "message": ""}
                await _send(websocket, dumps(refusal))
    except (WebSocketDisconnect, RuntimeError, ValueError):
        pass
    finally:
        room.spectators.pop(key, None)


async def _relay_play(
    room: Room, seat: int, message: dict[str, Any], sender: WebSocket | None, *, auto: bool = False
) -> None:
    tile = str(message.get("tile"))
    if len(room.line) >= DEAL_LENGTH:
        room.line = []
    room.line = [*room.line, {"tile": tile, "seat": seat}]
    room.seq += 1
    room.turn = (seat + 1) % SEATS
    room.arm()
    clock = room.clock()
    now = round(time.time() * 1000)
    event = dumps(
        {
            "type": "event",
            "set": room.set,
            "seq": room.seq,
            "event": {
                "kind": "played",
                "deal_number": 1,
                "seat": seat,
                "tile": tile,
                "end": message.get("end"),
                "placed": tile,
                "left": 0,
                "right": 2,
                "auto": auto,
            },
            "clock": clock,
            "server_time": now,
        }
    )
    sockets = list(room.sockets.items())
    for viewer, ws in sockets:
        try:
            await _send(ws, event, _snapshot(room, viewer, clock))
        except Exception:
            room.sockets.pop(viewer, None)
    if room.spectators:  # the same event, and one public snapshot serialised once for them all
        await _send_spectators(room, (event, _snapshot(room, None, clock)))
    if sender is not None:
        await _send(
            sender,
            dumps(
                {"type": "ack", "move_id": message.get("move_id"), "set": room.set, "seq": room.seq}
            ),
        )


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description="bare relay: the load benchmark's ceiling")
    parser.add_argument("--host", default="127.0.0.1")
    parser.add_argument("--port", type=int, default=8100)
    parser.add_argument("--log-level", default="warning")
    args = parser.parse_args(argv)
    max_frame = int(os.environ.get("GAPLE_MAX_WS_FRAME_BYTES", "4096"))
    print(f"relay: serving on http://{args.host}:{args.port}", flush=True)
    uvicorn.run(
        create_app,
        factory=True,
        host=args.host,
        port=args.port,
        log_level=args.log_level,
        ws_max_size=max_frame * 16,  # as app/cli.py
        ws_per_message_deflate=False,  # as app/cli.py
        ws=WebSocketProtocol,  # as app/cli.py
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())

"""A small table client written only from docs/PROTOCOL.md (and the REST lobby at /docs).

The tests drive the real server through it, so it doubles as proof that the protocol document is
enough to write a client.
"""

from __future__ import annotations

import asyncio
import itertools
import json
import random
from dataclasses import dataclass, field
from typing import Any

import httpx
import orjson
import websockets


class Lobby:
    """The REST side: guests, rooms, seats."""

    def __init__(self, base_url: str) -> None:
        self.base_url = base_url
        self.http = httpx.AsyncClient(base_url=base_url, timeout=10)

    async def close(self) -> None:
        await self.http.aclose()

    async def __aenter__(self) -> Lobby:
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.close()

    async def guest(self, name: str) -> dict[str, Any]:
        response = await self.http.post("/api/guests", json={"name": name})
        response.raise_for_status()
        return dict(response.json())

    async def create_room(self, token: str, **settings: Any) -> dict[str, Any]:
        response = await self.http.post("/api/rooms", json=settings, headers=_auth(token))
        response.raise_for_status()
        return dict(response.json())

    async def sit(self, token: str, code: str, seat: int) -> None:
        response = await self.http.post(f"/api/rooms/{code}/seats/{seat}", headers=_auth(token))
        response.raise_for_status()

    async def seat_bot(self, token: str, code: str, seat: int) -> None:
        response = await self.http.post(
            f"/api/rooms/{code}/bots/{seat}", json={"kind": "heuristic"}, headers=_auth(token)
        )
        response.raise_for_status()

    async def start(self, token: str, code: str) -> None:
        response = await self.http.post(f"/api/rooms/{code}/start", headers=_auth(token))
        response.raise_for_status()

    async def room(self, code: str) -> dict[str, Any]:
        response = await self.http.get(f"/api/rooms/{code}")
        response.raise_for_status()
        return dict(response.json())


def _auth(token: str) -> dict[str, str]:
    return {"Authorization": f"Bearer {token}"}


@dataclass
class TableClient:
    """One WebSocket at one table. Keeps every message it received in ``received``."""

    url: str
    token: str | None
    name: str = "client"
    received: list[dict[str, Any]] = field(default_factory=list)
    view: dict[str, Any] | None = None
    role: str | None = None
    seat: int | None = None
    set: int = 0
    seq: int = 0
    clock: dict[str, Any] | None = None
    view_at: tuple[int, int] = (0, 0)  # (set, seq) of the snapshot in ``view``
    acks: dict[str, dict[str, Any]] = field(default_factory=dict)
    errors: list[dict[str, Any]] = field(default_factory=list)
    _ws: Any = None
    _reader: asyncio.Task[None] | None = None
    _changed: asyncio.Event = field(default_factory=asyncio.Event)
    _ids: itertools.count[int] = field(default_factory=lambda: itertools.count(1))

    async def connect(self, *, resume: bool = False) -> None:
        self.view = self.role = None  # wait for this connection's own welcome and snapshot
        self._ws = await websockets.connect(self.url, max_size=2**20)
        hello: dict[str, Any] = {"type": "hello", "token": self.token}
        if resume:
            hello["resume"] = {"set": self.set, "seq": self.seq}
        await self.send(hello)
        self._reader = asyncio.get_running_loop().create_task(self._read())
        await self.wait_for(lambda: self.view is not None and self.role is not None)

    async def close(self) -> None:
        if self._ws is not None:
            await self._ws.close()
        if self._reader is not None:
            await asyncio.gather(self._reader, return_exceptions=True)

    @property
    def connected(self) -> bool:
        return self._reader is not None and not self._reader.done()

    async def send(self, message: dict[str, Any]) -> None:
        await self._ws.send(json.dumps(message))

    async def send_raw(self, frame: str | bytes) -> None:
        await self._ws.send(frame)

    async def play(self, tile: str, end: str | None = None, move_id: str | None = None) -> str:
        move_id = move_id or f"{self.name}-{next(self._ids)}"
        message: dict[str, Any] = {"type": "play", "move_id": move_id, "tile": tile}
        if end is not None:
            message["end"] = end
        await self.send(message)
        return move_id

    async def _read(self) -> None:
        try:
            async for frame in self._ws:
                message = orjson.loads(frame)
                self.received.append(message)
                self._apply(message)
                self._changed.set()
        except websockets.ConnectionClosed:
            pass
        finally:
            self._changed.set()

    def _apply(self, message: dict[str, Any]) -> None:
        kind = message["type"]
        if kind == "welcome":
            self.role, self.seat = message["role"], message["seat"]
        elif kind == "snapshot":
            self.view, self.set, self.seq = message["view"], message["set"], message["seq"]
            self.view_at = (self.set, self.seq)
            self.clock = message["clock"]
        elif kind == "event":
            if message["set"] == self.set and message["seq"] > self.seq:
                self.seq = message["seq"]
            self.clock = message["clock"]
        elif kind == "ack":
            self.acks[message["move_id"]] = message
        elif kind == "error":
            self.errors.append(message)

    def acked(self, move_id: str) -> bool:
        """The move's ``ack`` came, and the snapshot after it too (an ``ack`` precedes the move's
        events and snapshot)."""
        ack = self.acks.get(move_id)
        return ack is not None and self.view_at >= (ack["set"], ack["seq"])

    async def wait_for(self, predicate: Any, timeout: float = 15.0) -> None:
        async def loop() -> None:
            while not predicate():
                if not self.connected and self._reader is not None:
                    raise ConnectionError(f"{self.name}: socket closed while waiting")
                self._changed.clear()
                await self._changed.wait()

        await asyncio.wait_for(loop(), timeout)

    def events(self, kind: str | None = None) -> list[dict[str, Any]]:
        return [
            m["event"]
            for m in self.received
            if m["type"] == "event" and (kind is None or m["event"]["kind"] == kind)
        ]

    async def refresh(self) -> dict[str, Any]:
        """Reconnect to get a fresh snapshot (the view after everything seen so far)."""
        await self.close()
        self.view = None
        await self.connect(resume=True)
        assert self.view is not None
        return self.view


@dataclass
class MeClient:
    """The player's own socket, /ws/me (docs/PROTOCOL.md §9): presence of friends and
    notifications. ``friends``: each friend's last ``presence``; ``received``: every frame."""

    url: str  # ws://host:port (the path is added)
    token: str | None
    received: list[dict[str, Any]] = field(default_factory=list)
    friends: dict[str, dict[str, Any]] = field(default_factory=dict)
    closed_with: int | None = None
    _ws: Any = None
    _reader: asyncio.Task[None] | None = None
    _changed: asyncio.Event = field(default_factory=asyncio.Event)
    _pings: itertools.count[int] = field(default_factory=lambda: itertools.count(1))

    async def connect(self, *, welcome: bool = True, first: dict[str, Any] | None = None) -> None:
        self._ws = await websockets.connect(f"{self.url}/ws/me", max_size=2**20)
        await self.send(first or {"type": "hello", "token": self.token})
        self._reader = asyncio.get_running_loop().create_task(self._read())
        if welcome:
            await self.wait_for(lambda: bool(self.of_type("welcome_me")))

    async def close(self) -> None:
        if self._ws is not None:
            await self._ws.close()
        if self._reader is not None:
            await asyncio.gather(self._reader, return_exceptions=True)

    async def send(self, message: dict[str, Any]) -> None:
        await self._ws.send(json.dumps(message))

    async def _read(self) -> None:
        try:
            async for frame in self._ws:
                message = orjson.loads(frame)
                self.received.append(message)
                if message["type"] == "presence":
                    self.friends[message["player_id"]] = message
                self._changed.set()
        except websockets.ConnectionClosed:
            pass
        finally:
            self.closed_with = self._ws.close_code
            self._changed.set()

    def of_type(self, kind: str) -> list[dict[str, Any]]:
        return [m for m in self.received if m["type"] == kind]

    def shown(self, player_id: str) -> tuple[bool, str | None]:
        """(online, table) of a friend as last told (never told: offline)."""
        got = self.friends.get(player_id)
        return (False, None) if got is None else (got["online"], got["table"])

    async def sync(self) -> None:
        """Ping and wait for the pong: every frame the server queued before it has arrived."""
        t = f"sync-{next(self._pings)}"
        await self.send({"type": "ping", "t": t})
        await self.wait_for(lambda: any(m.get("t") == t for m in self.of_type("pong")))

    async def wait_for(self, predicate: Any, timeout: float = 15.0) -> None:
        async def loop() -> None:
            while not predicate():
                if self._reader is not None and self._reader.done():
                    raise ConnectionError("/ws/me closed while waiting")
                self._changed.clear()
                await self._changed.wait()

        await asyncio.wait_for(loop(), timeout)

    async def wait_closed(self) -> None:
        assert self._reader is not None
        await asyncio.wait_for(asyncio.shield(self._reader), 15)


def choose(view: dict[str, Any], rng: random.Random) -> tuple[str, str | None]:
    """A random legal placement from the viewer's own snapshot."""
    option = rng.choice(view["legal"])
    return option["tile"], option["end"]

"""The WebSocket endpoint: authenticates a socket, then feeds its frames to the room's actor.

This layer only deals with transport concerns — origins, frame sizes, JSON, message shapes,
flooding, the hello handshake. Everything about the game happens in app/rooms (core.py).
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import Any

from fastapi import APIRouter, WebSocket
from fastapi.responses import JSONResponse
from starlette.websockets import WebSocketDisconnect, WebSocketState

from app import logs
from app.bus.redis import BusUnavailable
from app.clients import address_mark, client_address
from app.errors import error_body
from app.metrics import Metrics, Role
from app.players import bans
from app.players.sessions import Logins
from app.rooms import frames
from app.rooms.connection import Connection
from app.rooms.hub import Hub
from app.rooms.manager import TableManager
from app.rooms.placement import Relay
from app.rooms.protocol import (
    CLOSE_NORMAL,
    CLOSE_POLICY,
    CLOSE_RECONNECT,
    CLOSE_TOO_BIG,
    CLOSE_TRY_AGAIN,
    ByeReason,
    ClientMessage,
    Hello,
    Ping,
    Play,
    ProtocolError,
    parse_client_message,
)
from app.rooms.table import Table
from app.settings import Settings
from app.ws import transport
from app.ws.limits import SocketCap, TokenBucket

log = logging.getLogger(__name__)
router = APIRouter()

HELLO_TIMEOUT = 10.0
MAX_VIOLATIONS = 20  # refused floods before the socket is closed


def origin_allowed(origin: str | None, settings: Settings, host: str | None) -> bool:
    if origin is None:
        return True  # not a browser: origins protect browsers from cross-site pages
    origin = origin.rstrip("/")
    if origin in settings.allowed_origins or "*" in settings.allowed_origins:
        return True
    # The page the server itself serves always may connect back to it.
    return host is not None and origin in (f"http://{host}", f"https://{host}")


async def within_cap(websocket: WebSocket, serve: Callable[[WebSocket], Awaitable[None]]) -> None:
    """Serve the socket if its client address has fewer than GAPLE_MAX_SOCKETS_PER_ADDRESS open
    (table and player sockets alike); refuse it with ``too_many_sockets`` otherwise."""
    sockets: SocketCap = websocket.app.state.sockets
    address = client_address(websocket)
    if not sockets.acquire(address):
        await websocket.accept()
        too_many = f"at most {sockets.limit} connections at once from one address"
        await Session(websocket, websocket.app.state.settings).fail(
            "too_many_sockets", too_many, CLOSE_TRY_AGAIN
        )
        return
    try:
        await serve(websocket)
    finally:
        sockets.release(address)


async def table_socket(websocket: WebSocket) -> None:
    """``/ws/rooms/{code}``, at most GAPLE_MAX_SOCKETS_PER_ADDRESS at once per client address."""
    await within_cap(websocket, _table_socket)


async def _table_socket(websocket: WebSocket) -> None:
    """A plain Starlette route, not a FastAPI one: FastAPI's dependency
    machinery would stay referenced for as long as the socket is open, thousands of times over."""
    settings: Settings = websocket.app.state.settings
    if not await admitted(websocket, settings):
        return
    manager: TableManager = websocket.app.state.live
    logs.bind(room=websocket.path_params["code"].upper())
    await websocket.accept()
    session = Session(websocket, settings)
    joined = await _handshake(websocket, session, manager, websocket.path_params["code"])
    if joined is None:
        return
    table, conn = joined
    logs.bind(conn=conn.id, player=conn.player_id)
    metrics: Metrics = websocket.app.state.metrics
    if isinstance(table, Table):
        role: Role = "spectator" if conn.seat is None else "seat"
    else:  # relayed: the owner node decides the seat; a token is the best guess here
        role = "seat" if conn.player_id else "spectator"
    metrics.connection_opened(role)
    hub: Hub = websocket.app.state.hub
    if conn.player_id is not None:
        hub.socket_opened(conn.player_id)  # online for friends, wherever the table runs
    try:
        while not conn.closed:
            message = await session.read()
            if message is None:
                break
            if isinstance(message, Ping):
                conn.send(frames.pong(message.t))
            else:
                table.message(conn, message)
    finally:
        metrics.connection_closed(role)
        if conn.player_id is not None:
            hub.socket_closed(conn.player_id)
        table.gone(conn)
        await let_go(conn)


router.add_websocket_route("/ws/rooms/{code}", table_socket)


async def admitted(websocket: WebSocket, settings: Settings) -> bool:
    """Every socket's gate before ``accept``: refused while the node drains, or from an origin
    not allowed (closed ``CLOSE_POLICY``). True: go on."""
    if websocket.app.state.draining:
        await refuse_draining(websocket)
        return False
    origin = websocket.headers.get("origin")
    if not origin_allowed(origin, settings, websocket.headers.get("host")):
        log.warning("refused WebSocket from origin %r", origin)
        websocket.app.state.metrics.record_ws_refusal("bad_origin")
        await websocket.close(code=CLOSE_POLICY)
        return False
    return True


def connection(websocket: WebSocket, **identity: Any) -> Connection:
    """The live layer's handle on an accepted socket (``identity``: Connection's fields)."""
    return Connection(
        send_text=websocket.send_text,
        close=lambda code, reason: websocket.close(code=code, reason=reason),
        write_now=transport.frame_writer(websocket),
        **identity,
    )


async def answer_pings(session: Session, conn: Connection, where: str) -> None:
    """A socket on which the client only sends ``ping`` (``/ws/me``, a tournament's): each is
    answered, anything else is a ``bad_message``, until the socket closes."""
    while not conn.closed:
        message = await session.read()
        if message is None:
            return
        if isinstance(message, Ping):
            conn.send(frames.pong(message.t))
        else:
            conn.send(frames.error("bad_message", f"only ping is sent on {where}"))


async def let_go(conn: Connection) -> None:
    """The socket's end: closed normally unless something closed it already, waited for (2 s
    at most), its writer stopped."""
    if not conn.closed:
        conn.shutdown(CLOSE_NORMAL, "")
    with contextlib.suppress(Exception):
        await asyncio.wait_for(conn.wait_closed(), 2)
    conn.cancel()


async def refuse_draining(websocket: WebSocket) -> None:
    """A node shutting down takes no new sockets: HTTP 503 on the handshake, which a proxy
    (deploy/nginx.conf) retries on another node and a client treats as a reason to reconnect."""
    websocket.app.state.metrics.record_ws_refusal("draining")
    body = error_body("draining", "this node is shutting down; reconnect")
    try:
        await websocket.send_denial_response(JSONResponse(body, status_code=503))
    except RuntimeError:  # a server without the denial-response extension
        await websocket.close(code=CLOSE_RECONNECT, reason="draining")


async def _handshake(
    websocket: WebSocket, session: Session, manager: TableManager, code: str
) -> tuple[Table | Relay, Connection] | None:
    """Find the table, read the ``hello``, check its token, join. None when the socket was
    refused (and told why). A function of its own so that what it loads (the database session,
    the player row, the hello) is freed once the socket is in play, not kept for its lifetime."""
    room_id = await manager.store.room_id_for_code(code.upper())
    try:
        table = await manager.get(room_id) if room_id else None
    except BusUnavailable as exc:  # the table's owner cannot be settled without Redis
        await session.fail(exc.code, exc.message, CLOSE_TRY_AGAIN)
        return None
    if table is None and websocket.app.state.draining:  # the drain began during the handshake
        await session.send_away("draining")
        return None
    if table is None:
        await session.fail("room_not_found", f"there is no table {code!r}", CLOSE_POLICY)
        return None
    hello = await session.read_hello()
    if hello is None:
        return None
    player_id = name = None
    if hello.token is not None:  # an empty or oversized token is refused like any other bad one
        caller = await authenticate(websocket, session, hello.token, room_id=room_id)
        if caller is None:
            return None
        player_id, name = caller.player_id, caller.name
    conn = connection(
        websocket,
        queue_size=manager.config.send_queue,
        player_id=player_id,
        name=name,
    )
    session.conn = conn  # from now on every frame to this socket goes through its writer
    await table.join(conn, hello.resume)
    if hello.resume is not None:
        websocket.app.state.metrics.record_reconnect()
    return table, conn


@dataclass(frozen=True)
class Caller:
    player_id: str
    name: str
    presence_hidden: bool


async def authenticate(
    websocket: WebSocket, session: Session, token: str, *, room_id: str | None = None
) -> Caller | None:
    """The player a hello's token names; None when it names nobody, or a banned player (the
    socket was told why and is being closed). At a table (``room_id``), the player's seat there
    keeps the mark of this socket's address, which a rated set keeps for the screening."""
    logins: Logins = websocket.app.state.logins
    player = await logins.player(token)
    caller = None
    if player is not None:
        caller = Caller(player.id, player.name, presence_hidden=player.presence_hidden)
    banned = player is not None and bans.is_banned(player)
    if player is not None and not banned and room_id is not None:
        mark = address_mark(client_address(websocket), websocket.app.state.settings.secret)
        manager: TableManager = websocket.app.state.live
        await manager.store.mark_client(room_id, player.id, mark)
    if caller is None:
        await session.fail("bad_token", "that token is not valid", CLOSE_POLICY)
        return None
    if banned:
        await session.fail("banned", "this player is banned", CLOSE_POLICY)
        return None
    return caller


class Session:
    """Reads and checks frames for one socket; replies to bad ones directly."""

    def __init__(self, websocket: WebSocket, settings: Settings) -> None:
        self.websocket = websocket
        self.settings = settings
        self.bucket = TokenBucket(settings.ws_messages_per_second, settings.ws_burst)
        self.violations = 0
        self.conn: Connection | None = None

    async def fail(self, code: str, message: str, close_code: int) -> None:
        log.info("closing socket: %s (%s)", code, message)
        self.websocket.app.state.metrics.record_ws_refusal(code)
        frame = frames.error(code, message)
        if self.conn is not None:
            self.conn.send(frame)
            self.conn.shutdown(close_code, code)
            return
        with contextlib.suppress(Exception):
            await self.websocket.send_text(frame)
            await self.websocket.close(code=close_code, reason=code)

    async def send_away(self, reason: ByeReason) -> None:
        with contextlib.suppress(Exception):
            await self.websocket.send_text(frames.bye(reason))
            await self.websocket.close(code=CLOSE_RECONNECT, reason=reason)

    async def _reply(self, code: str, message: str, move_id: str | None = None) -> None:
        frame = frames.error(code, message, move_id)
        if self.conn is not None:
            self.conn.send(frame)
            return
        with contextlib.suppress(Exception):
            await self.websocket.send_text(frame)

    async def read_hello(self) -> Hello | None:
        try:
            message = await asyncio.wait_for(self.read(), HELLO_TIMEOUT)
        except TimeoutError:
            await self.fail("hello_required", "no hello within 10 seconds", CLOSE_POLICY)
            return None
        if message is None:
            return None
        if not isinstance(message, Hello):
            await self.fail("hello_required", "the first message must be hello", CLOSE_POLICY)
            return None
        return message

    async def read(self) -> ClientMessage | None:
        """The next valid message, or None when the socket is gone or was closed for abuse."""
        while True:
            if self.websocket.application_state == WebSocketState.DISCONNECTED:
                return None
            try:
                frame = await self.websocket.receive()
            except (WebSocketDisconnect, RuntimeError):
                return None
            if frame["type"] == "websocket.disconnect":
                return None
            text = frame.get("text")
            if text is None:
                await self._reply("bad_json", "binary frames are not accepted")
                continue
            if len(text) > self.settings.max_ws_frame_bytes or (
                len(text.encode()) > self.settings.max_ws_frame_bytes
            ):
                await self.fail(
                    "frame_too_large",
                    f"frames are limited to {self.settings.max_ws_frame_bytes} bytes",
                    CLOSE_TOO_BIG,
                )
                return None
            try:
                message = parse_client_message(text)
            except ProtocolError as exc:
                message = None
                error: tuple[str, str] | None = (exc.code, exc.message)
            else:
                error = None
            # Every frame counts against the bucket, good or bad.
            if not self.bucket.take():
                self.violations += 1
                if self.violations > MAX_VIOLATIONS:
                    await self.fail("rate_limited", "too many messages", CLOSE_POLICY)
                    return None
                move_id = message.move_id if isinstance(message, Play) else None
                await self._reply("rate_limited", "too many messages; slow down", move_id)
                continue
            if error is not None:
                log.info("bad frame: %s: %s", *error)
                await self._reply(*error)
                continue
            return message

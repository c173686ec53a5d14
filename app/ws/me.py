"""``/ws/me``: the player's own socket, one per player (docs/PROTOCOL.md §7).

The transport is the table socket's (app/ws/endpoint.py): origins, the socket cap per address,
frame sizes, JSON, floods, the ``hello`` with a token first. What it carries — friends'
presence and notifications — is app/rooms/hub.py's; the client sends only ``ping`` after its
``hello``.
"""

from __future__ import annotations

from fastapi import APIRouter, WebSocket

from app import logs
from app.rooms.hub import Hub
from app.rooms.protocol import CLOSE_POLICY
from app.settings import Settings
from app.ws.endpoint import (
    Session,
    admitted,
    answer_pings,
    authenticate,
    connection,
    let_go,
    within_cap,
)

router = APIRouter()


async def me_socket(websocket: WebSocket) -> None:
    """``/ws/me``, counted with the table sockets against GAPLE_MAX_SOCKETS_PER_ADDRESS."""
    await within_cap(websocket, _me_socket)


async def _me_socket(websocket: WebSocket) -> None:
    settings: Settings = websocket.app.state.settings
    if not await admitted(websocket, settings):
        return
    await websocket.accept()
    session = Session(websocket, settings)
    hello = await session.read_hello()
    if hello is None:
        return
    if hello.token is None:
        await session.fail("bad_token", "/ws/me needs the player's token", CLOSE_POLICY)
        return
    caller = await authenticate(websocket, session, hello.token)
    if caller is None:
        return
    logs.bind(player=caller.player_id)
    conn = connection(
        websocket,
        player_id=caller.player_id,
        name=caller.name,
    )
    session.conn = conn
    hub: Hub = websocket.app.state.hub
    try:
        await hub.open_me(caller.player_id, conn, visible=not caller.presence_hidden)
        await answer_pings(session, conn, "/ws/me")
    finally:
        hub.close_me(caller.player_id, conn)
        await let_go(conn)


router.add_websocket_route("/ws/me", me_socket)

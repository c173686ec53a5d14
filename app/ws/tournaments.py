"""``/ws/tournaments/{id}``: watch a tournament live (docs/PROTOCOL.md §8). Anyone may watch,
no ``hello`` needed: the first frame is the tournament as it is, then what happens to it
(app/rooms/tournament_live.py). The transport is the table socket's (app/ws/endpoint.py):
origins, the socket cap per address, frame sizes, floods; the client sends only ``ping``.
"""

from __future__ import annotations

from fastapi import APIRouter, WebSocket

from app.rooms.protocol import CLOSE_POLICY
from app.rooms.tournament_live import TournamentRunner
from app.settings import Settings
from app.ws.endpoint import Session, admitted, answer_pings, connection, let_go, within_cap

router = APIRouter()


async def tournament_socket(websocket: WebSocket) -> None:
    """Counted with the other sockets against GAPLE_MAX_SOCKETS_PER_ADDRESS."""
    await within_cap(websocket, _tournament_socket)


async def _tournament_socket(websocket: WebSocket) -> None:
    settings: Settings = websocket.app.state.settings
    if not await admitted(websocket, settings):
        return
    await websocket.accept()
    session = Session(websocket, settings)
    raw = websocket.path_params["tournament_id"]
    tournament_id = int(raw) if raw.isdigit() and len(raw) < 10 else 0
    conn = connection(websocket)
    runner: TournamentRunner = websocket.app.state.tournaments
    if not tournament_id or not await runner.watch(tournament_id, conn):
        await session.fail("tournament_not_found", "no such tournament", CLOSE_POLICY)
        return
    session.conn = conn
    try:
        await answer_pings(session, conn, "this socket")
    finally:
        runner.unwatch(tournament_id, conn)
        await let_go(conn)


router.add_websocket_route("/ws/tournaments/{tournament_id}", tournament_socket)

"""The operators' API under /api/admin: live tables, closing rooms, taking a player off a seat,
bans.

* Absent unless ``GAPLE_ADMIN_TOKEN`` is set: ``create_app`` mounts this router (and the
  ``/admin`` page) only then, so without it the paths are the server's plain 404 and are not in
  the OpenAPI document. On: ``Authorization: Bearer <GAPLE_ADMIN_TOKEN>`` (compared in constant
  time), else 401 ``unauthorized``. Every call spends from ``GAPLE_RATE_ADMIN`` first, so a
  token cannot be guessed at speed.
* Thin, like the lobby's routers: closing goes through ``lobby.close`` (the lifecycle) and the
  live layer's ``room_closed``, exactly as the host's DELETE /api/rooms/{code} does; a seat
  goes the way seats go (empty before a set, a bot's during one); a ban is
  app/players/bans.py, and the live layer sends the player's sockets away on every node.
* Every action is one log line (``admin <action> <target> from <client>: <outcome>``, and the
  same as the fields ``admin_action``, ``target``, ``client``, ``outcome`` in JSON logs); a
  refused token is a WARNING, the rest INFO; no token is ever logged.
"""

from __future__ import annotations

import hmac
import logging
from collections.abc import Iterator
from contextlib import contextmanager
from datetime import datetime
from typing import Annotated, Any

from fastapi import APIRouter, Body, Depends, Path, Request
from fastapi.security import HTTPAuthorizationCredentials, HTTPBearer
from pydantic import BaseModel, ConfigDict, Field

from app.api import lobby
from app.api.deps import LiveDep, NeedsCluster, SessionDep, SettingsDep
from app.api.errors import ERROR_SCHEMA, ApiError, Conflict, Invalid, NotFound, Unauthorized
from app.api.ratelimit import rate_limit
from app.api.rooms import SeatNumber, _base_url
from app.api.schemas import RoomOut
from app.clients import client_address
from app.live import TableSummary
from app.players import bans
from app.presets import seat_count
from app.rooms.lifecycle import FINAL
from app.rooms.state import BOT_KIND
from app.rooms.store import SqlGameStore
from app.settings import Settings
from app.store import rooms

log = logging.getLogger(__name__)

_bearer = HTTPBearer(auto_error=False, description="GAPLE_ADMIN_TOKEN")


def _err(description: str) -> dict[str, Any]:
    return {"description": description, "content": {"application/json": {"schema": ERROR_SCHEMA}}}


Responses = dict[int | str, dict[str, Any]]
ADMIN: Responses = {
    401: _err("Missing or wrong admin token"),
    404: _err("No such room or player"),
}
STATE: Responses = {409: _err("`room_closed`, or `seat_empty`: no player in that seat")}
BAD: Responses = {422: _err("Invalid input; `field` names it")}


def audit(
    action: str, target: str, outcome: str, *, client: str, level: int = logging.INFO
) -> None:
    log.log(
        level,
        "admin %s %s from %s: %s",
        action,
        target,
        client,
        outcome,
        extra={"admin_action": action, "target": target, "outcome": outcome, "client": client},
    )


class Outcome:
    def __init__(self) -> None:
        self.text = "ok"


@contextmanager
def audited(request: Request, action: str, target: str) -> Iterator[Outcome]:
    """Log the action once it is done: ``ok`` (or what the action set), or the code it was
    refused with; with the address that asked."""
    outcome = Outcome()
    client = client_address(request)
    try:
        yield outcome
    except ApiError as exc:
        audit(action, target, exc.code, client=client)
        raise
    audit(action, target, outcome.text, client=client)


async def require_admin(
    request: Request,
    credentials: Annotated[HTTPAuthorizationCredentials | None, Depends(_bearer)],
) -> None:
    settings: Settings = request.app.state.settings
    target = f"{request.method} {request.url.path}"
    assert settings.admin_token is not None  # the router is mounted only with a token
    expected = settings.admin_token.get_secret_value().encode()
    given = credentials.credentials.encode() if credentials is not None else b""
    refused = None
    if credentials is None or credentials.scheme.lower() != "bearer":
        refused = "missing admin token"
    elif not hmac.compare_digest(given, expected):
        refused = "wrong admin token"
    if refused is not None:
        client = client_address(request)
        audit("auth", target, "unauthorized", client=client, level=logging.WARNING)
        raise Unauthorized(refused, headers={"WWW-Authenticate": "Bearer"})


router = APIRouter(
    prefix="/admin",
    tags=["admin"],
    # The rate limit first: a refused token still spends from the address's budget.
    dependencies=[Depends(rate_limit("admin")), Depends(require_admin)],
    responses=ADMIN,
)


# --- bodies --------------------------------------------------------------------------------------


class AdminSeat(BaseModel):
    seat: int
    player_id: str | None
    name: str | None
    bot: str | None
    connected: bool = Field(description="A socket of the seat's human is at the table")


class AdminTable(BaseModel):
    code: str
    room_id: str
    status: str
    node: str = Field(description="The node that runs (owns) the table")
    phase: str = Field(description="ready | playing | deal_over | set_over")
    set_number: int = Field(description="0 before the first set")
    deal_number: int = Field(description="0 before the set's first deal")
    seats: list[AdminSeat]
    seat_sockets: int = Field(description="Sockets of seated players")
    spectators: int = Field(description="Sockets that watch")


class AdminTables(BaseModel):
    node: str = Field(description="The node that answered; with several nodes, its tables only")
    tables: list[AdminTable]


class BanIn(BaseModel):
    model_config = ConfigDict(extra="forbid")
    reason: str | None = Field(default=None, max_length=bans.MAX_REASON_LENGTH)


class BanOut(BaseModel):
    player_id: str
    name: str
    banned: bool
    banned_at: datetime | None
    banned_reason: str | None


def _table(summary: TableSummary, node: str) -> AdminTable:
    return AdminTable(
        code=summary.code,
        room_id=summary.room_id,
        status=summary.status,
        node=node,
        phase=summary.phase,
        set_number=summary.set_number,
        deal_number=summary.deal_number,
        seats=[AdminSeat(**vars(seat)) for seat in summary.seats],
        seat_sockets=summary.seat_sockets,
        spectators=summary.spectators,
    )


# --- routes --------------------------------------------------------------------------------------


@router.get("/tables")
async def admin_list_tables(request: Request, live: LiveDep) -> AdminTables:
    """The live tables this node runs: who sits, who is connected, who watches. With several
    nodes each node lists the tables it owns (ask each node)."""
    node: str = request.app.state.node_id
    with audited(request, "list_tables", f"node {node}"):
        tables = sorted(live.tables_here(), key=lambda t: t.code)
        return AdminTables(node=node, tables=[_table(t, node) for t in tables])


@router.delete("/rooms/{code}", responses=STATE, dependencies=[NeedsCluster])
async def admin_close_room(
    code: Annotated[str, Path(max_length=12)],
    request: Request,
    session: SessionDep,
    settings: SettingsDep,
    live: LiveDep,
) -> RoomOut:
    """Close the room (reason `admin`): every socket gets `bye` `room_closed` (close 4000) and
    the room leaves the lobby, as when its host closes it."""
    with audited(request, "close_room", f"room {code.upper()}"):
        room = await lobby.load_room(session, code=code, for_update=True)
        await lobby.close(session, room=room, player=None, reason="admin")
        await live.room_closed(room.id, "admin")
        return await lobby.room_view(
            session,
            room=room,
            live=live,
            base_url=_base_url(request, settings),
            bot_fill=settings.quickplay_bot_fill_seconds,
        )


@router.delete(
    "/rooms/{code}/seats/{seat}", responses={**STATE, **BAD}, dependencies=[NeedsCluster]
)
async def admin_remove_player(
    code: Annotated[str, Path(max_length=12)],
    seat: SeatNumber,
    request: Request,
    session: SessionDep,
    settings: SettingsDep,
    live: LiveDep,
) -> RoomOut:
    """Take the player off the seat: before a set the seat is empty again, during one a bot
    plays it for the rest of the set (the player may not take it back). Their sockets at the
    table get `bye` `removed` (close 4002). They may come back as anyone may, unless banned."""
    with audited(request, "remove_player", f"room {code.upper()} seat {seat}") as outcome:
        room = await lobby.load_room(session, code=code, for_update=True)
        if room.status in FINAL:
            raise Conflict(f"the room is {room.status}", code="room_closed")
        seats = seat_count(room.settings)
        if not 0 <= seat < seats:
            raise Invalid(f"this table has seats 0..{seats - 1}", field="seat")
        taken = await rooms.get_seats(session, room_id=room.id)
        occupant = next((s for s in taken if s.seat == seat), None)
        if occupant is None or occupant.player_id is None:
            raise Conflict(f"no player in seat {seat}", code="seat_empty", field="seat")
        player_id = occupant.player_id
        if room.status == "open":
            await rooms.vacate_seat(session, room_id=room.id, seat=seat)
            await rooms.update_room(session, room=room)
            await session.commit()
        else:  # a set is being played: a bot takes over, the way a seat given up does
            await session.commit()
            await SqlGameStore(request.app.state.db).put_bot_in_seat(
                room.id, seat, BOT_KIND, left_by=None
            )
        outcome.text = f"ok: player {player_id} removed"
        await live.player_removed(room.id, player_id)
        return await lobby.room_view(
            session,
            room=room,
            live=live,
            base_url=_base_url(request, settings),
            bot_fill=settings.quickplay_bot_fill_seconds,
        )


def _ban_view(player: Any) -> BanOut:
    return BanOut(
        player_id=player.id,
        name=player.name,
        banned=bans.is_banned(player),
        banned_at=player.banned_at,
        banned_reason=player.banned_reason,
    )


PlayerId = Annotated[str, Path(min_length=1, max_length=32)]


@router.post("/players/{player_id}/ban", responses=BAD)
async def admin_ban_player(
    request: Request,
    player_id: PlayerId,
    session: SessionDep,
    live: LiveDep,
    body: Annotated[BanIn, Body()] = BanIn(),  # noqa: B008 - pydantic default
) -> BanOut:
    """Ban the player: every token of theirs (guest token, login sessions) is refused from now
    on (403 `banned` over REST, `error` `banned` + close 1008 at a table's hello), and their open
    sockets on every node get `bye` `banned` (close 4003)."""
    with audited(request, "ban", f"player {player_id}"):
        player = await bans.ban(session, player_id=player_id, reason=body.reason)
        if player is None:
            raise NotFound("no such player")
        await session.commit()
        await live.player_banned(player.id)
        return _ban_view(player)


@router.delete("/players/{player_id}/ban")
async def admin_unban_player(request: Request, player_id: PlayerId, session: SessionDep) -> BanOut:
    """Lift the ban: the player's tokens work again."""
    with audited(request, "unban", f"player {player_id}"):
        player = await bans.unban(session, player_id=player_id)
        if player is None:
            raise NotFound("no such player")
        await session.commit()
        return _ban_view(player)

"""The operators' API under /api/admin: live tables, closing rooms, taking a player off a seat,
bans (the moderators' queue and mutes are app/api/moderation.py, on the same terms).

* Absent unless an operator is configured (``GAPLE_ADMIN_TOKENS``, or ``GAPLE_ADMIN_TOKEN``:
  one operator "admin" with the role admin): ``create_app`` mounts this router (and the
  ``/admin`` page) only then, so without it the paths are the server's plain 404 and are not in
  the OpenAPI document. On: ``Authorization: Bearer <an operator's token>`` (compared in
  constant time with every operator's), else 401 ``unauthorized``. A moderator calling a route
  for admins only is 403 ``forbidden_role``. Every call spends from ``GAPLE_RATE_ADMIN`` first,
  so a token cannot be guessed at speed.
* Thin, like the lobby's routers: closing goes through ``lobby.close`` (the lifecycle) and the
  live layer's ``room_closed``, exactly as the host's DELETE /api/rooms/{code} does; a seat
  goes the way seats go (empty before a set, a bot's during one); a ban is
  app/players/bans.py, and the live layer sends the player's sockets away on every node.
* Every call is one log line (``admin <action> <target> by <operator> from <client>:
  <outcome>``, and the same as the fields ``admin_action``, ``target``, ``operator``,
  ``client``, ``outcome`` in JSON logs); a refused token is a WARNING, the rest INFO; no token
  is ever logged. Every change (not a read) is also a row of ``audit_log``, written in the
  change's own transaction (``Outcome.store``).
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
from app.api.deps import HubDep, LiveDep, NeedsCluster, SessionDep, SettingsDep
from app.api.errors import (
    ERROR_SCHEMA,
    ApiError,
    Conflict,
    Forbidden,
    Invalid,
    NotFound,
    Unauthorized,
)
from app.api.ratelimit import rate_limit
from app.api.rooms import SeatNumber
from app.api.schemas import RoomOut
from app.clients import client_address
from app.live import TableSummary
from app.players import bans, fairplay
from app.presets import seat_count
from app.rooms.lifecycle import FINAL
from app.rooms.state import BOT_KIND
from app.rooms.store import SqlGameStore
from app.settings import Operator, Settings
from app.store import fairplay as fairplay_rows
from app.store import rooms
from app.store.types import utcnow

log = logging.getLogger(__name__)

_bearer = HTTPBearer(auto_error=False, description="An operator's token (GAPLE_ADMIN_TOKENS)")


def _err(description: str) -> dict[str, Any]:
    return {"description": description, "content": {"application/json": {"schema": ERROR_SCHEMA}}}


Responses = dict[int | str, dict[str, Any]]
ADMIN: Responses = {
    401: _err("Missing or wrong operator token"),
    404: _err("No such room or player"),
}
STATE: Responses = {409: _err("`room_closed`, or `seat_empty`: no player in that seat")}
BAD: Responses = {422: _err("Invalid input; `field` names it")}


def audit(
    action: str,
    target: str,
    outcome: str,
    *,
    operator: str,
    client: str,
    level: int = logging.INFO,
) -> None:
    log.log(
        level,
        "admin %s %s by %s from %s: %s",
        action,
        target,
        operator,
        client,
        outcome,
        extra={
            "admin_action": action,
            "target": target,
            "operator": operator,
            "outcome": outcome,
            "client": client,
        },
    )


class Outcome:
    """What an action came to (``text``), and its row of the audit log (``store``)."""

    def __init__(self, operator: Operator, action: str, target: str, client: str) -> None:
        self.text = "ok"
        self.operator, self.action, self.target, self.client = operator, action, target, client

    async def store(self, session: SessionDep, reason: str | None = None) -> None:
        """Write the audit row in the action's transaction: call it before the commit."""
        await fairplay_rows.add_audit(
            session,
            operator=self.operator.name,
            action=self.action,
            target=self.target,
            reason=reason,
            client=self.client,
        )


@contextmanager
def audited(request: Request, action: str, target: str) -> Iterator[Outcome]:
    """Log the action once it is done: ``ok`` (or what the action set), or the code it was
    refused with; with the operator and the address that asked."""
    operator: Operator = request.state.operator
    client = client_address(request)
    outcome = Outcome(operator, action, target, client)
    try:
        yield outcome
    except ApiError as exc:
        audit(action, target, exc.code, operator=operator.name, client=client)
        raise
    audit(action, target, outcome.text, operator=operator.name, client=client)


def _known(operators: tuple[Operator, ...], given: bytes) -> Operator | None:
    """The operator whose token ``given`` is, comparing with every one in constant time."""
    found = None
    for operator in operators:
        if hmac.compare_digest(given, operator.token.get_secret_value().encode()):
            found = operator
    return found


async def current_operator(
    request: Request,
    credentials: Annotated[HTTPAuthorizationCredentials | None, Depends(_bearer)],
) -> Operator:
    settings: Settings = request.app.state.settings
    target = f"{request.method} {request.url.path}"
    given = credentials.credentials.encode() if credentials is not None else b""
    operator = None
    if credentials is None or credentials.scheme.lower() != "bearer":
        refused = "missing operator token"
    else:
        operator = _known(settings.operators, given)
        refused = "wrong operator token"
    if operator is None:
        client = client_address(request)
        audit("auth", target, "unauthorized", operator="-", client=client, level=logging.WARNING)
        raise Unauthorized(refused, headers={"WWW-Authenticate": "Bearer"})
    request.state.operator = operator
    return operator


async def require_admin_role(
    request: Request, operator: Annotated[Operator, Depends(current_operator)]
) -> None:
    if operator.role != "admin":
        target = f"{request.method} {request.url.path}"
        audit(
            "auth", target, "forbidden_role", operator=operator.name, client=client_address(request)
        )
        raise Forbidden("only an operator with the role admin may do this", code="forbidden_role")


ROLE: Responses = {403: _err("`forbidden_role`: only an operator with the role admin may")}
AdminOnly = Depends(require_admin_role)

router = APIRouter(
    prefix="/admin",
    tags=["admin"],
    # The rate limit first: a refused token still spends from the address's budget.
    dependencies=[Depends(rate_limit("admin")), Depends(current_operator)],
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


@router.delete("/rooms/{code}", responses={**STATE, **ROLE}, dependencies=[AdminOnly, NeedsCluster])
async def admin_close_room(
    code: Annotated[str, Path(max_length=12)],
    request: Request,
    session: SessionDep,
    settings: SettingsDep,
    live: LiveDep,
) -> RoomOut:
    """Close the room (reason `admin`): every socket gets `bye` `room_closed` (close 4000) and
    the room leaves the lobby, as when its host closes it."""
    with audited(request, "close_room", f"room {code.upper()}") as outcome:
        room = await lobby.load_room(session, code=code, for_update=True)
        await outcome.store(session)  # lobby.close commits
        await lobby.close(session, room=room, player=None, reason="admin")
        await live.room_closed(room.id, "admin")
        return await lobby.room_view(
            session,
            room=room,
            live=live,
            request=request,
            settings=settings,
        )


@router.delete(
    "/rooms/{code}/seats/{seat}",
    responses={**STATE, **BAD},
    dependencies=[NeedsCluster],  # a kick: a moderator's work as much as an admin's
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
        await outcome.store(session)
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
            request=request,
            settings=settings,
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


@router.post("/players/{player_id}/ban", responses={**BAD, **ROLE}, dependencies=[AdminOnly])
async def admin_ban_player(
    request: Request,
    player_id: PlayerId,
    session: SessionDep,
    live: LiveDep,
    hub: HubDep,
    body: Annotated[BanIn, Body()] = BanIn(),  # noqa: B008 - pydantic default
) -> BanOut:
    """Ban the player: every token of theirs (guest token, login sessions) is refused from now
    on (403 `banned` over REST, `error` `banned` + close 1008 at a table's hello), and their open
    sockets on every node get `bye` `banned` (close 4003)."""
    with audited(request, "ban", f"player {player_id}") as outcome:
        player = await bans.ban(session, player_id=player_id, reason=body.reason)
        if player is None:
            raise NotFound("no such player")
        await fairplay.acted_on(
            session, player_id=player.id, operator=outcome.operator.name, at=utcnow()
        )
        await outcome.store(session, body.reason)
        await session.commit()
        await live.player_banned(player.id)
        hub.player_banned(player.id)  # their /ws/me on this node (others: RelayBanned)
        return _ban_view(player)


@router.delete("/players/{player_id}/ban", responses=ROLE, dependencies=[AdminOnly])
async def admin_unban_player(request: Request, player_id: PlayerId, session: SessionDep) -> BanOut:
    """Lift the ban: the player's tokens work again."""
    with audited(request, "unban", f"player {player_id}") as outcome:
        player = await bans.unban(session, player_id=player_id)
        if player is None:
            raise NotFound("no such player")
        await outcome.store(session)
        await session.commit()
        return _ban_view(player)

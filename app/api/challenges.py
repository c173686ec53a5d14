"""Challenges (docs/API.md "Challenges"). Thin: check the room's settings as POST /api/rooms
does, call app.rooms.challenges, commit, push the notifications and tell the live tables."""

from __future__ import annotations

from typing import Annotated, Any

from fastapi import APIRouter, Depends, Path, Request, Response, status
from sqlalchemy.ext.asyncio import AsyncSession

from app.api import lobby
from app.api.auth import CurrentPlayer
from app.api.deps import HubDep, LiveDep, NeedsCluster, SessionDep, SettingsDep
from app.api.errors import ERROR_SCHEMA, ApiError, Conflict, Forbidden, Invalid, NotFound
from app.api.ratelimit import limiter_of, rate_limit
from app.api.schemas import ChallengeIn, ChallengeOut, ChallengerOut, InviteeOut
from app.errors import GapleError
from app.live import LiveTables
from app.rooms import challenges
from app.rooms.challenges import View
from app.rooms.hub import Hub
from app.store.models import Player

router = APIRouter(tags=["social"])


def err(description: str) -> dict[str, Any]:
    return {"description": description, "content": {"application/json": {"schema": ERROR_SCHEMA}}}


Responses = dict[int | str, dict[str, Any]]
AUTH: Responses = {401: err("Missing or invalid token")}
FOUND: Responses = {404: err("`challenge_not_found`: none, or the caller is not part of it")}
STATE: Responses = {409: err("`challenge_expired`, `challenge_closed`")}

# Refusal codes -> the API's error classes (SocialError's and ChallengeError's).
STATUS: dict[str, type[ApiError]] = {
    "invalid": Invalid,
    "not_yourself": Invalid,
    "player_not_found": NotFound,
    "player_blocked": Conflict,
    "challenge_not_found": NotFound,
    "party_not_found": NotFound,
    "challenge_expired": Conflict,
    "challenge_closed": Conflict,
    "already_in_party": Conflict,
    "not_challenger": Forbidden,
    "not_invitee": Forbidden,
}

ChallengeId = Annotated[str, Path(min_length=1, max_length=32, description="The challenge's id")]


def refused(error: GapleError) -> ApiError:
    return STATUS[error.code](error.message, code=error.code, field=error.field)


def _out(view: View) -> ChallengeOut:
    row = view.challenge
    return ChallengeOut.model_validate(
        {
            "id": row.id,
            "from": ChallengerOut(player_id=row.from_id, name=view.from_name),
            "to": [
                InviteeOut(player_id=i.player_id, name=i.name, answer=i.answer)
                for i in view.invitees
            ],
            "settings": row.settings,
            "partner": row.partner_id,
            "open_seats": row.open_seats,
            "status": view.status,
            "expires_at": row.expires_at,
            "room": view.room.code if view.room is not None else None,
        }
    )


@router.post(
    "/challenges",
    status_code=status.HTTP_201_CREATED,
    responses={
        **AUTH,
        404: err("`player_not_found`: an invitee who does not exist (or blocks the caller)"),
        409: err("`player_blocked`: the caller blocks an invitee"),
        422: err("`invalid` (`to`: 1 to 3 players, none twice; `partner`), `not_yourself`"),
    },
    dependencies=[Depends(rate_limit("challenges"))],
)
async def create_challenge(
    body: ChallengeIn,
    request: Request,
    player: CurrentPlayer,
    session: SessionDep,
    settings: SettingsDep,
    hub: HubDep,
) -> ChallengeOut:
    """Invite one to three players to a table with these settings (checked as for POST
    /api/rooms). Each gets a `challenge` notification. It expires after
    GAPLE_CHALLENGE_SECONDS. Limited per address and per player (GAPLE_RATE_CHALLENGES)."""
    await limiter_of(request).hit("challenges_player", settings.rate_challenges, player.id)
    room_settings = lobby.stored_settings(lobby.resolve_settings(body.settings))
    try:
        done = await challenges.create(
            session,
            player=player,
            to=body.to,
            settings=room_settings,
            partner=body.partner,
            open_seats=body.open_seats,
            seconds=settings.challenge_seconds,
        )
    except GapleError as error:
        raise refused(error) from None
    await session.commit()
    for notice in done.notices:
        hub.notify(notice)
    return _out(done.view)


@router.get("/challenges/{challenge_id}", responses={**AUTH, **FOUND})
async def get_challenge(
    challenge_id: ChallengeId, player: CurrentPlayer, session: SessionDep
) -> ChallengeOut:
    """The challenge, for its challenger and its invitees only."""
    try:
        return _out(await challenges.get(session, player=player, challenge_id=challenge_id))
    except GapleError as error:
        raise refused(error) from None


async def _answer(
    challenge_id: str,
    accept: bool,
    player: Player,
    session: AsyncSession,
    live: LiveTables,
    hub: Hub,
) -> ChallengeOut:
    try:
        done = await challenges.answer(
            session,
            player=player,
            challenge_id=challenge_id,
            accept=accept,
            new_code=lobby.new_room_code,
        )
    except GapleError as error:
        raise refused(error) from None
    await session.commit()
    for notice in done.notices:
        hub.notify(notice)
    if done.started and done.view.room is not None:
        await live.seats_changed(done.view.room.id)
        if done.view.room.status == "playing":
            await live.room_started(done.view.room.id)
    return _out(done.view)


ANSWER: Responses = {**AUTH, **FOUND, **STATE, 403: err("`not_invitee`: the caller is not")}


@router.post("/challenges/{challenge_id}/accept", responses=ANSWER, dependencies=[NeedsCluster])
async def accept_challenge(
    challenge_id: ChallengeId,
    player: CurrentPlayer,
    session: SessionDep,
    live: LiveDep,
    hub: HubDep,
) -> ChallengeOut:
    """An invitee accepts (again: nothing changes). When every invitee has, the room is made
    with everyone seated and its set starts; the challenger is told each answer
    (`challenge_answered`, with the room's code once made)."""
    return await _answer(challenge_id, True, player, session, live, hub)


@router.post("/challenges/{challenge_id}/decline", responses=ANSWER)
async def decline_challenge(
    challenge_id: ChallengeId,
    player: CurrentPlayer,
    session: SessionDep,
    live: LiveDep,
    hub: HubDep,
) -> ChallengeOut:
    """An invitee declines: the challenge is `declined`, the challenger is told."""
    return await _answer(challenge_id, False, player, session, live, hub)


@router.delete(
    "/challenges/{challenge_id}",
    status_code=status.HTTP_204_NO_CONTENT,
    responses={**AUTH, **FOUND, **STATE, 403: err("`not_challenger`: only the challenger")},
)
async def cancel_challenge(
    challenge_id: ChallengeId, player: CurrentPlayer, session: SessionDep
) -> Response:
    """The challenger withdraws a pending challenge: `cancelled`."""
    try:
        await challenges.cancel(session, player=player, challenge_id=challenge_id)
    except GapleError as error:
        raise refused(error) from None
    await session.commit()
    return Response(status_code=status.HTTP_204_NO_CONTENT)

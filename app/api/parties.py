"""Parties for Ganda (docs/API.md "Parties"). Thin: call app.players.parties, commit, push the
invitation's notification. Quick play seats a party together (app/rooms/quickplay.py)."""

from __future__ import annotations

from typing import Annotated

from fastapi import APIRouter, Depends, Path, Request, Response, status
from sqlalchemy.ext.asyncio import AsyncSession

from app.api.auth import CurrentPlayer
from app.api.challenges import AUTH, Responses, err, refused
from app.api.deps import HubDep, SessionDep, SettingsDep
from app.api.ratelimit import limiter_of, rate_limit
from app.api.schemas import ChallengerOut, PartiesOut, PartyIn, PartyOut
from app.errors import GapleError
from app.players import parties
from app.store import players
from app.store.models import Party

router = APIRouter(tags=["social"])

PartyId = Annotated[str, Path(min_length=1, max_length=32, description="The party's id")]
FOUND: Responses = {404: err("`party_not_found`: none, or the caller is not in it")}


async def _out(session: AsyncSession, rows: list[Party]) -> list[PartyOut]:
    ids = [p for row in rows for p in (row.inviter_id, row.invitee_id)]
    names = await players.get_player_names(session, player_ids=ids)
    return [
        PartyOut(
            id=row.id,
            inviter=ChallengerOut(player_id=row.inviter_id, name=names.get(row.inviter_id, "")),
            invitee=ChallengerOut(player_id=row.invitee_id, name=names.get(row.invitee_id, "")),
            status=row.status,  # type: ignore[arg-type]  # only PartyStatus is stored
            since=row.updated_at,
        )
        for row in rows
    ]


@router.post(
    "/parties",
    status_code=status.HTTP_201_CREATED,
    responses={
        **AUTH,
        404: err("`player_not_found`: no such player (or one who blocks the caller)"),
        409: err("`already_in_party` (either of the two), `player_blocked`"),
        422: err("`not_yourself`, or a malformed body"),
    },
    dependencies=[Depends(rate_limit("parties"))],
)
async def invite_partner(
    body: PartyIn,
    request: Request,
    player: CurrentPlayer,
    session: SessionDep,
    settings: SettingsDep,
    hub: HubDep,
) -> PartyOut:
    """Invite a partner for Ganda quick play; they get a `party_invite` notification. An
    invitation between the two already (either way) is answered as it is. Limited per address
    and per player (GAPLE_RATE_PARTIES)."""
    await limiter_of(request).hit("parties_player", settings.rate_parties, player.id)
    try:
        done = await parties.invite(session, player=player, other_id=body.with_)
    except GapleError as error:
        raise refused(error) from None
    await session.commit()
    if done.notice is not None:
        hub.notify(done.notice)
    return (await _out(session, [done.party]))[0]


@router.get("/parties/me", responses=AUTH)
async def my_parties(player: CurrentPlayer, session: SessionDep) -> PartiesOut:
    """The caller's accepted party, and the invitations waiting either way (oldest first)."""
    found = await parties.mine(session, player_id=player.id)
    party = None if found.party is None else (await _out(session, [found.party]))[0]
    return PartiesOut(
        party=party,
        incoming=await _out(session, found.incoming),
        outgoing=await _out(session, found.outgoing),
    )


ANSWER: Responses = {
    **AUTH,
    **FOUND,
    403: err("`not_invitee`: only the player invited answers"),
    409: err("`already_in_party`: either of the two is in another party now"),
}


@router.post("/parties/{party_id}/accept", responses=ANSWER)
async def accept_party(party_id: PartyId, player: CurrentPlayer, session: SessionDep) -> PartyOut:
    """The invitee accepts: the two are partners (accepting again changes nothing)."""
    try:
        row = await parties.accept(session, player=player, party_id=party_id)
    except GapleError as error:
        raise refused(error) from None
    await session.commit()
    return (await _out(session, [row]))[0]


@router.post(
    "/parties/{party_id}/decline",
    status_code=status.HTTP_204_NO_CONTENT,
    responses={**AUTH, **FOUND, 403: ANSWER[403]},
)
async def decline_party(party_id: PartyId, player: CurrentPlayer, session: SessionDep) -> Response:
    """The invitee declines: the invitation is gone."""
    try:
        await parties.decline(session, player=player, party_id=party_id)
    except GapleError as error:
        raise refused(error) from None
    await session.commit()
    return Response(status_code=status.HTTP_204_NO_CONTENT)


@router.delete(
    "/parties/{party_id}", status_code=status.HTTP_204_NO_CONTENT, responses={**AUTH, **FOUND}
)
async def leave_party(party_id: PartyId, player: CurrentPlayer, session: SessionDep) -> Response:
    """Either player leaves the party (or withdraws or declines its invitation): it is gone."""
    try:
        await parties.leave(session, player=player, party_id=party_id)
    except GapleError as error:
        raise refused(error) from None
    await session.commit()
    return Response(status_code=status.HTTP_204_NO_CONTENT)

"""Parties for Ganda (docs/API.md "Parties"): a player invites a partner; once the partner
accepts, quick play in Ganda by either of them seats both across from each other
(app/rooms/quickplay.py). A player is in at most one accepted party; a declined or left party
is gone.

Whom a player may invite is app/players/social.py's ``reachable`` (a blocker answers as nobody
would). Changes take both players' locks (app/store/locks.py, in id order), so an acceptance
and another at once cannot put one player in two parties. Functions flush, never commit.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

from sqlalchemy.ext.asyncio import AsyncSession

from app.errors import GapleError
from app.players import social
from app.store import parties
from app.store.locks import serialise
from app.store.models import Notification, Party, Player
from app.store.parties import ACCEPTED
from app.store.types import utcnow

PartyStatus = Literal["invited", "accepted"]


class PartyError(GapleError):
    """codes: party_not_found (also for a party the player is not in), already_in_party,
    not_invitee (only the one invited accepts or declines)."""


async def _lock(session: AsyncSession, *player_ids: str) -> None:
    for player_id in sorted(set(player_ids)):
        await serialise(session, f"party:{player_id}")


async def _not_in_a_party(session: AsyncSession, player_id: str, who: str) -> None:
    if await parties.partner_of(session, player_id=player_id) is not None:
        raise PartyError("already_in_party", f"{who} in a party already: leave it first")


@dataclass(frozen=True)
class Invited:
    party: Party
    notice: Notification | None  # None: the invitation was there already


async def invite(session: AsyncSession, *, player: Player, other_id: str) -> Invited:
    """Invite ``other_id``; an invitation between the two already (either way) is returned
    as it is."""
    other = await social.reachable(session, player=player, other_id=other_id, verb="invite")
    await _lock(session, player.id, other.id)
    for row in await parties.parties_of(session, player_id=player.id):
        if {row.inviter_id, row.invitee_id} == {player.id, other.id}:
            return Invited(row, None)
    await _not_in_a_party(session, player.id, "you are")
    await _not_in_a_party(session, other.id, "they are")
    row = await parties.add_party(session, inviter_id=player.id, invitee_id=other.id)
    notice = await social.notify(
        session,
        player_id=other.id,
        kind=social.PARTY_INVITE,
        about=player,
        extra={"party_id": row.id},
    )
    return Invited(row, notice)


async def _mine(session: AsyncSession, party_id: str, player_id: str) -> Party:
    row = await parties.get_party(session, party_id=party_id)
    if row is None or player_id not in (row.inviter_id, row.invitee_id):
        raise PartyError("party_not_found", "no such party")
    return row


async def accept(session: AsyncSession, *, player: Player, party_id: str) -> Party:
    """The invitee accepts: the two are partners. Accepting again changes nothing."""
    row = await _mine(session, party_id, player.id)
    await _lock(session, row.inviter_id, row.invitee_id)
    row = await _mine(session, party_id, player.id)  # as it is under the locks
    if row.invitee_id != player.id:
        raise PartyError("not_invitee", "only the player invited answers")
    if row.status == ACCEPTED:
        return row
    if await social.blocks_among_either(session, a=row.inviter_id, b=row.invitee_id):
        # A block since the invitation (``ended_by_block`` removes it; this holds under the
        # locks): answered as for an invitation that does not exist.
        raise PartyError("party_not_found", "no such party")
    await _not_in_a_party(session, row.invitee_id, "you are")
    await _not_in_a_party(session, row.inviter_id, "they are")
    row.status = ACCEPTED
    row.updated_at = utcnow()
    await session.flush()
    return row


async def decline(session: AsyncSession, *, player: Player, party_id: str) -> None:
    """The invitee declines an invitation (an accepted party is left with ``leave``)."""
    row = await _mine(session, party_id, player.id)
    if row.invitee_id != player.id:
        raise PartyError("not_invitee", "only the player invited answers")
    await leave(session, player=player, party_id=party_id)


async def leave(session: AsyncSession, *, player: Player, party_id: str) -> None:
    """Either player ends the party, or withdraws or declines its invitation."""
    row = await _mine(session, party_id, player.id)
    await _lock(session, row.inviter_id, row.invitee_id)
    await parties.delete_party(session, party_id=row.id)


async def ended_by_block(session: AsyncSession, *, blocker_id: str, blocked_id: str) -> bool:
    """A block ends a party or invitation between the two (quick play never seats them
    together). Whether one was there."""
    await _lock(session, blocker_id, blocked_id)
    ended = False
    for row in await parties.parties_of(session, player_id=blocker_id):
        if {row.inviter_id, row.invitee_id} == {blocker_id, blocked_id}:
            await parties.delete_party(session, party_id=row.id)
            ended = True
    return ended


@dataclass(frozen=True)
class Mine:
    party: Party | None
    incoming: list[Party]
    outgoing: list[Party]


async def mine(session: AsyncSession, *, player_id: str) -> Mine:
    rows = await parties.parties_of(session, player_id=player_id)
    return Mine(
        party=next((r for r in rows if r.status == ACCEPTED), None),
        incoming=[r for r in rows if r.status != ACCEPTED and r.invitee_id == player_id],
        outgoing=[r for r in rows if r.status != ACCEPTED and r.inviter_id == player_id],
    )

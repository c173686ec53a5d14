"""Friends, blocks and stored notifications (docs/API.md "Friends, blocks, notifications").

Thin: parse, call app.players.social, commit, map its refusals to the usual error envelope. A
block or unblock tells the live tables where the blocker sits, which reload the room and with it
who blocks whom among their seats (chat is filtered at the table: docs/PROTOCOL.md §6).
"""

from __future__ import annotations

from typing import Annotated, Any

from fastapi import APIRouter, Depends, Path, Request, Response, status

from app.api.auth import CurrentPlayer
from app.api.deps import HubDep, LiveDep, SessionDep, SettingsDep
from app.api.errors import ERROR_SCHEMA, ApiError, Conflict, Invalid, NotFound
from app.api.ratelimit import limiter_of, rate_limit
from app.api.schemas import (
    BlockedOut,
    BlocksOut,
    FriendOut,
    FriendsOut,
    MarkReadIn,
    MarkReadOut,
    NotificationOut,
    NotificationsOut,
    PresenceIn,
    PresenceOut,
    RequestOut,
    TieOut,
)
from app.live import LiveTables
from app.players import parties, social
from app.players.social import SocialError
from app.rooms.hub import OFFLINE
from app.store import rooms
from app.store.models import Player

router = APIRouter(tags=["social"])


def _err(description: str) -> dict[str, Any]:
    return {"description": description, "content": {"application/json": {"schema": ERROR_SCHEMA}}}


Responses = dict[int | str, dict[str, Any]]
AUTH: Responses = {401: _err("Missing or invalid token")}
OTHER: Responses = {
    404: _err("`player_not_found`: no such player"),
    422: _err("`not_yourself`, or a malformed id; `field` names it"),
}

# SocialError codes -> the API's error classes.
_STATUS: dict[str, type[ApiError]] = {
    "player_not_found": NotFound,
    "not_yourself": Invalid,
    "friend_limit": Conflict,
    "player_blocked": Conflict,
}

PlayerId = Annotated[str, Path(min_length=1, max_length=32, description="The other player's id")]


def _refused(error: SocialError) -> ApiError:
    return _STATUS[error.code](error.message, code=error.code, field=error.field)


# --- friends --------------------------------------------------------------------------------------


@router.post(
    "/friends/{player_id}",
    responses={
        **AUTH,
        **OTHER,
        409: _err("`friend_limit` (either side has GAPLE_MAX_FRIENDS), `player_blocked`"),
    },
    dependencies=[Depends(rate_limit("friends"))],
)
async def befriend(
    player_id: PlayerId,
    request: Request,
    player: CurrentPlayer,
    session: SessionDep,
    settings: SettingsDep,
    hub: HubDep,
) -> TieOut:
    """Send a friend request, or accept the one this player sent the caller (a request that
    crosses theirs is an acceptance). Asking again, or asking a friend, changes nothing. Limited
    per address and per player (GAPLE_RATE_FRIENDS)."""
    await limiter_of(request).hit("friends_player", settings.rate_friends, player.id)
    try:
        done = await social.befriend(
            session, player=player, other_id=player_id, max_friends=settings.max_friends
        )
    except SocialError as error:
        raise _refused(error) from None
    await session.commit()
    if done.notice is not None:  # pushed to their /ws/me too, wherever it is
        hub.notify(done.notice)
        if done.state == "friends":
            hub.ties_changed(player.id, player_id)
    return TieOut(player_id=player_id, state=done.state)


@router.delete(
    "/friends/{player_id}", status_code=status.HTTP_204_NO_CONTENT, responses={**AUTH, **OTHER}
)
async def unfriend(
    player_id: PlayerId, player: CurrentPlayer, session: SessionDep, hub: HubDep
) -> Response:
    """Decline this player's request, cancel the caller's, or end the friendship. Nothing
    between the two already: nothing changes (still 204)."""
    try:
        changed = await social.unfriend(session, player=player, other_id=player_id)
    except SocialError as error:
        raise _refused(error) from None
    await session.commit()
    if changed:
        hub.ties_changed(player.id, player_id)
    return Response(status_code=status.HTTP_204_NO_CONTENT)


@router.get("/friends", responses=AUTH)
async def list_friends(player: CurrentPlayer, session: SessionDep, hub: HubDep) -> FriendsOut:
    """The caller's friends and requests, each list oldest first. Nobody else sees them. A
    friend is ``online`` while they have a socket open (/ws/me or a table's), ``table`` is the
    code of the room where they sit with a socket open; a friend who hides their presence is
    offline, at no table."""
    ties = await social.ties(session, player_id=player.id)
    hidden = await social.friend_ids(session, player_id=player.id)
    found = await hub.presence_of(t.player_id for t in ties.friends)

    def shown(friend: str) -> tuple[bool, str | None]:
        return OFFLINE if hidden.get(friend, False) else found.get(friend, OFFLINE)

    return FriendsOut(
        friends=[
            FriendOut(
                player_id=t.player_id,
                name=t.name,
                online=shown(t.player_id)[0],
                table=shown(t.player_id)[1],
                since=t.since,
            )
            for t in ties.friends
        ],
        incoming=[
            RequestOut(player_id=t.player_id, name=t.name, since=t.since) for t in ties.incoming
        ],
        outgoing=[
            RequestOut(player_id=t.player_id, name=t.name, since=t.since) for t in ties.outgoing
        ],
    )


# --- blocks ---------------------------------------------------------------------------------------


async def _tables_of(session: SessionDep, live: LiveTables, player: Player) -> None:
    """The tables where the player sits reload who blocks whom."""
    for room_id in await rooms.live_rooms_of(session, player_id=player.id):
        await live.seats_changed(room_id)


@router.post(
    "/blocks/{player_id}",
    status_code=status.HTTP_204_NO_CONTENT,
    responses={**AUTH, **OTHER},
    dependencies=[Depends(rate_limit("blocks"))],
)
async def block(
    player_id: PlayerId, player: CurrentPlayer, session: SessionDep, live: LiveDep, hub: HubDep
) -> Response:
    """Block this player: a friendship, request or party between the two ends, their requests
    to the caller are answered as for an unknown player, quick play never seats the two
    together, and the caller no longer hears their chat at a shared table. Blocking again
    changes nothing."""
    try:
        changed = await social.block(session, player=player, other_id=player_id)
    except SocialError as error:
        raise _refused(error) from None
    if changed:
        await parties.ended_by_block(session, blocker_id=player.id, blocked_id=player_id)
    await session.commit()
    if changed:
        hub.ties_changed(player.id, player_id)  # a friendship it ended shows no presence
        await _tables_of(session, live, player)
    return Response(status_code=status.HTTP_204_NO_CONTENT)


@router.delete(
    "/blocks/{player_id}",
    status_code=status.HTTP_204_NO_CONTENT,
    responses={**AUTH, **OTHER},
    dependencies=[Depends(rate_limit("blocks"))],
)
async def unblock(
    player_id: PlayerId, player: CurrentPlayer, session: SessionDep, live: LiveDep
) -> Response:
    """Lift the block (what it ended does not come back). No block: nothing changes."""
    try:
        changed = await social.unblock(session, player=player, other_id=player_id)
    except SocialError as error:
        raise _refused(error) from None
    await session.commit()
    if changed:
        await _tables_of(session, live, player)
    return Response(status_code=status.HTTP_204_NO_CONTENT)


@router.get("/blocks", responses=AUTH)
async def list_blocks(player: CurrentPlayer, session: SessionDep) -> BlocksOut:
    """The players the caller blocks, oldest first. Nobody is told they are blocked."""
    found = await social.blocked(session, player_id=player.id)
    return BlocksOut(
        blocked=[BlockedOut(player_id=t.player_id, name=t.name, since=t.since) for t in found]
    )


# --- notifications --------------------------------------------------------------------------------


@router.get("/notifications", responses=AUTH)
async def list_notifications(player: CurrentPlayer, session: SessionDep) -> NotificationsOut:
    """The caller's stored notifications (the last 100), newest first, and how many are unread."""
    inbox = await social.inbox(session, player_id=player.id)
    return NotificationsOut(
        notifications=[
            NotificationOut(
                id=row.id,
                kind=row.kind,  # type: ignore[arg-type]  # only NotificationKind is stored
                payload=row.payload,
                created_at=row.created_at,
                read=row.read_at is not None,
            )
            for row in inbox.notifications
        ],
        unread=inbox.unread,
    )


@router.post(
    "/notifications/read",
    responses={**AUTH, 422: _err("Neither or both of `ids` and `all`, or more than 100 ids")},
)
async def read_notifications(
    body: MarkReadIn, player: CurrentPlayer, session: SessionDep
) -> MarkReadOut:
    """Mark the caller's notifications ``ids`` read (ids that are not, or no longer, the
    caller's are passed over), or all of them with ``{"all": true}``."""
    marked = await social.mark_read(session, player_id=player.id, ids=body.ids)
    await session.commit()
    inbox = await social.inbox(session, player_id=player.id)
    return MarkReadOut(marked=marked, unread=inbox.unread)


# --- presence -------------------------------------------------------------------------------------


@router.get("/players/me/presence", responses=AUTH)
async def get_presence(player: CurrentPlayer) -> PresenceOut:
    """Whether the caller's friends see them online and at which table."""
    return PresenceOut(visible=not player.presence_hidden)


@router.put("/players/me/presence", responses={**AUTH, 422: _err("`visible` is not a boolean")})
async def put_presence(
    body: PresenceIn, player: CurrentPlayer, session: SessionDep, hub: HubDep
) -> PresenceOut:
    """Show (``true``) or hide (``false``) the caller's presence: hidden, every friend sees
    them offline, at no table, at once (GET /api/friends and /ws/me alike). Stored."""
    changed = await social.set_presence_visible(session, player=player, visible=body.visible)
    await session.commit()
    if changed:
        hub.ties_changed(player.id)
    return PresenceOut(visible=body.visible)

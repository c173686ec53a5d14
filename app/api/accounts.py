"""Accounts, login sessions, the player's own name; profiles, the leaderboard, a set's ratings.

Thin: parse, call app.players, map its refusals to the usual error envelope. Passwords arrive
as ``SecretStr`` (their repr is ``'**********'``) and go nowhere but the hasher.
"""

from __future__ import annotations

from datetime import datetime
from typing import Annotated, Any

from fastapi import APIRouter, Depends, Path, Query, Request, Response, status
from fastapi.security import HTTPAuthorizationCredentials, HTTPBearer
from pydantic import BaseModel, ConfigDict, Field, SecretStr

from app.api import lobby
from app.api.auth import CurrentPlayer
from app.api.deps import SessionDep, SettingsDep
from app.api.errors import (
    ERROR_SCHEMA,
    ApiError,
    Conflict,
    Forbidden,
    Invalid,
    NotFound,
    Unauthorized,
)
from app.api.ratelimit import limiter_of, rate_limit
from app.api.schemas import ClubMembershipOut
from app.players import accounts, bans, profiles, sessions
from app.players.accounts import USERNAME_RULE, AccountError
from app.players.passwords import MAX_PASSWORD_LENGTH, MIN_PASSWORD_LENGTH
from app.players.ratings import DISPLAY_BASE, DISPLAY_SCALE
from app.players.sessions import hash_token, new_token
from app.presets import Mode
from app.store.models import Player

router = APIRouter(tags=["players"])

_bearer = HTTPBearer(auto_error=False)


def _err(description: str) -> dict[str, Any]:
    return {"description": description, "content": {"application/json": {"schema": ERROR_SCHEMA}}}


Responses = dict[int | str, dict[str, Any]]
AUTH: Responses = {401: _err("Missing or invalid token")}
BAD: Responses = {422: _err("Invalid input; `field` names it")}

# AccountError codes -> the API's error classes.
_STATUS: dict[str, type[ApiError]] = {
    "invalid_username": Invalid,
    "username_taken": Conflict,
    "already_saved": Conflict,
    "no_account": Conflict,
    "bad_credentials": Unauthorized,
}


def _refused(error: AccountError) -> ApiError:
    return _STATUS[error.code](error.message, code=error.code, field=error.field)


# --- bodies -------------------------------------------------------------------------------------


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid")


Username = Annotated[str, Field(max_length=64, description=f"Username: {USERNAME_RULE}")]
Password = Annotated[
    SecretStr,
    Field(
        min_length=MIN_PASSWORD_LENGTH,
        max_length=MAX_PASSWORD_LENGTH,
        description=f"{MIN_PASSWORD_LENGTH}..{MAX_PASSWORD_LENGTH} characters; never returned",
    ),
]


class AccountIn(_Strict):
    username: Username
    password: Password


class LoginIn(_Strict):
    username: Username
    # No length rule at login: a wrong password is a wrong password, whatever its length.
    password: Annotated[SecretStr, Field(max_length=MAX_PASSWORD_LENGTH)]


class RenameIn(_Strict):
    name: str = Field(description="Shown at the table; the same rules as a guest's name")


class MeOut(BaseModel):
    player_id: str
    name: str
    username: str | None = Field(description="None for a guest that has not saved an account")


class SessionOut(MeOut):
    token: str = Field(description="Send as `Authorization: Bearer <token>`; shown only once")


class RatingChangeOut(BaseModel):
    set_id: int
    at: datetime
    rank: int = Field(description="1 = best; ties share a rank; a player who left is last")
    before: int
    after: int
    change: int


class ModeRecordOut(BaseModel):
    sets_played: int = Field(description="Finished sets the player sat at from the start")
    sets_won: int
    win_rate: float | None = Field(description="sets_won / sets_played; None before any set")
    rated_sets: int
    rating: int = Field(
        description=f"Displayed: {DISPLAY_BASE} + {DISPLAY_SCALE} * (mu - 3 * sigma), rounded"
    )
    mu: float
    sigma: float
    on_leaderboard: bool
    history: list[RatingChangeOut] = Field(description="The last 20 changes, oldest first")
    deals_won: dict[str, int] = Field(description="Deals the player won themselves, by kind")


class ProfileOut(BaseModel):
    player_id: str
    name: str
    username: str | None
    joined: datetime
    modes: dict[Mode, ModeRecordOut]
    clubs: list[ClubMembershipOut] = Field(description="The clubs (not closed) it belongs to")


class LeaderboardEntry(BaseModel):
    position: int
    player_id: str
    name: str
    username: str | None
    rating: int
    rated_sets: int


class LeaderboardOut(BaseModel):
    mode: Mode
    min_rated_sets: int
    players: list[LeaderboardEntry]
    next_cursor: str | None = Field(description="Pass as `cursor` for the next page")


class SetPlayerRatingOut(BaseModel):
    seat: int
    player_id: str
    name: str | None
    left: bool
    rank: int | None
    before: int | None
    after: int | None
    change: int | None


class SetRatingsOut(BaseModel):
    set_id: int
    number: int
    rated: bool
    ended: bool
    mode: Mode | None
    players: list[SetPlayerRatingOut]


# --- accounts and sessions ----------------------------------------------------------------------


async def _me(session: SessionDep, player: Player) -> MeOut:
    account = await accounts.account_of(session, player_id=player.id)
    return MeOut(
        player_id=player.id, name=player.name, username=account.username if account else None
    )


@router.post(
    "/accounts",
    status_code=status.HTTP_201_CREATED,
    responses={
        **AUTH,
        409: _err("`username_taken`, or `already_saved` (this player has an account)"),
        **BAD,
    },
)
async def create_account(body: AccountIn, player: CurrentPlayer, session: SessionDep) -> MeOut:
    """Save the calling guest as an account: same player id, name and history; the guest's
    token keeps working, and the username and password log in anywhere."""
    try:
        account = await accounts.claim(
            session,
            player=player,
            username=body.username,
            password=body.password.get_secret_value(),
        )
    except AccountError as error:
        raise _refused(error) from None
    await session.commit()
    return MeOut(player_id=player.id, name=player.name, username=account.username)


@router.post(
    "/sessions",
    status_code=status.HTTP_201_CREATED,
    responses={
        401: _err("`bad_credentials`: wrong username or password (the same for both)"),
        403: _err("`banned`: an operator banned this account"),
        **BAD,
    },
    dependencies=[Depends(rate_limit("login"))],  # per client address
)
async def log_in(
    body: LoginIn, request: Request, session: SessionDep, settings: SettingsDep
) -> SessionOut:
    """Log in (on another device): a new token for the account's player. Every attempt counts
    against the address's and the username's budgets, before any password is checked."""
    username_key = body.username.strip().lower()[:32]  # as fold_username stores it
    await limiter_of(request).hit("login_user", settings.rate_login_user, username_key)
    try:
        player = await accounts.authenticate(
            session, username=body.username, password=body.password.get_secret_value()
        )
    except AccountError as error:
        raise _refused(error) from None
    if bans.is_banned(player):  # its tokens would not work anyway: say why now
        raise Forbidden("this player is banned", code="banned")
    token = new_token()
    await sessions.add_session(
        session, player_id=player.id, token_hash=hash_token(token, secret_key=settings.secret)
    )
    await session.commit()
    me = await _me(session, player)
    return SessionOut(**me.model_dump(), token=token)


@router.delete(
    "/sessions/current",
    status_code=status.HTTP_204_NO_CONTENT,
    responses={**AUTH, 409: _err("`no_account`: a guest would lose its identity for good")},
)
async def log_out(
    player: CurrentPlayer,
    session: SessionDep,
    settings: SettingsDep,
    credentials: Annotated[HTTPAuthorizationCredentials | None, Depends(_bearer)],
) -> Response:
    """Log out: the token of this request stops working (the player's other tokens do not)."""
    assert credentials is not None  # CurrentPlayer has checked it
    if await accounts.account_of(session, player_id=player.id) is None:
        raise Conflict(
            "save an account first: a guest that logs out cannot come back", code="no_account"
        )
    await sessions.end_session(
        session,
        player=player,
        token_hash=hash_token(credentials.credentials, secret_key=settings.secret),
        replacement_hash=hash_token(new_token(), secret_key=settings.secret),
    )
    await session.commit()
    return Response(status_code=status.HTTP_204_NO_CONTENT)


@router.get("/players/me", responses=AUTH)
async def get_me(player: CurrentPlayer, session: SessionDep) -> MeOut:
    return await _me(session, player)


@router.patch("/players/me", responses={**AUTH, **BAD})
async def rename(
    body: RenameIn, player: CurrentPlayer, session: SessionDep, settings: SettingsDep
) -> MeOut:
    """Change the name shown at tables (seats already taken show it from the next load)."""
    player.name = lobby.clean_name(body.name, max_length=settings.max_name_length)
    await session.commit()
    return await _me(session, player)


# --- profiles, leaderboard, a set's ratings -----------------------------------------------------


@router.get("/players/{player_id}", responses={404: _err("No such player")})
async def get_profile(
    player_id: Annotated[str, Path(max_length=32)], session: SessionDep
) -> ProfileOut:
    found = await profiles.profile(session, player_id=player_id)
    if found is None:
        raise NotFound("no such player")
    return ProfileOut.model_validate(found)


@router.get(
    "/players/by-username/{username}",
    responses={404: _err("`player_not_found`: no account has this username")},
    dependencies=[Depends(rate_limit("lookups"))],
)
async def find_by_username(
    username: Annotated[str, Path(max_length=40)], session: SessionDep
) -> ProfileOut:
    """The profile of the player whose account has this username (any case): how the friends
    drawer finds a player by name. Guests have no username. Limited per address
    (GAPLE_RATE_LOOKUPS)."""
    player_id = await accounts.player_of_username(session, username=username)
    found = None if player_id is None else await profiles.profile(session, player_id=player_id)
    if found is None:
        raise NotFound("no such player", code="player_not_found")
    return ProfileOut.model_validate(found)


@router.get("/leaderboard", responses=BAD)
async def get_leaderboard(
    session: SessionDep,
    mode: Mode = "tunggal",
    limit: Annotated[int, Query(ge=1, le=100)] = 50,
    cursor: Annotated[str | None, Query(max_length=200)] = None,
) -> LeaderboardOut:
    """Players with at least 5 rated sets in ``mode``, by displayed rating (best first)."""
    board = await profiles.leaderboard(session, mode=mode, limit=limit, cursor=cursor)
    return LeaderboardOut.model_validate(board)


@router.get("/rooms/{code}/sets/{number}/ratings", responses={404: _err("No such room or set")})
async def get_set_ratings(
    code: Annotated[str, Path(max_length=6)],
    number: Annotated[int, Path(ge=1)],
    session: SessionDep,
) -> SetRatingsOut:
    """What a set did to its players' ratings (for the result screen: +14 / -9)."""
    found = await profiles.set_changes(session, code=code.upper(), number=number)
    if found is None:
        raise NotFound("no such set")
    return SetRatingsOut.model_validate(found)

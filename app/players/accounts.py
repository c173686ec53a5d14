"""Accounts on top of guests: a guest saves its identity with a username and a password, and can
then log in again anywhere. The player (its id, name and history) stays the same.

Functions take the session first, then keyword-only args; they flush but never commit.
A refusal is an ``AccountError`` with a stable code; the API maps codes to HTTP statuses.
"""

from __future__ import annotations

import logging
import re

from sqlalchemy import select
from sqlalchemy.exc import IntegrityError
from sqlalchemy.ext.asyncio import AsyncSession

from app.errors import GapleError
from app.players.passwords import hash_password, needs_rehash, verify_password
from app.store.models import Account, Player

log = logging.getLogger("gaple.players")

USERNAME_PATTERN = re.compile(r"[a-z0-9_]{3,20}")
USERNAME_RULE = "3 to 20 characters: a-z, 0-9 and _ (case does not matter)"
BAD_CREDENTIALS = "wrong username or password"


class AccountError(GapleError):
    """codes: invalid_username, username_taken, already_saved, bad_credentials, no_account."""


def fold_username(raw: str) -> str:
    """The stored form of a username: trimmed and lower-cased, so "Ayu_1" and "ayu_1" are one."""
    username = raw.strip().lower()
    if not USERNAME_PATTERN.fullmatch(username):
        raise AccountError("invalid_username", f"username: {USERNAME_RULE}", field="username")
    return username


async def account_of(session: AsyncSession, *, player_id: str) -> Account | None:
    return await session.get(Account, player_id)


async def usernames(session: AsyncSession, *, player_ids: list[str]) -> dict[str, str]:
    if not player_ids:
        return {}
    rows = await session.execute(
        select(Account.player_id, Account.username).where(Account.player_id.in_(set(player_ids)))
    )
    return {row.player_id: row.username for row in rows}


async def claim(session: AsyncSession, *, player: Player, username: str, password: str) -> Account:
    """Turn the guest ``player`` into an account. Its tokens keep working."""
    folded = fold_username(username)
    if await account_of(session, player_id=player.id) is not None:
        raise AccountError("already_saved", "this player already has an account")
    if await _by_username(session, folded) is not None:
        raise AccountError("username_taken", "that username is taken", field="username")
    account = Account(
        player_id=player.id, username=folded, password_hash=await hash_password(password)
    )
    session.add(account)
    try:
        await session.flush()
    except IntegrityError:
        # Someone else took the name (or saved this player) between the checks and the insert.
        await session.rollback()
        if await account_of(session, player_id=player.id) is not None:
            raise AccountError("already_saved", "this player already has an account") from None
        raise AccountError("username_taken", "that username is taken", field="username") from None
    log.info("account saved: player %s is now %r", player.id, folded)
    return account


async def authenticate(session: AsyncSession, *, username: str, password: str) -> Player:
    """The account's player, or ``bad_credentials`` — the same for an unknown username and a
    wrong password, which also cost the same time (a decoy hash is checked)."""
    try:
        folded: str | None = fold_username(username)
    except AccountError:
        folded = None
    account = await _by_username(session, folded) if folded else None
    # Verified even when there is no such account (against a decoy): no shortcut to time.
    matched = await verify_password(account.password_hash if account else None, password)
    if account is None or not matched:
        raise AccountError("bad_credentials", BAD_CREDENTIALS)
    if needs_rehash(account.password_hash):  # the hasher's parameters were raised since
        account.password_hash = await hash_password(password)
        await session.flush()
    player = await session.get(Player, account.player_id)
    assert player is not None  # accounts.player_id is a foreign key
    return player


async def player_of_username(session: AsyncSession, *, username: str) -> str | None:
    """The player id whose account has this username (any case), or None (also for one that
    is no username at all)."""
    try:
        folded = fold_username(username)
    except AccountError:
        return None
    account = await _by_username(session, folded)
    return None if account is None else account.player_id


async def _by_username(session: AsyncSession, username: str) -> Account | None:
    return await session.scalar(select(Account).where(Account.username == username))

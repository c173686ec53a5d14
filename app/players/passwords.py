"""Password hashing: Argon2id through argon2-cffi, off the event loop.

argon2-cffi's defaults are RFC 9106's second recommended profile (Argon2id, 64 MiB, t=3, p=4):
tens of milliseconds of CPU per hash, which is the point, so hashing runs in a worker thread.
"""

from __future__ import annotations

import asyncio
from functools import lru_cache

from argon2 import PasswordHasher
from argon2.exceptions import InvalidHashError, VerificationError

MIN_PASSWORD_LENGTH = 8
MAX_PASSWORD_LENGTH = 256  # long passphrases are fine; megabytes of "password" are not


@lru_cache
def _hasher() -> PasswordHasher:
    return PasswordHasher()


@lru_cache
def _decoy_hash() -> str:
    # Verified against when the username is unknown, so a miss costs what a wrong password does
    # and the time taken does not tell which of the two it was.
    return _hasher().hash("decoy password, never anyone's")


async def hash_password(password: str) -> str:
    return await asyncio.to_thread(_hasher().hash, password)


async def verify_password(password_hash: str | None, password: str) -> bool:
    """Whether ``password`` matches; ``None`` (no such account) checks a decoy and is False."""

    def check() -> bool:
        target = password_hash if password_hash is not None else _decoy_hash()
        try:
            return _hasher().verify(target, password)
        except (VerificationError, InvalidHashError):
            return False

    matched = await asyncio.to_thread(check)
    return matched and password_hash is not None


def needs_rehash(password_hash: str) -> bool:
    return _hasher().check_needs_rehash(password_hash)

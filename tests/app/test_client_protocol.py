"""The browser's close codes (static/js/protocol.js) are the server's (app/rooms/protocol.py): a
code the server closes with to say "stop" must be the one the client stops on, or the client
reconnects into a room that is over (or, on the seat someone else took, takes it back).
protocol.js holds only the codes the client acts on or sends; each is checked here, and one added
there without a check here fails as well."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from app.rooms.protocol import (
    CLOSE_BANNED,
    CLOSE_NORMAL,
    CLOSE_POLICY,
    CLOSE_REMOVED,
    CLOSE_REPLACED,
    CLOSE_ROOM_CLOSED,
)

CLIENT = Path(__file__).resolve().parents[2] / "static" / "js" / "protocol.js"

# Each of protocol.js's CLOSE names, and the server's code for it.
SERVER = {
    "NORMAL": CLOSE_NORMAL,  # the client's own closes
    "POLICY": CLOSE_POLICY,  # a refused hello: with a room not found, the client stops
    "ROOM_CLOSED": CLOSE_ROOM_CLOSED,
    "REPLACED": CLOSE_REPLACED,
    "REMOVED": CLOSE_REMOVED,
    "BANNED": CLOSE_BANNED,
}


def client_codes() -> dict[str, int]:
    """protocol.js's `export const CLOSE = Object.freeze({NAME: 1234, …});`, name -> code."""
    text = CLIENT.read_text(encoding="utf-8")
    block = re.search(r"export const CLOSE = Object\.freeze\(\{(.*?)\}\);", text, re.S)
    assert block, f"{CLIENT} has no `export const CLOSE = Object.freeze({{…}});`"
    entries = re.findall(r"^\s*([A-Z][A-Z0-9_]*)\s*:\s*(\d+)\b", block.group(1), re.M)
    return {name: int(code) for name, code in entries}


@pytest.mark.parametrize("name", sorted(SERVER))
def test_the_client_code_is_the_servers(name: str) -> None:
    codes = client_codes()
    assert name in codes, (
        f"static/js/protocol.js has no CLOSE.{name} (the server's is {SERVER[name]})"
    )
    assert codes[name] == SERVER[name], (
        f"static/js/protocol.js says CLOSE.{name} = {codes[name]}, the server {SERVER[name]}"
    )


def test_no_client_code_goes_unchecked() -> None:
    unchecked = sorted(client_codes().keys() - SERVER.keys())
    assert not unchecked, (
        f"static/js/protocol.js has CLOSE.{', CLOSE.'.join(unchecked)}: add the server's to SERVER"
    )

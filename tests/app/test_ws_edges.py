"""Frames at the edge of the protocol, against the real server (uvicorn decodes the frames):
invalid UTF-8, pings that JSON cannot echo, tokens of the wrong size; and what the log says."""

from __future__ import annotations

import asyncio
import json
from collections.abc import AsyncIterator, Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
import websockets

from tests.server import ServerProcess


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ServerProcess]:
    data = tmp_path_factory.mktemp("edges")
    process = ServerProcess(
        f"sqlite+aiosqlite:///{data / 'gaple.sqlite3'}",
        data,
        GAPLE_SECRET_KEY="edges-test-secret",
        GAPLE_MIGRATE_ON_START="true",
        GAPLE_LOG_FORMAT="text",
    )
    process.start()
    try:
        yield process
    finally:
        process.stop()


@pytest.fixture(scope="module")
def room(server: ServerProcess) -> dict[str, str]:
    guest = httpx.post(f"{server.base_url}/api/guests", json={"name": "Ayu"}).json()
    auth = {"Authorization": f"Bearer {guest['token']}"}
    created = httpx.post(f"{server.base_url}/api/rooms", json={}, headers=auth).json()
    return {"code": created["code"], "token": guest["token"]}


@pytest.fixture
async def seated(server: ServerProcess, room: dict[str, str]) -> AsyncIterator[Any]:
    """A socket past its hello (welcome, snapshot, presence read)."""
    async with websockets.connect(server.ws_url(room["code"])) as ws:
        await ws.send(json.dumps({"type": "hello", "token": room["token"]}))
        assert json.loads(await ws.recv())["type"] == "welcome"
        await _drain(ws)
        yield ws


async def _drain(ws: Any) -> None:
    """Read what the server sent unprompted (snapshot, presence) until it goes quiet."""
    while True:
        try:
            await asyncio.wait_for(ws.recv(), 0.3)
        except TimeoutError:
            return


async def _next(ws: Any) -> dict[str, Any]:
    while True:
        message: dict[str, Any] = json.loads(await asyncio.wait_for(ws.recv(), 10))
        if message["type"] in ("pong", "error", "bye"):
            return message


def _new_lines(server: ServerProcess, before: int) -> list[str]:
    return server.log()[before:].splitlines()


async def test_invalid_utf8_closes_1007_with_one_log_line(
    seated: Any, server: ServerProcess
) -> None:
    before = len(server.log())
    # One frame: the server closes at once, and a client still sending after the close frame
    # can lose it to the TCP reset (then it sees 1006, not the code the server sent).
    await seated.send(b'{"type":"ping","t":"\xff\xfe"}', text=True)
    await asyncio.wait_for(seated.wait_closed(), 10)
    assert seated.close_code == 1007  # RFC 6455: invalid payload data (docs/PROTOCOL.md)
    await asyncio.sleep(0.3)
    lines = _new_lines(server, before)
    assert "Traceback" not in "\n".join(lines)
    assert len([line for line in lines if "UTF-8" in line]) == 1, lines


@pytest.mark.parametrize("t", ["1180591620717411303424", "-9223372036854775809", "1e400"])
async def test_a_ping_json_cannot_echo_is_refused(
    seated: Any, server: ServerProcess, t: str
) -> None:
    before = len(server.log())
    await seated.send(f'{{"type":"ping","t":{t}}}')
    error = await _next(seated)
    assert error["type"] == "error" and error["code"] == "bad_message", error
    assert error["message"].startswith("ping.t: ")
    await seated.send('{"type":"ping","t":9223372036854775807}')  # the socket still works
    assert await _next(seated) == {"type": "pong", "t": 9223372036854775807}
    assert "Traceback" not in server.log()[before:]


@pytest.mark.parametrize("t", ["NaN", "Infinity", "-Infinity"])
async def test_non_json_constants_are_bad_json(seated: Any, t: str) -> None:
    await seated.send(f'{{"type":"ping","t":{t}}}')
    error = await _next(seated)
    assert error["type"] == "error" and error["code"] == "bad_json", error


@pytest.mark.parametrize("token", ["x" * 1000, "", "not-a-token"])
async def test_a_bad_token_of_any_length_is_bad_token_and_1008(
    server: ServerProcess, room: dict[str, str], token: str
) -> None:
    async with websockets.connect(server.ws_url(room["code"])) as ws:
        await ws.send(json.dumps({"type": "hello", "token": token}))
        error = await _next(ws)
        assert error["type"] == "error" and error["code"] == "bad_token", error
        await ws.wait_closed()
        assert ws.close_code == 1008


def test_debug_logs_in_json_carry_ids_and_no_secrets(tmp_path: Path) -> None:
    secret = "debug-test-secret-key"
    server = ServerProcess(
        f"sqlite+aiosqlite:///{tmp_path / 'gaple.sqlite3'}",
        tmp_path / "data",
        args=["--log-level", "debug"],
        GAPLE_SECRET_KEY=secret,
        GAPLE_MIGRATE_ON_START="true",
        GAPLE_LOG_FORMAT="json",
        GAPLE_ADMIN_TOKEN="debug-test-admin-token",
    )
    server.start()
    try:
        wrong = {"Authorization": "Bearer not-the-admin-token"}
        assert httpx.get(f"{server.base_url}/api/admin/tables", headers=wrong).status_code == 401
        admin = {"Authorization": "Bearer debug-test-admin-token"}
        assert httpx.get(f"{server.base_url}/api/admin/tables", headers=admin).status_code == 200
        guest = httpx.post(f"{server.base_url}/api/guests", json={"name": "Ayu"}).json()
        token = guest["token"]
        auth = {"Authorization": f"Bearer {token}"}
        code = httpx.post(f"{server.base_url}/api/rooms", json={}, headers=auth).json()["code"]
        httpx.get(f"{server.base_url}/api/guests/me", headers=auth)

        async def socket() -> None:
            async with websockets.connect(server.ws_url(code)) as ws:
                await ws.send(json.dumps({"type": "hello", "token": token}))
                assert json.loads(await ws.recv())["type"] == "welcome"
                await ws.send('{"type":"bogus"}')  # logged: a bad frame, from this socket
                assert (await _next(ws))["code"] == "bad_message"

        asyncio.run(socket())
    finally:
        server.stop()
    text = server.log()
    assert "hello" in text  # debug logging does show the frames ...
    assert token not in text and secret not in text  # ... but never a secret
    records = [json.loads(line) for line in text.splitlines() if line.startswith("{")]
    assert records and all(
        {"timestamp", "level", "logger", "message", "node"} <= set(r) for r in records
    )
    bad_frame = [r for r in records if "bad frame" in r["message"]]
    assert bad_frame and bad_frame[0]["room"] == code
    assert bad_frame[0]["player"] == guest["player_id"] and isinstance(bad_frame[0]["conn"], int)
    access = [r for r in records if r["logger"] == "uvicorn.access"]
    assert access and {"client", "method", "path", "status"} <= set(access[0])
    # uvicorn's coloured copy of its message is dropped: no ANSI escapes in a JSON line.
    assert any(r["logger"] == "uvicorn.error" for r in records)
    assert not [r for r in records if "color_message" in r]
    assert "\x1b" not in text and "\\u001b" not in text
    # The admin audit: who asked, and a refused token is a warning.
    audits = {r["admin_action"]: r for r in records if "admin_action" in r}
    assert audits["auth"]["level"] == "WARNING" and audits["auth"]["client"] == "127.0.0.1"
    assert audits["auth"]["message"] == (
        "admin auth GET /api/admin/tables by - from 127.0.0.1: unauthorized"
    )
    assert audits["list_tables"]["level"] == "INFO"
    assert audits["list_tables"]["client"] == "127.0.0.1"
    assert "not-the-admin-token" not in text and "debug-test-admin-token" not in text


async def test_refusals_and_closes_are_counted(server: ServerProcess, room: dict[str, str]) -> None:
    from prometheus_client.parser import text_string_to_metric_families

    def scrape() -> dict[tuple[str, tuple[tuple[str, str], ...]], float]:
        text = httpx.get(f"{server.base_url}/metrics").text
        return {
            (s.name, tuple(sorted(s.labels.items()))): s.value
            for family in text_string_to_metric_families(text)
            for s in family.samples
        }

    refused = ("gaple_ws_refusals_total", (("code", "bad_token"),))
    closed = ("gaple_ws_closes_total", (("by", "server"), ("code", "1008")))
    by_client = ("gaple_ws_closes_total", (("by", "client"), ("code", "1000")))
    before = scrape()
    async with websockets.connect(server.ws_url(room["code"])) as ws:
        await ws.send(json.dumps({"type": "hello", "token": "nope"}))
        await ws.wait_closed()
    async with websockets.connect(server.ws_url(room["code"])) as ws:
        await ws.send(json.dumps({"type": "hello", "token": room["token"]}))
        await ws.recv()
    await asyncio.sleep(0.3)
    after = scrape()
    assert after[refused] - before.get(refused, 0) == 1
    assert after[closed] - before.get(closed, 0) == 1
    assert after[by_client] - before.get(by_client, 0) == 1

"""What one idle WebSocket costs in server memory, layer by layer of the stack.

    .venv/bin/python bench/socket_memory.py [--sockets 2000]

For each variant it starts a server (pinned to CPU 0 when ``taskset`` exists), opens the
sockets from this process (pinned to CPU 1), and prints the server's RSS growth per socket:

* ``asgi``: a bare ASGI callable on uvicorn (the WebSocket implementation uvicorn picks, as the
  game server uses it: no per-message deflate, 64 KiB maximum message);
* ``starlette-route``: the same inside a FastAPI app, as a plain Starlette ``WebSocketRoute``
  (how app/ws/endpoint.py mounts the table socket);
* ``fastapi-route``: the same as a FastAPI ``@app.websocket`` route.

Each handler accepts and then waits for messages, like a seat waiting for its turn. Loopback only.
"""

import argparse
import asyncio
import os
import shutil
import socket
import subprocess
import sys
import time
from typing import Any

VARIANTS = ("asgi", "starlette-route", "fastapi-route")


def rss_kb() -> int:
    with open("/proc/self/status") as f:
        for line in f:
            if line.startswith("VmRSS"):
                return int(line.split()[1])
    raise RuntimeError("no VmRSS")


def build_app(variant: str) -> Any:
    if variant == "asgi":

        async def app(scope: dict[str, Any], receive: Any, send: Any) -> None:
            if scope["type"] == "websocket":
                await receive()  # websocket.connect
                await send({"type": "websocket.accept"})
                while (await receive())["type"] != "websocket.disconnect":
                    pass
            elif scope["type"] == "http":
                await send({"type": "http.response.start", "status": 200, "headers": []})
                await send({"type": "http.response.body", "body": str(rss_kb()).encode()})

        return app

    from fastapi import FastAPI, WebSocket
    from fastapi.responses import PlainTextResponse
    from starlette.routing import WebSocketRoute
    from starlette.websockets import WebSocketDisconnect

    fastapi_app = FastAPI()

    @fastapi_app.get("/rss", response_class=PlainTextResponse)
    async def rss() -> str:
        return str(rss_kb())

    async def socket_endpoint(websocket: WebSocket) -> None:
        await websocket.accept()
        try:
            while True:
                await websocket.receive_text()
        except WebSocketDisconnect:
            return

    if variant == "starlette-route":
        fastapi_app.router.routes.append(WebSocketRoute("/ws", socket_endpoint))
    else:
        fastapi_app.websocket("/ws")(socket_endpoint)
    return fastapi_app


def serve(variant: str, port: int) -> None:
    import uvicorn

    uvicorn.run(
        build_app(variant),
        host="127.0.0.1",
        port=port,
        log_level="warning",
        lifespan="off",
        ws_max_size=65536,  # as app/cli.py with the default frame limit
        ws_per_message_deflate=False,
    )


async def measure(port: int, sockets: int) -> tuple[float, float]:
    import httpx
    from websockets.asyncio.client import connect

    async with httpx.AsyncClient() as http:

        async def rss() -> int:
            for _ in range(100):
                try:
                    return int((await http.get(f"http://127.0.0.1:{port}/rss")).text)
                except httpx.TransportError:
                    await asyncio.sleep(0.1)
            raise RuntimeError("the server did not start")

        before = await rss()
        conns = [
            await connect(f"ws://127.0.0.1:{port}/ws", compression=None) for _ in range(sockets)
        ]
        await asyncio.sleep(2)
        after = await rss()
        for conn in conns:
            await conn.close()
    return before / 1024, (after - before) / sockets


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def pinned(cpu: str, cmd: list[str]) -> list[str]:
    return ["taskset", "-c", cpu, *cmd] if shutil.which("taskset") else cmd


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--sockets", type=int, default=2000)
    parser.add_argument("--serve", choices=VARIANTS, help=argparse.SUPPRESS)
    parser.add_argument("--port", type=int, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.serve:
        serve(args.serve, args.port)
        return 0
    if shutil.which("taskset"):
        os.sched_setaffinity(0, {1})
    print(f"{'variant':<16} {'baseline MB':>12} {'KB per idle socket':>19}")
    for variant in VARIANTS:
        port = free_port()
        cmd = [sys.executable, __file__, "--serve", variant, "--port", str(port)]
        server = subprocess.Popen(pinned("0", cmd))
        try:
            baseline, per_socket = asyncio.run(measure(port, args.sockets))
        finally:
            server.terminate()
            server.wait(10)
        print(f"{variant:<16} {baseline:>12.1f} {per_socket:>19.1f}")
        time.sleep(0.5)
    return 0


if __name__ == "__main__":
    sys.exit(main())

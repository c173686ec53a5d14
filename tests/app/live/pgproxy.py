"""A TCP proxy between the app and PostgreSQL, to cut the database off without touching the
shared server: ``cut()`` drops every connection and refuses new ones until ``resume()``;
``cut_after(b"COMMIT")`` passes the next client message holding those bytes to the server, then
cuts before its answer comes back (a commit cut mid-flight)."""

from __future__ import annotations

import asyncio
import contextlib

from sqlalchemy.engine import make_url


class PgProxy:
    def __init__(self, url: str) -> None:
        target = make_url(url)
        self.target_host = target.host or "127.0.0.1"
        self.target_port = target.port or 5432
        self.url = url
        self.down = False
        self.cuts = 0  # how many cuts happened (cut_after's included)
        self._marker: bytes | None = None
        self._server: asyncio.Server | None = None
        self._clients: set[asyncio.StreamWriter] = set()  # the app's side of each connection
        self._tasks: set[asyncio.Task[None]] = set()

    async def start(self) -> str:
        """Start listening; returns the database URL that goes through the proxy."""
        self._server = await asyncio.start_server(self._accept, "127.0.0.1", 0)
        port = self._server.sockets[0].getsockname()[1]
        proxied = make_url(self.url).set(host="127.0.0.1", port=port)
        return proxied.render_as_string(hide_password=False)

    def cut(self) -> None:
        self.down = True
        self.cuts += 1
        for writer in list(self._clients):
            writer.transport.abort()
        self._clients.clear()

    def cut_after(self, marker: bytes) -> None:
        self._marker = marker

    def resume(self) -> None:
        self.down = False

    async def close(self) -> None:
        self.cut()
        if self._server is not None:
            self._server.close()
            await self._server.wait_closed()
        for task in list(self._tasks):
            task.cancel()

    async def _accept(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        if self.down:
            writer.transport.abort()
            return
        try:
            up_reader, up_writer = await asyncio.open_connection(self.target_host, self.target_port)
        except OSError:
            writer.transport.abort()
            return
        self._clients.add(writer)
        for source, sink, upstream in ((reader, up_writer, True), (up_reader, writer, False)):
            task = asyncio.get_running_loop().create_task(self._pump(source, sink, upstream))
            self._tasks.add(task)
            task.add_done_callback(self._tasks.discard)

    async def _pump(
        self, source: asyncio.StreamReader, sink: asyncio.StreamWriter, upstream: bool
    ) -> None:
        with contextlib.suppress(OSError, asyncio.CancelledError):
            while chunk := await source.read(65536):
                if self.down:
                    break
                sink.write(chunk)
                await sink.drain()
                if upstream and self._marker is not None and self._marker in chunk:
                    # The app loses every connection now, the server only once it has read
                    # the message (it commits; its answer is never passed on).
                    self._marker = None
                    self.cut()
                    await asyncio.sleep(0.2)
                    break
        sink.transport.abort()

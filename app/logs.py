"""Logging of a serving node: one format for the app's records and uvicorn's, ids from context,
and no secrets in any line.

``configure(settings, node=...)`` (called by ``gaple serve``) installs one handler on the root
logger; uvicorn is started with ``log_config=None`` so its ``uvicorn.error`` / ``uvicorn.access``
records reach the same handler.

* ``GAPLE_LOG_FORMAT=json``: one JSON object a line (python-json-logger) with ``timestamp``
  (UTC, ISO 8601), ``level``, ``logger``, ``message``, ``node`` and, where known, ``room``,
  ``conn`` and ``player``; an access line adds ``client``, ``method``, ``path``, ``status``.
  ``text``: the same facts on one readable line. Production defaults to json, else text.
* The ids come from context variables: ``bind(room=..., conn=..., player=...)`` in the task that
  serves a socket; tasks it starts (a table actor) inherit them, as asyncio copies the context.
* Every record goes through :func:`redact` on its way out, at every level and from every
  logger (a debug-level frame dump of a ``hello`` included): bearer tokens, ``"token": ...``
  fields, URL passwords and the configured secret values become ``[redacted]``.
* The client address in uvicorn's lines is the proxied one in production: uvicorn's proxy
  headers middleware rewrites it for the addresses in FORWARDED_ALLOW_IPS.
* uvicorn's ``color_message`` (its message again, with ANSI colours) is dropped from every record.
"""

from __future__ import annotations

import logging
import re
import sys
from collections.abc import Iterable
from contextvars import ContextVar
from datetime import UTC, datetime
from typing import Any

from pythonjsonlogger.json import JsonFormatter

room_var: ContextVar[str | None] = ContextVar("gaple_room", default=None)
conn_var: ContextVar[int | None] = ContextVar("gaple_conn", default=None)
player_var: ContextVar[str | None] = ContextVar("gaple_player", default=None)

REDACTED = "[redacted]"
_SECRET_KEYS = r"token|password|passwd|secret|secret_key|admin_token|authorization"
_PATTERNS = [
    # "token": "...", 'token': '...', \"token\":\"...\" (a frame quoted inside a message)
    (
        re.compile(rf"""(?i)((?:\\?["'])(?:{_SECRET_KEYS})(?:\\?["'])\s*:\s*\\?["'])[^"'\\]*"""),
        rf"\1{REDACTED}",
    ),
    (re.compile(r"(?i)\b(bearer)\s+[A-Za-z0-9._~+/=-]+"), rf"\1 {REDACTED}"),
    (re.compile(rf"(?i)\b((?:{_SECRET_KEYS})=)[^&\s'\"]+"), rf"\1{REDACTED}"),
    (re.compile(r"(?i)(\b[a-z][a-z0-9+.-]*://[^:/@\s]*:)[^@/\s]+@"), rf"\1{REDACTED}@"),
    # A guest token (secrets.token_urlsafe(32)) wherever it appears on its own.
    (re.compile(r"(?<![A-Za-z0-9_-])[A-Za-z0-9_-]{43}(?![A-Za-z0-9_-])"), REDACTED),
]
_secret_values: list[str] = []


def add_secrets(values: Iterable[str | None]) -> None:
    """Values that must never be logged verbatim (the secret key, an admin token)."""
    for value in values:
        if value and len(value) >= 4 and value not in _secret_values:
            _secret_values.append(value)


def redact(text: str) -> str:
    for value in _secret_values:
        text = text.replace(value, REDACTED)
    for pattern, replacement in _PATTERNS:
        text = pattern.sub(replacement, text)
    return text


def bind(*, room: str | None = None, conn: int | None = None, player: str | None = None) -> None:
    """Attach ids to every record logged from this task (and the tasks it starts) from now on."""
    if room is not None:
        room_var.set(room)
    if conn is not None:
        conn_var.set(conn)
    if player is not None:
        player_var.set(player)


class ContextFilter(logging.Filter):
    """Adds node, room, conn, player (and an access line's parts) to a record, then redacts its
    message. On the handler, so it sees the records of every logger."""

    def __init__(self, node: str) -> None:
        super().__init__()
        self.node = node

    def filter(self, record: logging.LogRecord) -> bool:
        record.node = self.node
        record.room = room_var.get()
        record.conn = conn_var.get()
        record.player = player_var.get()
        args = record.args
        if record.name == "uvicorn.access" and isinstance(args, tuple) and len(args) == 5:
            client, method, path, _version, status = args
            record.client, record.method = client, method
            record.path, record.status = redact(str(path)), status
        if record.name == "uvicorn.error" and record.msg == _UVICORN_BAD_UTF8:
            # One line per offending socket (uvicorn closes it with 1007), not a traceback.
            record.msg, record.args = "invalid UTF-8 in a text frame; closed with 1007", ()
            record.exc_info = record.exc_text = None
            record.levelno, record.levelname = logging.INFO, "INFO"
        record.msg = redact(record.getMessage())
        record.args = ()
        # uvicorn's copy of its message with ANSI colour codes: noise in a JSON line.
        record.__dict__.pop("color_message", None)
        return True


_UVICORN_BAD_UTF8 = "Invalid UTF-8 sequence received from client."
_CONTEXT = ("room", "conn", "player", "client", "method", "path", "status")


class TextFormatter(logging.Formatter):
    def __init__(self) -> None:
        super().__init__("%(asctime)s %(levelname)s %(name)s: %(message)s")

    def format(self, record: logging.LogRecord) -> str:
        line = super().format(record)
        ids = " ".join(
            f"{key}={getattr(record, key)}"
            for key in _CONTEXT[:3]
            if getattr(record, key, None) is not None
        )
        return f"{line} [{ids}]" if ids else line

    def formatException(self, ei: Any) -> str:
        return redact(super().formatException(ei))


class JsonLineFormatter(JsonFormatter):
    def __init__(self) -> None:
        super().__init__(
            "%(levelname)s %(name)s %(message)s",
            rename_fields={"levelname": "level", "name": "logger"},
            json_ensure_ascii=False,
        )

    def add_fields(
        self, log_record: dict[str, Any], record: logging.LogRecord, message_dict: dict[str, Any]
    ) -> None:
        log_record["timestamp"] = (
            datetime.fromtimestamp(record.created, UTC).isoformat(timespec="milliseconds")
        ).replace("+00:00", "Z")
        super().add_fields(log_record, record, message_dict)
        log_record["node"] = getattr(record, "node", None)
        for key in _CONTEXT:
            value = getattr(record, key, None)
            if value is not None:
                log_record[key] = value
            else:
                log_record.pop(key, None)

    def formatException(self, ei: Any) -> str | list[str]:  # type: ignore[override]
        formatted = super().formatException(ei)
        if isinstance(formatted, list):
            return [redact(line) for line in formatted]
        return redact(formatted)


def configure(*, log_format: str, level: str, node: str, secrets: Iterable[str | None]) -> None:
    """Send every record (the app's, uvicorn's, SQLAlchemy's ...) to stderr in ``log_format``."""
    add_secrets(secrets)
    handler = logging.StreamHandler(sys.stderr)
    handler.addFilter(ContextFilter(node))
    handler.setFormatter(JsonLineFormatter() if log_format == "json" else TextFormatter())
    root = logging.getLogger()
    for old in list(root.handlers):
        root.removeHandler(old)
    root.addHandler(handler)
    root.setLevel(level.upper())
    for name in ("uvicorn", "uvicorn.error", "uvicorn.access"):
        logger = logging.getLogger(name)
        logger.handlers.clear()
        logger.propagate = True


class FailureLog:
    """One line per kind of failure, not one per failure: a store that is down fails every retry
    of every table, and a traceback for each would bury everything else.

    ``failed(kind, exc)`` logs a WARNING the first time ``kind`` fails in a row (its error in
    one line; every traceback, the first's included, at DEBUG); ``ok(kind)`` after it failed logs
    one line with how many times and for how long it failed."""

    def __init__(self, logger: logging.Logger, prefix: str, clock: Any) -> None:
        self._log = logger
        self._prefix = prefix
        self._clock = clock  # a callable returning seconds
        self._failing: dict[str, tuple[int, float]] = {}  # kind: (failures, since)

    @property
    def failing(self) -> bool:
        return bool(self._failing)

    def failed(self, kind: str, exc: BaseException) -> None:
        count, since = self._failing.get(kind, (0, self._clock()))
        self._failing[kind] = (count + 1, since)
        if count == 0:
            self._log.warning("%s: %s failing: %s", self._prefix, kind, _one_line(exc))
        self._log.debug("%s: %s failed", self._prefix, kind, exc_info=exc)

    def ok(self, kind: str) -> None:
        if not self._failing:
            return
        failed = self._failing.pop(kind, None)
        if failed is not None:
            count, since = failed
            self._log.warning(
                "%s: %s works again after %d failure%s in %.1f s",
                self._prefix,
                kind,
                count,
                "" if count == 1 else "s",
                self._clock() - since,
            )


def _one_line(exc: BaseException) -> str:
    text = str(exc).strip().splitlines()
    return f"{type(exc).__name__}: {text[0] if text else ''}"

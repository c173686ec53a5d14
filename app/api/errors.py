"""One error shape for every response: ``{"error": {"code", "message", "field"?, "details"?}}``.

Every 4xx and 5xx answer uses it, the 500 of a bug and the 503 of a database that is down
included, and OpenAPI documents it once, as the ``Error`` component (app/api/openapi.py).
"""

from __future__ import annotations

import logging
from typing import Any, Literal, get_args

from fastapi import FastAPI, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import JSONResponse
from sqlalchemy.exc import DBAPIError
from sqlalchemy.exc import TimeoutError as PoolTimeout
from starlette.exceptions import HTTPException as StarletteHTTPException

from app.bus.redis import BusUnavailable
from app.cursors import BadCursor
from app.errors import GapleError, error_body

log = logging.getLogger(__name__)

# Every code the REST API answers with, the one list OpenAPI's enum is made from. A new code
# raised anywhere in app/api goes here too (tests/app/test_openapi.py checks real answers).
ErrorCode = Literal[
    "bad_request",
    "invalid",
    "unauthorized",
    "forbidden",
    "not_found",
    "method_not_allowed",
    "conflict",
    "rate_limited",
    "http_error",
    "too_large",
    "unsupported_media_type",
    "internal",
    "unavailable",
    "draining",
    # the lobby's own
    "too_many_rooms",
    "code_exhausted",
    "room_not_found",
    "not_host",
    "room_not_open",
    "seat_taken",
    "seat_empty",
    "not_your_seat",
    "room_started",
    "seat_in_use",
    "seats_not_filled",
    "room_full",
    "already_seated",
    "room_closed",
    "quickplay_room",
    "set_in_progress",
    "not_playing",
    "not_quickplay",
    "not_seated",
    "tournament_room",
    # players and operators
    "banned",
    # friends and blocks
    "player_not_found",
    "not_yourself",
    "friend_limit",
    "player_blocked",
    # challenges and parties (app/rooms/challenges.py, app/players/parties.py)
    "challenge_not_found",
    "challenge_expired",
    "challenge_closed",
    "not_challenger",
    "not_invitee",
    "party_not_found",
    "already_in_party",
    # fair play: reports and the operators' roles
    "already_reported",
    "forbidden_role",
    # tournaments (app/rooms/tournaments.py REFUSALS)
    "account_required",
    "not_organizer",
    "not_partner",
    "tournament_not_found",
    "entry_not_found",
    "tournament_closed",
    "tournament_full",
    "already_entered",
    "partner_entered",
    "same_address",
    "not_entered",
    "too_few_entrants",
    "tournament_started",
    "tournament_over",
    # clubs (app/players/clubs.py REFUSALS)
    "not_leader",
    "not_club_member",
    "club_not_found",
    "member_not_found",
    "request_not_found",
    "club_name_taken",
    "club_limit",
    "club_closed",
    "last_leader",
    "member_is_leader",
    # records (docs/NOTATION.md)
    "bad_record",
]
ERROR_CODES: tuple[str, ...] = get_args(ErrorCode)


class ApiError(GapleError):
    """A REST refusal: ``status`` is its HTTP status, ``headers`` go with the answer."""

    status = 400
    code = "bad_request"

    def __init__(
        self,
        message: str,
        *,
        code: str | None = None,
        field: str | None = None,
        headers: dict[str, str] | None = None,
    ) -> None:
        super().__init__(code, message, field=field)
        self.headers = headers

    def body(self) -> dict[str, Any]:
        """The answer's body: the error envelope."""
        return error_body(self.code, self.message, self.field)


class Unauthorized(ApiError):
    status, code = 401, "unauthorized"


class Forbidden(ApiError):
    status, code = 403, "forbidden"


class NotFound(ApiError):
    status, code = 404, "not_found"


class Conflict(ApiError):
    status, code = 409, "conflict"


class Invalid(ApiError):
    status, code = 422, "invalid"


_BY_STATUS: dict[int, type[ApiError]] = {403: Forbidden, 404: NotFound, 409: Conflict, 422: Invalid}


def refusal(error: GapleError, statuses: dict[str, int]) -> ApiError:
    """A service's refusal as the API's error, with the status its code has in ``statuses``
    (a service's ``REFUSALS``, e.g. app/players/clubs.py)."""
    kind = _BY_STATUS[statuses[error.code]]
    return kind(error.message, code=error.code, field=error.field)


# Every 503 says when to try again: Redis or the database may be back by then (a node
# subscribes again within a second of Redis' return, app/bus/redis.py).
RETRY_AFTER_SECONDS = 5
RETRY_AFTER = {"Retry-After": str(RETRY_AFTER_SECONDS)}


class Unavailable(ApiError):
    """A dependency (the database, Redis) cannot serve the call: nothing was changed."""

    status, code = 503, "unavailable"

    def __init__(
        self,
        message: str,
        *,
        code: str | None = None,
        field: str | None = None,
        headers: dict[str, str] | None = None,
    ) -> None:
        super().__init__(
            message, code=code, field=field, headers={**RETRY_AFTER, **(headers or {})}
        )


class UnsupportedMediaType(ApiError):
    status, code = 415, "unsupported_media_type"


class BadRecordFile(ApiError):
    """A Gaple record that does not parse or does not replay: where, by ``line`` and ``column``
    (1-based) beside the message, for a client to say it in its own words."""

    status, code = 422, "bad_record"

    def __init__(self, message: str, *, line: int, column: int) -> None:
        super().__init__(message)
        self.line, self.column = line, column

    def body(self) -> dict[str, Any]:
        body = super().body()
        body["error"] |= {"line": self.line, "column": self.column}
        return body


# OpenAPI: the shape, once, as the component every error response refers to.
ERROR_COMPONENT: dict[str, Any] = {
    "title": "Error",
    "type": "object",
    "description": "Every 4xx and 5xx answer. /api/health's 503 adds its report beside `error`.",
    "required": ["error"],
    "properties": {
        "error": {
            "type": "object",
            "required": ["code", "message"],
            "additionalProperties": False,
            "properties": {
                "code": {"type": "string", "enum": list(ERROR_CODES)},
                "message": {"type": "string"},
                "field": {"type": "string", "description": "the input at fault, when one is"},
                "line": {
                    "type": "integer",
                    "description": "`bad_record` only: the record's line at fault, from 1",
                },
                "column": {
                    "type": "integer",
                    "description": "`bad_record` only: the column on that line, from 1",
                },
                "details": {
                    "type": "array",
                    "description": "422 only: every problem found, not just the first",
                    "items": {
                        "type": "object",
                        "required": ["field", "message"],
                        "additionalProperties": False,
                        "properties": {
                            "field": {"type": ["string", "null"]},
                            "message": {"type": "string"},
                        },
                    },
                },
            },
        }
    },
}
ERROR_SCHEMA = {"$ref": "#/components/schemas/Error"}
RETRY_AFTER_HEADER: dict[str, Any] = {
    "description": "Seconds to wait before trying again",
    "schema": {"type": "integer"},
}

_DESCRIPTIONS = {
    401: "No valid bearer token",
    403: "Not allowed",
    404: "Not found",
    409: "Conflicts with the current state",
    413: "The body is longer than GAPLE_MAX_BODY_BYTES",
    415: "The body is not of the media type the call reads",
    422: "The request is invalid (`details` lists every problem)",
    429: "Too many requests (see `Retry-After`)",
    500: "An unexpected error on the server",
    503: "A dependency (the database, Redis) is unreachable (see `Retry-After`)",
}


def error_responses(*statuses: int, description: str | None = None) -> dict[int | str, Any]:
    """``responses=`` for a route: each status answers with the shared ``Error`` component (a
    503 with its ``Retry-After``)."""
    responses: dict[int | str, Any] = {}
    for status in statuses:
        response: dict[str, Any] = {
            "description": description or _DESCRIPTIONS.get(status, "Error"),
            "content": {"application/json": {"schema": ERROR_SCHEMA}},
        }
        if status == 503:
            response["headers"] = {"Retry-After": RETRY_AFTER_HEADER}
        responses[status] = response
    return responses


_SOURCES = {"body", "path", "query", "header", "cookie"}


def _field_of(loc: tuple[Any, ...]) -> str | None:
    # ("body", "turn_seconds") -> "turn_seconds"; ("path", "seat") -> "seat"
    parts = list(loc)
    if parts and parts[0] in _SOURCES:
        parts = parts[1:]
    return ".".join(str(part) for part in parts) or None


async def _api_error(_request: Request, exc: Exception) -> JSONResponse:
    assert isinstance(exc, ApiError)
    return JSONResponse(exc.body(), status_code=exc.status, headers=exc.headers)


async def _bad_cursor(_request: Request, exc: Exception) -> JSONResponse:
    # Routes hand a page cursor on untouched: one the server did not give out is answered here.
    assert isinstance(exc, BadCursor)
    return JSONResponse(error_body(exc.code, exc.message, exc.field), status_code=Invalid.status)


async def _validation_error(_request: Request, exc: Exception) -> JSONResponse:
    assert isinstance(exc, RequestValidationError)
    errors = exc.errors()
    first = errors[0] if errors else {"loc": (), "msg": "invalid request"}
    field = _field_of(tuple(first.get("loc", ())))
    message = str(first.get("msg", "invalid request"))
    if field is None and first.get("type") == "missing":
        message = "request body is required"
    body = error_body("invalid", message, field)
    # Every problem, for clients that want to highlight several fields at once.
    body["error"]["details"] = [
        {"field": _field_of(tuple(err.get("loc", ()))), "message": str(err.get("msg"))}
        for err in errors
    ]
    return JSONResponse(body, status_code=422)


_HTTP_CODES = {
    401: "unauthorized",
    403: "forbidden",
    404: "not_found",
    405: "method_not_allowed",
    413: "too_large",
}


async def _http_error(_request: Request, exc: Exception) -> JSONResponse:
    assert isinstance(exc, StarletteHTTPException)
    if exc.status_code == 400 and exc.__cause__ is not None:
        # FastAPI could not read the body (JSON nested too deeply for the parser, say): bad
        # input like any other, so the 422 of the envelope, not a bare 400.
        return JSONResponse(
            error_body("invalid", "the request body could not be read as JSON"), status_code=422
        )
    codes = _HTTP_CODES
    return JSONResponse(
        error_body(codes.get(exc.status_code, "http_error"), str(exc.detail)),
        status_code=exc.status_code,
        headers=getattr(exc, "headers", None),
    )


async def _database_error(request: Request, exc: Exception) -> JSONResponse:
    # A database that is down or saturated is an outage to report, not a bug to trace per request.
    log.warning("database unavailable on %s %s: %r", request.method, request.url.path, exc)
    return JSONResponse(
        error_body("unavailable", "the database is unreachable"),
        status_code=503,
        headers=RETRY_AFTER,
    )


async def _bus_error(request: Request, exc: Exception) -> JSONResponse:
    # Redis went away during the call, before this node's listener noticed (once it has, the
    # calls that need it are refused before they change anything: app/api/deps.py).
    assert isinstance(exc, BusUnavailable)
    if exc.__cause__ is not None:  # else refused up front; the bus logged the outage already
        log.warning(
            "Redis unreachable on %s %s: %r", request.method, request.url.path, exc.__cause__
        )
    return JSONResponse(error_body(exc.code, exc.message), status_code=503, headers=RETRY_AFTER)


async def _internal_error(request: Request, exc: Exception) -> JSONResponse:
    # Starlette logs the traceback (and re-raises for the server) after this answer is sent.
    return JSONResponse(error_body("internal", "internal server error"), status_code=500)


def install_error_handlers(app: FastAPI) -> None:
    app.add_exception_handler(ApiError, _api_error)
    app.add_exception_handler(BadCursor, _bad_cursor)
    app.add_exception_handler(RequestValidationError, _validation_error)
    app.add_exception_handler(StarletteHTTPException, _http_error)
    for unreachable in (DBAPIError, PoolTimeout, ConnectionError):
        app.add_exception_handler(unreachable, _database_error)
    app.add_exception_handler(BusUnavailable, _bus_error)
    app.add_exception_handler(Exception, _internal_error)

"""One error shape for every response: ``{"error": {"code", "message", "field"?}}``."""

from __future__ import annotations

from typing import Any

from fastapi import FastAPI, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import JSONResponse
from starlette.exceptions import HTTPException as StarletteHTTPException


class ApiError(Exception):
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
        super().__init__(message)
        self.message = message
        self.code = code or self.code
        self.field = field
        self.headers = headers


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


class Unavailable(ApiError):
    status, code = 503, "unavailable"


def error_body(code: str, message: str, field: str | None = None) -> dict[str, Any]:
    error: dict[str, Any] = {"code": code, "message": message}
    if field is not None:
        error["field"] = field
    return {"error": error}


# For OpenAPI: documents the shape on the endpoints that use it.
ERROR_SCHEMA = {
    "type": "object",
    "properties": {
        "error": {
            "type": "object",
            "properties": {
                "code": {"type": "string"},
                "message": {"type": "string"},
                "field": {"type": "string"},
            },
            "required": ["code", "message"],
        }
    },
}


_SOURCES = {"body", "path", "query", "header", "cookie"}


def _field_of(loc: tuple[Any, ...]) -> str | None:
    # ("body", "turn_seconds") -> "turn_seconds"; ("path", "seat") -> "seat"
    parts = list(loc)
    if parts and parts[0] in _SOURCES:
        parts = parts[1:]
    return ".".join(str(part) for part in parts) or None


async def _api_error(_request: Request, exc: Exception) -> JSONResponse:
    assert isinstance(exc, ApiError)
    return JSONResponse(
        error_body(exc.code, exc.message, exc.field), status_code=exc.status, headers=exc.headers
    )


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


async def _http_error(_request: Request, exc: Exception) -> JSONResponse:
    assert isinstance(exc, StarletteHTTPException)
    codes = {401: "unauthorized", 403: "forbidden", 404: "not_found", 405: "method_not_allowed"}
    return JSONResponse(
        error_body(codes.get(exc.status_code, "http_error"), str(exc.detail)),
        status_code=exc.status_code,
        headers=getattr(exc, "headers", None),
    )


def install_error_handlers(app: FastAPI) -> None:
    app.add_exception_handler(ApiError, _api_error)
    app.add_exception_handler(RequestValidationError, _validation_error)
    app.add_exception_handler(StarletteHTTPException, _http_error)

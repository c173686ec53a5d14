"""A Gaple record opened from a file: checked by the rules and re-played for the replay page,
without storing anything (docs/NOTATION.md; the record of a stored set is
``GET /api/sets/{id}/record``, app/api/analysis.py)."""

from __future__ import annotations

from typing import Any

from fastapi import APIRouter, Depends, Request
from starlette.concurrency import run_in_threadpool

from app.api.errors import BadRecordFile, UnsupportedMediaType, error_responses
from app.api.ratelimit import rate_limit
from app.api.sets import RecordReplay
from app.players import history
from engine.notation import BadRecord

router = APIRouter(tags=["history"])

MEDIA_TYPE = "text/plain"

_BODY: dict[str, Any] = {
    "requestBody": {
        "required": True,
        "description": "The record's text, UTF-8 (docs/NOTATION.md)",
        "content": {MEDIA_TYPE: {"schema": {"type": "string"}}},
    }
}


def _check_media_type(request: Request) -> None:
    """``text/plain``, UTF-8 (the only charset a record is written in) or no charset named."""
    media, _, params = request.headers.get("content-type", "").partition(";")
    charset = params.strip().lower().removeprefix("charset=").strip('"') if params else "utf-8"
    if media.strip().lower() != MEDIA_TYPE or charset not in ("utf-8", "utf8"):
        raise UnsupportedMediaType(f"send the record as {MEDIA_TYPE}; charset=utf-8")


def _text(body: bytes) -> str:
    try:
        return body.decode("utf-8")
    except UnicodeDecodeError as err:
        before = body[: err.start]
        line = before.count(b"\n") + 1
        column = len(before) - (before.rfind(b"\n") + 1) + 1
        raise BadRecordFile(
            f"line {line}, column {column}: not UTF-8 text", line=line, column=column
        ) from None


@router.post(
    "/records/replay",
    operation_id="replay_record",
    response_model=RecordReplay,
    dependencies=[Depends(rate_limit("records"))],
    openapi_extra=_BODY,
    responses=error_responses(415)
    | error_responses(
        422,
        description="`bad_record`: the record does not parse or does not replay (`line`, `column`)",
    ),
)
async def replay_record(request: Request) -> Any:
    """Check a Gaple record against the rules and re-play it as a set's replay. Nothing is
    stored: the answer is the record's own, a broken one is `422 bad_record`."""
    _check_media_type(request)
    text = _text(await request.body())
    try:
        # A whole set re-played twice (checked, then shaped): off the event loop's thread.
        detail = await run_in_threadpool(history.record_replay, text)
    except BadRecord as err:
        raise BadRecordFile(err.message, line=err.line, column=err.column) from None
    return RecordReplay.model_validate(detail)

"""The OpenAPI document: what FastAPI generates, with the errors and the value sets named once.

* Operation ids are the endpoint functions' names (``operation_id``).
* Every 4xx/5xx answer refers to the one ``Error`` component (app/api/errors.py).
* Every value set (a ``Literal``) is one component, ``ENUMS``, and every property or parameter
  of that set refers to it (``name_enums``): a generated client gets one ``Mode`` type, not ten
  copies of ``tunggal | ganda``.

The sets stay plain ``Literal`` types in their one home (app/presets.py for a room's choices,
app/rooms/protocol.py for a move's end, app/api/… for what only the API says): the values travel
as strings and numbers through the store, the engine and the socket, and mypy checks them there.
Pydantic inlines a ``Literal`` wherever it is used, so the naming happens here, on the document,
by value: ``ENUMS`` names the type, never a second copy of its values.
"""

from __future__ import annotations

from typing import Any, get_args

from fastapi import FastAPI
from fastapi.routing import APIRoute

from app import presets
from app.api import analysis, reports, schemas, sets
from app.api.errors import ERROR_COMPONENT, ErrorCode, error_responses
from app.players import clubs, parties, screening, social
from app.rooms import challenges, protocol
from app.store import models
from app.tournaments import formats as tournament_formats

# Component name -> the Literal it names. Each set of values once: two names for the same values
# would be two types in a generated client again (tests/app/test_openapi.py checks).
ENUMS: dict[str, Any] = {
    "RoomStatus": presets.Status,
    "CloseReason": presets.CloseReason,
    "Preset": presets.Preset,
    "Mode": presets.Mode,
    "Players": presets.Players,
    "Scoring": presets.Scoring,
    "Stuck": presets.Stuck,
    "TurnSeconds": presets.TurnSeconds,
    "BotKind": presets.BotKind,
    "End": protocol.End,
    "SetStatus": sets.Status,
    "Shuffle": sets.Shuffle,
    "Mark": analysis.Mark,
    "FieldType": schemas.FieldType,
    "Check": schemas.Check,
    "RedisCheck": schemas.RedisCheck,
    "ProbeStatus": schemas.ProbeStatus,
    "TieState": social.TieState,
    "NotificationKind": social.NotificationKind,
    "ChallengeStatus": challenges.ChallengeStatus,
    "ChallengeAnswer": challenges.Answer,
    "PartyStatus": parties.PartyStatus,
    "ChatKind": models.ChatKind,
    "FairPlayFlag": screening.FlagKind,
    "TournamentFormat": tournament_formats.Format,
    "TournamentStatus": tournament_formats.Status,
    "TournamentFilter": schemas.TournamentFilter,
    "RoundStatus": tournament_formats.RoundStatus,
    "RoundStage": tournament_formats.Stage,
    "ReportCategory": reports.Category,
    "ClubRole": models.ClubRole,
    "ClubJoin": clubs.Joined,
    "ReportStatus": reports.ReportStatus,
    "ErrorCode": ErrorCode,
}

_REF = "#/components/schemas/"


def operation_id(route: APIRoute) -> str:
    """Operation ids are the endpoint functions' names: ``create_guest``, not FastAPI's
    ``create_guest_api_guests_post``. (FastAPI warns about a duplicate.)"""
    return route.name


def enum_values(name: str) -> list[Any]:
    """The values of the set ``name`` of ``ENUMS``, in their declared order."""
    return list(get_args(ENUMS[name]))


def enum_component(name: str) -> dict[str, Any]:
    values = enum_values(name)
    kind = "integer" if all(isinstance(value, int) for value in values) else "string"
    return {"title": name, "type": kind, "enum": values}


def name_enums(document: dict[str, Any]) -> dict[str, Any]:
    """``document`` with every inline ``enum`` that lists a set of ``ENUMS`` (same values, same
    order) replaced by a ``$ref`` to its component, which it adds. What else the inline schema
    said (``default``, ``description``) stays beside the ``$ref`` (allowed in OpenAPI 3.1); its
    ``title`` goes, being the field's, not the set's. Returns a new document."""
    named = {tuple(enum_values(name)): name for name in ENUMS}

    def swap(node: Any) -> Any:
        if isinstance(node, list):
            return [swap(item) for item in node]
        if not isinstance(node, dict):
            return node
        node = {key: swap(value) for key, value in node.items()}
        values = node.get("enum")
        name = named.get(tuple(values)) if isinstance(values, list) else None
        if name is None:
            return node
        rest = {key: value for key, value in node.items() if key not in ("enum", "type", "title")}
        return {"$ref": _REF + name, **rest}

    named_document: dict[str, Any] = swap(document)
    components = named_document.setdefault("components", {}).setdefault("schemas", {})
    components.update({name: enum_component(name) for name in ENUMS})
    return named_document


def install_openapi(app: FastAPI) -> None:
    """Document the error shape once: the ``Error`` component for every 4xx/5xx response,
    FastAPI's own 422 schema (never sent) replaced, a 500 on every operation and a 503 on every
    one under /api (they all need the database); then name the value sets (``name_enums``)."""
    build = app.openapi

    def openapi() -> dict[str, Any]:
        if app.openapi_schema is not None:
            return app.openapi_schema
        schema = build()
        components = schema.setdefault("components", {}).setdefault("schemas", {})
        for unused in ("HTTPValidationError", "ValidationError"):
            components.pop(unused, None)
        components["Error"] = ERROR_COMPONENT
        for path, operations in schema.get("paths", {}).items():
            for operation in operations.values():
                responses = operation.setdefault("responses", {})
                wanted = [500, 503] if path.startswith("/api/") else [500]
                if "requestBody" in operation:
                    wanted.append(413)  # GAPLE_MAX_BODY_BYTES (app/api/bodies.py)
                for status in wanted:
                    responses.setdefault(str(status), error_responses(status)[status])
                for status, response in responses.items():
                    if int(status) >= 400:
                        default = error_responses(int(status))[int(status)]
                        response["content"] = default["content"]
                        if "headers" in default:  # a 503's Retry-After
                            response.setdefault("headers", default["headers"])
                        if int(status) == 422:
                            response["description"] = default["description"]
        app.openapi_schema = name_enums(schema)
        return app.openapi_schema

    app.openapi = openapi  # type: ignore[method-assign]

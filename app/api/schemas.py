"""Request and response bodies of the REST API (what /docs shows)."""

from __future__ import annotations

from datetime import datetime
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field

# Literals rather than free strings; combinations are checked by the engine (app.api.lobby).
Preset = Literal["pordi", "klasik"]
Mode = Literal["tunggal", "ganda"]
Players = Literal[4, 5]
Scoring = Literal["difference", "penalty"]
TurnSeconds = Literal[15, 30, 60]
RoomStatus = Literal["open", "playing", "finished"]
BotKind = Literal["easy", "normal", "hard", "heuristic", "random"]  # the last two: old names


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid")


class GuestIn(_Strict):
    name: str = Field(description="Shown at the table; trimmed, 1..max_name_length printable chars")


class GuestOut(BaseModel):
    player_id: str
    token: str = Field(description="Send as `Authorization: Bearer <token>`; shown only once")
    name: str


class PlayerOut(BaseModel):
    player_id: str
    name: str


# The host's Klasik options (RULES.md §2). A PORDI room has none of them: they are absent from its
# settings (and from the JSON), and sending one with preset "pordi" is a 422.
KLASIK_OPTIONS = ("players", "seven_tiles", "discard", "zero_zero_25", "scoring")


def _absent(value: object) -> bool:
    return value is None


def _klasik(description: str) -> Any:
    return Field(default=None, exclude_if=_absent, description=f"Klasik only: {description}")


class RoomSettings(_Strict):
    """A room's settings. What the host leaves out gets the preset's default when the room is
    created; the engine checks the combination (``rules_from_settings``)."""

    preset: Preset = "pordi"
    mode: Mode = Field(default="tunggal", description='Klasik is "tunggal" only')
    turn_seconds: TurnSeconds = 15  # RULES.md §1.6
    deals_per_set: int = Field(
        default=7, ge=1, le=21, description="PORDI Tunggal; Klasik with penalty scoring"
    )
    target_points: int | None = Field(
        default=None,
        ge=1,
        le=1000,
        description="PORDI Ganda, Klasik difference scoring: the points that win the set. "
        "Default by preset: PORDI 7 (1..99), Klasik 100 (1..1000)",
    )
    public: bool = True
    players: Players | None = _klasik("4 (6 tiles each) or 5 (5 tiles each) seats; default 4")
    seven_tiles: bool | None = _klasik("4 players with 7 tiles each, 0-0 opens; default false")
    discard: bool | None = _klasik(
        "a seat that cannot place discards a tile face down (false: it passes); default true"
    )
    zero_zero_25: bool | None = _klasik(
        "0-0 counts 25 unless its holder also holds another blank; default false"
    )
    scoring: Scoring | None = _klasik(
        '"difference" (first to target_points) or "penalty" (own counts over deals_per_set '
        'deals, lowest total wins); default "difference"'
    )


class RoomSettingsPatch(_Strict):
    """Only the fields to change. A new preset resets target_points and the Klasik options to
    the new preset's defaults unless the same patch sets them."""

    preset: Preset | None = None
    mode: Mode | None = None
    turn_seconds: TurnSeconds | None = None
    deals_per_set: int | None = Field(default=None, ge=1, le=21)
    target_points: int | None = Field(default=None, ge=1, le=1000)
    public: bool | None = None
    players: Players | None = None
    seven_tiles: bool | None = None
    discard: bool | None = None
    zero_zero_25: bool | None = None
    scoring: Scoring | None = None


class BotIn(_Strict):
    kind: BotKind = "heuristic"


class SeatOut(BaseModel):
    seat: int
    player_id: str | None = None
    name: str | None = None
    bot: str | None = None


class RoomOut(BaseModel):
    id: str
    code: str
    share_link: str
    status: RoomStatus
    host: PlayerOut
    settings: RoomSettings
    seats: list[SeatOut] = Field(
        description="One entry per seat (4, or 5 for Klasik with 5 players); an empty seat has "
        "only `seat`"
    )
    seats_taken: int
    spectators: int
    created_at: datetime


class RoomSummary(BaseModel):
    code: str
    share_link: str
    status: RoomStatus
    host_name: str
    settings: RoomSettings
    seats_taken: int
    spectators: int


class RoomList(BaseModel):
    rooms: list[RoomSummary]


class HealthOut(BaseModel):
    status: Literal["ok", "error"]
    database: Literal["ok", "error"]
    redis: Literal["ok", "error", "disabled"]
    node: str = Field(description="This server process's id (several nodes: who answered)")

"""Request and response bodies of the REST API (what /docs shows)."""

from __future__ import annotations

from datetime import datetime
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field

# Literals rather than free strings: adding "klasik" later is one word here plus the engine preset.
Preset = Literal["pordi"]
Mode = Literal["tunggal", "ganda"]
TurnSeconds = Literal[15, 30, 60]
RoomStatus = Literal["open", "playing", "finished"]
BotKind = Literal["heuristic", "random"]


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


class RoomSettings(_Strict):
    preset: Preset = "pordi"
    mode: Mode = "tunggal"
    turn_seconds: TurnSeconds = 15  # RULES.md §1.6
    deals_per_set: int = Field(default=7, ge=1, le=21)
    target_points: int = Field(default=7, ge=1, le=99)
    public: bool = True


class RoomSettingsPatch(_Strict):
    """Only the fields to change."""

    preset: Preset | None = None
    mode: Mode | None = None
    turn_seconds: TurnSeconds | None = None
    deals_per_set: int | None = Field(default=None, ge=1, le=21)
    target_points: int | None = Field(default=None, ge=1, le=99)
    public: bool | None = None


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
    seats: list[SeatOut] = Field(description="Always four entries; empty seats have only `seat`")
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

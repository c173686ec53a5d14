"""GET /api/presets: every setting a room can have, its choices and defaults (one source)."""

from __future__ import annotations

from fastapi import APIRouter

from app.api.schemas import PresetsOut
from app.rooms import chat
from app.rooms.settings import catalogue

router = APIRouter(tags=["rooms"])


@router.get("/presets", response_model_exclude_none=True)
async def presets() -> PresetsOut:
    """The presets with their defaults and their create form (fields in display order, with
    choices or ranges), the bot kinds, the quick-play choices, and the chat's reactions and
    quick phrases (both languages). Clients build their create
    form and play-now button from this instead of keeping their own copy."""
    return PresetsOut.model_validate({**catalogue(), "chat": chat.catalogue()})

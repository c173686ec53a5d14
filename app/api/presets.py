"""GET /api/presets: every setting a room can have, its choices and defaults (one source)."""

from __future__ import annotations

from fastapi import APIRouter

from app.api.deps import SettingsDep
from app.api.schemas import PresetsOut, tournament_rules
from app.presets import catalogue
from app.rooms import chat

router = APIRouter(tags=["rooms"])


@router.get("/presets", response_model_exclude_none=True)
async def presets(settings: SettingsDep) -> PresetsOut:
    """The presets with their defaults and their create form (fields in display order, with
    choices or ranges), the bot kinds, the quick-play choices, the chat's reactions and
    quick phrases (both languages), how long a player name may be, and the tournament form's
    limits and defaults. Clients build their
    create form, play-now button and name field from this instead of keeping their own copy."""
    names = {"max_length": settings.max_name_length}
    return PresetsOut.model_validate(
        {
            **catalogue(),
            "chat": chat.catalogue(),
            "names": names,
            "tournaments": tournament_rules(),
        }
    )

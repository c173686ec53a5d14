"""GET /api/presets: every setting a room can have, its choices and defaults (one source)."""

from __future__ import annotations

from fastapi import APIRouter

from app.api.deps import SettingsDep
from app.api.schemas import PresetsOut, tournament_rules
from app.players import fairplay
from app.presets import catalogue
from app.rooms import chat
from app.store.models import REPORT_CATEGORIES

router = APIRouter(tags=["rooms"])


@router.get("/presets", response_model_exclude_none=True)
async def presets(settings: SettingsDep) -> PresetsOut:
    """The presets with their defaults and their create form (fields in display order, with
    choices or ranges), the bot kinds, the quick-play choices, the chat's reactions and
    quick phrases (both languages), the report categories, how long a player name may be, and
    the tournament form's limits and defaults. Clients build their create form, play-now button,
    name field and report form from this instead of keeping their own copy."""
    names = {"max_length": settings.max_name_length}
    reports = {"categories": list(REPORT_CATEGORIES), "max_text": fairplay.MAX_REPORT_TEXT}
    return PresetsOut.model_validate(
        {
            **catalogue(),
            "chat": chat.catalogue(),
            "reports": reports,
            "names": names,
            "tournaments": tournament_rules(),
        }
    )

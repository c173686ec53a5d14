"""The REST API, mounted under /api."""

from fastapi import APIRouter

from app.api import (
    accounts,
    challenges,
    clubs,
    guests,
    health,
    metrics,
    parties,
    practice,
    presets,
    quickplay,
    reports,
    rooms,
    social,
    tournaments,
)

api_router = APIRouter(prefix="/api")
api_router.include_router(guests.router)
api_router.include_router(rooms.router)
api_router.include_router(presets.router)
api_router.include_router(quickplay.router)
api_router.include_router(practice.router)
api_router.include_router(health.router)
api_router.include_router(accounts.router)
api_router.include_router(social.router)
api_router.include_router(challenges.router)
api_router.include_router(parties.router)
api_router.include_router(reports.router)
api_router.include_router(tournaments.router)
api_router.include_router(clubs.router)
api_router.routes.extend(metrics.router.routes)  # added as-is, outside the prefix: /metrics

"""The good roads (好路) across the library: which live shoes hold one now."""

from __future__ import annotations

from typing import Any

from fastapi import APIRouter

from roads_app.api.access import Read
from roads_app.api.context import Ctx
from roads_app.api.models import GoodRoadShoe

router = APIRouter()


@router.get("/good-roads", response_model=list[GoodRoadShoe], dependencies=[Read])
async def good_roads(api: Ctx) -> Any:
    """Every live shoe holding a good road (好路) now, headline first: each shoe's
    keys in the catalogue's priority order, shoes by their headline's priority."""
    return await api.run(api.feed.good_roads)

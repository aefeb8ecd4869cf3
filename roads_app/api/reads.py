"""Reading the library: the health check, the tables, the shoes and one shoe."""

from __future__ import annotations

from typing import Any

from fastapi import APIRouter
from fastapi.responses import JSONResponse, Response

from roads_app.api.access import Read
from roads_app.api.context import Ctx, ShoeId
from roads_app.api.models import Problem, ShoeOut, ShoeSummary, TableOut
from roads_app.metrics import CONTENT_TYPE, not_ready

router = APIRouter()


@router.get("/health", include_in_schema=False)
async def health(api: Ctx) -> Any:
    """Ready (200), or not (503 and one line) while the database is lost: a balancer's
    health check then sends requests to the replicas that have it. Not counted as a
    refusal (a balancer asks every few seconds)."""
    why = not_ready(api.watcher)
    if why is not None:
        return JSONResponse({"detail": why}, status_code=503, headers={"Retry-After": "1"})
    return {"status": "ok"}


@router.get("/metrics", include_in_schema=False, dependencies=[Read])
async def metrics(api: Ctx) -> Response:
    """What an operator watches, in Prometheus' text format (`roads_app.metrics`): read
    like the shoes (a viewer token when the server is open to the network)."""
    return Response(api.metrics.scrape(), media_type=CONTENT_TYPE)


@router.get("/tables", response_model=list[TableOut], dependencies=[Read])
async def tables(api: Ctx) -> Any:
    """The rules tables a shoe can be created at."""
    return await api.run(api.feed.tables)


@router.get("/shoes", response_model=list[ShoeSummary], dependencies=[Read])
async def shoes(api: Ctx) -> Any:
    """Every shoe in the library, most recently changed first."""
    return await api.run(api.feed.shoes)


@router.get(
    "/shoes/{shoe_id}",
    response_model=ShoeOut,
    dependencies=[Read],
    responses={404: {"model": Problem}},
)
async def shoe(api: Ctx, shoe_id: ShoeId) -> Any:
    """A shoe: its rounds, statistics and all five roads as grid cells."""
    return await api.run(api.feed.shoe, shoe_id)

"""The dashboard's ``/metrics`` (`roads_app.metrics`), served beside Streamlit's routes
(`launch`): the pages following each shoe (and the wall), the news they were sent, the
follow routes' refusals, the change feed's reconnects and lag, the sessions open.

Like the pages, it asks for a token once the dashboard is open to the network: a viewer
(or operator) token as ``Authorization: Bearer ...`` (what a Prometheus scrape job
sends), looked up in the store at every scrape, so a revoked token stops at once.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from roads_app.errors import RoadsAppError
from roads_app.metrics import CONTENT_TYPE, Metrics
from roads_app.store import db, tokens, watch
from roads_app.ui import access, follow

ROUTE = "/metrics"


def sessions_of(runtime: object) -> int:
    """The Streamlit runtime's sessions open now (0 when this Streamlit keeps them
    elsewhere: `tests/test_server_metrics.py` says so)."""
    manager = getattr(runtime, "_session_mgr", None)
    count = getattr(manager, "num_active_sessions", None)
    return int(count()) if callable(count) else 0


def scrape_refusal(authorization: str | None, data_dir: Path) -> tuple[int, str] | None:
    """None when this scrape may read the metrics, else its status and one line."""
    if not access.exposed():
        return None
    scheme, _, token = (authorization or "").partition(" ")
    if scheme.lower() != "bearer" or not token.strip():
        return 401, "metrics: a viewer token is needed (Authorization: Bearer <token>)"
    role = db.open_store(data_dir).tokens.role(tokens.hash_token(token.strip()))
    if role is None:
        return 403, "metrics: the token is not valid (revoked?)"
    if role == access.SCREEN:  # it would name every table's shoes a page follows
        return 403, "metrics: a screen key is for the display and the wall only"
    return None


def routes(data_dir: Path, runtime: object) -> list[Any]:
    """The starlette route `launch` serves beside Streamlit's own."""
    from starlette.requests import Request
    from starlette.responses import Response
    from starlette.routing import Route

    metrics = Metrics(
        watch.watcher(data_dir),
        follow.following,
        lambda: follow.answered,
        sessions=lambda: sessions_of(runtime),
    )
    follow.refused_hooks.append(metrics.refused)

    async def scrape(request: Request) -> Any:
        try:
            refused = scrape_refusal(request.headers.get("authorization"), data_dir)
        except RoadsAppError as e:
            return follow.refuse(503, f"metrics: {e}")
        if refused is not None:
            return follow.refuse(*refused)
        return Response(metrics.scrape(), media_type=CONTENT_TYPE)

    return [Route(ROUTE, scrape, methods=["GET"])]

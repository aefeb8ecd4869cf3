"""The dashboard's server process: ``python -m roads_app.ui.launch run app.py ...``.

`roads_app.serve.run_dashboard` (what `roads-app` runs) starts this module's
``__main__`` in a child process, which imports the app first so the first page load is
quick, so Streamlit owns its own event loop and flags; the data folder travels as an
absolute path in ``ROADS_APP_DATA`` (read by `session.data_dir`). Nothing needs
configuring: no e-mail prompt, no usage statistics, no file watcher (a player's machine
is not a dev server), no full garbage collection after every script run.
"""

from __future__ import annotations

import os
import sys
import threading
from pathlib import Path

from roads_app.errors import RoadsAppError
from roads_app.places import DEFAULT_TABLE
from roads_app.store.location import DATA_ENV


def preload() -> None:
    """Import the heavy modules and warm the compiled roads before the server listens.

    Streamlit runs ``app.py`` in this same process, so modules imported here are
    already loaded for the first visitor (about 0.8 s off the first page load, and
    the page modules about 0.4 s more).
    """
    import pandas.io.formats.style  # noqa: F401  (the live-odds table's Styler, and jinja2)
    import polars as pl
    import streamlit.elements.plotly_chart  # noqa: F401  (the slowest Streamlit import)
    from streamlit.string_util import extract_leading_icon

    from roads_app.bets import live_odds
    from roads_app.bets.tables import list_tables, load_table
    from roads_app.game.rounds import ShoeMeta, empty_rounds, rounds_from_winners
    from roads_app.render import board
    from roads_app.roads import stats
    from roads_app.sim import warmup
    from roads_app.ui import (  # noqa: F401  (the pages app.py imports)
        access,
        backtest_page,
        display_page,
        entry_page,
        library_page,
        lobby_page,
        replay_page,
        study_page,
    )

    extract_leading_icon("中文")  # a label not in ASCII compiles the emoji catalogue once
    list_tables()  # the user's table folder (platformdirs) is looked up on every page

    pl.DataFrame({"warm": [1]}).to_pandas()  # its first call imports pyarrow (~0.5 s)

    def warm_up() -> None:
        warm = rounds_from_winners("BPPBTB")
        board.board_figure(warm)  # the spec, and go.Figure (the rank chart) imported
        stats.shoe_stats(warm)
        try:  # only a warm-up: a broken rules file is for the pages to report
            live_odds.live_odds(empty_rounds(), ShoeMeta(), load_table(DEFAULT_TABLE))
        except RoadsAppError as e:
            print(f"note: odds not warmed up: {e}", file=sys.stderr)

    # Kernels not compiled yet compile in another process while the server starts (or
    # in one another server started); the calls above then wait for that process in a
    # thread, and load what it compiled (but the roads of a board, drawn by their own
    # source interpreted until then: `grids.PLAIN_UP_TO`).
    todo = warmup.missing()
    if todo:
        warmup.start_in_background(todo)
        threading.Thread(target=warm_up, name="warm-up", daemon=True).start()
    else:
        warm_up()


def serve_early_keys(folder: Path) -> Path:
    """Have Streamlit serve its page with the key queue in it (`page_head`), from
    ``folder``, so a key pressed before the app has connected is kept. Returns the
    folder served."""
    from streamlit import file_util

    from roads_app.ui.page_head import serve_with_early_keys

    served = serve_with_early_keys(Path(file_util.get_static_dir()), folder / "static")
    file_util.get_static_dir = lambda: str(served)  # what Streamlit's static route reads
    return served


def serve_follow_route(data_dir: Path, served: Path | None = None) -> None:
    """Serve ``/_roads/follow`` (`roads_app.ui.follow`), ``/_roads/tile``
    (`roads_app.ui.wall_tile`) and ``/metrics`` (`roads_app.ui.server_metrics`) beside
    Streamlit's own routes, so pages follow the store
    through the process's one watcher instead of each polling; and the files of the
    ``served`` folder (`serve_early_keys`) from memory (`roads_app.ui.assets`).
    Streamlit builds its routes in `create_streamlit_routes`; ours go first, ahead of its
    catch-all static route, under the same base URL path."""
    from starlette.routing import Route
    from streamlit import config
    from streamlit.web.server.starlette import starlette_app

    from roads_app.ui import assets, follow, server_metrics, wall_tile

    original = starlette_app.create_streamlit_routes
    asset_routes = assets.routes(served) if served is not None else []

    def with_ours(runtime: object) -> list:
        base = (config.get_option("server.baseUrlPath") or "").strip("/")
        ours = [
            Route(f"/{base}{r.path}" if base else r.path, r.endpoint, methods=["GET"])
            for r in [
                *follow.routes(data_dir),
                *wall_tile.routes(data_dir),
                *server_metrics.routes(data_dir, runtime),
                *asset_routes,
            ]
        ]
        return [*ours, *original(runtime)]  # type: ignore[arg-type]

    starlette_app.create_streamlit_routes = with_ours
    answer_followers_on_stop()


def answer_followers_on_stop() -> None:
    """Streamlit's stop (SIGTERM, Ctrl+C) first answers the pages' waiting follow
    requests (`follow.stop_waiting`): its server's shutdown waits for every request in
    flight, and a page left open held it there for up to `follow.WAIT_S` seconds."""
    from streamlit.web.server.server import Server

    from roads_app.ui import follow

    original = Server.stop
    if getattr(original, "answers_followers", False):
        return

    def stop(self: Server) -> None:
        follow.stop_waiting()
        original(self)

    stop.answers_followers = True  # type: ignore[attr-defined]
    Server.stop = stop  # type: ignore[method-assign]


def send_small_answers_at_once() -> None:
    """Every connection to the server sends what it is given at once (``TCP_NODELAY``).

    Why: Streamlit binds its listening socket itself, created without naming TCP
    (``socket.socket(family)``, so its ``proto`` is 0), and asyncio turns Nagle's
    algorithm off only on sockets whose ``proto`` says TCP. So every answer written in
    two parts (the headers, then the body: every file, every health check) waited for
    the browser's delayed acknowledgement of the first part, 40 ms on Linux, on each
    reused connection: about 85 files over the browser's six connections, some 0.5 s of
    a new browser's first load spent waiting on nothing; and the websocket's small
    messages too. Set on the listening socket, the option is inherited by every socket
    it accepts. A Streamlit without that function (it moved) is left as it is:
    `tests/test_launch.py` says so."""
    import socket

    from streamlit.web.server.starlette import starlette_server

    bind = getattr(starlette_server, "_bind_socket", None)
    if bind is None:
        return

    def bind_nodelay(address: str, port: int, backlog: int) -> socket.socket:
        sock = bind(address, port, backlog)
        sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        return sock

    starlette_server._bind_socket = bind_nodelay


if __name__ == "__main__":  # the child process: ``python -m roads_app.ui.launch run app.py ...``
    import gc
    import tempfile

    from streamlit.web import cli as streamlit_cli

    preload()
    gc.freeze()  # what preload built lives as long as the server: no collection scans it
    sys.argv = ["streamlit", *sys.argv[1:]]
    with tempfile.TemporaryDirectory(prefix="roads-app-page-") as page_dir:  # gone on exit
        send_small_answers_at_once()
        served = serve_early_keys(Path(page_dir))
        serve_follow_route(Path(os.environ.get(DATA_ENV) or "data").resolve(), served)
        sys.exit(streamlit_cli.main())

"""Start the dashboard: `roads-app [--host H] [--port N] [--data DIR] [--headless]`.

Runs ``streamlit run app.py`` in a child process (this module's ``__main__``, which
imports the app first so the first page load is quick) so Streamlit owns its own
event loop and flags; the data folder travels as an absolute path in ``ROADS_APP_DATA``
(read by `session.data_dir`). Nothing needs configuring: no e-mail prompt, no
usage statistics, no file watcher (a player's machine is not a dev server), no full
garbage collection after every script run.
"""

from __future__ import annotations

import errno
import os
import signal
import socket
import subprocess
import sys
from pathlib import Path
from types import FrameType

from roads_app.errors import RoadsAppError, StorageError
from roads_app.store.files import sweep_temp_files

APP_PATH = Path(__file__).resolve().with_name("app.py")
DATA_ENV = "ROADS_APP_DATA"


DEFAULT_HOST = "127.0.0.1"
"""Only this machine can reach the dashboard unless ``--host`` says otherwise."""


def streamlit_command(port: int, headless: bool, host: str = DEFAULT_HOST) -> list[str]:
    """The exact command line that serves the app (kept separate so it can be tested)."""
    return [
        sys.executable, "-m", "roads_app.ui.launch", "run", str(APP_PATH),
        "--server.address", host,
        "--server.port", str(port),
        "--server.headless", "true" if headless else "false",
        "--server.showEmailPrompt", "false",
        "--server.fileWatcherType", "none",
        "--server.runOnSave", "false",
        # Streamlit's default full collection after every run held the GIL ~50 ms per
        # key press while the board's update waited to be sent; the preloaded modules
        # are frozen out of collection instead (`__main__`), and Python's own
        # generational collector still runs as objects accumulate.
        "--runner.postScriptGC", "false",
        "--browser.gatherUsageStats", "false",
        "--client.toolbarMode", "minimal",
    ]  # fmt: skip


def preload() -> None:
    """Import the heavy modules and warm the compiled roads before the server listens.

    Streamlit runs ``app.py`` in this same process, so modules imported here are
    already loaded for the first visitor (about 0.8 s off the first page load, and
    the page modules about 0.4 s more). Only imported: a page's ``st.cache_data``
    makes its cache on its first call, under the runtime started later.
    """
    import logging

    import pandas.io.formats.style  # noqa: F401  (the live-odds table's Styler, and jinja2)
    import polars as pl
    import streamlit.elements.plotly_chart  # noqa: F401  (the slowest Streamlit import)

    from roads_app.bets import live_odds
    from roads_app.bets.tables import list_tables, load_table
    from roads_app.game.rounds import ShoeMeta, empty_rounds, rounds_from_winners
    from roads_app.render import board
    from roads_app.roads import stats

    # Declaring a cache before the runtime exists only logs that it would be in memory.
    cache_log = logging.getLogger("streamlit.runtime.caching.cache_data_api")
    level, cache_log.level = cache_log.level, logging.ERROR
    try:
        from roads_app.ui import (  # noqa: F401  (the pages app.py imports)
            access,
            backtest_page,
            display_page,
            entry_page,
            library_page,
            lobby_page,
            replay_page,
        )
    finally:
        cache_log.level = level

    from streamlit.string_util import extract_leading_icon

    extract_leading_icon("中文")  # a label not in ASCII compiles the emoji catalogue once
    list_tables()  # the user's table folder (platformdirs) is looked up on every page

    warm = rounds_from_winners("BPPBTB")
    board.board_figure(warm)  # the spec, and go.Figure (the rank chart) imported
    pl.DataFrame({"warm": [1]}).to_pandas()  # its first call imports pyarrow (~0.5 s)
    stats.shoe_stats(warm)
    try:  # only a warm-up: a broken rules file is for the pages to report, not to stop us
        live_odds.live_odds(empty_rounds(), ShoeMeta(), load_table("classic"))
    except RoadsAppError as e:
        print(f"note: odds not warmed up: {e}", file=sys.stderr)


def check_port(port: int, host: str = DEFAULT_HOST) -> None:
    """Refuse a port out of range or already taken, in one line rather than a traceback."""
    if not 1 <= port <= 65535:
        raise RoadsAppError(f"port {port} is out of range: use 1 to 65535")
    try:
        infos = socket.getaddrinfo(host, port, type=socket.SOCK_STREAM)
    except OSError:
        raise RoadsAppError(f"--host {host}: no such address on this machine") from None
    family, _, _, _, address = infos[0]
    with socket.socket(family, socket.SOCK_STREAM) as s:
        s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        try:
            s.bind(address)
        except OSError as e:
            if e.errno == errno.EADDRINUSE:
                raise RoadsAppError(
                    f"port {port} is already in use: stop the other server or pick --port N"
                ) from None
            raise RoadsAppError(f"cannot listen on {host}:{port} ({e.strerror})") from None


def prepare_data_dir(data_dir: Path) -> Path:
    """Create the data folder if needed and return it absolute (the app may chdir)."""
    path = Path(data_dir).expanduser().resolve()
    try:
        path.mkdir(parents=True, exist_ok=True)
    except OSError as e:
        raise StorageError(f"cannot create the data folder {path}: {e.strerror}") from None
    if not os.access(path, os.W_OK):
        raise StorageError(f"the data folder {path} is not writable")
    sweep_temp_files(path)  # left by a write that was killed (kill -9, power cut)
    from roads_app.store import db

    # First start: create the database, import an old folder of Parquet shoes, or else
    # the sample shoes; a corrupt or foreign roads.db is refused here, in one line.
    db.open_store(path, samples=True).close()
    return path


CLUSTER_ENV = "ROADS_APP_CLUSTER"
"""A Ray address (``auto`` or HOST:PORT) the backtest page runs its shoes on, if set."""


def dashboard_env(
    port: int, data_dir: Path, host: str = DEFAULT_HOST, cluster: str | None = None
) -> dict[str, str]:
    """Every check before anything starts (the port, the data folder, the cluster), so a
    wrong setting is the one line said, never after another line or a server's own
    message; the environment the dashboard runs with."""
    check_port(port, host)
    env = {**os.environ, DATA_ENV: str(prepare_data_dir(data_dir))}
    if cluster is not None:
        from roads_app.sim.cluster import check

        check(cluster)  # a wrong address is one line here, not a page error later
        env[CLUSTER_ENV] = cluster
    return env


def run_dashboard(
    port: int,
    data_dir: Path,
    headless: bool = False,
    host: str = DEFAULT_HOST,
    cluster: str | None = None,
    *,
    env: dict[str, str] | None = None,
) -> int:
    """Serve the dashboard until stopped; returns Streamlit's exit status.

    ``env``: from `dashboard_env`, when the caller checked already."""
    if env is None:
        env = dashboard_env(port, data_dir, host, cluster)
    proc = subprocess.Popen(streamlit_command(port, headless, host), env=env)

    def forward(signum: int, _frame: FrameType | None) -> None:
        proc.send_signal(signum)

    previous = signal.signal(signal.SIGTERM, forward)
    try:
        return proc.wait()
    except KeyboardInterrupt:  # Ctrl+C reaches the child too; let it shut down cleanly
        return proc.wait()
    finally:
        signal.signal(signal.SIGTERM, previous)


def serve_early_keys(folder: Path) -> None:
    """Have Streamlit serve its page with the key queue in it (`page_head`), from
    ``folder``, so a key pressed before the app has connected is kept."""
    from streamlit import file_util

    from roads_app.ui.page_head import serve_with_early_keys

    served = serve_with_early_keys(Path(file_util.get_static_dir()), folder / "static")
    file_util.get_static_dir = lambda: str(served)  # what Streamlit's static route reads


def serve_follow_route(data_dir: Path) -> None:
    """Serve ``/_roads/follow`` (`roads_app.ui.follow`) beside Streamlit's own routes, so
    pages follow the store through the process's one watcher instead of each polling.
    Streamlit builds its routes in `create_streamlit_routes`; ours go first, ahead of its
    catch-all static route, under the same base URL path."""
    from starlette.routing import Route
    from streamlit import config
    from streamlit.web.server.starlette import starlette_app

    from roads_app.ui.follow import routes

    original = starlette_app.create_streamlit_routes

    def with_ours(runtime: object) -> list:
        base = (config.get_option("server.baseUrlPath") or "").strip("/")
        ours = [Route(f"/{base}{r.path}" if base else r.path, r.endpoint, methods=["GET"])
                for r in routes(data_dir)]  # fmt: skip
        return [*ours, *original(runtime)]  # type: ignore[arg-type]

    starlette_app.create_streamlit_routes = with_ours


if __name__ == "__main__":  # the child process: ``python -m roads_app.ui.launch run app.py ...``
    import gc
    import tempfile

    from streamlit.web import cli as streamlit_cli

    preload()
    gc.freeze()  # what preload built lives as long as the server: no collection scans it
    sys.argv = ["streamlit", *sys.argv[1:]]
    with tempfile.TemporaryDirectory(prefix="roads-app-page-") as page_dir:  # gone on exit
        serve_early_keys(Path(page_dir))
        serve_follow_route(Path(os.environ.get(DATA_ENV) or "data").resolve())
        sys.exit(streamlit_cli.main())

"""Starting the servers: the checks and the command lines the `roads-app` command and
the dashboard's launcher share (the port, the data folder, the Streamlit command).

Below `cli` and `ui`, beside `api`: the CLI starts the dashboard and the API from here and
never imports the pages; the Streamlit child process (`ui.launch`) adds only what runs
inside Streamlit (the warm-up, the early-keys page, the follow route).
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
from roads_app.store.location import DATA_ENV

APP_PATH = Path(__file__).resolve().parent / "ui" / "app.py"
"""The Streamlit script of the dashboard (run by the child process, never imported here)."""

DEFAULT_HOST = "127.0.0.1"
"""Only this machine can reach the dashboard unless ``--host`` says otherwise."""

CLUSTER_ENV = "ROADS_APP_CLUSTER"
"""A Ray address (``auto`` or HOST:PORT) the backtest page runs its shoes on, if set."""

NO_MESSAGE_CACHE = 2**62
"""Streamlit's smallest cached message, in bytes: more than any message, so none is."""


def streamlit_command(port: int, headless: bool, host: str = DEFAULT_HOST) -> list[str]:
    """The exact command line that serves the app (kept separate so it can be tested)."""
    return [
        sys.executable,
        "-m",
        "roads_app.ui.launch",
        "run",
        str(APP_PATH),
        "--server.address",
        host,
        "--server.port",
        str(port),
        "--server.headless",
        "true" if headless else "false",
        "--server.showEmailPrompt",
        "false",
        "--server.fileWatcherType",
        "none",
        "--server.runOnSave",
        "false",
        # Streamlit's default full collection after every run held the GIL ~50 ms per
        # key press while the board's update waited to be sent; the preloaded modules
        # are frozen out of collection instead (`__main__`), and Python's own
        # generational collector still runs as objects accumulate.
        "--runner.postScriptGC",
        "false",
        # No element is sent as a reference to the browser's message cache: keys typed
        # 30 ms apart with undos bring back an element sent a few runs before, the server
        # sends it by reference, the browser has expired it meanwhile ("Cached ForwardMsg
        # MISS") and drops its connection for good. Sending it whole costs a few KB.
        "--global.minCachedMessageSize",
        str(NO_MESSAGE_CACHE),
        "--browser.gatherUsageStats",
        "false",
        # No framework chrome on a table's screen, headless or not, whatever else is
        # installed: no developer toolbar or deploy button, no "ask an AI / search"
        # links under an error, and with the welcome lines hidden Streamlit offers no
        # "Help agents write better apps · Install" card either (it shows one to a
        # non-headless server on a machine where it finds an AI coding tool).
        "--client.toolbarMode",
        "minimal",
        "--client.showErrorLinks",
        "false",
        "--logger.hideWelcomeMessage",
        "true",
        "--server.enableAgentApi",
        "false",
    ]


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
    from roads_app.shoefiles.files import sweep_temp_files
    from roads_app.store import db

    sweep_temp_files(path)  # left by a write that was killed (kill -9, power cut)
    # First start: create the database, import an old folder of Parquet shoes, or else
    # the sample shoes; a corrupt or foreign roads.db is refused here, in one line.
    db.open_store(path, samples=True).close()
    return path


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
    # Streamlit's own welcome lines (with the URL) are off (`streamlit_command`): say it.
    shown = "localhost" if host in (DEFAULT_HOST, "localhost") else host
    print(f"roads-app: the dashboard is at http://{shown}:{port}", flush=True)

    def forward(signum: int, _frame: FrameType | None) -> None:
        proc.send_signal(signum)

    previous = signal.signal(signal.SIGTERM, forward)
    try:
        return proc.wait()
    except KeyboardInterrupt:  # Ctrl+C reaches the child too; let it shut down cleanly
        return proc.wait()
    finally:
        signal.signal(signal.SIGTERM, previous)

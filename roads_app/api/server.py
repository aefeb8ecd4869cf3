"""Serve the API with uvicorn: `roads-app api`, or next to the dashboard.

Alone it runs in this process; the dashboard starts it as a child process
(`api_command`) beside Streamlit, so one command runs both and stopping the dashboard
stops the API.
"""

from __future__ import annotations

import argparse
import contextlib
import gc
import sys
from pathlib import Path

DEFAULT_API_PORT = 8502
"""Where the API listens unless told (the dashboard's 8501 plus one)."""


SWITCH_INTERVAL_S = 0.0005
"""How long a thread holds the GIL while another waits for it (`serve`)."""


def serve(
    data_dir: Path, port: int = DEFAULT_API_PORT, host: str = "127.0.0.1", samples: bool = False
) -> None:
    """Serve until stopped (Ctrl+C or SIGTERM end it cleanly)."""
    import uvicorn

    from roads_app.api.app import create_app

    more_files()
    # An append's store call lets go of the GIL at each statement and each Polars call
    # (about thirty times) and waits to have it back while the event loop writes an event
    # to thousands of followers: at Python's 5 ms switch interval its slowest 2 % took
    # 26-40 ms for 3-4 ms of CPU, at 0.5 ms about 21 (docs/api.md).
    sys.setswitchinterval(SWITCH_INTERVAL_S)
    app = create_app(data_dir, host=host, samples=samples)
    # What is loaded by now (the libraries, the app) lives as long as the process: kept
    # out of every later full garbage collection, which 10,000 event streams make long
    # enough to hold up every follower's events (docs/api.md).
    gc.collect()
    gc.freeze()
    # Event streams never end by themselves: give them a second to close on shutdown.
    uvicorn.run(
        app,
        host=host,
        port=port,
        log_level="warning",
        access_log=False,
        http="httptools",  # C parser (a dependency); the loop: uvloop where it is installed
        loop="auto",
        timeout_graceful_shutdown=1,
    )


def more_files() -> None:
    """Every event stream is an open socket: let the process open as many files as the
    system allows it (the soft limit is often 1,024, the hard one far more)."""
    import resource

    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    if hard == resource.RLIM_INFINITY or soft < hard:
        with contextlib.suppress(ValueError, OSError):
            resource.setrlimit(resource.RLIMIT_NOFILE, (hard, hard))


def api_command(data_dir: Path, port: int, host: str = "127.0.0.1") -> list[str]:
    """The child process the dashboard starts (kept separate so it can be tested).

    ``--samples``: like the dashboard, a brand-new database gets the sample shoes,
    whichever of the two opens it first.
    """
    return [
        sys.executable,
        "-m",
        "roads_app.api.server",
        "--samples",
        "--data",
        str(data_dir),
        "--port",
        str(port),
        "--host",
        host,
    ]


if __name__ == "__main__":
    p = argparse.ArgumentParser(prog="roads_app.api.server")
    p.add_argument("--data", required=True)
    p.add_argument("--port", type=int, default=DEFAULT_API_PORT)
    p.add_argument("--host", default="127.0.0.1")
    p.add_argument("--samples", action="store_true")
    a = p.parse_args()
    serve(Path(a.data), a.port, a.host, a.samples)

"""A floor of separate hosts around one PostgreSQL: API replica A on host "a", a real
Streamlit dashboard C (``roads-app``, no API beside it) on host "c", both on one fresh
database of a throwaway server on this machine; a browser here opens C's display.

The hosts are network namespaces where this machine lets us make them, else plain
processes on the loopback (`tests.netns`). Shared by the browser test
(test_display_replica.py, which asserts that the rounds arrive) and the benchmark
(bench/bench_display_replica.py, which measures how long they take).
"""

from __future__ import annotations

import contextlib
import os
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import httpx
from conftest import AppServer, wait_rounds
from playwright.sync_api import Page

from roads_app.store import tokens
from tests.api_server import ApiServer
from tests.netns import NAMESPACES, Lan, lan
from tests.pgserver import PgServer, running_server


@dataclass
class DisplayFloor:
    hosts: Lan
    db: PgServer
    a: ApiServer
    c: AppServer
    operator: str
    viewer: str

    def display_url(self, shoe: str) -> str:
        """C's display of ``shoe``; with a viewer token when C is on another host (a
        dashboard open to the network shows boards to token holders only)."""
        tail = f"&token={self.viewer}" if self.hosts.kind == NAMESPACES else ""
        return f"{self.c.url}/display?shoe={shoe}{tail}"


@contextlib.contextmanager
def _env(name: str, value: str) -> Iterator[None]:
    old = os.environ.get(name)
    os.environ[name] = value  # the servers started inside inherit it
    try:
        yield
    finally:
        if old is None:
            os.environ.pop(name, None)
        else:
            os.environ[name] = old


@contextlib.contextmanager
def display_floor(root: Path) -> Iterator[DisplayFloor]:
    """Start the database, A and C in ``root``; stop them all on the way out."""
    with lan("a", "c") as hosts:
        apart = hosts.kind == NAMESPACES
        with running_server(
            listen=(hosts.gateway,) if apart else (), allow=hosts.subnet if apart else None
        ) as server:
            server.sql("CREATE DATABASE floor OWNER roads")
            with _env("ROADS_APP_DB", server.url("floor", host=hosts.gateway)):
                on_a, on_c = hosts["a"], hosts["c"]
                a = ApiServer(root / "a" / "data", host=on_a.ip, prefix=on_a.prefix())
                c = AppServer(
                    root / "c" / "data",
                    root / "c.log",
                    args=("--host", on_c.ip) if apart else (),
                    host=on_c.ip if apart else "localhost",
                    prefix=tuple(on_c.prefix()),
                )
                (root / "c").mkdir(parents=True, exist_ok=True)
                a.start()
                try:
                    c.start()
                    try:
                        yield DisplayFloor(
                            hosts,
                            server,
                            a,
                            c,
                            tokens.issue(root / "tokens", "operator"),
                            tokens.issue(root / "tokens", "viewer"),
                        )
                    finally:
                        c.stop()
                finally:
                    a.stop()


DRAWN_JS = """() => {
  if (window.__roadsDrawn) return;
  const drawn = window.__roadsDrawn = {};
  const rounds = () => {
    const m = Array.from(document.querySelectorAll('.rd-plot'))
      .map(g => g.layout && g.layout.meta)
      .find(m => m && (m.road === 'board' || m.road === 'bead_plate'));
    return m ? m.rounds : null;
  };
  const tick = () => {
    const n = rounds();
    if (n !== null && !(n in drawn)) drawn[n] = Date.now();
    requestAnimationFrame(tick);
  };
  requestAnimationFrame(tick);
}"""
"""Notes, in the page, the wall-clock time of the first frame whose board holds n rounds
(one clock with the driver's `time.time`: the same machine's)."""


def install_drawn_probe(page: Page) -> None:
    page.evaluate(DRAWN_JS)


def append_until_drawn(
    page: Page, api: httpx.Client, shoe: str, body: dict, key: str, n: int, timeout_ms: float
) -> tuple[float, float]:
    """Append round ``n`` through the API client ``api`` and wait until the display
    draws it (header and board: `wait_rounds`); (ack -> drawn, sent -> drawn) in ms, from
    the page's own note of the frame that first held it."""
    sent = time.time() * 1000
    r = api.post(f"/shoes/{shoe}/rounds", json=body, headers={"Idempotency-Key": key})
    acked = time.time() * 1000
    assert r.status_code == 201, r.text
    wait_rounds(page, n, timeout_ms=timeout_ms)
    drawn = float(page.evaluate("(n) => window.__roadsDrawn[n]", n))
    return drawn - acked, drawn - sent

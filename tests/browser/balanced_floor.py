"""A floor's screens behind a real balancer: one throwaway PostgreSQL, two real Streamlit
dashboards (``roads-app --host 0.0.0.0``, open to the network, so a screen needs its key)
on it, and a real HAProxy in front of them configured as docs/deploy.md says (a sticky
cookie, health checks on ``/_stcore/health``). Shared by the failover browser test
(tests/browser/test_failover.py) and its benchmark (bench/bench_failover.py)."""

from __future__ import annotations

import contextlib
import os
import signal
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path

from conftest import AppServer, free_port
from display_floor import _env
from playwright.sync_api import Page

from roads_app.game.floor import FloorLimits
from roads_app.game.hand import Winner
from roads_app.game.rounds import add_winner
from roads_app.store import db, tokens
from tests import haproxy, procs
from tests.pgserver import PgServer, running_server

COOKIE = "ROADS_DASHBOARD"
TABLE = "F01"


@dataclass
class BalancedFloor:
    db: PgServer
    dashboards: dict[str, AppServer]
    """By their names in the balancer's configuration (``dash1``, ``dash2``)."""
    url: str
    """The balancer's address: what a screen opens."""
    admin: Path
    key: str
    """A screen key (`roads-app token --screen`)."""
    store: db.Store

    def display_url(self, table: str = TABLE) -> str:
        return f"{self.url}/display?table={table}&token={self.key}"

    def serving(self, page: Page) -> str:
        """The dashboard the balancer pins ``page`` to (its sticky cookie)."""
        cookies = {c["name"]: c["value"] for c in page.context.cookies(self.url)}
        return cookies[COOKIE]

    def kill(self, name: str) -> None:
        """kill -9 of every process of dashboard ``name`` at once (no goodbye to any
        tab), waited for until each has gone."""
        server = self.dashboards[name]
        assert server.proc is not None
        members = procs.group_members(server.proc.pid)
        with contextlib.suppress(ProcessLookupError):
            os.killpg(server.proc.pid, signal.SIGKILL)
        procs.wait_exit(members, timeout=30)
        server.proc.wait(timeout=10)
        server.proc = None

    def states(self) -> dict[str, str]:
        return haproxy.states(self.admin, "dashboard")

    def deal(self, winner: Winner) -> int:
        """One hand at the table, through the store (a feeder's write); the shoe's rounds."""
        dealt = self.store.floor.append(
            TABLE, lambda rounds, decks: add_winner(rounds, winner, decks=decks)
        )
        return dealt.rounds.height

    def rounds(self) -> int:
        """The table's current shoe's rounds, as the store has them."""
        shoe = self.store.floor.get(TABLE).shoe
        return 0 if shoe is None else self.store.shoes.load(shoe).rounds.height


@contextlib.contextmanager
def balanced_floor(root: Path, config: str | None = None) -> Iterator[BalancedFloor]:
    """Start the database, two dashboards and HAProxy in ``root``, a floor table
    (`TABLE`, open) and a screen key; stop them all on the way out. ``config``: the
    balancer's configuration in docs/deploy.md's form (None: the doc's own, its checks
    as they are)."""
    with running_server() as server:
        server.sql("CREATE DATABASE floor OWNER roads")
        with _env("ROADS_APP_DB", server.url("floor")), contextlib.ExitStack() as stack:
            data = root / "data"
            store = db.open_store(data)
            store.floor.add(TABLE, "Table one", "classic", FloorLimits.of((10, 5000)))
            store.floor.open(TABLE)
            key = tokens.issue_screen(data)
            dashboards = {}
            for name in ("dash1", "dash2"):
                (root / name).mkdir(parents=True, exist_ok=True)
                app = AppServer(
                    root / name / "data", root / f"{name}.log", args=("--host", "0.0.0.0")
                )
                stack.callback(app.stop)
                dashboards[name] = app
            with ThreadPoolExecutor(2) as pool:  # both at once: a start is mostly waiting
                list(pool.map(AppServer.start, dashboards.values()))
            port, admin = free_port(), root / "admin.sock"
            balancer = haproxy.for_test(
                config or haproxy.doc_config(),
                "dashboard",
                port,
                [f"127.0.0.1:{d.port}" for d in dashboards.values()],
                admin,
                None,
            )
            stack.enter_context(haproxy.haproxy(balancer, root, admin))
            floor = BalancedFloor(server, dashboards, f"http://127.0.0.1:{port}", admin, key, store)
            haproxy.until(lambda: set(floor.states().values()) == {"UP"}, "both dashboards up")
            yield floor

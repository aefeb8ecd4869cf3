"""Issue 49 item 3: an upgrade with the floor running. An API replica of the landed
version (the code of `LANDED`, the commit before the floor tables' migration, taken from
this repository's history) serves one PostgreSQL database; a replica of this version is
started beside it on the same database and applies its migrations there while the old
one serves (a feeder writes through the old one all the while, a follower listens to it).
Then both serve, reads and writes, and the old one is stopped: every write acknowledged
by either was stored once, none was refused, and the old one's follower saw every round,
those written through the new one included."""

from __future__ import annotations

import contextlib
import os
import signal
import subprocess
import sys
import tarfile
import threading
from collections.abc import Callable, Iterator
from io import BytesIO
from pathlib import Path
from unittest import mock

import httpx
import psycopg
import pytest

from roads_app.game.floor import FloorLimits
from roads_app.game.hand import Winner
from roads_app.game.rounds import add_winner
from roads_app.store import db
from roads_app.store.connection import SCHEMA_VERSION
from tests.api_server import ApiServer, SseFollower, free_port
from tests.haproxy import until

ROOT = Path(__file__).resolve().parents[1]
LANDED = "a6158d6"
"""The landed version an upgrade starts from: four migrations; this one has more."""
LANDED_SCHEMA = 4


@pytest.fixture(scope="module")
def landed(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The landed version's package, taken from git into a folder of its own (put first
    on PYTHONPATH, it is what ``python -m roads_app`` runs, with this venv's libraries)."""
    where = tmp_path_factory.mktemp("landed")
    try:
        archive = subprocess.run(
            ["git", "-C", str(ROOT), "archive", LANDED, "roads_app", "rules"],
            capture_output=True,
            check=True,
        ).stdout
    except (OSError, subprocess.CalledProcessError) as e:
        detail = e.stderr.decode(errors="replace").strip() if hasattr(e, "stderr") else str(e)
        pytest.fail(
            f"the upgrade test needs commit {LANDED} from this repository's history "
            f"(a full clone, not a shallow one, and git installed): {detail}"
        )
    with tarfile.open(fileobj=BytesIO(archive)) as tar:
        tar.extractall(where, filter="data")
    # its own rules as its wheel carries them (``roads_app.rules``): left out, the old code
    # read this checkout's, whose newer catalogue its schema refuses
    (where / "rules").rename(where / "roads_app" / "rules")
    return where


def old_env(landed: Path, url: str) -> dict[str, str]:
    """The landed version's environment: its package first, this test's database, and its
    kernels not compiled (a fresh folder has no cache: ~25 s of CPU for an engine this
    test does not use; its store and servers run as they do)."""
    return {"PYTHONPATH": str(landed), "ROADS_APP_DB": url, "NUMBA_DISABLE_JIT": "1"}


def run_old(landed: Path, url: str, *args: str) -> subprocess.CompletedProcess[str]:
    with mock.patch.dict(os.environ, old_env(landed, url)):
        return subprocess.run(
            [sys.executable, *args], capture_output=True, text=True, check=True, cwd=landed
        )


@contextlib.contextmanager
def api(data: Path, env: dict[str, str], cwd: Path) -> Iterator[ApiServer]:
    """`roads-app api` in ``cwd`` (``python -m`` takes a package there before PYTHONPATH's)
    with ``env`` added to ours (and no PYTHONPATH but ``env``'s)."""
    with mock.patch.dict(os.environ, env):
        if "PYTHONPATH" not in env:
            os.environ.pop("PYTHONPATH", None)
        server = ApiServer(data, cwd=cwd).start()
    try:
        yield server
    finally:
        server.stop()


@contextlib.contextmanager
def old_dashboard(landed: Path, url: str, data: Path) -> Iterator[Callable[[], str]]:
    """The landed version's dashboard (``python -m roads_app``, Streamlit) on ``url``,
    started now and stopped when the block ends; a call that waits until it answers and
    gives its address (so that it starts while something else does)."""
    port = free_port()
    data.mkdir(parents=True)
    cmd = [sys.executable, "-m", "roads_app", "--port", str(port), "--data", str(data)]
    with mock.patch.dict(os.environ, old_env(landed, url)), (data / "log").open("wb") as log:
        proc = subprocess.Popen(
            [*cmd, "--headless", "--api-port", "0"],
            cwd=landed,
            stdout=log,
            stderr=subprocess.STDOUT,
            start_new_session=True,
        )
    address = f"http://127.0.0.1:{port}"

    def healthy() -> bool:
        assert proc.poll() is None, (data / "log").read_text()
        with contextlib.suppress(httpx.TransportError):
            return httpx.get(f"{address}/_stcore/health", timeout=2).status_code == 200
        return False

    def ready() -> str:
        until(healthy, "the landed dashboard answering", 120)
        return address

    try:
        yield ready
    finally:
        with contextlib.suppress(ProcessLookupError):
            os.killpg(proc.pid, signal.SIGKILL)
        proc.wait(timeout=30)


def followed(dashboard: str, shoe: str) -> str:
    """The version of ``shoe`` a dashboard's pages are told (its follow route)."""
    r = httpx.get(f"{dashboard}/_roads/follow", params={"shoe": shoe, "v": ""}, timeout=60)
    assert r.status_code == 200, r.text
    return str(r.json()["v"])


def version(client: httpx.Client, shoe: str) -> str:
    return str(client.get(f"/shoes/{shoe}").json()["version"])


def migrations(url: str) -> int:
    with psycopg.connect(url) as con:
        row = con.execute("SELECT max(version) FROM schema_migrations").fetchone()
    assert row is not None
    return int(row[0])


def pg_rows(url: str, sql: str) -> list[tuple]:
    with psycopg.connect(url) as con:
        return con.execute(sql).fetchall()  # type: ignore[arg-type]


class Feeder:
    """Writes rounds through one API until stopped, a round every `PACE` seconds (a
    table's pace, sped up), a new shoe every `PER_SHOE` rounds; every answer kept."""

    PACE, PER_SHOE = 0.05, 40

    def __init__(self, client: httpx.Client) -> None:
        self.client = client
        self.acked: dict[str, int] = {}  # rounds acknowledged (201) per shoe
        self.answers: list[int] = []
        self.stop = threading.Event()
        self.thread = threading.Thread(target=self._run, daemon=True)

    def _run(self) -> None:
        shoe = ""
        while not self.stop.wait(self.PACE):
            if not shoe or self.acked[shoe] == self.PER_SHOE:
                r = self.client.post("/shoes", json={"name": f"fed {len(self.acked)}"})
                self.answers.append(r.status_code)
                if r.status_code != 201:
                    return
                shoe = r.json()["id"]
                self.acked[shoe] = 0
            key = f"{shoe}-{self.acked[shoe]}"
            r = self.client.post(
                f"/shoes/{shoe}/rounds", json={"winner": "B"}, headers={"Idempotency-Key": key}
            )
            self.answers.append(r.status_code)
            if r.status_code != 201:
                return
            self.acked[shoe] += 1


def post_round(client: httpx.Client, shoe: str, winner: str, key: str) -> None:
    r = client.post(
        f"/shoes/{shoe}/rounds", json={"winner": winner}, headers={"Idempotency-Key": key}
    )
    assert r.status_code == 201, r.text


def rounds_read(client: httpx.Client, shoe: str) -> int:
    return len(client.get(f"/shoes/{shoe}").json()["rounds"])


WHICH = (
    "import roads_app, roads_app.store.connection as c, roads_app.places as p; "
    "print(p.RULES_DIR if p.RULES_DIR.is_relative_to(roads_app.__file__.rsplit('/', 1)[0]) "
    "else 'rules-elsewhere', c.SCHEMA_VERSION)"
)


def test_a_new_replica_migrates_a_database_its_old_neighbour_keeps_serving(
    landed: Path, pg_url: str, tmp_path: Path
) -> None:
    file, schema = run_old(landed, pg_url, "-c", WHICH).stdout.split()
    assert Path(file).is_relative_to(landed) and int(schema) == LANDED_SCHEMA < SCHEMA_VERSION
    made = run_old(landed, pg_url, "-m", "roads_app", "token", "--data", str(tmp_path / "t"))
    auth = {"Authorization": f"Bearer {made.stdout.split()[-1]}"}
    with contextlib.ExitStack() as stack:
        dashboard_up = stack.enter_context(old_dashboard(landed, pg_url, tmp_path / "dash"))
        old = stack.enter_context(api(tmp_path / "old", old_env(landed, pg_url), landed))
        dashboard = dashboard_up()
        to_old = stack.enter_context(httpx.Client(base_url=old.url, headers=auth, timeout=60))
        shoe = to_old.post("/shoes", json={"name": "upgraded live"}).json()["id"]
        for n in range(3):
            post_round(to_old, shoe, "P", f"o-{n}")
        assert migrations(pg_url) == LANDED_SCHEMA
        assert to_old.get("/rules").status_code == 404  # the landed API: no /rules yet
        assert followed(dashboard, shoe) == version(to_old, shoe)
        follower = SseFollower(old.url, shoe, auth["Authorization"][7:]).__enter__()
        stack.callback(follower.__exit__)
        feeder = Feeder(to_old)
        feeder.thread.start()  # writing through the old one before, while and after...
        until(lambda: len(feeder.answers) >= 3, "the feeder writing")

        new = stack.enter_context(api(tmp_path / "new", {"ROADS_APP_DB": pg_url}, ROOT))
        assert migrations(pg_url) == SCHEMA_VERSION  # ...the new one migrates the database
        to_new = stack.enter_context(httpx.Client(base_url=new.url, headers=auth, timeout=60))
        assert to_new.get("/rules").status_code == 200
        after = len(feeder.answers)
        until(
            lambda: len(feeder.answers) >= after + 3 or not feeder.thread.is_alive(),
            "the feeder writing after the migration",
        )
        feeder.stop.set()
        feeder.thread.join(timeout=60)
        assert set(feeder.answers) == {201}, feeder.answers  # nothing refused

        fed = 3
        for n in range(4):  # through both, in turn
            post_round((to_old, to_new)[n % 2], shoe, "T", f"both-{n}")
            fed += 1
        with mock.patch.dict(os.environ, {"ROADS_APP_DB": pg_url}):
            # a floor table, which the old version does not know, dealt meanwhile
            store = db.open_store(tmp_path / "here")
            store.floor.add("U01", "Upgraded", "classic", FloorLimits.of((10, 500)))
            store.floor.open("U01")
            table_shoe = store.floor.append(
                "U01", lambda rs, d: add_winner(rs, Winner.BANKER, decks=d)
            ).shoe
        post_round(to_old, shoe, "B", "last-old")
        fed += 1
        follower.wait_for(lambda f: len(f.rounds) == fed, 60)  # the old one's follower
        assert rounds_read(to_old, shoe) == rounds_read(to_new, shoe) == fed
        until(lambda: followed(dashboard, shoe) == version(to_new, shoe), "the old dashboard")
        follower.__exit__()
        old.stop()  # the old one goes; the new one serves on
        post_round(to_new, shoe, "P", "after")
        fed += 1
        assert rounds_read(to_new, shoe) == fed
    stored = dict(pg_rows(pg_url, "SELECT shoe, count(*) FROM rounds GROUP BY shoe"))
    assert stored == {shoe: fed, table_shoe: 1, **feeder.acked}  # every write, once

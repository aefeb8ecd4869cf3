"""The store under several processes at once, and under ``kill -9``: nothing acknowledged
is lost, nothing refused lands, no deleted shoe comes back, no read fails.

The workers are real processes (`tests.store_workers`) on one real database file.
"""

from __future__ import annotations

import contextlib
import json
import multiprocessing
import os
import random
import signal
import subprocess
import sys
import threading
from collections import Counter
from multiprocessing.connection import Connection
from multiprocessing.process import BaseProcess
from pathlib import Path

import pytest

from roads_app.game.rounds import ShoeMeta, rounds_from_winners
from roads_app.store import db
from tests import store_workers

REPO = Path(__file__).resolve().parents[1]
WORKERS = 4
SECONDS = 3.0


def spawn(*args: str) -> subprocess.Popen[str]:
    proc = subprocess.Popen(
        [sys.executable, "-m", "tests.store_workers", *args],
        cwd=REPO,
        text=True,
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
    )
    return proc


def wait_ready(procs: list[subprocess.Popen[str]]) -> None:
    for p in procs:
        line = p.stdout.readline()  # type: ignore[union-attr]
        assert line.strip() == "ready", (line, p.stderr.read())  # type: ignore[union-attr]


def go(procs: list[subprocess.Popen[str]]) -> None:
    for p in procs:
        p.stdin.write("go\n")  # type: ignore[union-attr]
        p.stdin.flush()  # type: ignore[union-attr]


@pytest.mark.usefixtures("backend")
def test_processes_appending_renaming_deleting_restoring_lose_nothing(tmp_path: Path) -> None:
    store = db.open_store(tmp_path)
    store.shoes.create(ShoeMeta(id="shared"))
    others = [f"o{i}" for i in range(6)]
    for o in others:
        store.shoes.create(ShoeMeta(id=o, name=o), rounds_from_winners("BP"))
    procs = [
        spawn("mixed", str(tmp_path), str(w), str(SECONDS), "shared", ",".join(others))
        for w in range(WORKERS)
    ]
    procs.append(spawn("reader", str(tmp_path), str(SECONDS), "shared"))
    wait_ready(procs)
    go(procs)
    outs = []
    for p in procs:
        out, err = p.communicate(timeout=120)
        assert p.returncode == 0, err
        outs.append(json.loads(out.strip().splitlines()[-1]))
    *results, read = outs

    assert read["failed"] == [] and read["reads"] > 0
    for r in results:
        assert r["failed"] == [], r["failed"]

    # the shared shoe: exactly the acknowledged appends, each where its version says
    saved = store.shoes.load("shared")
    rounds = saved.rounds
    acked = [tuple(a) for r in results for a in r["appended"]]
    assert rounds.height == len(acked) > 0
    per_worker = Counter(rounds["player_points"].to_list())
    assert per_worker == Counter(
        {w: len(r["appended"]) for w, r in enumerate(results) if r["appended"]}
    )
    hist = store.history.of("shared")
    assert hist["version"].to_list() == list(range(1, saved.version + 1))  # one per change
    entered = {(v, n) for v, n in hist.filter(action="entered").select("version", "round").rows()}
    assert set(acked) == entered
    for w, r in enumerate(results):
        for _, n in r["appended"]:
            assert rounds["player_points"][n - 1] == w
    assert sum(len(r["refused"]) for r in results) > 0  # the race really happened

    # the other shoes: every acknowledged rename/delete/restore in the history, no other
    for o in others:
        h = store.history.of(o)
        names = {json.loads(d)[1] for d in h.filter(action="renamed")["detail"]}
        assert names == {n for r in results for s, n in r["renamed"] if s == o}
        for action in ("deleted", "restored"):
            got = set(h.filter(action=action)["version"].to_list())
            assert got == {v for r in results for s, v in r[action] if s == o}
        state = "live"  # deletes and restores alternate: nothing comes back by itself
        for action in h["action"]:
            if action == "deleted":
                assert state == "live"
                state = "trash"
            elif action == "restored":
                assert state == "trash"
                state = "live"
        in_trash = o in store.shoes.list(trash=True)["id"].to_list()
        assert in_trash == (state == "trash")
        assert store.bets.load(o).height == 0
    assert store.integrity() == "ok"


@pytest.mark.usefixtures("backend")
def test_a_reader_thread_never_fails_while_a_writer_thread_writes(tmp_path: Path) -> None:
    store = db.open_store(tmp_path)
    store.shoes.create(ShoeMeta(id="s"))
    done = threading.Event()
    failures: list[str] = []
    reads = [0]

    def read() -> None:
        while not done.is_set():
            try:
                r = store.shoes.load("s").rounds
                if r["round"].to_list() != list(range(1, r.height + 1)):
                    failures.append("torn read")
                reads[0] += 1
            except Exception as e:
                failures.append(repr(e))

    t = threading.Thread(target=read)
    t.start()
    one = rounds_from_winners("P")
    try:
        for _ in range(300):
            store.rounds.append("s", one, store.shoes.version("s"))
    finally:
        done.set()
        t.join()
    assert failures == [] and reads[0] > 0
    assert store.shoes.load("s").rounds.height == 300


KILLS = 50
AT_ONCE = 5
FORKS = multiprocessing.get_context("forkserver")
"""Where the kill test's appenders come from: forked from a server process that imported
`tests.store_workers` (and so the store) once, each a real process of its own, killed
with ``kill -9`` as before."""
FORKS.set_forkserver_preload(["tests.store_workers"])
ACK_TIMEOUT_S = 120.0  # a hang guard on a loaded machine, not a speed target


def _start_appenders(data: Path, shoes: list[str]) -> dict[str, tuple[BaseProcess, Connection]]:
    """One appender per shoe, every one ready (its store open) before any starts."""
    go = FORKS.Event()
    procs = {}
    for s in shoes:
        acks, their_end = FORKS.Pipe(duplex=False)
        p = FORKS.Process(
            target=store_workers.append_acked,
            args=(str(data), s, os.environ.get("ROADS_APP_DB"), their_end, go),
            daemon=True,
        )
        p.start()
        their_end.close()  # the child's alone: its death is the end of the pipe
        procs[s] = (p, acks)
    for p, acks in procs.values():
        try:
            said = acks.recv() if acks.poll(ACK_TIMEOUT_S) else "nothing"
        except EOFError:  # ended before its own code ran: what it printed is the test's
            p.join(10)
            said = f"an appender that ended with {p.exitcode}"
        assert said == "ready", said
    go.set()
    return procs


def test_kill_9_at_random_moments_loses_no_acknowledged_change(
    tmp_path: Path, backend: str
) -> None:
    """On PostgreSQL the server outlives the killed clients (it rolls back what they left
    open), so fewer kills show it: each costs a process start (CI time)."""
    wanted = KILLS if backend == "sqlite" else 10
    store = db.open_store(tmp_path)
    rng = random.Random(11)
    shoes = [f"k{i}" for i in range(AT_ONCE)]
    for s in shoes:
        store.shoes.create(ShoeMeta(id=s))
    last_ack = {s: (1, 0) for s in shoes}
    kills = 0
    while kills < wanted:
        procs = _start_appenders(tmp_path, shoes)
        for s, (p, acks) in procs.items():
            # read acknowledgements for a random number of commits, then kill -9 mid-stream
            for _ in range(rng.randint(1, 40)):
                assert acks.poll(ACK_TIMEOUT_S), f"no acknowledgement from {s}: {p.exitcode}"
                last_ack[s] = acks.recv()
            os.kill(p.pid, signal.SIGKILL)
            p.join(timeout=60)
            # acknowledgements sent before the kill count too
            with contextlib.suppress(EOFError):
                while True:
                    last_ack[s] = acks.recv()
            acks.close()
            assert p.exitcode == -signal.SIGKILL
            kills += 1
        check = db.Store(tmp_path)  # a fresh connection, as after a restart
        assert check.integrity() == "ok"
        for s in shoes:
            v, n = last_ack[s]
            saved = check.shoes.load(s)
            assert saved.version >= v and saved.rounds.height >= n
            assert saved.rounds.height <= n + 1  # at most one commit not yet acknowledged
            assert v in check.history.of(s)["version"].to_list()
        check.close()
    assert kills >= wanted


@pytest.fixture
def tiny_disk(tmp_path: Path):
    mnt = tmp_path / "tiny"
    mnt.mkdir()
    r = subprocess.run(
        ["mount", "-t", "tmpfs", "-o", "size=1m", "tmpfs", str(mnt)], capture_output=True, text=True
    )
    if r.returncode != 0:
        pytest.skip(f"cannot mount a 1 MB tmpfs here ({r.stderr.strip()}): needs root")
    try:
        yield mnt
    finally:
        db.forget_stores()
        subprocess.run(["umount", "-l", str(mnt)], check=False)


def test_disk_full_is_one_line_and_the_database_stays_whole(tiny_disk: Path) -> None:
    data = tiny_disk / "data"
    store = db.open_store(data)
    store.shoes.create(ShoeMeta(id="s"), rounds_from_winners("BPBPTB"))
    before = store.shoes.load("s")
    store.con.execute("PRAGMA wal_checkpoint(TRUNCATE)")  # the next change must grow a file
    filler = tiny_disk / "filler"
    fd = os.open(filler, os.O_WRONLY | os.O_CREAT)
    try:  # take every free byte
        while True:
            os.write(fd, b"\0" * 4096)
    except OSError:
        pass
    finally:
        os.close(fd)
    with pytest.raises(db.StorageError, match="disk is full") as e:
        store.rounds.append("s", rounds_from_winners("P"), before.version)
    assert "\n" not in str(e.value) and "nothing was changed" in str(e.value)
    r = subprocess.run(
        [sys.executable, "-m", "roads_app", "shoes", "add", "s", "BP", "--data", str(data)],
        cwd=REPO,
        capture_output=True,
        text=True,
    )
    assert r.returncode == 2 and r.stderr.count("\n") == 1 and "disk is full" in r.stderr, r.stderr
    after = store.shoes.load("s")
    assert store.integrity() == "ok"
    assert after.rounds.equals(before.rounds) and after.version == before.version
    filler.unlink()
    store.rounds.append("s", rounds_from_winners("P"), store.shoes.version("s"))
    assert store.shoes.load("s").rounds.height == before.rounds.height + 1


def test_a_read_only_folder_is_one_line_and_the_database_stays_whole(tiny_disk: Path) -> None:
    data = tiny_disk / "data"
    store = db.open_store(data)
    store.shoes.create(ShoeMeta(id="s", name="kept"), rounds_from_winners("BPT"))
    db.forget_stores()
    subprocess.run(["mount", "-o", "remount,ro", str(tiny_disk)], check=True)
    try:
        try:
            ro = db.open_store(data)
            with pytest.raises(db.StorageError) as e:
                ro.shoes.rename("s", "lost")
        except db.StorageError as opened:  # refused on opening: as good, if one line
            message = str(opened)
        else:
            message = str(e.value)
        assert "\n" not in message and "roads.db" in message, message
        r = subprocess.run(
            [
                sys.executable,
                "-m",
                "roads_app",
                "shoes",
                "rename",
                "s",
                "lost",
                "--data",
                str(data),
            ],
            cwd=REPO,
            capture_output=True,
            text=True,
        )
        assert r.returncode == 2 and r.stderr.count("\n") == 1, r.stderr
    finally:
        db.forget_stores()
        subprocess.run(["mount", "-o", "remount,rw", str(tiny_disk)], check=True)
    back = db.open_store(data).shoes.load("s")
    assert back.meta.name == "kept" and back.rounds.height == 3

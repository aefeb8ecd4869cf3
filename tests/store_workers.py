"""Worker processes for the store's multi-process tests: ``python -m tests.store_workers MODE``.

Each prints ``ready``, waits for a line on stdin (so all start together, no sleeps), works,
and reports one JSON line on stdout at the end. The kill test's appenders
(`append_acked`) are forked from a fork server instead, and say the same on a pipe.
"""

from __future__ import annotations

import json
import os
import random
import sys
import time
import traceback
from multiprocessing.connection import Connection
from multiprocessing.synchronize import Event

from roads_app.errors import StorageError
from roads_app.game.rounds import round_by_points, rounds_from_winners
from roads_app.store import db


def one_round(worker: int) -> object:
    """A round whose player total names the worker that entered it (banker 9 wins)."""
    import polars as pl

    from roads_app.game.rounds import ROUNDS_SCHEMA

    return pl.DataFrame([round_by_points(worker, 9)], schema=ROUNDS_SCHEMA, orient="row")


def append_acked(data: str, shoe: str, db_url: str | None, acks: Connection, go: Event) -> None:
    """Checked appends to one shoe until killed, ``(version, rounds)`` sent on ``acks``
    after each commit. Run in a process forked from an interpreter that has imported
    this module already (the kill test starts fifty: a fresh interpreter each cost a
    second of imports); the database is named here (``db_url``: ``ROADS_APP_DB``, or
    None for the SQLite file in ``data``), not inherited from whoever started the
    fork server."""
    try:
        if db_url is None:
            os.environ.pop("ROADS_APP_DB", None)
        else:
            os.environ["ROADS_APP_DB"] = db_url
        store = db.open_store(data)
        row = rounds_from_winners("B")
    except BaseException:  # said to the test, whose output this process does not share
        acks.send(traceback.format_exc())
        raise
    acks.send("ready")
    go.wait()
    while True:
        version = store.shoes.version(shoe)
        new = store.rounds.append(shoe, row, version)
        acks.send((new, store.shoes.load(shoe).rounds.height))


def mixed(data: str, worker: int, seconds: float, shared: str, others: list[str]) -> None:
    """Append to the shared shoe (checked) and rename/delete/restore the others, at random."""
    store = db.open_store(data)
    rng = random.Random(worker)
    row = one_round(worker)
    out: dict[str, list] = {
        "appended": [],
        "renamed": [],
        "deleted": [],
        "restored": [],
        "refused": [],
        "failed": [],
    }
    print("ready", flush=True)
    sys.stdin.readline()
    end = time.monotonic() + seconds
    i = 0
    while time.monotonic() < end:
        i += 1
        op = rng.choice(["append", "append", "rename", "delete", "restore"])
        shoe = shared if op == "append" else rng.choice(others)
        try:
            if op == "append":
                seen = store.shoes.load(shared)
                v = store.rounds.append(shared, row, seen.version)
                out["appended"].append([v, seen.rounds.height + 1])
            elif op == "rename":
                name = f"w{worker}-{i}"
                store.shoes.rename(shoe, name)
                out["renamed"].append([shoe, name])
            elif op == "delete":
                out["deleted"].append([shoe, store.shoes.delete(shoe)])
            else:
                out["restored"].append([shoe, store.shoes.restore(shoe)])
        except StorageError as e:  # refused: stale, in the trash, not in the trash
            kind = "refused" if _expected_refusal(str(e)) else "failed"
            out[kind].append([op, shoe, str(e)])
    print(json.dumps(out), flush=True)


def _expected_refusal(message: str) -> bool:
    return any(k in message for k in ("another tab", "deleted elsewhere", "not in the trash"))


def reader(data: str, seconds: float, shoe: str) -> None:
    """Load one shoe in a loop; every read must succeed and be whole."""
    store = db.open_store(data)
    reads, failed, last = 0, [], 0
    print("ready", flush=True)
    sys.stdin.readline()
    end = time.monotonic() + seconds
    while time.monotonic() < end:
        try:
            saved = store.shoes.load(shoe)
            n = saved.rounds.height
            if saved.rounds["round"].to_list() != list(range(1, n + 1)):
                failed.append(f"rounds not numbered 1..{n}")
            if saved.version < last:
                failed.append(f"version went back from {last} to {saved.version}")
            last = saved.version
            reads += 1
        except Exception as e:  # any failed read is a test failure, reported
            failed.append(f"{type(e).__name__}: {e}")
    print(json.dumps({"reads": reads, "failed": failed}), flush=True)


if __name__ == "__main__":
    mode, data, *rest = sys.argv[1:]
    if mode == "mixed":
        mixed(data, int(rest[0]), float(rest[1]), rest[2], rest[3].split(","))
    elif mode == "reader":
        reader(data, float(rest[0]), rest[1])
    else:
        raise SystemExit(f"unknown mode {mode}")

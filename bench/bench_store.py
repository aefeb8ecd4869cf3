"""The store (SQLite, ``<data>/roads.db``): what a key press, the library and the lobby cost.

Run: ``.venv/bin/python bench/bench_store.py [--repeat 400] [--library 10000]``.
Wall time by time.perf_counter, after a warm-up; figures are printed, never asserted.

* append + read back: one result appended to an 80-round shoe through the dashboard's
  path (`session.save_checked`: version check, the smallest write, one transaction),
  then the rounds frame read back (`Shoes.load`), as a tab does after a key press; the
  round is undone outside the timing so every press is on 80 rounds. The same through
  `Rounds.append` directly, and, for comparison, what the file store did per
  save: rewrite the whole Parquet file atomically and read it back.
* library list: `Shoes.list` with ``--library`` shoes of 80 rounds each.
* lobby: `library.lobby_shoes` plus the 8 shoes loaded (what the lobby reads per refresh).
Targets (issue 11): append + read median < 5 ms, p99 < 20 ms; list of 10,000 < 200 ms.
"""

from __future__ import annotations

import argparse
import statistics
import tempfile
import time
from pathlib import Path

from roads_app.game.rounds import ShoeMeta, rounds_from_winners
from roads_app.game.shoe import deal_shoe
from roads_app.shoefiles import files as shoe_files
from roads_app.store import db, library
from roads_app.ui import session


class Timings:
    """Wall and CPU milliseconds of one timed step (CPU: every thread of this process,
    what the step costs when the machine is not shared)."""

    def __init__(self) -> None:
        self.wall: list[float] = []
        self.cpu: list[float] = []
        self._start = (0.0, 0.0)

    def start(self) -> None:
        self._start = (time.perf_counter(), time.process_time())

    def stop(self, keep: bool = True) -> None:
        if keep:
            self.wall.append((time.perf_counter() - self._start[0]) * 1e3)
            self.cpu.append((time.process_time() - self._start[1]) * 1e3)


def summary(label: str, t: Timings) -> None:
    def stats(xs: list[float]) -> tuple[float, float]:
        xs = sorted(xs)
        return statistics.median(xs), xs[min(len(xs) - 1, int(0.99 * len(xs)))]

    (wm, w99), (cm, c99) = stats(t.wall), stats(t.cpu)
    print(
        f"{label:<44} wall median {wm:7.2f} ms  p99 {w99:7.2f} ms | "
        f"CPU median {cm:6.2f} ms  p99 {c99:6.2f} ms  (n={len(t.wall)})"
    )


def bench_append(folder: Path, repeat: int) -> None:
    store = db.open_store(folder)
    dealt = deal_shoe(2024)
    rounds80 = rounds_from_winners("".join(dealt.rounds["winner"].cast(str).to_list())[:80])
    meta = ShoeMeta(source="hand", name="bench")
    store.shoes.create(meta, rounds80)
    state = session.load_state(meta.id, folder)
    one = rounds_from_winners("B")
    more = rounds_from_winners("".join(rounds80["winner"].cast(str).to_list()) + "B")
    via_session, direct = Timings(), Timings()
    for i in range(repeat + 20):
        via_session.start()
        new = session.save_checked(state, more, folder)
        back = store.shoes.load(meta.id).rounds
        via_session.stop(keep=i >= 20)
        assert back.height == 81
        state = session.save_checked(new, rounds80, folder)  # undo, untimed
    for i in range(repeat + 20):
        v = store.shoes.version(meta.id)
        direct.start()
        v = store.rounds.append(meta.id, one, v)
        back = store.shoes.load(meta.id).rounds
        direct.stop(keep=i >= 20)
        store.rounds.undo(meta.id, v)
    summary("append + read back (session.save_checked)", via_session)
    summary("append + read back (Rounds.append)", direct)
    old = Timings()
    path = folder / "file-store.parquet"
    for i in range(min(repeat, 200) + 20):
        old.start()
        shoe_files.atomic_write_bytes(path, shoe_files.export_bytes(more, meta, "parquet"))
        shoe_files.read_shoe_file(path)
        old.stop(keep=i >= 20)
    summary("before: rewrite one Parquet file + read it", old)


def bench_library(folder: Path, n: int) -> None:
    store = db.open_store(folder)
    base = rounds_from_winners(("BPPBTBPB" * 10)[:80])
    t = time.perf_counter()
    store.shoes.create_many((base, ShoeMeta(name=f"shoe {i}", source="hand")) for i in range(n))
    print(
        f"(filled the library with {n:,} shoes of 80 rounds in "
        f"{time.perf_counter() - t:.1f} s, one transaction)"
    )
    runs = Timings()
    for _ in range(20):
        runs.start()
        listed = store.shoes.list()
        runs.stop()
    assert listed.height >= n
    summary(f"library list, {listed.height:,} shoes", runs)
    runs = Timings()
    for _ in range(20):
        runs.start()
        for row in library.lobby_shoes(folder).iter_rows(named=True):
            library.safe_load(row["id"], folder)
        runs.stop()
    summary(f"lobby: list + load 8 shoes (of {listed.height:,})", runs)


def bench_lobby_small(folder: Path) -> None:
    store = db.open_store(folder)
    for i in range(8):
        store.shoes.create(
            ShoeMeta(name=f"Table {i + 1}", source="hand"),
            deal_shoe(300 + i).rounds.head(30 + 6 * i),
        )
    runs = Timings()
    for _ in range(50):
        runs.start()
        for row in library.lobby_shoes(folder).iter_rows(named=True):
            library.safe_load(row["id"], folder)
        runs.stop()
    summary("lobby: list + load 8 shoes (library of 8)", runs)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--repeat", type=int, default=400)
    ap.add_argument("--library", type=int, default=10_000)
    args = ap.parse_args()
    with tempfile.TemporaryDirectory(prefix="bench-store-") as tmp:
        print(f"synchronous={db.SYNCHRONOUS} (ROADS_APP_SYNC), WAL")
        bench_append(Path(tmp) / "a", args.repeat)
        bench_lobby_small(Path(tmp) / "b")
        bench_library(Path(tmp) / "c", args.library)


if __name__ == "__main__":
    main()

"""Server-side cost of the replay step and of the lobby, in-process (Streamlit AppTest).

Replay must step at up to 5 rounds a second (a 200 ms budget per step, browser drawing
included) and the lobby with eight shoes must load in under 3 s. This prints what the
script run itself costs; the browser-side figures come from tests/browser/test_library.py
(``.benchmarks/dashboard.json``).

    .venv/bin/python bench/bench_replay.py
"""

from __future__ import annotations

import os
import statistics
import tempfile
import time
from pathlib import Path

from streamlit.testing.v1 import AppTest

from roads_app.bets import ledger as bets_log
from roads_app.game.rounds import ShoeMeta
from roads_app.game.shoe import deal_shoe
from roads_app.store import db

STEPS = 30


def _replay() -> None:
    from roads_app.ui.replay_page import render_replay_page

    render_replay_page()


def _lobby() -> None:
    from roads_app.ui.lobby_page import render_lobby_page

    render_lobby_page()


def main() -> None:
    folder = Path(tempfile.mkdtemp(prefix="bench-replay-"))
    os.environ["ROADS_APP_DATA"] = str(folder)
    dealt = deal_shoe(2024)
    store = db.open_store(folder)
    store.shoes.create(dealt.meta, dealt.rounds)
    log = bets_log.place_many(bets_log.empty_bets(), [("banker", 25), ("tie", 5)], round_no=3)
    for r in range(4, 40, 3):
        log = bets_log.place_many(log, [("player", 10)], round_no=r)
    store.bets.change(dealt.meta.id, "replay-bets", lambda _: log)

    at = AppTest.from_function(_replay, default_timeout=120)
    at.query_params["shoe"] = dealt.meta.id
    at.query_params["round"] = "0"
    t0 = time.perf_counter()
    at.run()
    first = time.perf_counter() - t0
    steps = []
    for _ in range(STEPS):
        t0 = time.perf_counter()
        at.button(key="rp_next").click().run()
        steps.append(1000 * (time.perf_counter() - t0))
    assert not at.exception, at.exception
    print(
        f"replay: first run {first:.2f} s; one step (board, reveal, stats, bets, "
        f"{log.height} bets settled) median {statistics.median(steps):.0f} ms, "
        f"max {max(steps):.0f} ms over {STEPS} steps; budget at 5 rounds/s: 200 ms"
    )

    for i in range(8):
        m = ShoeMeta(name=f"Table {i + 1}", source="hand")
        store.shoes.create(m, deal_shoe(300 + i).rounds.head(30 + 6 * i))
    runs = []
    for _ in range(3):
        at = AppTest.from_function(_lobby, default_timeout=120)
        t0 = time.perf_counter()
        at.run()
        runs.append(time.perf_counter() - t0)
        assert not at.exception, at.exception
    print(
        f"lobby, 8 shoes: first run {runs[0]:.2f} s (cold caches), "
        f"then {min(runs[1:]):.3f} s; target for the whole page: < 3 s"
    )


if __name__ == "__main__":
    main()

"""A rename in the library and a result saved by a tab, at the same moment: both land."""

from __future__ import annotations

import threading
from pathlib import Path

import pytest

from roads_app.game.shoe import deal_shoe
from roads_app.store import db
from roads_app.ui import session
from tests import storehelp as sh


@pytest.mark.usefixtures("backend")
def test_rename_racing_a_save_never_drops_the_round(tmp_path: Path) -> None:
    dealt = deal_shoe(4)
    sh.save_shoe(dealt.rounds.head(30), dealt.meta, tmp_path)
    lost = []
    for i in range(40):
        state = session.load_state(dealt.meta.id, tmp_path)
        more = dealt.rounds.head(state.rounds.height + 1)  # the next hand, by its cards
        gate = threading.Barrier(2)

        def rename(name: str = f"renamed {i}", gate: threading.Barrier = gate) -> None:
            gate.wait()
            db.open_store(tmp_path).shoes.rename(dealt.meta.id, name)

        def save(state=state, more=more, gate: threading.Barrier = gate) -> None:
            gate.wait()
            session.save_checked(state, more, tmp_path)

        threads = [threading.Thread(target=rename), threading.Thread(target=save)]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        rounds, meta = sh.load_shoe(dealt.meta.id, tmp_path)
        if rounds.height != more.height or meta.name != f"renamed {i}":
            lost.append((i, rounds.height, more.height, meta.name))
    assert not lost

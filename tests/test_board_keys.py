"""The key queue's protocol (`ui.board_host.unapplied`) and folding presses into rounds.

The page keeps every press not yet acknowledged and sends the whole queue; Streamlit
may fold any number of sends into one rerun, and acknowledgements arrive late. Whatever
the interleaving, the server must apply each press exactly once, in typing order.
"""

from __future__ import annotations

from pathlib import Path

import polars as pl
from hypothesis import given, settings
from hypothesis import strategies as hs

from roads_app.game.rounds import apply_keys, rounds_from_winners
from roads_app.ui.board_host import unapplied
from roads_app.ui.folder import scrub

presses = hs.lists(hs.sampled_from("bptu"), min_size=1, max_size=60)


@settings(max_examples=200, deadline=None)
@given(presses, hs.data())
def test_every_press_is_applied_once_in_order_however_reruns_fold(keys, data):
    page_queue: list[list] = []
    applied_state: tuple[str, int] | None = None
    applied: list[str] = []
    acked_seen_by_page = 0
    seq = 0
    typed = list(keys)
    while typed or page_queue:
        # the person types a few more keys before the next rerun reaches the server
        burst = data.draw(hs.integers(1, len(typed))) if typed else 0
        for key in typed[:burst]:
            seq += 1
            page_queue.append([seq, key])
        typed = typed[burst:]
        if data.draw(hs.booleans()) or not typed:  # a rerun: the latest queue arrives
            epoch, new = unapplied({"epoch": "e", "items": list(page_queue)}, applied_state)
            if new:
                applied_state = (epoch, new[-1][0])
                applied += [k for _, k in new]
            if data.draw(hs.booleans()) or not typed:  # the acknowledgement gets back
                acked_seen_by_page = applied_state[1] if applied_state else 0
                page_queue = [p for p in page_queue if p[0] > acked_seen_by_page]
    assert applied == list(keys)


def test_a_new_page_load_starts_a_new_epoch_and_foreign_keys_are_ignored():
    assert unapplied({"epoch": "new", "items": [[1, "b"]]}, ("old", 50)) == ("new", [(1, "b")])
    assert unapplied({"epoch": "e", "items": [[1, "x"], [2, "p"]]}, None) == ("e", [(2, "p")])
    assert unapplied(None, None) == ("", [])
    assert unapplied({"items": [[1, "b"]]}, None) == ("", [])


def test_presses_fold_into_rounds_in_order_and_a_bad_one_loses_no_other():
    out, notes = apply_keys(rounds_from_winners(""), list("ubbpu"), decks=8)
    assert "".join(out["winner"].cast(pl.String).to_list()) == "BB"
    assert notes == ["nothing to undo"]
    out, _ = apply_keys(rounds_from_winners("BPT"), list("uuu"), decks=8)
    assert out.height == 0
    out, _ = apply_keys(rounds_from_winners(""), list("bp"), decks=8, banker_pair=True)
    assert out["banker_pair"].to_list() == [True, None]  # the toggle goes with one result


def test_messages_never_show_the_server_folder(tmp_path: Path):
    folder = tmp_path / "data"
    text = scrub(f"{folder}/roads.db: database is locked; no saved shoe in {folder}", folder)
    assert str(tmp_path) not in text and "the data folder" in text

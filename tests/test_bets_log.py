"""The bet history: placing on the next round, voiding, settling, keeping it beside the shoe."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

import polars as pl
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from roads_app.bets import ledger as BL
from roads_app.errors import BetError, StorageError
from roads_app.game.rounds import ShoeMeta
from roads_app.store import db


@dataclass
class FakeTable:
    """A table that closes `tie` after round 3 and caps any one bet at 100."""

    bets: dict = field(default_factory=lambda: {"player": 1, "banker": 1, "tie": 1})

    def can_place(self, bet_id: str, round_no: int, stake: float) -> str | None:
        if bet_id == "tie" and round_no > 3:
            return "closed after round 3"
        if stake > 100:
            return "over the table maximum of 100"
        return None


def test_place_numbers_bets_in_order_on_the_given_round() -> None:
    log = BL.place(BL.empty_bets(), "player", 5, round_no=1)
    log = BL.place(log, "banker", 25, round_no=2)
    assert log["id"].to_list() == [1, 2]
    assert log["round"].to_list() == [1, 2]
    assert log["stake"].to_list() == [5.0, 25.0]
    assert log.schema == BL.BETS_SCHEMA


@pytest.mark.parametrize("stake", [0, -5, float("nan"), float("inf"), "10", True])
def test_bad_stake_is_a_one_line_bet_error(stake: object) -> None:
    with pytest.raises(BetError) as e:
        BL.place(BL.empty_bets(), "player", stake, round_no=1)  # type: ignore[arg-type]
    assert "\n" not in str(e.value) and "stake" in str(e.value)


def test_table_refuses_a_closed_bet_and_an_unknown_one() -> None:
    t = FakeTable()
    assert BL.can_place(BL.empty_bets(), "tie", 5, 3, t) is None
    assert BL.can_place(BL.empty_bets(), "tie", 5, 4, t) == "closed after round 3"
    assert "not offered" in (BL.can_place(BL.empty_bets(), "super6", 5, 1, t) or "")
    with pytest.raises(BetError, match="round 4: closed after round 3"):
        BL.place(BL.empty_bets(), "tie", 5, round_no=4, table=t)


def test_limit_counts_chips_already_on_the_same_bet() -> None:
    t = FakeTable()
    log = BL.place(BL.empty_bets(), "player", 100, round_no=1, table=t)
    assert BL.can_place(log, "player", 1, 1, t) == "over the table maximum of 100"
    assert BL.can_place(log, "banker", 100, 1, t) is None
    assert BL.can_place(log, "player", 100, 2, t) is None  # another round starts afresh


def test_shortcut_is_all_or_nothing() -> None:
    t = FakeTable()
    log = BL.place_shortcut(BL.empty_bets(), ["banker", "player"], 5, round_no=2, table=t)
    assert log["bet"].to_list() == ["banker", "player"]
    with pytest.raises(BetError):
        BL.place_shortcut(BL.empty_bets(), ["banker", "tie"], 5, round_no=9, table=t)


def test_void_refunds_only_the_pending_round_and_keeps_history() -> None:
    log = BL.place(BL.empty_bets(), "player", 5, round_no=1)
    log = BL.place(log, "banker", 10, round_no=2)
    log = BL.place(log, "tie", 1, round_no=2)
    out = BL.void(log, 2)
    assert out["voided"].to_list() == [False, True, True]
    assert out.height == 3
    assert not BL.can_void(out, 2)
    with pytest.raises(BetError, match="no bets to refund"):
        BL.void(out, 2)
    # the next bets go on the same round number again, since no round was added
    again = BL.place(out, "banker", 10, round_no=2)
    assert BL.pending(again, 2)["id"].to_list() == [4]


def test_clear_takes_back_pending_bets_but_not_voided_ones() -> None:
    log = BL.void(BL.place(BL.empty_bets(), "player", 5, round_no=1), 1)
    log = BL.place(log, "banker", 5, round_no=1)
    out = BL.clear(log, 1)
    assert out["id"].to_list() == [1]
    assert not BL.can_clear(out, 1)


def _settled(rows: list[tuple[int, str, float]]) -> pl.DataFrame:
    """A settled history by hand: (round, outcome, net)."""
    return pl.DataFrame(
        {
            "id": list(range(1, len(rows) + 1)),
            "round": [r for r, _, _ in rows],
            "bet": ["player"] * len(rows),
            "stake": [10.0] * len(rows),
            "voided": [o == "refund" for _, o, _ in rows],
            "placement": list(range(1, len(rows) + 1)),
            "outcome": [o for _, o, _ in rows],
            "net": [n for _, _, n in rows],
            "reason": [None] * len(rows),
        },
        schema=BL.SETTLED_SCHEMA,
    )


def test_bankroll_steps_per_round_and_ignores_pending() -> None:
    s = _settled([(1, "win", 10.0), (1, "lose", -5.0), (3, "lose", -10.0), (4, "pending", 0.0)])
    b = BL.bankroll(s, 100, upto=4)
    assert b["round"].to_list() == [0, 1, 2, 3, 4]
    assert b["bankroll"].to_list() == [100.0, 105.0, 105.0, 95.0, 95.0]
    t = BL.totals(s)
    assert t == {"staked": 30.0, "net": -5.0, "pending": 10.0}


@settings(max_examples=40, deadline=None)
@given(
    st.lists(
        st.tuples(
            st.integers(1, 60),
            st.sampled_from(["win", "lose", "push", "refund", "pending"]),
            st.floats(-500, 500, allow_nan=False).map(lambda x: round(x, 2)),
        ),
        max_size=30,
    ),
    st.integers(0, 1000),
)
def test_bankroll_ends_at_start_plus_every_settled_net(rows: list, start: int) -> None:
    rows = [(r, o, 0.0 if o in ("pending", "refund", "push") else n) for r, o, n in rows]
    b = BL.bankroll(_settled(rows), start, upto=60)
    expected = start + sum(n for _, o, n in rows if o != "pending")
    assert b["bankroll"][-1] == pytest.approx(expected)
    assert b.height == 61


@settings(max_examples=25, deadline=None)
@given(
    st.lists(
        st.tuples(st.sampled_from(["player", "banker", "tie"]), st.sampled_from(BL.CHIPS)),
        min_size=1,
        max_size=12,
    ),
    st.integers(1, 80),
)
def test_save_then_load_gives_back_the_same_history(
    tmp_path_factory: pytest.TempPathFactory, items: list, round_no: int
) -> None:
    store = db.open_store(tmp_path_factory.mktemp("data"))
    store.shoes.create(ShoeMeta(id="abc123"))
    log = BL.place_many(BL.empty_bets(), items, round_no=round_no)
    if round_no % 2:
        log = BL.void(log, round_no)
    assert store.bets.change("abc123", "bets", lambda _: log).equals(log)
    assert store.bets.load("abc123").equals(log)
    assert store.history.of("abc123")["action"][-1] == "bet placed"


@pytest.mark.usefixtures("backend")
def test_missing_history_is_empty_and_kinds_are_separate(tmp_path: Path) -> None:
    store = db.open_store(tmp_path)
    store.shoes.create(ShoeMeta(id="s1"))
    store.bets.change("s1", "bets", lambda b: BL.place(b, "tie", 1, round_no=1))
    assert store.bets.load("s1", kind="replay-bets").height == 0
    assert store.bets.load("s1").height == 1
    with pytest.raises(StorageError, match="kind"):
        store.bets.load("s1", kind="other")
    with pytest.raises(StorageError, match="no saved shoe"):
        store.bets.change("nope", "bets", lambda b: BL.place(b, "tie", 1, round_no=1))


@pytest.mark.usefixtures("backend")
def test_a_refused_bet_leaves_the_history_as_it_was(tmp_path: Path) -> None:
    store = db.open_store(tmp_path)
    store.shoes.create(ShoeMeta(id="s1"))
    store.bets.change("s1", "bets", lambda b: BL.place(b, "tie", 1, round_no=1))
    with pytest.raises(BetError):
        store.bets.change("s1", "bets", lambda b: BL.place(b, "tie", -5, round_no=1))
    assert store.bets.load("s1").height == 1
    assert store.history.of("s1").height == 2


# --- settling against the real tables (payouts from the spec) -------------------------


def test_settle_log_uses_the_table_payouts_and_leaves_later_rounds_pending() -> None:
    from roads_app.bets.tables import load_table
    from roads_app.game.rounds import rounds_from_winners

    t = load_table("classic")
    log = BL.place(BL.empty_bets(), "banker", 100, round_no=1, table=t)
    log = BL.place(log, "player", 100, round_no=2, table=t)  # round 2 is a tie: push
    log = BL.place(log, "tie", 10, round_no=2, table=t)  # tie pays 8:1
    log = BL.place(log, "player", 50, round_no=3, table=t)  # voided below
    log = BL.void(log, 3)
    log = BL.place(log, "banker", 20, round_no=3, table=t)  # placed again after the void
    rounds = rounds_from_winners("BTP")
    s = BL.settle_log(log, rounds, t, upto=2)
    assert s["outcome"].to_list() == ["win", "push", "win", "refund", "pending"]
    assert s["net"].to_list() == [95.0, 0.0, 80.0, 0.0, 0.0]
    full = BL.settle_log(log, rounds, t)
    assert full["outcome"].to_list()[-1] == "lose"
    assert BL.bankroll(full, 1000, 3)["bankroll"].to_list() == [1000, 1095, 1175, 1155]


def test_no_commission_banker_pays_half_on_a_winning_six() -> None:
    from roads_app.bets.tables import load_table
    from roads_app.game.rounds import add_cards, empty_rounds

    t = load_table("winbox-no-commission")
    # banker wins with 6 (three cards), then banker wins with 7
    rounds = add_cards(empty_rounds(), "2s 3h 9c", "4d 2c")
    rounds = add_cards(rounds, "Ks 6h", "7d Kc")
    assert rounds["winner"].to_list() == ["B", "B"]
    log = BL.place(BL.empty_bets(), "banker", 10, round_no=1, table=t)
    log = BL.place(log, "banker", 10, round_no=2, table=t)
    assert BL.settle_log(log, rounds, t)["net"].to_list() == [5.0, 10.0]


def test_closed_side_bet_cannot_be_placed_after_its_closing_round() -> None:
    from roads_app.bets.tables import load_table

    t = load_table("winbox")  # Big/Small close after round 20 (seed 001)
    big = next(b for b in t.bets if b == "big")
    assert BL.can_place(BL.empty_bets(), big, 5, 20, t) is None
    reason = BL.can_place(BL.empty_bets(), big, 5, 21, t)
    assert reason is not None and "round 20" in reason


# --- undo last chip: one press takes back one chip action as the player made it ----------


@settings(max_examples=40, deadline=None)
@given(
    st.lists(
        st.one_of(
            st.tuples(st.sampled_from(["player", "banker", "tie"])),
            st.sampled_from(
                [("banker_pair", "player_pair"), ("banker_pair", "player_pair", "tie")]
            ),
        ),
        min_size=1,
        max_size=8,
    )
)
def test_undo_last_chip_takes_back_whole_actions_in_reverse(actions: list[tuple]) -> None:
    log = BL.empty_bets()
    states = [log]
    for parts in actions:  # a 1-tuple is a single chip, longer ones a 2-Way / 3-Way press
        log = (
            BL.place(log, parts[0], 5, round_no=3)
            if len(parts) == 1
            else BL.place_shortcut(log, parts, 5, round_no=3)
        )
        states.append(log)
    for before in reversed(states[:-1]):
        log = BL.undo_last(log, 3)
        assert log.equals(before)
    with pytest.raises(BetError, match="no chip"):
        BL.undo_last(log, 3)


@pytest.mark.usefixtures("backend")
def test_a_combined_placement_survives_the_store_and_undoes_whole(tmp_path: Path) -> None:
    store = db.open_store(tmp_path)
    store.shoes.create(ShoeMeta(id="s1"))
    store.bets.change("s1", "bets", lambda b: BL.place(b, "player", 5, round_no=1))
    store.bets.change(
        "s1",
        "bets",
        lambda b: BL.place_shortcut(b, ["banker_pair", "player_pair", "tie"], 1, round_no=1),
    )
    after = store.bets.change("s1", "bets", lambda b: BL.undo_last(b, 1))
    assert after["bet"].to_list() == ["player"]
    assert db.open_store(tmp_path).bets.load("s1").equals(after)


def test_bets_of_a_database_from_before_chip_actions_each_undo_alone(tmp_path: Path) -> None:
    """A database made before bets recorded their chip action is migrated in place; each
    of its bets is its own action."""
    import sqlite3

    store = db.open_store(tmp_path)
    store.shoes.create(ShoeMeta(id="s1"))
    store.bets.change(
        "s1",
        "bets",
        lambda b: BL.place_many(b, [("banker_pair", 1), ("player_pair", 1)], round_no=1),
    )
    db.forget_stores()
    con = sqlite3.connect(tmp_path / "roads.db")  # as the migration before it left the file
    placement = next(i for i, (what, _) in enumerate(db.MIGRATIONS, 1) if "chip action" in what)
    con.execute("ALTER TABLE bets DROP COLUMN placement")  # and every later migration undone
    if placement < db.SCHEMA_VERSION:
        con.execute("ALTER TABLE shoes DROP COLUMN ended")
        con.execute("DROP INDEX shoes_origin")  # (a shoe's origin in its file: migration 5)
        con.execute("ALTER TABLE shoes DROP COLUMN origin")
    con.execute("DELETE FROM schema_migrations WHERE version >= ?", (placement,))
    con.commit()
    con.close()
    store = db.open_store(tmp_path)
    assert store.bets.load("s1")["placement"].to_list() == [1, 2]
    after = store.bets.change("s1", "bets", lambda b: BL.undo_last(b, 1))
    assert after["bet"].to_list() == ["banker_pair"]

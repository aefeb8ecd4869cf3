"""What the bet panel offers (`bets.offers`): every bet placed once on the layout, and
a bet the one `refusal` lets through is one the ledger takes."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as hs

from roads_app.bets import ledger as BL
from roads_app.bets import offers
from roads_app.bets.tables import list_tables, load_table
from roads_app.errors import BetError

TABLES = {name: load_table(name) for name in list_tables()}


@pytest.mark.parametrize("name", list(TABLES))
def test_the_layout_places_every_bet_once_main_bets_first(name):
    table = TABLES[name]
    lay = offers.layout(table)
    placed = [*lay.main, *lay.side]
    assert sorted(placed) == sorted(table.bets)
    assert len(lay.main) == 3 and lay.main[0] == "player" and lay.main[1] == "tie"
    for family, members in lay.families.items():
        assert [offers.FAMILY.match(b)["family"] for b in members] == [family] * len(members)


@settings(max_examples=150, deadline=None)
@given(
    name=hs.sampled_from(sorted(TABLES)),
    mode=hs.sampled_from(offers.ENTRY_ORDER),
    stake=hs.sampled_from(BL.CHIPS),
    round_no=hs.integers(1, 60),
    bankroll=hs.floats(0, 2000),
    data=hs.data(),
)
def test_a_bet_not_refused_is_taken_and_a_refused_one_is_not_offered(
    name, mode, stake, round_no, bankroll, data
):
    table = TABLES[name]
    bet_id = data.draw(hs.sampled_from(sorted([*table.bets, *table.shortcuts])))
    why = offers.refusal(
        table, BL.empty_bets(), bet_id, stake, round_no, mode=mode, bankroll=bankroll
    )
    parts = table.shortcuts.get(bet_id, (bet_id,))
    needs = [offers.entry_reason(table.bets[p], mode) for p in parts if p in table.bets]
    if why is None:
        assert not any(needs) and stake * len(parts) <= bankroll + 1e-9
        if bet_id in table.shortcuts:
            BL.place_shortcut(BL.empty_bets(), parts, stake, round_no=round_no, table=table)
        else:
            BL.place(BL.empty_bets(), bet_id, stake, round_no=round_no, table=table)
    else:
        assert (
            any(needs)
            or stake * len(parts) > bankroll
            or _ledger_refuses(table, bet_id, parts, stake, round_no)
        )


def _ledger_refuses(table, bet_id, parts, stake, round_no) -> bool:
    try:
        if bet_id in table.shortcuts:
            BL.place_shortcut(BL.empty_bets(), parts, stake, round_no=round_no, table=table)
        else:
            BL.place(BL.empty_bets(), bet_id, stake, round_no=round_no, table=table)
    except BetError:
        return True
    return False


@pytest.mark.parametrize("name", list_tables())
def test_a_backtest_bets_beside_its_main_bet_anything_but_the_two_sides(name: str) -> None:
    """The sides' own bets are main bets (`MAIN_IDS`) and never ride beside one; every
    other bet of the table may (`beside_main`, what the backtest page offers)."""
    table = load_table(name)
    main = {i for ids in offers.MAIN_IDS.values() for i in ids}
    assert set(offers.SIDE_IDS) <= main
    beside = offers.beside_main(table)
    assert set(beside) | (set(offers.SIDE_IDS) & set(table.bets)) == set(table.bets)
    assert not set(beside) & set(offers.SIDE_IDS)

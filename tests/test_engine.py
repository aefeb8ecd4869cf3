"""The compiled engine deals the plain engine's shoes and steps strategies the same way."""

from __future__ import annotations

import dataclasses

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from polars.testing import assert_frame_equal

from roads_app.bets.tables import load_table
from roads_app.game import cards
from roads_app.game.hand import W_BANKER, W_PLAYER, W_TIE
from roads_app.game.rounds import SEED_MAX, rounds_from_winners
from roads_app.game.shoe import ORDER_DTYPE, ShoeOptions, deal_shoe
from roads_app.roads.derived import BLUE, NO_MARK, RED
from roads_app.roads.grids import ask_road
from roads_app.sim import backtest as sim_backtest
from roads_app.sim import kernel as sim_kernel
from roads_app.sim import pcg64
from roads_app.sim import strategies as sim_strategies

WINNER_CODE = {"B": W_BANKER, "P": W_PLAYER, "T": W_TIE}


@st.composite
def shoe_options(draw: st.DrawFn) -> ShoeOptions:
    decks = draw(st.integers(1, 8))
    return ShoeOptions(
        decks=decks,
        cut=draw(st.integers(0, decks * 26)),
        burn=draw(st.booleans()),
        burn_between_hands=draw(st.booleans()),
    )


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(seed=st.integers(0, 2**64 - 1), index=st.integers(0, 10**6), options=shoe_options())
def test_fast_deal_is_the_plain_deal_card_for_card(seed: int, index: int, options: ShoeOptions):
    plain = deal_shoe(seed, options, index).rounds
    fast = sim_kernel.fast_deal(seed, options, index)
    assert [tuple(c) for c in plain["player_cards"].to_list()] == [p for p, _ in fast]
    assert [tuple(c) for c in plain["banker_cards"].to_list()] == [b for _, b in fast]


def _walk_reference(name: str, results: list[int]) -> list[float]:
    """Units staked hand by hand, written from each system's usual description (not from
    the staking tables): results are +1 win, -1 loss, 0 push."""
    out: list[float] = []
    losses = wins = 0  # in a row
    fib = [1.0, 1.0]
    step = 0  # Fibonacci position
    dal = 1.0
    pos = 0  # 1-3-2-6 position
    for r in results:
        if name == "flat":
            out.append(1.0)
        elif name == "martingale":
            out.append(2.0**losses)
        elif name == "paroli":  # three wins then back to one unit
            out.append(2.0**wins)
        elif name == "dalembert":
            out.append(dal)
        elif name == "fibonacci":
            while len(fib) <= step:
                fib.append(fib[-1] + fib[-2])
            out.append(fib[step])
        elif name == "1-3-2-6":
            out.append([1.0, 3.0, 2.0, 6.0][pos])
        if r > 0:
            losses, wins = 0, (wins + 1) % 3
            dal = max(dal - 1, 1.0)
            step = max(step - 2, 0)
            pos = (pos + 1) % 4
        elif r < 0:
            losses, wins = losses + 1, 0
            dal += 1
            step += 1
            pos = 0
    return out


@settings(max_examples=60, deadline=None)
@given(
    name=st.sampled_from(sorted(sim_strategies.STAKINGS)),
    results=st.lists(st.sampled_from([1, -1, 0]), max_size=100),
)
def test_staking_tables_walk_as_each_system_is_described(name: str, results: list[int]):
    staking = sim_strategies.make_strategy(name, bet="banker").staking
    level, got = 0, []
    for r in results:
        got.append(staking.units(level))
        level = staking.after(level, float(r))
    assert got == _walk_reference(name, results)


@pytest.mark.parametrize("name", sorted(sim_strategies.STAKINGS))
def test_every_staking_steps_the_same_in_both_engines(name: str):
    """The kernel reads the staking's table as arrays: the same shoes give the same stakes."""
    strategy = sim_strategies.make_strategy(name, bet="banker")
    table = load_table("classic")
    resolved = sim_strategies.resolve(
        sim_strategies.Settings(bankroll=10_000, unit=1), strategy, table
    )
    fast = sim_backtest.run_fast(strategy, resolved, table, seed=77, shoes=8, n_paths=8)
    plain = sim_backtest.run_plain(strategy, resolved, table, seed=77, shoes=8, n_paths=8)
    assert_frame_equal(fast.per_shoe, plain.per_shoe, check_exact=True)
    np.testing.assert_array_equal(fast.paths, plain.paths)
    flat = name == "flat"
    per_bet = fast.per_shoe["wagered"].sum() / fast.per_shoe["bets"].sum()
    assert (per_bet == 1.0) == flat  # a progression really moved off one unit


@pytest.mark.parametrize(
    ("rules", "bet", "sides"),
    [
        ("ez-baccarat", "ez_banker", (("dragon_7", 1), ("panda_8", 1))),
        ("dragon-bonus", "dragon_bonus_player", (("dragon_bonus_banker", 1),)),
        ("lucky-6", "banker", (("lucky_6", 1),)),
        ("evolution", "perfect_pair", (("player_pair", 1),)),
        ("egalite", "tie", (("super_tie_7", 1), ("super_tie_0", 1))),
    ],
)
def test_new_tables_settle_the_same_in_both_engines(rules: str, bet: str, sides: tuple):
    strategy = sim_strategies.make_strategy("flat", bet=bet)
    table = load_table(rules)
    resolved = sim_strategies.resolve(
        sim_strategies.Settings(bankroll=100_000, side_bets=sides), strategy, table
    )
    fast = sim_backtest.run_fast(strategy, resolved, table, seed=5, shoes=30, n_paths=3)
    plain = sim_backtest.run_plain(strategy, resolved, table, seed=5, shoes=30, n_paths=3)
    assert_frame_equal(fast.per_shoe, plain.per_shoe, check_exact=True)
    for b in (bet, *(b for b, _ in sides)):
        assert fast.per_shoe[f"wagered_{b}"].sum() > 0, b  # every bet was really placed


SPEC_DERIVED = {  # roads.md worked example, R red / B blue
    1: "RBBBBRRBBBBBRRBRR",
    2: "BBRRBRBRRBRBRBRR",
    3: "RBRRBBBBBRBBRR",
}


@pytest.mark.parametrize("k", [1, 2, 3])
def test_kernel_road_logic_reproduces_the_spec_example(k: int):
    text = "PBPPBPPPPBPPBPTBPPPP"
    w = np.array([WINNER_CODE[c] for c in text])
    ask = sim_kernel.ask_banker_before(w, k)
    # The mark a real result adds: the ask for B as it is on B, the opposite on P.
    marks = "".join(
        ("R" if a == RED else "B") if x == W_BANKER else ("B" if a == RED else "R")
        for a, x in zip(ask, w, strict=True)
        if x != W_TIE and a >= 0
    )
    assert marks == SPEC_DERIVED[k]


@settings(max_examples=60, deadline=None)
@given(text=st.text(alphabet="BPPBBT", min_size=0, max_size=60))
def test_kernel_ask_road_agrees_with_roads_ask_road(text: str):
    nxt = np.array([WINNER_CODE[c] for c in text + "B"], dtype=np.int64)
    expect = ask_road(rounds_from_winners(text), "B")
    for road, k in sim_strategies.ROADS.items():
        got = int(sim_kernel.ask_banker_before(nxt, k)[-1])
        assert {RED: "red", BLUE: "blue", NO_MARK: None}[got] == expect[road], road


CASES = [
    ("classic", "flat", {"bet": "banker"}, sim_strategies.Settings()),
    ("classic", "flat", {"bet": "tie"}, sim_strategies.Settings(bankroll=200)),
    (
        "winbox",
        "martingale",
        {"bet": "player"},
        sim_strategies.Settings(bankroll=500, side_bets=(("player_pair", 1), ("big", 2))),
    ),
    (
        "winbox-no-commission",
        "paroli",
        {"bet": "banker", "wins": 4},
        sim_strategies.Settings(stop_loss=100, take_profit=50),
    ),
    ("winbox-no-commission", "flat", {"bet": "super_6"}, sim_strategies.Settings(bankroll=300)),
    ("classic", "dalembert", {}, sim_strategies.Settings(bankroll=150, max_bet=60)),
    ("winbox", "fibonacci", {"bet": "big"}, sim_strategies.Settings(bankroll=400)),
    ("classic", "1-3-2-6", {}, sim_strategies.Settings(take_profit=80)),
    ("classic", "follow-last", {}, sim_strategies.Settings()),
    (
        "asian-live",
        "against-streak",
        {"after": 2},
        sim_strategies.Settings(side_bets=(("small", 1),)),
    ),
    ("classic", "follow-road", {"road": "big_eye_boy"}, sim_strategies.Settings()),
    (
        "classic",
        "follow-road",
        {"road": "small_road", "progression": "martingale"},
        sim_strategies.Settings(),
    ),
    (
        "winbox",
        "follow-road",
        {"road": "cockroach_pig"},
        sim_strategies.Settings(side_bets=(("super_tie_6", 1),)),
    ),
    ("classic", "follow-good-road", {}, sim_strategies.Settings()),
    ("classic", "follow-good-road", {"pattern": "single_jump"}, sim_strategies.Settings()),
    (
        "winbox-no-commission",
        "follow-good-road",
        {"pattern": "long_banker", "progression": "martingale"},
        sim_strategies.Settings(),
    ),
    ("asian-live", "follow-good-road", {"pattern": "player_sticks"}, sim_strategies.Settings()),
    ("classic", "follow-good-road", {"pattern": "banker_jumps"}, sim_strategies.Settings()),
]


@pytest.mark.parametrize(("rules", "name", "kw", "money"), CASES)
def test_fast_and_plain_engines_give_identical_shoes(rules, name, kw, money):
    strategy = sim_strategies.make_strategy(name, **kw)
    table = load_table(rules)
    resolved = sim_strategies.resolve(money, strategy, table)
    fast = sim_backtest.run_fast(strategy, resolved, table, seed=2026, shoes=25, n_paths=25)
    plain = sim_backtest.run_plain(strategy, resolved, table, seed=2026, shoes=25, n_paths=25)
    assert_frame_equal(fast.per_shoe, plain.per_shoe, check_exact=True)
    np.testing.assert_array_equal(fast.paths, plain.paths)
    assert fast.per_shoe["bets"].sum() > 0  # the case really bet


def _flat_banker():
    strategy = sim_strategies.make_strategy("martingale", bet="banker")
    table = load_table("classic")
    return (
        strategy,
        sim_strategies.resolve(sim_strategies.Settings(bankroll=300), strategy, table),
        table,
    )


def test_same_seed_same_results_whatever_the_chunks_and_threads():
    strategy, resolved, table = _flat_banker()
    a = sim_backtest.run_fast(strategy, resolved, table, seed=99, shoes=300, n_paths=300)
    b = sim_backtest.run_fast(strategy, resolved, table, seed=99, shoes=300, n_paths=300, chunk=7)
    before = sim_kernel.set_threads(None)
    try:
        sim_kernel.set_threads(1)
        c = sim_backtest.run_fast(
            strategy, resolved, table, seed=99, shoes=300, n_paths=300, chunk=64
        )
    finally:
        sim_kernel.set_threads(before)
    for other in (b, c):
        assert_frame_equal(a.per_shoe, other.per_shoe, check_exact=True)
        np.testing.assert_array_equal(a.paths, other.paths)
    d = sim_backtest.run_fast(strategy, resolved, table, seed=100, shoes=300)
    assert not a.per_shoe["net"].equals(d.per_shoe["net"])


@settings(max_examples=12, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    seed=st.integers(0, SEED_MAX),
    first=st.integers(0, 10**6),
    shoes=st.integers(1, 3 * sim_kernel.BLOCK + 5),
    chunk=st.sampled_from([7, 300, 16384]),
    name=st.sampled_from(["flat", "against-streak", "follow-good-road"]),
)
def test_a_small_run_on_one_thread_is_the_parallel_loop_to_the_bit(
    seed: int, first: int, shoes: int, chunk: int, name: str
):
    # A small run (a new install's first) deals its blocks on this thread, without the
    # parallel loop it would have to compile: the same numbers as the loop, every column.
    strategy = sim_strategies.make_strategy(name)
    table = load_table("classic")
    plan = sim_kernel.make_plan(
        strategy, sim_strategies.resolve(sim_strategies.Settings(), strategy, table), table
    )
    runs = [
        sim_kernel.run_fast(
            plan, seed, shoes, first_shoe=first, n_paths=5, chunk=chunk, parallel=parallel
        )
        for parallel in (True, False)
    ]
    for field in ("ints", "floats", "slot_wagered", "slot_net", "paths"):
        np.testing.assert_array_equal(getattr(runs[0], field), getattr(runs[1], field))
    assert runs[0].hands.min() > 0


def test_shoe_k_of_a_run_is_dealt_wherever_the_run_starts():
    plan = sim_kernel.make_plan(*_flat_banker())
    whole = sim_kernel.run_fast(plan, 5, 40)
    tail = sim_kernel.run_fast(plan, 5, 15, first_shoe=25)
    np.testing.assert_array_equal(whole.final[25:], tail.final)
    np.testing.assert_array_equal(whole.hands[25:], tail.hands)


def test_hands_per_shoe_are_the_plain_shoes_lengths():
    opts = ShoeOptions(decks=6, cut=16, burn_between_hands=True)
    plan = dataclasses.replace(sim_kernel.make_plan(*_flat_banker()), shoe=opts)
    r = sim_kernel.run_fast(plan, 3, 12)
    assert r.hands.tolist() == [deal_shoe(3, opts, k).rounds.height for k in range(12)]


def test_per_shoe_frame_has_one_row_per_shoe_numbered_from_one():
    strategy, resolved, table = _flat_banker()
    f = sim_backtest.run_fast(strategy, resolved, table, seed=1, shoes=10).per_shoe
    assert f["shoe"].to_list() == list(range(1, 11))
    assert f.schema["stop"] == sim_backtest.STOP


@settings(max_examples=30, deadline=None)
@given(seed=st.integers(0, SEED_MAX), skip=st.integers(0, 10**12), n=st.integers(1, 500))
def test_kernel_pcg64_is_numpys_pcg64(seed: int, skip: int, n: int):
    state, inc = pcg64.pcg_start(seed, skip)
    ref = np.random.PCG64(seed)
    ref.advance(skip)
    got = pcg64.pcg_raw(*pcg64.halves(state), *pcg64.halves(inc), n)
    np.testing.assert_array_equal(got, ref.random_raw(n))


@st.composite
def backtest_setups(
    draw: st.DrawFn,
) -> tuple[sim_strategies.Strategy, sim_strategies.Resolved, object]:
    table = load_table(draw(st.sampled_from(["classic", "winbox", "winbox-no-commission"])))
    name = draw(st.sampled_from(sim_strategies.STRATEGY_NAMES))
    if name in sim_strategies.STAKINGS:
        strategy = sim_strategies.make_strategy(name, bet=draw(st.sampled_from(sorted(table.bets))))
    else:
        strategy = sim_strategies.make_strategy(
            name,
            after=draw(st.integers(1, 4)),
            road=draw(st.sampled_from(list(sim_strategies.ROADS))),
            pattern=draw(st.sampled_from(["any", "single_jump", "paired_columns", "long_player"])),
            progression=draw(st.sampled_from(list(sim_strategies.STAKINGS))),
        )
    unit = draw(st.sampled_from([1.0, 2.5, 10.0]))
    money = sim_strategies.Settings(
        bankroll=draw(st.sampled_from([15.0, 100.0, 1000.0])),
        unit=unit,
        max_bet=draw(st.sampled_from([None, 40.0, 300.0])),
        stop_loss=draw(st.sampled_from([None, 30.0, 500.0])),
        take_profit=draw(st.sampled_from([None, 25.0, 400.0])),
        side_bets=tuple(
            (b, 1.0) for b in draw(st.lists(st.sampled_from(sorted(table.bets)), max_size=2))
        ),
    )
    return strategy, sim_strategies.resolve(money, strategy, table), table


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(setup=backtest_setups(), seed=st.integers(0, 2**40))
def test_fast_and_plain_engines_agree_on_random_strategies_and_settings(setup, seed):
    strategy, resolved, table = setup
    fast = sim_backtest.run_fast(strategy, resolved, table, seed=seed, shoes=4, n_paths=4)
    plain = sim_backtest.run_plain(strategy, resolved, table, seed=seed, shoes=4, n_paths=4)
    assert_frame_equal(fast.per_shoe, plain.per_shoe, check_exact=True)
    np.testing.assert_array_equal(fast.paths, plain.paths)


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    setup=backtest_setups(),
    seed=st.integers(0, SEED_MAX),
    first=st.integers(0, 10**6),
    shoes=st.integers(1, sim_kernel.BLOCK + 30),
    chunk=st.sampled_from([7, 100, 16384]),
    paths=st.integers(0, 6),
)
def test_a_small_run_interpreted_is_the_compiled_engine_to_the_bit(
    setup, seed: int, first: int, shoes: int, chunk: int, paths: int
):
    # Before the engine is in the cache a small run goes through its own source run by
    # the interpreter, the shuffle drawn by NumPy: every column the compiled one's.
    plan = sim_kernel.make_plan(*setup)
    runs = [
        sim_kernel.run_fast(
            plan, seed, shoes, first_shoe=first, n_paths=paths, chunk=chunk, compiled=compiled
        )
        for compiled in (True, False)
    ]
    for field in ("ints", "floats", "slot_wagered", "slot_net", "paths"):
        np.testing.assert_array_equal(getattr(runs[0], field), getattr(runs[1], field))
    assert runs[0].hands.min() > 0


@settings(max_examples=30, deadline=None)
@given(seed=st.integers(0, SEED_MAX), first=st.integers(0, 10**9), n=st.integers(1, 40))
def test_the_plain_shuffle_is_the_compiled_one(seed: int, first: int, n: int):
    # shoe starts from NumPy's PCG64 advanced, its raw draws through the shoe's own
    # Fisher-Yates: the compiled states and shuffle (the shoes `deal_shoe` deals)
    per = 8 * 52 - 1
    state, inc = pcg64.pcg_start(seed, first * per)
    a, c = (pcg64.halves(x) for x in pcg64.jump(per, inc))
    starts = pcg64.shoe_states(*pcg64.halves(state), *a, *c, n)
    np.testing.assert_array_equal(pcg64.shoe_states_plain(seed, first, n, per), starts)
    order = np.empty(per + 1, dtype=np.uint8)
    pcg64.shuffle_plain(*starts[-1], *pcg64.halves(inc), order)
    shoe = deal_shoe(seed, ShoeOptions(), first + n - 1)
    assert [cards.ALL_CARDS[c] for c in order] == list(shoe.order)


@settings(max_examples=300, deadline=None)
@given(
    x=st.integers(0, 2**64 - 1) | st.sampled_from([0, 2**32 - 1, 2**32, 2**63, 2**64 - 1]),
    d=st.integers(2, pcg64.MOD_LIMIT - 1) | st.sampled_from([2, 3, 415, 416, 2**15, 2**16 - 1]),
)
def test_the_remainder_by_multiplication_is_the_remainder(x: int, d: int):
    c = pcg64.reciprocal(d)
    assert int(pcg64.mod_small(np.uint64(x), np.uint64(d), np.uint64(c))) == x % d


@pytest.mark.parametrize("d", [0, 1, pcg64.MOD_LIMIT])
def test_no_reciprocal_outside_the_divisors_it_is_exact_for(d: int):
    with pytest.raises(ValueError, match="outside"):
        pcg64.reciprocal(d)


@settings(max_examples=40, deadline=None)
@given(
    state=st.integers(0, 2**128 - 1),
    inc=st.integers(0, 2**127 - 1),
    decks=st.integers(1, 8),
)
def test_the_compiled_shuffle_is_the_shoes_own(state: int, inc: int, decks: int):
    inc = 2 * inc + 1  # PCG64's increment is odd
    compiled = np.empty(decks * 52, dtype=ORDER_DTYPE)
    plain = np.empty_like(compiled)
    pcg64.shuffle(*pcg64.halves(state), *pcg64.halves(inc), compiled)
    pcg64.shuffle_plain(*pcg64.halves(state), *pcg64.halves(inc), plain)
    np.testing.assert_array_equal(compiled, plain)


ALL_KIND_TABLES = [
    "winbox-no-commission",
    "egalite",
    "dragon-bonus",
    "evolution",
    "ez-baccarat",
    "lucky-6",
    "entwinetech",
    "asian-live",
]


@pytest.mark.parametrize("rules", ALL_KIND_TABLES)
def test_every_bet_of_every_table_settles_the_same_in_both_engines(rules: str):
    """All of a table's bets at once (one main, the rest as side bets): each kind's lookup
    table in the kernel against the Polars settlement the plain engine uses."""
    table = load_table(rules)
    first, *rest = list(table.bets)
    strategy = _flat(first)
    money = sim_strategies.Settings(bankroll=1e7, side_bets=tuple((b, 1.0) for b in rest))
    resolved = sim_strategies.resolve(money, strategy, table)
    fast = sim_backtest.run_fast(strategy, resolved, table, seed=11, shoes=6)
    plain = sim_backtest.run_plain(strategy, resolved, table, seed=11, shoes=6)
    assert_frame_equal(fast.per_shoe, plain.per_shoe, check_exact=True)
    for b in table.bets:
        assert fast.per_shoe[f"wagered_{b}"].sum() > 0, b


def _flat(bet: str) -> sim_strategies.Strategy:
    return sim_strategies.make_strategy("flat", bet=bet)


def test_the_session_bets_hands_it_can_settle_and_counts_the_others():
    """`session.play` on four hands written by hand: flat 10 on Banker (paying 0.95),
    hand 2 a Banker win, hand 3 a hand whose net is unknown (NaN: a saved round without
    its totals), hand 4 a Player win. Hand 3's bet is not placed and is counted."""
    from roads_app.sim import session

    strategy = sim_strategies.make_strategy("flat", bet="banker")
    table = load_table("classic")
    resolved = sim_strategies.resolve(sim_strategies.Settings(bankroll=100), strategy, table)
    plan = sim_kernel.make_plan(strategy, resolved, table)
    banker = sim_kernel.BET_INDEX["banker"]
    net_play = np.full((sim_kernel.N_BETS, 4), np.nan)
    net_play[banker] = [0.0, 0.95, np.nan, -1.0]  # hand 1 a tie: a push
    nets = session.Nets(
        net_play, np.zeros((sim_kernel.N_BETS, 1)), np.zeros(sim_kernel.N_BETS, bool), plan.slot_of
    )
    hands = session.Hands(
        np.array([W_TIE, W_BANKER, W_BANKER, W_PLAYER]), np.arange(4), np.zeros(4, np.int64)
    )
    lengths, slot_books, path = np.zeros(5, np.int64), np.zeros((1, 2)), np.zeros(6)
    w = session.play(plan.record, plan.patterns, nets, hands, lengths, slot_books, path)
    assert (w.bets, w.stop, w.stop_hand, w.unsettled) == (3, session.STOP_NONE, 0, 1)
    assert (w.wagered, w.bankroll, w.low) == (30.0, 99.5, 99.5)
    assert path.tolist() == [100.0, 109.5, 109.5, 99.5, 99.5, 99.5]
    assert slot_books.tolist() == [[30.0, -0.5]]
    assert lengths[:2].tolist() == [2, 1]  # the big road: Banker twice, then Player

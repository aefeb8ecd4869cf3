"""The simulated shoe: conservation of cards, the shoe procedure, reproducibility, frequencies."""

from __future__ import annotations

import math
from collections import Counter

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from roads_app.errors import RoundError
from roads_app.game import cards as playing_cards
from roads_app.game.drawing import check_hand
from roads_app.game.shoe import ShoeOptions, deal_hands, deal_shoe, deal_shoes, shuffled_shoe
from roads_app.sim import bulk

seeds = st.integers(min_value=0, max_value=2**63)
options = st.builds(
    ShoeOptions,
    decks=st.integers(1, 8),
    cut=st.integers(0, 26),
    burn=st.booleans(),
    burn_between_hands=st.booleans(),
)


def _dealt_cards(rounds) -> list[str]:
    return [c for p, b in rounds.select("player_cards", "banker_cards").iter_rows() for c in p + b]


@settings(max_examples=60, deadline=None)
@given(seeds, options, st.integers(0, 1000))
def test_every_card_is_dealt_burnt_or_left_behind(seed: int, opts: ShoeOptions, k: int) -> None:
    s = deal_shoe(seed, opts, k)
    everything = _dealt_cards(s.rounds) + list(s.burnt) + list(s.left)
    everything += [s.burn_card] if s.burn_card else []
    full = Counter({code: opts.decks for code in playing_cards.ALL_CARDS})
    assert Counter(everything) == full == Counter(s.order)
    # and the deal order is exactly the shoe order, top first
    assert s.order[: 1 if s.burn_card else 0] == ((s.burn_card,) if s.burn_card else ())


@settings(max_examples=40, deadline=None)
@given(seeds, options)
def test_every_hand_follows_the_drawing_rules(seed: int, opts: ShoeOptions) -> None:
    s = deal_shoe(seed, opts)
    for p, b in s.rounds.select("player_cards", "banker_cards").iter_rows():
        check_hand(p, b)


@settings(max_examples=40, deadline=None)
@given(seeds, options)
def test_burn_and_cut_card_procedure(seed: int, opts: ShoeOptions) -> None:
    order = shuffled_shoe(seed, opts.decks)
    hands, extra = deal_hands(order, opts)
    n = len(order)
    start = 0
    if opts.burn:
        first = int(order[0])
        assert extra["burn_card"] == playing_cards.ALL_CARDS[first]
        start = 1 + playing_cards.RANK_BURN_VALUE[first // 4]
    # replay the positions: where each hand starts, to check the last-hand rule
    pos, starts = start, []
    for i, h in enumerate(hands):
        if opts.burn_between_hands and i:
            pos += 1
        starts.append(pos)
        pos += len(h.player_cards) + len(h.banker_cards)
    cut_at = n - opts.cut
    assert len(extra["left"]) == n - pos
    if n - pos >= 7 + opts.burn_between_hands:  # the shoe did not run dry
        # the last hand is the first one that starts at or after the cut card
        assert starts[-1] >= cut_at
        assert all(s < cut_at for s in starts[:-1])


def test_cut_card_exactly_at_a_hand_boundary_makes_the_next_hand_last() -> None:
    # Find a shoe where a hand ends exactly at the cut position: the next hand is the last.
    opts = ShoeOptions(decks=1, cut=14, burn=False)
    for seed in range(200):
        order = shuffled_shoe(seed, 1)
        hands, _ = deal_hands(order, opts)
        ends, pos = [], 0
        for h in hands:
            pos += len(h.player_cards) + len(h.banker_cards)
            ends.append(pos)
        if 52 - 14 in ends:
            i = ends.index(52 - 14)
            assert len(hands) == i + 2
            return
    pytest.fail("no shoe with a hand ending at the cut card in 200 seeds")


def test_same_seed_same_shoe_and_reference_order() -> None:
    a, b = deal_shoe(12345), deal_shoe(12345)
    assert a.order == b.order and a.rounds.equals(b.rounds)
    assert deal_shoe(12346).order != a.order
    # Pinned from the documented algorithm (PCG64 raw draws + Fisher-Yates), so a change
    # of NumPy's stream or of the shuffle is caught: the first cards of seed 0, 8 decks.
    raw = np.random.PCG64(0).random_raw(415)
    order = [i % 52 for i in range(416)]
    for step, r in enumerate(raw.tolist()):
        i = 415 - step
        j = r % (i + 1)
        order[i], order[j] = order[j], order[i]
    assert shuffled_shoe(0).tolist() == order


def test_shoe_k_of_a_run_is_independent_of_how_it_is_reached() -> None:
    run = deal_shoes(99, 3)
    third = deal_shoe(99, index=2).rounds
    assert run.filter(run["shoe"] == 3).drop("shoe").equals(third)


@pytest.mark.parametrize(
    "kw, msg",
    [
        ({"decks": 0}, "1 to 8"),
        ({"decks": 9}, "1 to 8"),
        ({"cut": -1}, "cut"),
        ({"cut": 400}, "cut"),
        ({"decks": 2.5}, "whole number"),
    ],
)
def test_bad_shoe_options(kw: dict, msg: str) -> None:
    with pytest.raises(RoundError, match=msg):
        ShoeOptions(**kw)


def test_frequencies_over_20000_shoes() -> None:
    """B/P/T within 4 standard errors of the exact values; about 81 hands a shoe. Dealt
    at the engine's speed (`bulk.batches`: the same hands as `deal_hands` of each
    `shuffled_shoe`, row for row, tests/test_bulk.py), 0.4 s against 13 s shoe by shoe."""
    counts: Counter[str] = Counter()
    hands_total = 0
    n_shoes = 20_000
    for batch in bulk.batches(2024, n_shoes, ShoeOptions()):
        hands_total += batch.height
        counts.update(dict(batch.group_by("winner").len().iter_rows()))
    for w, p in {"B": 0.458597423, "P": 0.446246609, "T": 0.095155968}.items():
        se = math.sqrt(p * (1 - p) / hands_total)
        # hands within a shoe are slightly dependent; 4 SE leaves room for it
        assert abs(counts[w] / hands_total - p) < 4 * se, (w, counts[w] / hands_total)
    assert 80.5 < hands_total / n_shoes < 81.8


def test_the_largest_seed_deals_a_shoe_the_store_keeps_and_one_more_is_refused(tmp_path):
    """A seed the saved metadata would refuse is refused before any dealing (PCG64 itself
    takes any size), in one line naming the range."""
    from roads_app.game.rounds import SEED_MAX
    from roads_app.game.shoe import check_seed
    from tests import storehelp

    assert SEED_MAX == 2**64 - 1
    dealt = deal_shoe(SEED_MAX)
    storehelp.save_shoe(dealt.rounds, dealt.meta, tmp_path)
    assert storehelp.load_shoe(dealt.meta.id, tmp_path)[1].seed == SEED_MAX
    with pytest.raises(RoundError, match="from 0 to 18,446,744,073,709,551,615"):
        check_seed(SEED_MAX + 1)


def test_the_most_hands_of_a_shoe_is_stated_once_with_its_reason() -> None:
    """A round takes at least four cards, and the burn and the cut card only take cards
    away (a shoe entered by hand may have had neither): 8 decks hold 104 rounds. The
    dealer's rows, a bankroll path's width, the rounds check and the files' bound are
    that one number (the kernels once kept a 105th row "to spare")."""
    from roads_app.game import MAX_DECKS
    from roads_app.game.rounds import MOST_ROUNDS, max_rounds, most_rounds_of
    from roads_app.game.shoe import most_hands

    assert most_hands(8 * 52) == max_rounds(8) == MOST_ROUNDS == 104
    for decks in range(1, MAX_DECKS + 1):
        assert most_hands(decks * 52) == max_rounds(decks) == most_rounds_of(decks * 52)


@settings(max_examples=25, deadline=None)
@given(
    seed=st.integers(0, 2**32),
    decks=st.integers(1, 8),
    burn=st.booleans(),
    between=st.booleans(),
)
def test_no_shoe_deals_more_hands_than_the_rule_allows(
    seed: int, decks: int, burn: bool, between: bool
) -> None:
    """The loosest dealing (the cut card at the very back, no burn) still fits the rule."""
    from roads_app.game.rounds import max_rounds

    dealt = deal_shoe(seed, ShoeOptions(decks=decks, cut=0, burn=burn, burn_between_hands=between))
    assert dealt.rounds.height <= max_rounds(decks)

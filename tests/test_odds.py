"""Exact odds: the reference figures of docs/rules.md, brute force on small shoes, Monte Carlo."""

from __future__ import annotations

import itertools
import math
import subprocess
import sys
from collections import Counter
from fractions import Fraction

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from roads_app.bets.odds import (
    EVENTS,
    N_EVENTS,
    bet_vectors,
    check_counts,
    counts_from_cards,
    full_shoe_counts,
    full_shoe_outcomes,
    odds_many,
    outcome_probabilities,
    outcomes,
    remove_cards,
)
from roads_app.errors import BetError, ShoeCompositionError
from roads_app.game import cards as playing_cards
from roads_app.game.drawing import Hand, play_hand


def named(p: dict[str, float]) -> dict[str, float]:
    """The cells' probabilities summed into the events players talk about (written here,
    apart from the bet rules: totals, card counts and pair states read off cell names)."""
    out = dict(p)
    acc: Counter[str] = Counter()
    for name, v in p.items():
        if name.startswith("play_"):
            pt, bt, pc, bc = int(name[6]), int(name[8]), int(name[10]), int(name[11])
            pn, bn = pc == 2 and pt >= 8, bc == 2 and bt >= 8
            w = "banker_win" if bt > pt else "player_win" if pt > bt else "tie"
            keys = [w, f"cards_{pc + bc}"]
            if w == "tie":
                keys.append(f"tie_{pt}")
                if pn and bn:
                    keys.append("natural_tie")
            if w == "banker_win" and bt == 6:
                keys.append("banker_win_6")
            if w == "player_win" and pn:
                keys.append("player_natural_win")
            if w == "banker_win" and bn:
                keys.append("banker_natural_win")
        elif name.startswith("pairs_"):
            ps, bs = name[6], name[7]  # N, R (rank) or S (suited)
            keys = []
            if ps != "N":
                keys.append("player_pair")
            if bs != "N":
                keys.append("banker_pair")
            if ps != "N" or bs != "N":
                keys.append("any_pair")
            if ps == "S":
                keys.append("player_suited_pair")
            if bs == "S":
                keys.append("banker_suited_pair")
            if "S" in (ps, bs):
                keys.append("perfect_pair")
        else:
            continue
        for k in keys:
            acc[k] += v
    for k in NAMED:
        out[k] = acc[k]
    return out


NAMED = (
    "player_win",
    "banker_win",
    "tie",
    "banker_win_6",
    *(f"tie_{t}" for t in range(10)),
    "cards_4",
    "cards_5",
    "cards_6",
    "player_natural_win",
    "banker_natural_win",
    "natural_tie",
    "player_pair",
    "banker_pair",
    "any_pair",
    "perfect_pair",
    "player_suited_pair",
    "banker_suited_pair",
)

FULL8 = named(outcome_probabilities(full_shoe_counts(8)))


def edge(bet: str, payout: float, six: float | None = None, counts=None) -> float:
    """House edge in % of one bet, from the kernel's probabilities."""
    probs = outcomes(full_shoe_counts(8) if counts is None else counts)
    _, _, coef = bet_vectors(bet, payout if six is None else {"win": payout, "six": six})
    return -100.0 * (coef @ probs - 1.0)


# --- reference figures, 8 decks off the top (spec/rules.md) ---------------------------


@pytest.mark.parametrize(
    ("event", "value", "digits"),
    [
        ("banker_win", 0.458597423, 9),
        ("player_win", 0.446246609, 9),
        ("tie", 0.095155968, 9),
        ("banker_win_6", 0.053863716, 9),
        ("cards_4", 0.378868491, 9),
        ("cards_5", 0.303444169, 9),
        ("cards_6", 0.317687341, 9),
        ("player_pair", 0.0746988, 7),
        ("banker_pair", 0.0746988, 7),
        *[
            (f"tie_{t}", v, 7)
            for t, v in enumerate(
                [
                    0.0057978,
                    0.0041012,
                    0.0040026,
                    0.0044515,
                    0.0072612,
                    0.0079394,
                    0.0192402,
                    0.0203500,
                    0.0109794,
                    0.0110327,
                ]
            )
        ],
    ],
)
def test_reference_probabilities(event: str, value: float, digits: int) -> None:
    assert round(FULL8[event], digits) == value


@pytest.mark.parametrize(
    ("bet", "payout", "six", "value", "digits"),
    [
        ("banker", 0.95, None, 1.0579, 4),
        ("player", 1.0, None, 1.2351, 4),
        ("tie", 8.0, None, 14.3596, 4),
        ("player_pair", 11.0, None, 10.3614, 4),
        ("banker_pair", 11.0, None, 10.3614, 4),
        ("big", 0.54, None, 4.346, 3),
        ("big", 0.5, None, 6.830, 3),
        ("small", 1.5, None, 5.283, 3),
        ("any_pair", 5.0, None, 13.710, 3),
        ("perfect_pair", 25.0, None, 13.03, 2),
        ("player_natural", 4.0, None, 16.918, 3),
        ("banker_natural", 4.0, None, 16.918, 3),
        ("super_6", 12.0, None, 29.977, 3),
        ("banker", 1.0, 0.5, 1.4581, 4),
    ],
)
def test_reference_house_edges(
    bet: str, payout: float, six: float | None, value: float, digits: int
) -> None:
    assert round(edge(bet, payout, six), digits) == value


def test_pair_is_31_over_415_exactly() -> None:
    # 13 ranks of 32 cards each in 416: P = 13*32*31 / (416*415)
    exact = Fraction(13 * 32 * 31, 416 * 415)
    assert exact == Fraction(31, 415)
    assert abs(Fraction(FULL8["player_pair"]) - exact) < Fraction(1, 10**15)
    assert Fraction(FULL8["banker_pair"]).limit_denominator(1000) == Fraction(31, 415)


def test_everything_sums_to_one_off_the_top() -> None:
    p = FULL8
    assert math.isclose(p["banker_win"] + p["player_win"] + p["tie"], 1.0, abs_tol=1e-13)
    assert math.isclose(sum(p[f"tie_{t}"] for t in range(10)), p["tie"], abs_tol=1e-13)
    assert math.isclose(p["cards_4"] + p["cards_5"] + p["cards_6"], 1.0, abs_tol=1e-13)


# --- brute force on small shoes --------------------------------------------------------


def hand_events(hand: Hand) -> set[str]:
    """The events of EVENTS that a dealt hand shows, from the Hand's own properties."""
    ev: set[str] = set()
    w = hand.winner
    ev.add({"P": "player_win", "B": "banker_win", "T": "tie"}[w])
    if w == "T":
        ev.add(f"tie_{hand.player_points}")
    if w == "B" and hand.banker_points == 6:
        ev.add("banker_win_6")
    ev.add(f"cards_{len(hand.player_cards) + len(hand.banker_cards)}")
    if hand.player_natural and w == "P":
        ev.add("player_natural_win")
    if hand.banker_natural and w == "B":
        ev.add("banker_natural_win")
    if hand.player_natural and hand.banker_natural and w == "T":
        ev.add("natural_tie")
    ps, bs = (
        playing_cards.is_suited_pair(hand.player_cards),
        playing_cards.is_suited_pair(hand.banker_cards),
    )
    for name, flag in [
        ("player_pair", hand.player_pair),
        ("banker_pair", hand.banker_pair),
        ("any_pair", hand.player_pair or hand.banker_pair),
        ("perfect_pair", ps or bs),
        ("player_suited_pair", ps),
        ("banker_suited_pair", bs),
    ]:
        if flag:
            ev.add(name)
    return ev


def hand_cells(hand: Hand) -> set[str]:
    """The play cell and pair cell a dealt hand ends in, named as EVENTS names them."""
    p, b = hand.player_cards, hand.banker_cards
    play = f"play_p{hand.player_points}b{hand.banker_points}_{len(p)}{len(b)}"

    def state(cards: tuple[str, ...]) -> str:
        return (
            "S"
            if playing_cards.is_suited_pair(cards)
            else "R"
            if playing_cards.is_pair(cards)
            else "N"
        )

    return {play, f"pairs_{state(p)}{state(b)}"}


def brute_force(shoe: list[str]) -> dict[str, Fraction]:
    """Exact cell and event probabilities by playing every ordering of the first six cards."""
    tally: Counter[str] = Counter()
    n = 0
    for perm in itertools.permutations(shoe, 6):
        n += 1
        hand = play_hand(iter(perm))
        tally.update(hand_events(hand) | hand_cells(hand))
    return {e: Fraction(tally[e], n) for e in (*EVENTS, *NAMED)}


small_shoes = st.lists(
    st.sampled_from(playing_cards.ALL_CARDS[:8] + playing_cards.ALL_CARDS[28:48]),
    min_size=6,
    max_size=8,
)


@settings(max_examples=12, deadline=None)
@given(small_shoes)
def test_kernel_matches_brute_force_on_small_shoes(shoe: list[str]) -> None:
    exact = brute_force(shoe)
    got = named(outcome_probabilities(counts_from_cards(shoe)))
    for e in exact:
        assert abs(got[e] - float(exact[e])) < 1e-12, e


def test_kernel_matches_brute_force_on_a_rank_rich_shoe() -> None:
    shoe = ["As", "As", "Ah", "Kd", "Kd", "5c", "3s", "9h", "8d"]
    exact = brute_force(shoe)
    got = named(outcome_probabilities(counts_from_cards(shoe)))
    assert exact["pairs_SS"] > 0 or exact["pairs_SR"] > 0 or exact["pairs_SN"] > 0
    for e in exact:
        assert abs(got[e] - float(exact[e])) < 1e-12, e
    assert exact["perfect_pair"] > 0  # the shoe can deal a suited pair


# --- properties over arbitrary compositions ------------------------------------------


compositions = st.lists(st.integers(0, 8), min_size=52, max_size=52).filter(lambda c: sum(c) >= 6)


@settings(max_examples=40, deadline=None)
@given(compositions)
def test_probabilities_are_consistent(counts: list[int]) -> None:
    p = named(outcome_probabilities(np.array(counts)))
    assert all(-1e-12 <= v <= 1 + 1e-12 for v in p.values())
    assert math.isclose(p["banker_win"] + p["player_win"] + p["tie"], 1.0, abs_tol=1e-12)
    assert math.isclose(sum(p[f"tie_{t}"] for t in range(10)), p["tie"], abs_tol=1e-12)
    assert math.isclose(p["cards_4"] + p["cards_5"] + p["cards_6"], 1.0, abs_tol=1e-12)
    assert p["banker_win_6"] <= p["banker_win"] + 1e-12
    assert p["natural_tie"] <= p["tie"] + 1e-12
    # either-hand pairs: at least one hand's, at most the sum of both
    assert p["player_pair"] - 1e-12 <= p["any_pair"] <= 2 * p["player_pair"] + 1e-12
    assert p["player_suited_pair"] - 1e-12 <= p["perfect_pair"]
    assert p["perfect_pair"] <= 2 * p["player_suited_pair"] + 1e-12
    assert p["player_suited_pair"] <= p["player_pair"] + 1e-12


@settings(max_examples=10, deadline=None)
@given(st.lists(compositions, min_size=1, max_size=6))
def test_batch_equals_one_at_a_time(rows: list[list[int]]) -> None:
    batch = odds_many(np.array(rows))
    assert batch.shape == (len(rows), N_EVENTS)
    for r, row in zip(rows, batch, strict=True):
        assert np.allclose(row, outcomes(np.array(r)), atol=1e-14, rtol=0)


def test_suits_matter_only_for_suited_pairs() -> None:
    # move every spade to hearts: same ranks, so only suited-pair events change
    a = full_shoe_counts(2)
    b = a.copy().reshape(13, 4)
    b[:, 1] += b[:, 0]
    b[:, 0] = 0
    pa, pb = named(outcome_probabilities(a)), named(outcome_probabilities(b.reshape(52)))
    for e in NAMED:
        if "suited" in e or e == "perfect_pair":
            assert pb[e] > pa[e]
        else:
            assert math.isclose(pa[e], pb[e], abs_tol=1e-13), e


def test_a_shoe_rich_in_one_rank_favours_pairs() -> None:
    counts = full_shoe_counts(8) // 4  # two decks' worth...
    counts[playing_cards.card_index("7s") : playing_cards.card_index("7s") + 4] = (
        8  # ...plus 24 extra sevens
    )
    assert edge("player_pair", 11.0, counts=counts) < 0  # a negative edge: the bet is positive
    assert edge("player_pair", 11.0, counts=full_shoe_counts(2)) > 0


def test_pair_probability_after_removal_matches_closed_form() -> None:
    counts = remove_cards(full_shoe_counts(8), ["As", "Ah", "Ad", "Kc"])
    n = counts.reshape(13, 4).sum(axis=1)
    total = int(n.sum())
    exact = Fraction(int(sum(int(x) * (int(x) - 1) for x in n)), total * (total - 1))
    got = named(outcome_probabilities(counts))["banker_pair"]
    assert abs(Fraction(got) - exact) < Fraction(1, 10**15)


# --- bad input ---------------------------------------------------------------------------


def test_bad_compositions_are_one_line_errors() -> None:
    with pytest.raises(ShoeCompositionError, match="52 counts"):
        check_counts(np.zeros(13, dtype=int))
    with pytest.raises(ShoeCompositionError, match="negative"):
        check_counts(np.r_[np.full(51, 2), -1])
    with pytest.raises(ShoeCompositionError, match="only 5 cards"):
        outcomes(counts_from_cards("As Kd 5c 3h 9s"))
    with pytest.raises(ShoeCompositionError, match="As"):
        remove_cards(full_shoe_counts(1), ["As", "As"])
    with pytest.raises(ShoeCompositionError, match="whole numbers"):
        check_counts(np.full(52, 1.5))
    with pytest.raises(ShoeCompositionError, match="whole numbers"):
        check_counts(np.array(["x"] * 52))
    assert remove_cards(counts_from_cards("As Kd"), ["Kd"]).sum() == 1  # below a hand: fine
    with pytest.raises(ShoeCompositionError, match="1 to 8"):
        full_shoe_counts(9)
    with pytest.raises(BetError, match="dragon"):
        bet_vectors("dragon", 1.0)


# --- Monte Carlo over simulated shoes ---------------------------------------------------


def test_monte_carlo_agrees_with_exact_odds() -> None:
    """Frequencies over every hand of 1,500 simulated shoes are within 4 standard errors.

    Hands deep in a shoe are not quite off the top (the cut-card effect), but that bias
    is far below the standard error of ~120,000 hands.
    """
    from roads_app.game.shoe import ShoeOptions, deal_hands, shuffled_shoe

    options = ShoeOptions()
    at = {e: i for i, e in enumerate(EVENTS)}
    seen: list[list[float]] = []
    cells: list[list[int]] = []
    for k in range(1500):  # `deal_shoe`'s hands, without making and reading back its frame
        for hand in deal_hands(shuffled_shoe(2024, options.decks, k), options)[0]:
            ev = hand_events(hand)
            seen.append([e in ev for e in NAMED])
            cells.append([at[c] for c in hand_cells(hand)])
    ind = np.array(seen, dtype=float)
    cell_at = np.array(cells)
    n = len(ind)
    for i, e in enumerate(NAMED):
        p = FULL8[e]
        se = math.sqrt(p * (1 - p) / n)
        assert abs(ind[:, i].mean() - p) < 4 * se, (e, ind[:, i].mean(), p)
    # each bet's measured result per unit against its exact edge
    for bet, payout, six in [
        ("banker", 0.95, None),
        ("player", 1.0, None),
        ("tie", 8.0, None),
        ("player_pair", 11.0, None),
        ("big", 0.5, None),
        ("small", 1.5, None),
        ("any_pair", 5.0, None),
        ("perfect_pair", 25.0, None),
        ("banker_natural", 4.0, None),
        ("super_6", 12.0, None),
        ("banker", 1.0, 0.5),
        ("super_tie_0", 125.0, None),
    ]:
        _, _, coef = bet_vectors(bet, payout if six is None else {"win": payout, "six": six})
        net = coef[cell_at].sum(axis=1) - 1.0  # each hand: one play + one pair cell
        exact_ev = -edge(bet, payout, six) / 100
        assert abs(net.mean() - exact_ev) < 4 * net.std() / math.sqrt(n), (bet, net.mean())


# --- the real tables and the CLI ---------------------------------------------------------

SPEC_EDGES = {  # (table, bet) -> house edge in % to the digits the spec shows
    ("classic", "banker"): (1.0579, 4),
    ("classic", "player"): (1.2351, 4),
    ("classic", "tie"): (14.3596, 4),
    ("entwinetech", "player_pair"): (10.3614, 4),
    ("asian-live", "big"): (4.346, 3),
    ("winbox", "big"): (6.830, 3),
    ("asian-live", "small"): (5.283, 3),
    ("winbox", "any_pair"): (13.710, 3),
    ("winbox", "perfect_pair"): (13.03, 2),
    ("winbox", "player_natural"): (16.918, 3),
    ("winbox", "banker_natural"): (16.918, 3),
    ("winbox-no-commission", "super_6"): (29.977, 3),
    ("winbox-no-commission", "banker"): (1.4581, 4),
}


@pytest.mark.parametrize(("table", "bet"), sorted(SPEC_EDGES))
def test_tables_reproduce_the_spec_edges(table: str, bet: str) -> None:
    from roads_app.bets.odds import bet_odds
    from roads_app.bets.tables import load_table

    frame = bet_odds(load_table(table))
    value, digits = SPEC_EDGES[(table, bet)]
    got = frame.filter(frame["bet"] == bet)["house_edge"].item()
    assert round(100 * got, digits) == value


def test_cli_odds_json_has_every_bet_of_the_table(capsys) -> None:
    import json

    from roads_app.bets.tables import load_table
    from roads_app.cli import main

    assert main(["odds", "--rules", "winbox-no-commission", "--json"]) == 0
    got = {g["bet"]: g for g in json.loads(capsys.readouterr().out)}
    assert set(got) == set(load_table("winbox-no-commission").bets)
    assert round(got["banker"]["probability"], 9) == 0.458597423
    assert round(100 * got["banker"]["house_edge"], 4) == 1.4581
    assert got["super_6"]["name"] == load_table("winbox-no-commission").bets["super_6"].label
    assert main(["odds", "--rules", "classic", "--decks", "1", "--json"]) == 0
    one_deck = {g["bet"]: g for g in json.loads(capsys.readouterr().out)}
    assert round(100 * one_deck["banker"]["house_edge"], 4) == 1.0117  # Wizard of Odds, 1 deck


def test_cli_odds_unknown_table_is_one_line(capsys) -> None:
    from roads_app.cli import main

    assert main(["odds", "--rules", "no-such-table"]) == 2
    err = capsys.readouterr().err
    assert err.startswith("error:") and "no-such-table" in err and err.count("\n") == 1
    assert main(["odds", "--decks", "9"]) == 2
    assert "1 to 8" in capsys.readouterr().err


@pytest.mark.parametrize(
    ("extra", "favoured", "hurt"),
    [
        ("89", "small", "big"),  # naturals end hands on four cards
        ("A23", "big", "small"),  # low totals draw
        ("TJ", "tie", None),  # zero-point cards make equal totals common
    ],
)
def test_compositions_known_to_favour_a_bet_show_it_positive(
    extra: str, favoured: str, hurt: str | None
) -> None:
    payouts = {"small": 1.5, "big": 0.54, "tie": 8.0}
    counts = full_shoe_counts(1)
    for rank in extra:
        i = playing_cards.RANKS.index(rank) * 4
        counts[i : i + 4] += 12 // len(extra)  # a deck plus 12 extra cards of those ranks
    assert edge(favoured, payouts[favoured], counts=counts) < 0  # negative edge: positive EV
    assert edge(favoured, payouts[favoured], counts=full_shoe_counts(1)) > 0
    if hurt is not None:
        assert edge(hurt, payouts[hurt], counts=counts) > edge(hurt, payouts[hurt])


@pytest.mark.parametrize("decks", [1, 6, 8])
def test_the_full_shoe_by_the_interpreter_is_the_kernels_to_the_bit(decks: int):
    assert full_shoe_outcomes(decks).tolist() == outcomes(full_shoe_counts(decks)).tolist()


def test_a_backtests_exact_edge_compiles_no_odds_kernel():
    """The summary's exact edge (a full shoe's odds) runs by the interpreter: a new
    install's first backtest does not wait for the odds kernel to compile."""
    code = (
        "from roads_app.bets import odds; from roads_app.bets.tables import load_table\n"
        "from roads_app.sim.measures import exact_evs\n"
        "exact_evs(load_table('evolution'))\n"
        "ks = (odds.outcomes_into, odds._play_into, odds._pair_terms, odds._mixed_term)\n"
        "print(sum(len(k.signatures) for k in ks))\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.split() == ["0"]

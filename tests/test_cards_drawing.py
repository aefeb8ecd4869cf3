"""Cards and the drawing rules, checked against an independent copy of the tableau."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from roads_app.errors import CardError, DrawingRuleError
from roads_app.game import cards as playing_cards
from roads_app.game.drawing import banker_draws, check_hand, play_hand, player_draws

# The banker's tableau as printed on casino boards (seeds 000 and 003, spec):
# rows = banker's two-card total 0..7, columns = player's third card value 0..9,
# last column "-" = player stood. D = banker draws, S = banker stands.
TABLEAU = """
0 DDDDDDDDDD D
1 DDDDDDDDDD D
2 DDDDDDDDDD D
3 DDDDDDDDSD D
4 SSDDDDDDSS D
5 SSSSDDDDSS D
6 SSSSSSDDSS S
7 SSSSSSSSSS S
"""
TABLE = {int(line[0]): (line.split()[1], line.split()[2]) for line in TABLEAU.strip().splitlines()}

card_codes = st.sampled_from(playing_cards.ALL_CARDS)


@pytest.mark.parametrize("bt", range(8))
@pytest.mark.parametrize("third", [*range(10), None])
def test_banker_rule_matches_printed_tableau(bt: int, third: int | None) -> None:
    row, stood = TABLE[bt]
    expected = (stood if third is None else row[third]) == "D"
    assert banker_draws(bt, third, player_total=6 if third is None else 0) is expected


def test_seed_002_banker_six_misreading_is_not_followed() -> None:
    # Seed 002 reads "banker 6: if player is 6 or 7 then no more card"; with a player
    # *third card* of 6 or 7 the standard rule has the banker draw.
    assert banker_draws(6, 6) and banker_draws(6, 7)
    assert not banker_draws(6, None, player_total=6)


@pytest.mark.parametrize("pt", range(10))
@pytest.mark.parametrize("bt", range(10))
def test_player_rule(pt: int, bt: int) -> None:
    assert player_draws(pt, bt) is (pt <= 5 and bt <= 7)


@given(st.lists(card_codes, min_size=6, max_size=6))
def test_played_hands_pass_the_check_and_follow_the_table(deal: list[str]) -> None:
    hand = play_hand(iter(deal))
    assert check_hand(hand.player_cards, hand.banker_cards) == hand
    pt, bt = playing_cards.points(deal[0:4:2]), playing_cards.points(deal[1:4:2])
    natural = pt >= 8 or bt >= 8
    assert (len(hand.player_cards) == 3) is (not natural and pt <= 5)
    if natural:
        assert len(hand.banker_cards) == 2
    else:
        row, stood = TABLE[bt] if bt <= 7 else ("S" * 10, "S")
        third = playing_cards.point(hand.player_cards[2]) if len(hand.player_cards) == 3 else None
        expect = (stood if third is None else row[third]) == "D"
        assert (len(hand.banker_cards) == 3) is expect


@given(st.lists(card_codes, min_size=7, max_size=7))
def test_a_card_too_many_or_too_few_is_refused(deal: list[str]) -> None:
    hand = play_hand(iter(deal))
    p, b = list(hand.player_cards), list(hand.banker_cards)
    spare = deal[6]
    wrong_banker = b[:2] if len(b) == 3 else [*b, spare]
    with pytest.raises(DrawingRuleError, match=r"banker|natural"):
        check_hand(p, wrong_banker)
    wrong_player = p[:2] if len(p) == 3 else [*p, spare]
    with pytest.raises(DrawingRuleError):
        check_hand(wrong_player, b)


def test_refusal_names_the_rule() -> None:
    with pytest.raises(DrawingRuleError, match=r"banker has 7 .*stands on 7"):
        check_hand(["2s", "3d", "4c"], ["7c", "Kh", "5s"])
    with pytest.raises(DrawingRuleError, match="natural 9"):
        check_hand(["9s", "Kd", "2c"], ["5c", "2h"])


@given(card_codes)
def test_card_codes_round_trip_in_any_case(code: str) -> None:
    assert playing_cards.parse_card(code.lower()) == code
    assert playing_cards.parse_card(code.upper()[0] + code[1].upper()) == code
    assert playing_cards.ALL_CARDS[playing_cards.card_index(code)] == code


@pytest.mark.parametrize("bad", ["", "Zs", "1s", "11h", "Ax", "A", "10", "As2", None, 7])
def test_bad_card_codes_are_one_line_errors(bad: object) -> None:
    with pytest.raises(CardError) as e:
        playing_cards.parse_card(bad)
    assert "\n" not in str(e.value) and repr(bad) in str(e.value)


def test_ten_is_accepted_and_canonical() -> None:
    assert playing_cards.parse_cards("10h 10S, kd") == ["Th", "Ts", "Kd"]
    assert playing_cards.points(["Th", "9d"]) == 9 and playing_cards.points(["7s", "8h", "Ac"]) == 6


def test_a_one_card_hand_is_named_in_the_singular():
    import pytest

    from roads_app.errors import DrawingRuleError
    from roads_app.game.drawing import check_hand

    with pytest.raises(DrawingRuleError, match=r"^player has 1 card: a hand has 2 or 3 cards$"):
        check_hand(["9s"], ["5c", "2h"])
    with pytest.raises(DrawingRuleError, match=r"^banker has 4 cards:"):
        check_hand(["9s", "2c"], ["5c", "2h", "3d", "4s"])


def test_a_card_face_reads_back_as_its_card() -> None:
    """What the replay prints on a card (rank as printed, suit glyph, colour) names that
    card: the rank ten reads 10, which `parse_card` takes back as `T`."""
    from roads_app.game.cards import ALL_CARDS, SUIT_GLYPHS, card_face, parse_card

    suit_of = {glyph: suit for suit, glyph in SUIT_GLYPHS.items()}
    for code in ALL_CARDS:
        rank, glyph, red = card_face(code)
        assert parse_card(rank + suit_of[glyph]) == code
        assert red == (code[1] in "hd")
    assert card_face("Td")[0] == "10"

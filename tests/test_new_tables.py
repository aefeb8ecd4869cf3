"""The tables players asked for, added by TOML alone and priced by the generated odds.

Every table here is loaded the way a user's file is (`roads-app odds --rules NAME --json`
reads ``rules/NAME.toml`` through `load_table`); nothing in the code names these tables.
Published figures are 8-deck house edges from the pages each file cites in ``source``.
"""

from __future__ import annotations

import itertools
import json
from collections import Counter
from fractions import Fraction
from pathlib import Path

import pytest

from roads_app.bets.odds import bet_odds
from roads_app.bets.tables import RULES_DIR, load_table
from roads_app.cli import main
from roads_app.game import cards
from roads_app.game.drawing import play_hand

# (table, bet) -> (published house edge as a fraction, digits given, where)
PUBLISHED: dict[tuple[str, str], tuple[float, str]] = {
    ("ez-baccarat", "ez_banker"): (0.010183, "Wizard of Odds, EZ Baccarat: return -0.010183"),
    ("ez-baccarat", "dragon_7"): (0.076113, "Wizard of Odds, EZ Baccarat: return -0.076113"),
    ("ez-baccarat", "panda_8"): (0.101876, "Wizard of Odds, EZ Baccarat: return -0.101876"),
    ("tie-9", "tie"): (0.04844, "10 x 0.095156 - 1, Wizard of Odds' tie probability"),
    ("dragon-bonus", "dragon_bonus_player"): (0.026517, "Wizard of Odds: return -0.026517"),
    ("dragon-bonus", "dragon_bonus_banker"): (0.093731, "Wizard of Odds: return -0.093731"),
    ("lucky-6", "lucky_6"): (0.166836, "Wizard of Odds, Macau pay table: -0.166836"),
    ("evolution", "perfect_pair"): (0.066235, "Wizard of Odds, Perfect Pairs v2: -0.066235"),
    **{
        ("egalite", f"super_tie_{k}"): (edge, "Wizard of Odds, Egalité")
        for k, edge in enumerate(
            [
                0.124527,
                0.114150,
                0.095412,
                0.105243,
                0.121401,
                0.118732,
                0.114952,
                0.063899,
                0.110669,
                0.106348,
            ]
        )
    },
}

NEW_TABLES = ("ez-baccarat", "dragon-bonus", "tie-9", "lucky-6", "egalite", "evolution")


def _digits(x: float) -> int:
    """Decimal places a published figure is given to (0.07611 -> 5)."""
    return len(f"{x:.10f}".rstrip("0").split(".")[1])


def _cli_odds(name: str, capsys) -> dict[str, dict]:
    assert main(["odds", "--rules", name, "--json"]) == 0
    return {r["bet"]: r for r in json.loads(capsys.readouterr().out)}


@pytest.mark.parametrize("name", NEW_TABLES)
def test_each_new_table_is_a_file_the_user_path_loads(name: str) -> None:
    assert (RULES_DIR / f"{name}.toml").is_file()
    t = load_table(RULES_DIR / f"{name}.toml")  # by path, as a user's own file
    assert t == load_table(name)
    assert t.source.startswith("https://wizardofodds.com/")
    assert any("house edge" in n or "return" in n for n in t.notes)


@pytest.mark.parametrize(("table", "bet"), sorted(PUBLISHED))
def test_cli_json_gives_the_published_house_edge(table: str, bet: str, capsys) -> None:
    published, where = PUBLISHED[(table, bet)]
    got = _cli_odds(table, capsys)[bet]["house_edge"]
    # equal to the published figure to every digit it is published with (4 or more
    # significant digits)
    assert round(got, _digits(published)) == pytest.approx(published, abs=1e-12), where


def test_a_user_file_with_a_new_mix_needs_no_code(tmp_path: Path, capsys) -> None:
    """Evolution's 'both hands' figure changed over time: 200:1 is priced by the same code,
    checked against an enumeration of the first four cards written here."""
    text = (RULES_DIR / "evolution.toml").read_text(encoding="utf-8")
    path = tmp_path / "evolution-200.toml"
    path.write_text(
        text.replace('name = "evolution"', 'name = "evolution-200"').replace(
            "both = 250", "both = 200"
        ),
        encoding="utf-8",
    )
    got = bet_odds(load_table(path)).filter(bet="perfect_pair")["house_edge"].item()
    # P(a given hand is a suited pair) and P(both) off a full 8-deck shoe, by counting
    n, t = 8, 416
    one = Fraction(52 * n * (n - 1), t * (t - 1))
    same_card = 52 * n * (n - 1) * (n - 2) * (n - 3)
    other_card = 52 * n * (n - 1) * 51 * n * (n - 1)
    both = Fraction(same_card + other_card, t * (t - 1) * (t - 2) * (t - 3))
    ev = 25 * 2 * (one - both) + 200 * both - (1 - (2 * one - both))
    assert got == pytest.approx(float(-ev), abs=1e-12)
    # and with Wizard of Odds' table: 250:1 -> 200:1 gives back 50 x P(both), P(both) =
    # 2,101,008 / 7,379,583,120 deals of four cards
    assert float(-ev) == pytest.approx(0.066235 + 50 * 2_101_008 / 7_379_583_120, abs=5e-7)


def _enumerate_first_six(shoe: list[str]) -> Counter[tuple]:
    """Every ordering of six cards of a small shoe played out: (winner, points, cards)."""
    tally: Counter[tuple] = Counter()
    for perm in itertools.permutations(shoe, 6):
        h = play_hand(iter(perm))
        tally[
            (h.winner, h.player_points, h.banker_points, len(h.player_cards), len(h.banker_cards))
        ] += 1
    return tally


def test_dragon_and_panda_on_a_small_shoe_match_an_enumeration() -> None:
    """The generated odds of the new play bets against play_hand over every deal."""
    from roads_app.bets.odds import counts_from_cards, odds_frame, outcomes

    shoe = ["7s", "Kd", "Qh", "Jc", "3d", "4s", "8h", "5c"]
    tally = _enumerate_first_six(shoe)
    total = sum(tally.values())

    def prob(pred) -> Fraction:
        return Fraction(sum(v for k, v in tally.items() if pred(*k)), total)

    dragon = prob(lambda w, p, b, pc, bc: w == "B" and bc == 3 and b == 7)
    panda = prob(lambda w, p, b, pc, bc: w == "P" and pc == 3 and p == 8)
    lucky2 = prob(lambda w, p, b, pc, bc: w == "B" and b == 6 and bc == 2)
    lucky3 = prob(lambda w, p, b, pc, bc: w == "B" and b == 6 and bc == 3)
    frame = odds_frame(load_table("ez-baccarat"), outcomes(counts_from_cards(shoe)))
    row = {r["bet"]: r for r in frame.iter_rows(named=True)}
    assert row["dragon_7"]["probability"] == pytest.approx(float(dragon), abs=1e-12)
    assert row["panda_8"]["probability"] == pytest.approx(float(panda), abs=1e-12)
    lucky = odds_frame(load_table("lucky-6"), outcomes(counts_from_cards(shoe)))
    ev = lucky.filter(bet="lucky_6")["ev"].item()
    assert ev == pytest.approx(float(12 * lucky2 + 20 * lucky3 - (1 - lucky2 - lucky3)), abs=1e-12)
    assert dragon + panda + lucky2 + lucky3 > 0  # the shoe can make these hands


def test_super_tie_1_is_flagged_where_odds_are_shown(capsys) -> None:
    rows = _cli_odds("winbox", capsys)
    assert "over 50%" in rows["super_tie_1"]["flag"]
    assert all(r["flag"] is None for b, r in rows.items() if b != "super_tie_1")
    assert main(["odds", "--rules", "winbox"]) == 0
    text = capsys.readouterr().out
    line = next(x for x in text.splitlines() if x.startswith("Super Tie 1 "))
    assert "CHECK" in line


def test_two_way_and_three_way_are_priced(capsys) -> None:
    rows = _cli_odds("entwinetech", capsys)
    pair = rows["player_pair"]["house_edge"]
    assert rows["two_way"]["house_edge"] == pytest.approx(pair, abs=1e-15)
    # one stake on each of three bets: the edge per unit staked is their mean
    three = (2 * pair + rows["tie"]["house_edge"]) / 3
    assert rows["three_way"]["house_edge"] == pytest.approx(three, abs=1e-15)
    assert rows["three_way"]["name"] == "3-Way"


def test_all_tables_list_cards_by_the_card_module() -> None:
    # guard for the shoes above: every code is a real card
    assert all(c in cards.ALL_CARDS for c in ["7s", "Kd", "Qh", "Jc", "3d", "4s", "8h", "5c"])

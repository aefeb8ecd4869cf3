"""Rules files: the shipped tables match the spec, and every bad file says what is wrong."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from roads_app.bets import tables as rules
from roads_app.bets.spec import KINDS
from roads_app.bets.tables import BET_IDS, SHORTCUTS, load_table
from roads_app.errors import RoadsAppError, RulesError

# Payouts as printed in the table-variant table of docs/rules.md, written out by hand.
SPEC_PAYOUTS: dict[str, dict[str, float]] = {
    "classic": {"player": 1, "banker": 0.95, "tie": 8},
    "winbox": {
        "player": 1,
        "banker": 0.95,
        "tie": 8,
        "player_pair": 11,
        "banker_pair": 11,
        "big": 0.5,
        "small": 1.5,
        "any_pair": 5,
        "perfect_pair": 25,
        "player_natural": 4,
        "banker_natural": 4,
        "super_tie_0": 125,
        "super_tie_1": 80,
        "super_tie_2": 190,
        "super_tie_3": 170,
        "super_tie_4": 100,
        "super_tie_5": 90,
        "super_tie_6": 40,
        "super_tie_7": 40,
        "super_tie_8": 70,
        "super_tie_9": 70,
    },
    "asian-live": {
        "player": 1,
        "banker": 0.95,
        "tie": 8,
        "player_pair": 11,
        "banker_pair": 11,
        "big": 0.54,
        "small": 1.5,
    },
    "entwinetech": {"player": 1, "banker": 0.95, "tie": 8, "player_pair": 11, "banker_pair": 11},
}
SPEC_PAYOUTS["winbox-no-commission"] = {**SPEC_PAYOUTS["winbox"], "banker": 1, "super_6": 12}

SOURCES = {
    "classic": "000_1150d3b8e18c4300.txt",
    "winbox": "001_9367dbfe39eb0ba0.txt",
    "winbox-no-commission": "001_9367dbfe39eb0ba0.txt",
    "asian-live": "002_8c15292b6a13f793.txt",
    "entwinetech": "003_d47a5fc7e55c0cc9.txt",
}

# Seed 001's notes: Super Tie after 25, Big/Small after 20, Naturals after 50, pairs after 45.
WINBOX_CLOSING = {
    **{f"super_tie_{k}": 25 for k in range(10)},
    "big": 20,
    "small": 20,
    "player_natural": 50,
    "banker_natural": 50,
    "player_pair": 45,
    "banker_pair": 45,
    "any_pair": 45,
    "perfect_pair": 45,
}


def test_the_five_seed_tables_are_shipped() -> None:
    assert set(rules.list_tables()) >= set(SPEC_PAYOUTS)


@pytest.mark.parametrize("name", sorted(SPEC_PAYOUTS))
def test_shipped_table_pays_what_the_spec_says(name: str) -> None:
    t = load_table(name)
    assert t.name == name
    assert {b: bet.payout for b, bet in t.bets.items()} == SPEC_PAYOUTS[name]
    assert t.source == SOURCES[name]
    assert t.shoe.decks == 8
    assert 0 < t.limits.min_bet < t.limits.max_bet
    assert len(t.notes) >= 2 and all(n.strip() for n in t.notes)


@pytest.mark.parametrize("name", ["winbox", "winbox-no-commission"])
def test_winbox_bets_close_where_seed_001_says(name: str) -> None:
    t = load_table(name)
    closing = {b: bet.closes_after for b, bet in t.bets.items() if bet.closes_after is not None}
    assert closing == WINBOX_CLOSING


def test_only_no_commission_banker_pays_half_on_six() -> None:
    assert dict(load_table("winbox-no-commission").bets["banker"].payouts) == {
        "win": 1.0,
        "six": 0.5,
    }
    for name in ("classic", "winbox", "asian-live", "entwinetech"):
        pays = load_table(name).bets["banker"].payouts
        assert pays["six"] == pays["win"]  # a win on 6 pays like any other


def test_shortcuts_only_on_entwinetech() -> None:
    assert dict(load_table("entwinetech").shortcuts) == {
        "two_way": ("banker_pair", "player_pair"),
        "three_way": ("banker_pair", "player_pair", "tie"),
    }
    assert dict(load_table("entwinetech").shortcuts) == dict(SHORTCUTS)
    for name in ("classic", "winbox", "winbox-no-commission", "asian-live"):
        assert not load_table(name).shortcuts


def test_notes_record_the_seed_mistakes_the_spec_lists() -> None:
    def text(name: str) -> str:
        return " ".join(load_table(name).notes).lower()

    assert "8:1" in text("classic") and "tie" in text("classic")
    assert "swap" in text("winbox") and "perfect pair" in text("winbox")
    for name in ("winbox", "winbox-no-commission"):  # seed 001 has the Player draw on 6-7
        assert "player draw on 6 or 7" in text(name) and "stands on 6-7" in text(name)
    assert "misprint" in text("winbox-no-commission") and "180" in text("winbox-no-commission")
    assert "banker on 6" in text("asian-live")
    assert "between" in text("asian-live")  # burn between hands is a documented choice
    assert load_table("asian-live").shoe.burn_between_hands is True
    for name in SPEC_PAYOUTS:
        assert "limits" in text(name)  # the seeds give no figures: each file says so


def test_can_place_gives_each_reason() -> None:
    wb = load_table("winbox")
    assert wb.can_place("big", 20, 10.0) is None
    assert wb.can_place("big", 21, 10.0) == (
        "Big closes after round 20 of the shoe (this is round 21)"
    )
    assert wb.can_place("player", 500, 5000.0) is None
    assert wb.can_place("player", 1, 5000.5) == (
        "stake 5000.5 is outside the table limits (1 to 5,000)"
    )
    assert wb.can_place("super_6", 1, 10.0) == "the Winbox table does not offer Super 6"
    assert wb.can_place("two_way", 1, 10.0) == "the Winbox table does not offer 2-Way"
    assert wb.can_place("bankr", 1, 10.0).startswith("unknown bet 'bankr' (known: player,")
    assert wb.can_place("tie", 1, float("nan")) == "stake NaN is not a number"
    et = load_table("entwinetech")
    assert et.offers("three_way") and not et.offers("big")
    assert et.can_place("three_way", 70, 1.0) is None
    assert et.can_place("three_way", 1, 0.5) == (
        "stake 0.5 is outside the table limits (1 to 5,000)"
    )


GOOD = """\
name = "mine"
title = "Mine"
source = "000_1150d3b8e18c4300.txt"
notes = ["made up"]

[shoe]
decks = 6

[limits]
min_bet = 2
max_bet = 100

[bets.player]
label = "Punto"
payout = 1

[bets.banker]
payout = 0.95
"""

# (what to change in GOOD, the message expected after "<file>: ").
BAD: list[tuple[str, str, str]] = [
    ('name = "mine"', 'name = "yours"', "name 'yours' does not match the file name 'mine'"),
    ('title = "Mine"\n', "", "missing field 'title'"),
    ('source = "000_1150d3b8e18c4300.txt"\n', "", "missing field 'source'"),
    ("max_bet = 100\n", "", "missing field 'limits.max_bet'"),
    ("[shoe]\ndecks = 6\n", "", "missing field 'shoe'"),
    ("decks = 6", "cut = 14", "missing field 'shoe.decks'"),
    ("decks = 6", "decks = 9", "field 'shoe.decks' = 9 is out of range: must be at most 8"),
    ("decks = 6", 'decks = "6"', "field 'shoe.decks' must be a whole number, not '6'"),
    ("decks = 6", "decks = 6\nburn = 1", "field 'shoe.burn' must be true or false"),
    ("decks = 6", "decks = 6\ncut = 500", "[shoe] cut 500 is out of range: 0 to 156 cards"),
    ("[bets.banker]", "[bets.bankr]", "unknown bet 'bankr' (known: player, banker, tie,"),
    (
        "payout = 0.95",
        "payout = -1",
        "field 'bets.banker.payout' = -1 is out of range: must be more than 0",
    ),
    (
        "payout = 0.95",
        "payout = 0",
        "field 'bets.banker.payout' = 0 is out of range: must be more than 0",
    ),
    (
        "payout = 0.95",
        "payout = 1e308",
        "field 'bets.banker.payout' = 1e+308 is out of range: must be at most 10000",
    ),
    ("payout = 0.95", "payout = inf", "field 'bets.banker.payout' must be a finite number"),
    ("payout = 0.95", "payout = nan", "field 'bets.banker.payout' must be a finite number"),
    (
        "max_bet = 100",
        "max_bet = 1e300",
        "field 'limits.max_bet' = 1e+300 is out of range: must be at most 1000000000",
    ),
    (
        "payout = 0.95",
        "payout = { win = 1, sixx = 0.5 }",
        "bet 'banker': no payout key 'sixx' (keys: win, six)",
    ),
    (
        "payout = 0.95",
        "payout = { six = 0.5 }",
        "bet 'banker': payout lacks 'win' (keys: win, six)",
    ),
    (
        "payout = 0.95",
        "payout = { win = 1, six = -0.5 }",
        "field 'bets.banker.payout.six' = -0.5 is out of range: must be more than 0",
    ),
    (
        "[bets.banker]\npayout = 0.95",
        "[bets.lucky_6]\npayout = 12",
        "bet 'lucky_6' pays by outcome: give payout = { ... } with two_cards, three_cards",
    ),
    ("payout = 0.95", 'payout = "0.95"', "field 'bets.banker.payout' must be a number"),
    ("payout = 0.95", "payout = true", "field 'bets.banker.payout' must be a number"),
    ("payout = 0.95", "pay = 0.95", "unknown field 'bets.banker.pay' (allowed: payout, label,"),
    ("payout = 0.95", "", "missing field 'bets.banker.payout'"),
    (
        "payout = 0.95",
        "payout = 0.95\nsix_payout = 0.5",
        "unknown field 'bets.banker.six_payout' (allowed: payout, label, closes_after)",
    ),
    (
        "payout = 1\n",
        "payout = 1\ncloses_after = 0\n",
        "field 'bets.player.closes_after' = 0 is out of range: must be at least 1",
    ),
    (
        "payout = 1\n",
        "payout = 1\ncloses_after = 2.5\n",
        "field 'bets.player.closes_after' must be a whole number, not 2.5",
    ),
    (
        "min_bet = 2",
        "min_bet = 0",
        "field 'limits.min_bet' = 0 is out of range: must be more than 0",
    ),
    ("min_bet = 2", "min_bet = 200", "limits.max_bet 100 is below limits.min_bet 200"),
    (
        "min_bet = 2",
        "min_bet = 2\nmax = 5",
        "unknown field 'limits.max' (allowed: min_bet, max_bet)",
    ),
    ('notes = ["made up"]', "notes = [1]", "field 'notes[0]' must be text, not 1"),
    ('notes = ["made up"]', 'note = ["x"]', "unknown field 'note' (allowed: name, title,"),
    ('title = "Mine"', 'title = "Mine', "not valid TOML: "),
    (
        "[bets.player]",
        "[shortcuts]\ntwo_way = ['player', 'tie']\n[bets.player]",
        "shortcut 'two_way' places 'tie', which the table does not offer (offered: player, banker)",
    ),
    (
        "[bets.player]",
        "[shortcuts]\nplayer = ['banker']\n[bets.player]",
        "shortcut 'player' has the name of a bet",
    ),
    (
        "[bets.player]",
        "[shortcuts]\ntwo = []\n[bets.player]",
        "shortcut 'two' must be a non-empty list of bet ids",
    ),
]


@pytest.mark.parametrize(("old", "new", "message"), BAD, ids=[m for *_, m in BAD])
def test_each_bad_rules_file_says_what_is_wrong(
    tmp_path: Path, old: str, new: str, message: str
) -> None:
    assert old in GOOD
    path = tmp_path / "mine.toml"
    path.write_text(GOOD.replace(old, new, 1))
    with pytest.raises(RulesError) as err:
        load_table(path)
    text = str(err.value)
    assert text.startswith(f"{path}: {message}")
    assert "\n" not in text


def test_toml_syntax_error_gives_its_line(tmp_path: Path) -> None:
    path = tmp_path / "mine.toml"
    path.write_text(GOOD.replace("max_bet = 100", "max_bet = = 100"))
    line = GOOD.splitlines().index("max_bet = 100") + 1
    with pytest.raises(RulesError, match=rf"not valid TOML: .*line {line}\b"):
        load_table(path)


def test_bets_may_not_be_empty(tmp_path: Path) -> None:
    text = GOOD[: GOOD.index("[bets.player]")] + "[bets]\n"
    (tmp_path / "mine.toml").write_text(text)
    with pytest.raises(RulesError, match="'bets' is empty"):
        load_table(tmp_path / "mine.toml")


def test_missing_table_names_the_known_ones() -> None:
    with pytest.raises(RulesError) as err:
        load_table("no-such-table")
    assert str(err.value).startswith("rules/no-such-table.toml: no such rules file (tables: ")
    assert "classic" in str(err.value)


def test_unreadable_bytes_are_a_rules_error(tmp_path: Path) -> None:
    path = tmp_path / "mine.toml"
    path.write_bytes(b"\xff\xfe\x00title")
    with pytest.raises(RoadsAppError, match=re.escape(f"{path}: cannot be read")):
        load_table(path)


payouts = st.floats(min_value=0.01, max_value=1000, allow_nan=False).map(lambda x: round(x, 2))


@settings(max_examples=40, deadline=None)
@given(
    chosen=st.dictionaries(
        st.sampled_from([b for b in BET_IDS if len(KINDS[b].required) == 1]),
        st.tuples(payouts, st.none() | st.integers(1, 80)),
        min_size=1,
    ),
    decks=st.integers(1, 8),
    limits=st.tuples(payouts, payouts).map(sorted),
)
def test_any_valid_file_loads_back_as_written(
    tmp_path_factory, chosen: dict, decks: int, limits: list[float]
) -> None:
    lines = [
        'title = "T"',
        'source = "s.txt"',
        f"[shoe]\ndecks = {decks}",
        f"[limits]\nmin_bet = {limits[0]}\nmax_bet = {limits[1]}",
    ]
    for bid, (pay, closes) in chosen.items():
        lines.append(f"[bets.{bid}]\npayout = {pay}")
        if closes is not None:
            lines.append(f"closes_after = {closes}")
    path = tmp_path_factory.mktemp("r") / "t.toml"
    path.write_text("\n".join(lines) + "\n")
    t = load_table(path)
    assert t.shoe.decks == decks and (t.limits.min_bet, t.limits.max_bet) == tuple(limits)
    assert list(t.bets) == list(chosen)
    for bid, (pay, closes) in chosen.items():
        assert (t.bets[bid].payout, t.bets[bid].closes_after) == (pay, closes)
        assert t.can_place(bid, closes or 1, limits[0]) is None
        if closes is not None:
            assert "closes after" in (t.can_place(bid, closes + 1, limits[0]) or "")


def test_tables_pickle_hash_and_replace() -> None:
    """Worker processes and caches need tables that pickle; replace() keeps them read-only."""
    import dataclasses
    import pickle

    t = load_table("entwinetech")
    back = pickle.loads(pickle.dumps(t))
    assert back == t and hash(back) == hash(t)
    assert back.shortcuts["three_way"] == ("banker_pair", "player_pair", "tie")
    changed = dataclasses.replace(
        t, bets={**t.bets, "tie": dataclasses.replace(t.bets["tie"], payouts={"win": 9})}
    )
    assert changed != t and changed.bets["tie"].payout == 9
    with pytest.raises(TypeError):
        changed.bets["tie"] = t.bets["tie"]  # type: ignore[index]


def test_rules_command_lists_shows_and_checks(tmp_path: Path, capsys) -> None:
    from roads_app.cli import main

    assert main(["rules"]) == 0
    listed = capsys.readouterr().out.splitlines()
    assert [line.split()[0] for line in listed] == rules.list_tables()
    assert main(["rules", "winbox-no-commission"]) == 0
    shown = capsys.readouterr().out
    assert "  banker              Banker              1:1, six 0.5:1\n" in shown
    assert "  super_tie_1         Super Tie 1         80:1, closes after round 25\n" in shown
    bad = tmp_path / "mine.toml"
    bad.write_text(GOOD.replace("payout = 0.95", "payout = -1"))
    assert main(["rules", str(bad)]) == 2
    err = capsys.readouterr().err
    assert err == (
        f"error: {bad}: field 'bets.banker.payout' = -1 is out of range: must be more than 0\n"
    )


@given(st.sets(st.sampled_from(["classic", "winbox", "asian-live", "mine", "z"]), min_size=1))
def test_a_page_falls_back_to_the_default_table_if_it_is_there(names: set[str]) -> None:
    """One default table (`DEFAULT_TABLE`): a new shoe's, an API body's, the fallback's."""
    from roads_app.api.models import ShoeCreate
    from roads_app.bets.tables import fallback_table
    from roads_app.game.rounds import ShoeMeta
    from roads_app.places import DEFAULT_TABLE

    listed = sorted(names)
    got = fallback_table(listed)
    assert got == (DEFAULT_TABLE if DEFAULT_TABLE in names else listed[0])
    assert ShoeMeta().rules == ShoeCreate().table == DEFAULT_TABLE
    assert load_table(DEFAULT_TABLE).name == DEFAULT_TABLE

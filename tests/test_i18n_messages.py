"""The engine's and the store's messages in the page's language.

* Every message key the code makes is in every language, with the same fields, and the
  Chinese names the same numbers as the English.
* A message is its English text (CLI, API and JSON keep English); its Chinese comes
  from the same key and fields, nested parts included, also after a pickle.
* A reason the settlement writes in a column reads back into the message it was made
  from (any bets, any rounds: hypothesis), so the bet history can say it in Chinese.
* On the Chinese scoreboard (AppTest, the real entry script) real refusals show in
  Chinese with their numbers: a stake over the bankroll, a bet past its closing round,
  a bet the entry cannot settle, a voided round, a bad card code, an impossible hand.
"""

from __future__ import annotations

import dataclasses
import pickle
import re
from collections.abc import Callable
from pathlib import Path

import polars as pl
import pytest
from hypothesis import given, settings
from hypothesis import strategies as hs
from streamlit.testing.v1 import AppTest

from roads_app import i18n, messages
from roads_app.bets import ledger as BL
from roads_app.bets.settlement import read_reason, settle
from roads_app.bets.tables import BET_IDS, SHORTCUTS, load_table
from roads_app.errors import BetError, CardError, DrawingRuleError, RoadsAppError, RoundError
from roads_app.game.rounds import add_cards, apply_keys, round_by_points, rounds_from_winners
from roads_app.game.shoe import deal_shoe
from roads_app.ui import session
from tests import storehelp as sh
from tests.apphelp import open_tab
from tests.shown import shown
from tests.test_i18n import APP, ROOT, _english

MSG_KEYS = sorted(k for k in i18n.catalogue()["en"] if k.startswith("msg_"))
NUMBER = re.compile(r"\d+")


def _numbers(text: str) -> list[str]:
    return sorted(NUMBER.findall(text))


# --- the catalogue ------------------------------------------------------------------------


def test_every_message_the_code_makes_is_in_every_language() -> None:
    made: set[str] = set()
    for path in (ROOT / "roads_app").rglob("*.py"):
        text = path.read_text(encoding="utf-8")
        made |= set(re.findall(r"""Message\(\s*["']([a-z_0-9]+)["']""", text))
        made |= set(re.findall(r"""Message\.named\([^,]+,\s*["']([a-z_0-9A-Z]+)["']""", text))
    made |= {f"msg_data_{d}" for d in ("winner", "points", "cards", "naturals", "pairs")}
    assert len(made) > 50  # the scan found the domain's messages
    for lang, words in i18n.catalogue().items():
        assert sorted(made - set(words)) == [], lang
    assert set(messages.ROW_REASONS + messages.ROW_PARTS) <= set(MSG_KEYS)


@pytest.mark.parametrize("key", MSG_KEYS)
def test_each_message_has_the_same_fields_and_numbers_in_chinese(key: str) -> None:
    """Fields filled with distinct numbers: both languages show each of them, and the
    numbers the template itself states (0 to 9, 2 or 3 cards) too."""
    en, zh = i18n.catalogue()["en"][key], i18n.catalogue()["zh"][key]
    assert set(messages.FIELD.findall(en)) == set(messages.FIELD.findall(zh)), key
    fields = {f: str(700 + i) for i, f in enumerate(sorted(set(messages.FIELD.findall(en))))}
    said_en, said_zh = i18n.word(key, "en", **fields), i18n.word(key, "zh", **fields)
    assert said_zh != said_en
    assert _numbers(said_zh) == _numbers(said_en), (said_en, said_zh)


def test_a_message_is_its_english_and_says_itself_in_chinese() -> None:
    where = messages.Message("msg_round", n=12)
    m = messages.Message(
        "msg_round_lacks",
        where=where,
        needs=messages.Message("msg_data_pairs"),
        bet=messages.Message.named("Egalité", "bet_tie"),
    )
    assert m == "round 12 lacks pair flags or cards to settle Egalité"
    assert isinstance(m, str) and f"{m}" == m and str(m) == m
    for copy in (m, pickle.loads(pickle.dumps(m))):
        zh = copy.text("zh")
        assert zh == "第 12 局缺少对子标记或牌，无法结算和", zh
        assert copy.text("xx") == m  # an unknown language: English
    with pytest.raises(KeyError, match="msg_nope"):
        messages.Message("msg_nope")


def test_errors_carry_their_message() -> None:
    cases: list[tuple[type[RoadsAppError], Callable[[], object]]] = [
        (CardError, lambda: add_cards(rounds_from_winners(""), "9x Kd", "5h Kc")),
        (DrawingRuleError, lambda: add_cards(rounds_from_winners(""), "9s Kd 2c", "5h Kc")),
        (RoundError, lambda: round_by_points(3, 4, winner="P")),
    ]
    for kind, act in cases:
        with pytest.raises(kind) as info:
            act()
        e = info.value
        assert e.message == str(e) and isinstance(e.message, messages.Message)
        zh = messages.say(e, "zh")
        assert zh != str(e) and not _english(zh), zh
        assert _numbers(zh) == _numbers(str(e))
    _, notes = apply_keys(rounds_from_winners(""), ["u"])
    assert notes == ["nothing to undo"] and messages.say(notes[0], "zh") == "没有可撤销的"
    assert messages.say(RoundError("plain text"), "zh") == "plain text"


def test_the_ledgers_refusals_say_themselves_in_chinese() -> None:
    bets = BL.place_many(BL.empty_bets(), [("banker", 100.0)], round_no=3)
    why = BL.beyond_bankroll(bets, 5000, 3, 995.0)
    assert why == "not enough bankroll: 5,000 asked, 895 left (100 already on round 3)"
    assert messages.say(why, "zh") == "本金不足：下注 5,000，剩余 895（第 3 局已下注 100）"
    closed = load_table("winbox").can_place("big", 21, 10.0)
    assert messages.say(closed, "zh") == "大在本靴第 20 局后停止接受（这是第 21 局）"
    with pytest.raises(BetError) as info:
        BL.place(BL.empty_bets(), "big", 10.0, round_no=21, table=load_table("winbox"))
    assert str(info.value) == "cannot bet big on round 21: " + closed
    assert messages.say(info.value, "zh") == "第 21 局不能投注 大：" + messages.say(closed, "zh")


# --- reasons written in a column read back -------------------------------------------------

BETS = [*BET_IDS, *SHORTCUTS, "nonsense"]


@settings(max_examples=40, deadline=None)
@given(
    winners=hs.text(alphabet="BPT", max_size=8),
    rows=hs.lists(
        hs.tuples(
            hs.integers(1, 10),
            hs.sampled_from(BETS),
            hs.sampled_from([0.5, 1.0, 25.0, 20_000.0, float("nan")]),
        ),
        min_size=1,
        max_size=12,
    ),
    table=hs.sampled_from(["classic", "winbox", "egalite"]),
    closes=hs.sampled_from([None, 3, 8]),
    multi=hs.booleans(),
)
def test_every_settlement_reason_reads_back_into_its_message(
    winners: str,
    rows: list[tuple[int, str, float]],
    table: str,
    closes: int | None,
    multi: bool,
) -> None:
    t = load_table(table)
    if closes is not None:
        bets = {k: dataclasses.replace(b, closes_after=closes) for k, b in t.bets.items()}
        t = dataclasses.replace(t, bets=bets)
    rounds = rounds_from_winners(winners)
    bets = pl.DataFrame(
        rows, schema={"round": pl.Int64, "bet": pl.String, "stake": pl.Float64}, orient="row"
    )
    if multi:
        rounds = rounds.with_columns(shoe=pl.lit(4))
        bets = bets.with_columns(shoe=pl.lit(4))
    out = settle(rounds, bets, t, voided=[(4, 2)] if multi else [2])
    for reason in out["reason"].drop_nulls().unique():
        m = read_reason(reason, t)
        assert m is not None and m == reason, reason
        zh = m.text("zh")
        bet = m.fields.get("bet", "")  # a bet's name may hold a number (2-Way, 和 9)
        en_rest, zh_rest = reason.replace(str(bet), " "), zh.replace(messages.say(bet, "zh"), " ")
        assert _numbers(zh_rest) == _numbers(en_rest), (reason, zh)
        if "nonsense" not in reason:  # an unknown bet lists the known ids as they are
            left = _english(zh.replace(t.title, ""))  # a table's title is data
            assert left in ([], ["NaN"]), (reason, zh)  # so is the stake a person gave
    assert messages.parse("some text no template makes") is None


# --- the Chinese scoreboard ----------------------------------------------------------------


@pytest.fixture
def data(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    folder = tmp_path / "data"
    monkeypatch.setenv(session.DATA_ENV, str(folder))
    return folder


def _open(data: Path, rounds: pl.DataFrame, rules: str = "classic") -> AppTest:
    meta = deal_shoe(3).meta.__class__(name="周五夜", rules=rules)
    sh.save_shoe(rounds, meta, data)
    at = AppTest.from_file(APP, default_timeout=60)
    at.query_params[session.URL_PARAM] = meta.id
    at.query_params["lang"] = "zh"
    at.run()
    assert not at.exception, at.exception
    return at


def _chinese(text: str, *numbers: int) -> str:
    """``text`` if it has no English word left and names each of ``numbers``."""
    assert text and not _english(text), text
    for n in numbers:
        assert str(n) in NUMBER.findall(text), (n, text)
    return text


def test_closing_round_and_bankroll_refusals_in_chinese(data: Path) -> None:
    at = _open(data, deal_shoe(3).rounds.head(20), rules="winbox")
    big = at.button(key="bets_bet_big")
    assert big.disabled
    assert _chinese(big.help, 20, 21) == "大在本靴第 20 局后停止接受（这是第 21 局）"
    at.number_input(key="bets_start").set_value(10.0).run()  # a 25 chip is more than that
    player = at.button(key="bets_bet_player")
    assert player.disabled and _chinese(player.help, 25, 10).startswith("本金不足")
    shown = [c.value for c in at.caption if "本金不足" in c.value]
    assert shown and _chinese(shown[0].split(". ", 1)[-1], 25, 10)


def test_a_bet_the_entry_cannot_settle_and_a_void_in_the_bet_history(data: Path) -> None:
    # round 1 by its result alone: the shoe is not recorded by cards, so it takes a
    # result without cards (a shoe recorded by cards refuses one: `check_by_cards`)
    mixed = pl.concat([rounds_from_winners("B"), deal_shoe(3).rounds.head(19)])
    at = _open(
        data, mixed.with_columns(round=pl.int_range(1, 21, dtype=pl.Int32)), rules="evolution"
    )
    at.session_state["bets_entry_mode"] = "cards"  # bets that need the cards offered
    at.run()
    at.button(key="bets_bet_player_pair").click().run()
    at.button(key="btn_P").click().run()  # round 21 entered by its winner only
    at.button(key="bets_bet_banker").click().run()
    at.button(key="bets_void").click().run()  # round 22 cancelled at the table
    assert not at.exception, at.exception
    notes = {
        str(v)
        for frame in at.dataframe
        for col in frame.value.columns
        if col == i18n.word("col_note", "zh")
        for v in frame.value[col]
    }
    assert "第 21 局缺少对子标记或牌，无法结算闲对" in notes, notes
    assert "该局作废：退回注额" in notes, notes
    for note in notes - {""}:
        _chinese(note)


@pytest.mark.parametrize(
    ("player", "banker", "numbers", "zh"),
    [
        ("9x Kd", "5h Kc", (9,), "'9x' 没有花色 'x'：花色为 s h d c"),
        ("9s Kd 2c", "5h Kc", (9,), "闲天牌 9 点：两家都以两张牌停牌，不补第三张"),
        ("2s 3d", "5h Kc", (5,), "闲两张牌 5 点，必须补牌（闲 0-5 点补牌）"),
    ],
)
def test_a_refused_hand_by_cards_says_why_in_chinese(
    data: Path, player: str, banker: str, numbers: tuple[int, ...], zh: str
) -> None:
    at = open_tab(_open(data, deal_shoe(3).rounds.head(5)), "cards", "zh")
    at.text_input(key="cards_player").input(player)
    at.text_input(key="cards_banker").input(banker)
    at.button(key=f"FormSubmitter:cards_form-{i18n.word('add_by_cards', 'zh')}").click().run()
    assert not at.exception, at.exception
    errors = [shown(e.value) for e in at.error]
    assert any(zh in e for e in errors), errors
    for e in errors:
        _chinese(e, *numbers)


def test_a_shoe_that_cannot_be_opened_says_why_in_chinese(data: Path) -> None:
    """The store's refusal, with the server's folder named as the page names it."""
    missing = deal_shoe(4).meta.id
    sh.save_shoe(deal_shoe(3).rounds.head(2), deal_shoe(3).meta, data)  # a library to look in
    at = AppTest.from_file(APP, default_timeout=60)
    at.query_params[session.URL_PARAM] = missing
    at.query_params["lang"] = "zh"
    at.run()
    assert not at.exception, at.exception
    errors = [shown(e.value) for e in at.error]
    said = f"无法打开牌靴 '{missing}'：{missing}：数据文件夹中没有这个编号的牌靴"
    assert errors == [said], errors

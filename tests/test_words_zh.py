"""Words a Chinese page must not leave out or leave in English (issue 26 item 10): the
backtest summary says the bet and the seed, strategy descriptions are whole sentences
in plain text. (The pages themselves are walked in the browser: test_panel_ux.)"""

from __future__ import annotations

import re

import pytest
import streamlit as st

from roads_app.bets.tables import load_table
from roads_app.sim import backtest, strategies
from roads_app.ui.backtest_page import summary_caption


@pytest.fixture
def chinese():
    st.session_state["lang"] = "zh"
    yield
    del st.session_state["lang"]


def test_the_chinese_backtest_summary_names_the_bet_and_the_seed(chinese):
    strategy = strategies.make_strategy("martingale", bet="banker")
    result = backtest.backtest(
        backtest.Betting(strategy, strategies.Settings(), load_table("classic")),
        backtest.Simulated(41, 3),
        backtest.RunOptions(engine="plain"),
    )
    caption = summary_caption(result, 41)
    assert "押庄" in caption  # "on banker"
    assert "种子 41" in caption and "3 靴" in caption
    streak = strategies.make_strategy("against-streak", after=4, progression="fibonacci")
    result = backtest.backtest(
        backtest.Betting(streak, strategies.Settings(), load_table("classic")),
        backtest.Simulated(2, 2),
        backtest.RunOptions(engine="plain"),
    )
    caption = summary_caption(result, 2)
    assert "连胜 4 局后" in caption and "斐波那契注码" in caption
    assert re.findall(r"[A-Za-z]{2,}", caption) == ["Classic"], caption  # the table title


@pytest.mark.parametrize("name", strategies.STRATEGY_NAMES)
def test_every_strategy_description_is_a_whole_plain_sentence(name):
    text = strategies.describe(name)
    assert text.endswith((".", ")")), text  # not cut off mid-sentence ("after a loss,")
    assert "``" not in text and "*" not in text  # no raw markup

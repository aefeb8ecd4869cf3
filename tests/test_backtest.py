"""Backtests: honest EV against the exact edge, money rules, saved shoes, bad settings, CLI."""

from __future__ import annotations

import io
import json
import math
import os
import statistics
import subprocess
import sys
from pathlib import Path

import numpy as np
import polars as pl
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from roads_app.bets.tables import Table, load_table
from roads_app.cli import main
from roads_app.errors import BetError, RoadsAppError, StrategyError
from roads_app.game.rounds import ShoeMeta, rounds_from_winners
from roads_app.game.shoe import deal_shoe
from roads_app.render.verdict import verdict_text
from roads_app.sim import backtest, exact, kernel, report, strategies
from roads_app.store.library import saved_rounds
from tests.shown import shown
from tests.storehelp import save_shoe

# House edges from docs/rules.md ( "Reference figures", 8 decks off the top).
SPEC_EDGE = {
    "banker": 0.010579,
    "player": 0.012351,
    "tie": 0.143596,
    "player_pair": 0.103614,
}
RICH = strategies.Settings(bankroll=1e12, unit=10.0)  # never ruined: every hand is bet


def _flat(bet: str, rules: str = "winbox", shoes: int = 20_000, seed: int = 7) -> backtest.Backtest:
    return backtest.backtest(
        backtest.Betting(strategies.make_strategy("flat", bet=bet), RICH, load_table(rules)),
        backtest.Simulated(seed, shoes),
    )


def test_flat_banker_measured_ev_agrees_with_the_exact_edge_within_its_95pct_ci():
    result = _flat("banker")
    s = result.summary
    lo, hi = s.ci
    assert lo <= -SPEC_EDGE["banker"] <= hi
    assert s.exact_ev == pytest.approx(-SPEC_EDGE["banker"], abs=5e-6)
    assert hi - lo < 0.004  # 20,000 shoes pin it to a few tenths of a percent
    assert s.verdict.finding is backtest.Finding.WITHIN
    assert "Within chance of the house edge" in verdict_text(s.verdict)
    assert s.hands == s.bets  # a flat bet plays every hand


@pytest.mark.parametrize("bet", ["player", "tie", "player_pair"])
def test_other_flat_bets_agree_with_their_exact_edges(bet: str):
    result = _flat(bet, shoes=40_000, seed=8)
    s, f = result.summary, result.run.per_shoe
    lo, hi = backtest.ratio_ci(f["net"].to_numpy(), f["wagered"].to_numpy(), level=0.999)
    assert lo <= -SPEC_EDGE[bet] <= hi
    assert s.exact_ev == pytest.approx(-SPEC_EDGE[bet], abs=5e-6)


def test_ratio_ci_with_equal_stakes_is_the_t_free_mean_interval():
    rng = np.random.default_rng(3)
    net = rng.normal(-0.01, 1.0, 500)
    wag = np.ones(500)
    lo, hi = backtest.ratio_ci(net, wag)
    half = 1.959964 * statistics.stdev(net.tolist()) / math.sqrt(500)
    assert (lo, hi) == pytest.approx((net.mean() - half, net.mean() + half), rel=1e-5)


def test_verdict_says_beyond_chance_only_when_the_edge_is_outside_the_interval():
    assert "Within chance" in verdict_text(backtest.judge(-0.01, (-0.02, 0.0), -0.0106, 100))
    v = verdict_text(backtest.judge(0.05, (0.01, 0.09), -0.0106, 100))
    assert "Differs beyond chance" in v and "better" in v


@settings(max_examples=25, deadline=None)
@given(
    name=st.sampled_from(["martingale", "paroli", "dalembert", "fibonacci", "1-3-2-6"]),
    bet=st.sampled_from(["banker", "player"]),
    unit=st.sampled_from([1.0, 5.0, 10.0, 25.0]),
    max_bet=st.sampled_from([40.0, 100.0, 500.0]),
    bankroll=st.sampled_from([30.0, 200.0, 1000.0]),
    seed=st.integers(0, 2**32),
)
def test_progressions_never_stake_beyond_the_maximum_or_the_bankroll(
    name, bet, unit, max_bet, bankroll, seed
):
    strategy = strategies.make_strategy(name, bet=bet)
    table = load_table("classic")
    money = strategies.Settings(bankroll=bankroll, unit=unit, max_bet=max_bet)
    resolved = strategies.resolve(money, strategy, table)
    run = backtest.run_fast(strategy, resolved, table, seed=seed, shoes=20, n_paths=20)
    before = np.concatenate([np.full((20, 1), bankroll), run.paths[:, :-1]], axis=1)
    step = np.abs(np.diff(np.concatenate([np.full((20, 1), bankroll), run.paths], axis=1)))
    # Player and Banker pay at most 1:1, so a hand moves the bankroll by at most the stake.
    assert (step <= np.minimum(max_bet, before) + 1e-9).all()
    assert (run.per_shoe["low"] >= 0).all()
    f = run.per_shoe
    ruined = f.filter(pl.col("stop") == "ruin")
    assert (ruined["final"] < resolved.min_bet).all()
    assert (f.filter(pl.col("stop") != "ruin")["low"] >= resolved.min_bet).all()


def test_martingale_is_capped_at_the_table_maximum():
    # Double from 10 after losses: 10, 20, 40, 80 -> capped at 50 from the fourth loss on.
    strategy = strategies.make_strategy("martingale", bet="player")
    table = load_table("classic")
    resolved = strategies.resolve(
        strategies.Settings(bankroll=1e6, unit=10, max_bet=50), strategy, table
    )
    run = backtest.run_fast(strategy, resolved, table, seed=4, shoes=200, n_paths=200)
    step = np.abs(np.diff(run.paths, axis=1))
    assert step.max() == 50.0
    assert set(np.unique(step).tolist()) <= {0.0, 10.0, 20.0, 40.0, 50.0}


def test_stop_loss_and_take_profit_end_a_shoe_at_the_first_crossing():
    strategy = strategies.make_strategy("flat", bet="banker")
    table = load_table("classic")
    money = strategies.Settings(bankroll=1000, unit=10, stop_loss=60, take_profit=40)
    resolved = strategies.resolve(money, strategy, table)
    run = backtest.run_fast(strategy, resolved, table, seed=12, shoes=300, n_paths=300)
    f = run.per_shoe
    assert {"stop-loss", "take-profit"} <= set(f["stop"].cast(pl.String).to_list())
    for i, row in enumerate(f.iter_rows(named=True)):
        path = run.paths[i, : row["hands"]]
        if row["stop"] == "played out":
            assert ((path > 940) & (path < 1040)).all()
            continue
        h = row["stop_hand"] - 1
        assert ((path[:h] > 940) & (path[:h] < 1040)).all()  # inside until the stop
        assert path[h] <= 940 if row["stop"] == "stop-loss" else path[h] >= 1040
        assert (path[h:] == path[h]).all()  # no more bets after it
        assert row["bets"] == row["stop_hand"]


def test_side_bets_respect_their_closing_round():
    # Winbox Big closes after round 20: a flat Big side bet is placed on rounds 1-20 only.
    strategy = strategies.make_strategy("flat", bet="banker")
    table = load_table("winbox")
    resolved = strategies.resolve(
        strategies.Settings(bankroll=1e9, side_bets=(("big", 1),)), strategy, table
    )
    f = backtest.run_fast(strategy, resolved, table, seed=3, shoes=50).per_shoe
    assert (f["wagered_big"] == 20 * 10.0).all()
    assert (f["wagered_banker"] == f["hands"] * 10.0).all()


def test_pattern_strategies_sit_out_until_the_road_allows_a_bet():
    table = load_table("classic")
    rounds = deal_shoe(21, table.shoe, 0).rounds
    winners = rounds["winner"].cast(pl.String).to_list()
    first_bp = next(i for i, w in enumerate(winners) if w != "T")
    for name, kw in [("follow-last", {}), ("against-streak", {"after": 2})]:
        strategy = strategies.make_strategy(name, **kw)
        resolved = strategies.resolve(strategies.Settings(bankroll=1e9), strategy, table)
        (ints, *_), path, _ = backtest.play_shoe(rounds, strategy, resolved, table)
        assert path[first_bp] == 1e9  # no bet before the first result decides a side
        # follow-last bets every hand after the first B/P result
        if name == "follow-last":
            assert ints[1] == len(winners) - first_bp - 1


def test_json_reports_hands_wagered_net_ev_and_ci(capsys):
    code = main(
        [
            "backtest",
            "--strategy",
            "flat",
            "--bet",
            "banker",
            "--shoes",
            "30",
            "--seed",
            "5",
            "--rules",
            "classic",
            "--json",
        ]
    )
    assert code == 0
    out = json.loads(capsys.readouterr().out)
    table = load_table("classic")
    assert out["hands"] == sum(deal_shoe(5, table.shoe, k).rounds.height for k in range(30))
    assert out["wagered"] == out["hands"] * 10.0
    lo, hi = out["ci"]
    assert out["ev"] == pytest.approx(out["net"] / out["wagered"])
    assert lo < out["ev"] < hi


def test_a_first_run_says_it_is_compiling_the_engine(tmp_path: Path):
    # An empty Numba cache is a new install: the bar's first words say why it waits; a
    # run small enough for the interpreted engine does not wait for a compile.
    large = kernel.PLAIN_UP_TO + 1
    code = (
        "import sys; from roads_app.sim.backtest import progress_bar; "
        "from roads_app.ui.backtest_page import waiting_text; "
        f"bar = progress_bar(sys.stderr); bar(0, {large}); bar.close(); "
        "print(waiting_text(True, None)); print(waiting_text(True, 'head:6379')); "
        f"print(waiting_text(True, None, {large})); print(waiting_text(True, None, 100)); "
        "bar = progress_bar(sys.stderr); bar(0, 100); bar.close()"
    )
    env = {**os.environ, "NUMBA_CACHE_DIR": str(tmp_path)}
    cold = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True)
    bars = [line for line in cold.stderr.splitlines() if "shoes/s" in line]
    small = [line for line in bars if "/100 " in line]  # the bar of 100 shoes
    assert small and all(line.startswith("starting") for line in small), cold.stderr
    large = [line for line in bars if line not in small]
    assert large and all(line.startswith(backtest.COMPILING) for line in large), cold.stderr
    page, page_cluster, page_large, page_small = cold.stdout.splitlines()  # before any shoe
    assert page == page_large == "Compiling the engine, first run only…"
    assert page_cluster == "Sending the shoes to the Ray cluster (head:6379)…"
    assert page_small == "Starting…"
    # compiled (or loaded) in this process now: a large run's parallel loop
    kernel.run_fast(kernel.make_plan(*_flat_parts()), 1, 2, parallel=True)
    assert not kernel.needs_compile()
    warm = io.StringIO()
    bar = backtest.progress_bar(warm)
    bar(0, 100)
    bar(100, 100)
    assert backtest.COMPILING not in warm.getvalue() and "starting" in warm.getvalue()
    from roads_app.ui.backtest_page import waiting_text

    assert waiting_text(True, None) == "Starting…"
    assert "backtest: 100%" in warm.getvalue()


@pytest.mark.parametrize("name", strategies.STRATEGY_NAMES)
def test_a_new_installs_small_run_reports_the_compiled_engines_summary_to_the_bit(
    name: str, monkeypatch: pytest.MonkeyPatch
):
    # Before the engine and the exact sums are in the cache, a small run is answered by
    # their own source interpreted: the command's JSON is the compiled one's, bit for bit
    # (all but the time it took), for every strategy the command offers.
    table = load_table("winbox")  # a pair bet settles on the pair cells
    money = strategies.Settings(stop_loss=400.0, side_bets=(("player_pair", 1.0),))
    betting = backtest.Betting(strategies.make_strategy(name), money, table)
    options = backtest.RunOptions(rows=False)

    def document(compiled: bool) -> dict:
        with monkeypatch.context() as m:
            m.setattr(kernel, "runs_compiled", lambda shoes: compiled)
            m.setattr(exact, "runs_interpreted", lambda kernel, small: not compiled)
            out = backtest.backtest(betting, backtest.Simulated(3, 300), options).to_dict(str)
        return {k: v for k, v in out.items() if k not in ("seconds", "hands_per_second")}

    assert json.dumps(document(False)) == json.dumps(document(True))


def _flat_parts() -> tuple[strategies.Strategy, strategies.Resolved, Table]:
    strategy = strategies.make_strategy("flat", bet="banker")
    table = load_table("classic")
    return strategy, strategies.resolve(strategies.Settings(), strategy, table), table


def test_long_runs_draw_a_progress_bar_on_stderr(capsys):
    code = main(
        ["backtest", "--strategy", "flat", "--shoes", str(backtest.PROGRESS_FROM), "--json"]
    )
    assert code == 0
    captured = capsys.readouterr()
    assert "backtest: 100%" in captured.err and " shoes" in captured.err
    json.loads(captured.out)  # stdout stays clean JSON


@pytest.mark.parametrize(
    ("args", "fragment"),
    [
        (["--strategy", "nope"], "unknown strategy 'nope'"),
        (["--strategy", "flat", "--unit", "-5"], "argument --unit: -5 is out of range"),
        (["--strategy", "flat", "--min-bet", "50", "--max-bet", "20"], "minimum 50 is above"),
        (["--strategy", "flat", "--bet", "bigg"], "unknown bet 'bigg'"),
        (["--strategy", "flat", "--bet", "big"], "not offer Big"),
        (["--strategy", "flat", "--unit", "20000"], "outside the table limits"),
        (["--strategy", "flat", "--bankroll", "0.5"], "below the table minimum"),
        (["--strategy", "flat", "--stop-loss", "0"], "argument --stop-loss: 0 is out of"),
        (["--strategy", "flat", "--side", "tie:abc"], "not a number"),
        (["--strategy", "flat", "--side", "super_6"], "not offer Super 6"),
        (["--strategy", "against-streak", "--after", "0"], "argument --after: 0 is out of range"),
        (["--strategy", "follow-road", "--road", "bead_plate"], "unknown road"),
        (["--strategy", "follow-last", "--bet", "tie"], "drop --bet"),
        (["--strategy", "paroli", "--wins", "0"], "argument --wins: 0 is out of range"),
        (["--strategy", "follow-last", "--progression", "labouchere"], "unknown progression"),
        (["--strategy", "flat", "--threads", "99"], "--threads must be"),
    ],
)
def test_bad_settings_are_one_line_errors(capsys, args, fragment):
    assert main(["backtest", *args, "--shoes", "3"]) == 2
    err = capsys.readouterr().err
    assert err.startswith("error: ") and err.count("\n") == 1
    assert fragment in err


def test_bad_settings_raise_the_strategy_and_bet_errors():
    table = load_table("classic")
    flat = strategies.make_strategy("flat")
    with pytest.raises(StrategyError):
        strategies.resolve(strategies.Settings(unit=float("nan")), flat, table)
    with pytest.raises(StrategyError):
        strategies.resolve(
            strategies.Settings(min_bet=0.5), flat, table
        )  # below the table's own minimum
    with pytest.raises(BetError):
        strategies.make_strategy("flat", bet="no_such_bet")
    with pytest.raises(BetError):
        strategies.parse_side_bet(":2")
    with pytest.raises(StrategyError):
        backtest.backtest(
            backtest.Betting(flat, strategies.Settings(), table), backtest.Simulated(1, 0)
        )
    with pytest.raises(RoadsAppError):
        backtest.backtest(
            backtest.Betting(flat, strategies.Settings(), table), backtest.Simulated(-1, 3)
        )


def saved_shoes(data_dir: Path) -> backtest.Saved:
    """The saved shoes of ``data_dir`` as the CLI hands them to the engine."""
    ids, rounds = saved_rounds(data_dir)
    return backtest.Saved(ids, rounds, where=str(data_dir))


def test_saved_shoes_settle_what_their_data_allows(tmp_path: Path):
    table = load_table("winbox")
    dealt = deal_shoe(8, table.shoe, 0).rounds
    save_shoe(dealt, ShoeMeta(id="dealt", source="simulated"), tmp_path)
    save_shoe(rounds_from_winners("BPPTBBPB"), ShoeMeta(id="winners", source="hand"), tmp_path)
    strategy = strategies.make_strategy("flat", bet="banker")
    money = strategies.Settings(bankroll=1e6, side_bets=(("player_pair", 1),))
    result = backtest.backtest(backtest.Betting(strategy, money, table), saved_shoes(tmp_path))
    f = result.run.per_shoe.sort("shoe")
    assert f["shoe"].to_list() == ["dealt", "winners"]
    # Banker needs only the winner; the pair side bet needs cards or flags.
    assert f["wagered_banker"].to_list() == [dealt.height * 10.0, 8 * 10.0]
    assert f["wagered_player_pair"].to_list() == [min(45, dealt.height) * 10.0, 0.0]
    assert result.summary.unsettled == 8
    assert "lack the cards" in report.text(result, verdict_text)
    # The saved dealt shoe gives the same row as the simulated shoe it came from.
    sim = backtest.run_fast(
        strategy, strategies.resolve(money, strategy, table), table, seed=8, shoes=1
    )
    row = f.filter(pl.col("shoe") == "dealt").drop("shoe")
    assert row.rows() == sim.per_shoe.drop("shoe").rows()


def test_saved_backtest_with_no_shoes_says_so(tmp_path: Path):
    with pytest.raises(StrategyError, match="no saved shoes"):
        backtest.backtest(
            backtest.Betting(
                strategies.make_strategy("flat"), strategies.Settings(), load_table("classic")
            ),
            saved_shoes(tmp_path),
        )


def test_bands_are_ordered_percentiles_of_the_paths():
    strategy = strategies.make_strategy("dalembert")
    table = load_table("classic")
    resolved = strategies.resolve(strategies.Settings(bankroll=300), strategy, table)
    run = backtest.run_fast(strategy, resolved, table, seed=2, shoes=400, n_paths=400)
    b = backtest.bands(run.paths)
    assert b.columns == ["hand", "p5", "p25", "p50", "p75", "p95"]
    ordered = b.select(
        (pl.col("p5") <= pl.col("p25"))
        & (pl.col("p25") <= pl.col("p50"))
        & (pl.col("p50") <= pl.col("p75"))
        & (pl.col("p75") <= pl.col("p95"))
    ).to_series()
    assert ordered.all()
    assert b.height == run.paths.shape[1]
    assert b["p5"].min() >= 0 and b["p95"].max() > 300  # some shoes win, none go below 0


def test_risk_of_ruin_is_the_share_of_shoes_whose_bankroll_fell_below_the_minimum():
    strategy = strategies.make_strategy("martingale", bet="banker")
    table = load_table("classic")
    money = strategies.Settings(bankroll=70, unit=10)
    bt = backtest.backtest(
        backtest.Betting(strategy, money, table),
        backtest.Simulated(6, 2000),
        backtest.RunOptions(n_paths=2000),
    )
    fell = (bt.run.paths.min(axis=1) < table.limits.min_bet).mean()  # read off the paths
    assert 0 < bt.summary.risk_of_ruin == fell < 1


def _page() -> None:
    from roads_app.ui.backtest_page import render_backtest_page

    render_backtest_page()


def test_dashboard_page_runs_a_backtest_and_shows_bad_settings_as_one_line(monkeypatch, tmp_path):
    from streamlit.testing.v1 import AppTest

    monkeypatch.setenv("ROADS_APP_DATA", str(tmp_path))
    at = AppTest.from_function(_page, default_timeout=120)
    at.run()
    assert not at.exception
    at.number_input(key="bt_shoes").set_value(500)
    at.button(key="bt_run").click().run()
    assert not at.exception and not at.error
    metrics = {m.label: m.value for m in at.metric}
    table = load_table("classic")
    assert (
        metrics["Hands"]
        == f"{sum(deal_shoe(1, table.shoe, k).rounds.height for k in range(500)):,}"
    )
    assert any("house edge" in i.value for i in [*at.info, *at.warning])
    at.number_input(key="bt_unit").set_value(0.0)
    at.button(key="bt_run").click().run()
    assert [shown(e.value) for e in at.error] == ["unit must be more than 0, not 0"]


@settings(max_examples=6, deadline=None)
@given(
    name=st.sampled_from(["flat", "martingale", "paroli"]),
    seed=st.integers(0, 2**32),
    bankroll=st.sampled_from([40.0, 300.0, 1e6]),
)
def test_a_run_without_rows_has_the_totals_of_its_rows(name: str, seed: int, bankroll: float):
    """The command keeps no per-shoe rows: its totals come from the kernel's arrays, not
    from a frame, and must be the frame's to the bit (stops, ruin and side bets too)."""
    betting = backtest.Betting(
        strategies.make_strategy(name, bet="player"),
        strategies.Settings(bankroll=bankroll, unit=10.0, side_bets=(("player_pair", 2.0),)),
        load_table("evolution"),
    )
    shoes = backtest.Simulated(seed, 300)
    kept = backtest.backtest(betting, shoes)
    lean = backtest.backtest(betting, shoes, backtest.RunOptions(rows=False))
    assert lean.run.per_shoe is None
    assert lean.run.totals == kept.run.totals
    assert lean.summary.to_dict(verdict_text) == kept.summary.to_dict(verdict_text)

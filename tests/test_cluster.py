"""The cluster path on a real local Ray (2 CPUs): the same JSON as one machine, to the bit.

Marked ``cluster`` (they start Ray, ~15 s); `python3 dev.py test` installs the
``roads-app[cluster]`` extra, so they run in CI. ``-m "not cluster"`` leaves them out.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import threading
from pathlib import Path

import numpy as np
import pytest
from polars.testing import assert_frame_equal

from roads_app.bets.tables import load_table
from roads_app.cli import main
from roads_app.render.verdict import study_verdict_text as verdict_text_of_study
from roads_app.render.verdict import verdict_text
from roads_app.sim import backtest, strategies

ray = pytest.importorskip("ray", reason="the cluster tests need roads-app[cluster] (Ray)")

TIMING = ("seconds", "hands_per_second")


@pytest.fixture(scope="module")
def local_ray():
    """A real Ray instance of 2 CPUs for this module; this process is its driver."""
    from roads_app.sim.cluster import start_local

    start_local(num_cpus=2, log_to_driver=False, logging_level="ERROR")
    yield ray
    ray.shutdown()


def _json(result: backtest.Backtest) -> str:
    """The --json document without its timing fields, as the CLI prints it."""
    d = result.to_dict(verdict_text)
    for k in TIMING:
        d.pop(k)
    return json.dumps(d, indent=2)


# Amounts that are not whole binary fractions (11.3, 0.95 * 13.7, ...), so float sums
# taken in another order or grouping would differ in the last bits.
CASES = {
    "flat": (
        strategies.make_strategy("flat", bet="banker"),
        strategies.Settings(bankroll=1000.3, unit=13.7, side_bets=(("tie", 1.1),)),
    ),
    "martingale": (
        strategies.make_strategy("martingale", bet="player"),
        strategies.Settings(bankroll=777.7, unit=11.3, max_bet=500),
    ),
    "follow-road": (
        strategies.make_strategy("follow-road", road="small_road", progression="fibonacci"),
        strategies.Settings(bankroll=1000.1, unit=10.1, stop_loss=300, take_profit=200),
    ),
}


@pytest.mark.cluster
@pytest.mark.parametrize("name", list(CASES))
def test_cluster_json_is_the_single_machine_json_whatever_the_shards(local_ray, name: str):
    strategy, money = CASES[name]
    table = load_table("classic")
    one = backtest.backtest(backtest.Betting(strategy, money, table), backtest.Simulated(77, 2_000))
    want = _json(one)
    for shard, cpus in ((2_000, 1), (333, 1), (150, 2)):  # 1 shard; 7 on 2 workers; 1 at a time
        resolved = strategies.resolve(money, strategy, table)
        run = backtest.run_cluster(
            strategy,
            resolved,
            table,
            seed=77,
            shoes=2_000,
            address="auto",
            shard_shoes=shard,
            rows=True,
            task_cpus=cpus,
        )
        got = backtest.Backtest(
            strategy,
            resolved,
            table,
            one.source,
            "fast",
            run,
            backtest.summarize(run, table, resolved.bankroll),
            1.0,
        )
        assert _json(got) == want, (shard, cpus)
        assert_frame_equal(run.per_shoe, one.run.per_shoe, check_exact=True)
        assert np.array_equal(run.paths, one.run.paths)
    assert one.summary.bets > 0 and one.summary.ci is not None  # the case really bet


@pytest.mark.cluster
def test_cli_cluster_auto_prints_the_same_json(local_ray, capsys):
    args = ["backtest", "--strategy", "paroli", "--bet", "banker", "--shoes", "1500", "--json"]
    assert main([*args, "--no-progress"]) == 0
    alone = json.loads(capsys.readouterr().out)
    assert main([*args, "--cluster", "auto", "--shard-shoes", "400"]) == 0
    out = capsys.readouterr()
    spread = json.loads(out.out)
    for k in TIMING:
        alone.pop(k), spread.pop(k)
    assert json.dumps(spread) == json.dumps(alone)
    assert "backtest: 100%" in out.err  # one bar over all shards on stderr


def _running_task_pids() -> list[int]:
    """Ray worker processes busy with a shard (Ray titles them ``ray::_task``)."""
    pids = []
    for d in Path("/proc").iterdir():
        if d.name.isdigit():
            try:
                cmd = (d / "cmdline").read_bytes()
            except OSError:
                continue
            if cmd.startswith(b"ray::_task"):
                pids.append(int(d.name))
    return pids


@pytest.mark.cluster
def test_a_worker_killed_mid_shard_is_retried_and_the_result_is_identical(local_ray):
    strategy, money = CASES["martingale"]
    table = load_table("classic")
    want = _json(
        backtest.backtest(backtest.Betting(strategy, money, table), backtest.Simulated(5, 60_000))
    )
    done: list[int] = []
    out: dict[str, backtest.Backtest] = {}

    def run() -> None:
        out["r"] = backtest.backtest(
            backtest.Betting(strategy, money, table),
            backtest.Simulated(5, 60_000),
            backtest.RunOptions(cluster="auto", shard_shoes=6_000),
            progress=lambda d, t: done.append(d),
        )

    driver = threading.Thread(target=run)
    driver.start()
    killed = None
    while killed is None and driver.is_alive():  # wait for a shard to be under way
        pids = _running_task_pids()
        if pids and len(done) >= 2:  # workers warm, at least one shard finished
            killed = pids[0]
            os.kill(killed, signal.SIGKILL)
    driver.join()
    assert killed is not None, "no shard was running to kill"
    assert (
        not Path(f"/proc/{killed}").exists()
        or b"ray::_task" not in Path(f"/proc/{killed}/cmdline").read_bytes()
    )
    assert _json(out["r"]) == want
    assert done[-1] == 60_000


def test_an_unreachable_cluster_is_a_one_line_error(capsys):
    code = main(["backtest", "--strategy", "flat", "--shoes", "10", "--cluster", "127.0.0.1:9"])
    err = capsys.readouterr().err
    assert code == 2
    assert err.startswith("error: cannot reach the Ray cluster at 127.0.0.1:9")
    assert err.count("\n") == 1


def test_a_malformed_cluster_address_is_a_one_line_error(capsys):
    code = main(["backtest", "--strategy", "flat", "--shoes", "10", "--cluster", "headnode"])
    err = capsys.readouterr().err
    assert code == 2 and "not HOST:PORT" in err and err.count("\n") == 1


def test_without_cluster_nothing_imports_ray():
    code = (
        "import sys; from roads_app.cli import main; "
        "assert main(['backtest', '--strategy', 'flat', '--shoes', '20', '--json']) == 0; "
        "assert main(['odds-study', '--shoes', '2', '--seed', '1', '--no-progress']) == 0; "
        "assert 'ray' not in sys.modules, 'ray was imported'"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert done.returncode == 0, done.stderr


@pytest.mark.cluster
def test_odds_study_on_the_cluster_is_the_single_machine_study(local_ray, capsys):
    args = ["odds-study", "--shoes", "24", "--seed", "9", "--rules", "winbox", "--json"]
    assert main([*args, "--no-progress"]) == 0
    alone = capsys.readouterr().out
    assert main([*args, "--cluster", "auto", "--shard-shoes", "5"]) == 0
    out = capsys.readouterr()
    assert out.out == alone
    assert "odds study: 100%" in out.err
    assert json.loads(alone)["hands"] > 24 * 60  # the study really dealt the shoes


def _page() -> None:
    from roads_app.ui.backtest_page import render_backtest_page

    render_backtest_page()


@pytest.mark.cluster
def test_dashboard_backtest_page_runs_on_the_configured_cluster(local_ray, monkeypatch, tmp_path):
    from streamlit.testing.v1 import AppTest

    monkeypatch.setenv("ROADS_APP_DATA", str(tmp_path))
    monkeypatch.setenv("ROADS_APP_CLUSTER", "auto")
    at = AppTest.from_function(_page, default_timeout=300)
    at.run()
    assert any("Ray cluster auto" in c.value for c in at.caption)
    at.number_input(key="bt_shoes").set_value(3000)
    at.number_input(key="bt_unit").set_value(12.3)
    at.button(key="bt_run").click().run()
    assert not at.exception and not at.error
    shown = {m.label: m.value for m in at.metric}
    result = at.session_state["backtest_result"]
    alone = backtest.backtest(
        backtest.Betting(result.strategy, strategies.Settings(unit=12.3), load_table("classic")),
        backtest.Simulated(1, 3000),
    )
    assert _json(result) == _json(alone)
    assert_frame_equal(result.run.per_shoe, alone.run.per_shoe, check_exact=True)
    assert shown["Hands"] == f"{alone.summary.hands:,}"


@pytest.mark.cluster
def test_an_interrupt_cancels_the_shards_left(local_ray, tmp_path):
    from roads_app.sim import cluster

    strategy, money = CASES["flat"]
    table = load_table("classic")
    resolved = strategies.resolve(money, strategy, table)
    marks = str(tmp_path)

    def marking_shard(first: int, count: int) -> int:  # sent by value to the workers
        Path(marks, str(first)).touch()  # this shard started
        backtest.run_shard(strategy, resolved, table, seed=3, first=first, shoes=count, rows=False)
        return first

    def interrupt(done: int, total: int) -> None:
        raise KeyboardInterrupt  # Ctrl-C while the driver waits on the first results

    parts = cluster.shards(16 * 30_000, 30_000)
    with pytest.raises(KeyboardInterrupt):
        cluster.map_shards(marking_shard, parts, progress=interrupt)
    # A probe through the same task queue: Ray starts same-class tasks in order, so it
    # runs after any shard still queued (none, once they are cancelled).
    (started,) = cluster.map_shards(lambda first, count: len(os.listdir(marks)), [range(1)])
    assert 1 <= started <= len(parts) - 4  # the shards still queued never started


@pytest.mark.cluster
def test_good_road_study_on_ray_is_the_single_machine_study(local_ray):
    """Shards of any size, priced shoes cut across them: the same JSON to the bit."""
    from roads_app.roads.good_roads import default_path, load_catalogue
    from roads_app.sim import good_road_study as gs

    cat = load_catalogue(default_path())
    table = load_table("winbox")
    one = gs.study(cat, table, seed=21, shoes=1_500, priced_shoes=300)
    want = json.dumps(one.to_dict(verdict_text_of_study), indent=2)
    for shard in (1_500, 170):
        got = gs.study(
            cat, table, seed=21, shoes=1_500, priced_shoes=300, cluster="auto", shard_shoes=shard
        )
        assert json.dumps(got.to_dict(verdict_text_of_study), indent=2) == want
    assert one.part.priced_shoes == 300

"""The backtest command: a strategy over many shoes."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import TYPE_CHECKING

from roads_app.cli.args import int_range, late_help, money, print_json, seed_number
from roads_app.places import DEFAULT_TABLE
from roads_app.roads.names import Road

if TYPE_CHECKING:
    from roads_app.sim.backtest import Saved

MAX_BACKTEST_SHOES = 10_000_000
"""Most shoes one backtest deals (about an hour on one core with the fast engine)."""


def _cmd_backtest(args: argparse.Namespace) -> int:
    from roads_app.bets.tables import load_table
    from roads_app.render.verdict import verdict_text
    from roads_app.sim import backtest as bt
    from roads_app.sim import report, warmup
    from roads_app.sim.kernel import SERIAL_UP_TO, runs_compiled, set_threads
    from roads_app.sim.strategies import Settings, make_strategy, parse_side_bet

    table = load_table(args.rules)
    strategy = make_strategy(
        args.strategy,
        bet=args.bet,
        after=args.after,
        road=args.road,
        wins=args.wins,
        progression=args.progression,
        pattern=args.pattern,
        catalogue=_catalogue(args),
    )
    settings = Settings(
        bankroll=args.bankroll,
        unit=args.unit,
        min_bet=args.min_bet,
        max_bet=args.max_bet,
        stop_loss=args.stop_loss,
        take_profit=args.take_profit,
        side_bets=tuple(parse_side_bet(s) for s in args.side),
    )
    if args.threads is not None:
        set_threads(bt.check_threads(args.threads))
    saved = _saved(Path(args.data)) if args.saved else None
    if saved is None and args.shoes is None:
        raise bt.StrategyError("--shoes N is needed (or --saved to use the saved shoes)")
    if args.cluster is not None:
        from roads_app.sim import cluster

        cluster.check(args.cluster)  # one line now, not after a progress bar
    progress = None
    big = saved is not None or args.cluster is not None or args.shoes >= bt.PROGRESS_FROM
    if args.cluster is None:  # a first run says it compiles, on one line, before it does
        step = warmup.PLAIN
        if args.engine == "fast" and saved is None:  # a small run compiles no parallel loop
            step = warmup.SMALL_ENGINE if args.shoes <= SERIAL_UP_TO else warmup.ENGINE
        if step is not warmup.PLAIN and not runs_compiled(args.shoes):
            # a small run is answered interpreted at once; the engine compiles for the
            # next run in a process of its own, saying so on one line (`warmup.later`)
            warmup.later([warmup.ENGINE])
        else:
            warmup.prepare([step], bar=not args.no_progress)
    if not args.no_progress and big:
        progress = bt.progress_bar(
            sys.stderr, starting_text=_waiting(args.cluster) if args.cluster else "starting"
        )
    try:
        result = bt.backtest(
            bt.Betting(strategy, settings, table),
            saved if saved is not None else bt.Simulated(args.seed, args.shoes),
            bt.RunOptions(
                engine=args.engine, cluster=args.cluster, shard_shoes=args.shard_shoes, rows=False
            ),
            progress=progress,
        )
    finally:
        if progress is not None:
            progress.close()  # type: ignore[attr-defined]
    if args.json:
        print_json(result.to_dict(verdict_text))
    else:
        print(report.text(result, verdict_text))
    return 0


def _saved(data_dir: Path) -> Saved:
    """The saved shoes of ``data_dir``, read from the store as the backtest reaches them."""
    from roads_app.sim.backtest import Saved
    from roads_app.store.library import saved_rounds

    ids, rounds = saved_rounds(data_dir)
    return Saved(ids, rounds, where=str(data_dir))


def _catalogue(args: argparse.Namespace) -> object:
    """The good-road catalogue follow-good-road reads (--catalogue, else the one in force)."""
    if args.strategy.strip().lower().replace("_", "-") != "follow-good-road":
        for opt in ("pattern", "catalogue"):
            if getattr(args, opt) not in (None, "any"):
                raise bt_error(f"--{opt} is for --strategy follow-good-road")
        return None
    from roads_app.roads.good_roads import load_catalogue

    return load_catalogue(args.catalogue)


def bt_error(text: str) -> Exception:
    from roads_app.errors import StrategyError

    return StrategyError(text)


def _waiting(address: str) -> str:
    return "starting a local Ray instance" if address == "auto" else f"joining Ray at {address}"


def add_cluster_options(s: argparse.ArgumentParser, shard: int, what: str) -> None:
    """--cluster and --shard-shoes, shared by backtest and odds-study."""
    s.add_argument(
        "--cluster",
        default=None,
        metavar="auto|HOST:PORT",
        help=f"run {what} as Ray tasks: auto (this machine's Ray, started if needed) or a "
        "cluster head's address; needs roads-app[cluster]",
    )
    s.add_argument(
        "--shard-shoes",
        type=int,
        default=shard,
        help=f"with --cluster: shoes per Ray task ({shard:,}); the result does not depend on it",
    )


def _strategy_names() -> dict[str, str]:
    """The names `backtest --help` lists (the engine is imported for the help only)."""
    from roads_app.sim.strategies import MAX_PAROLI_WINS, ROADS, STAKINGS, STRATEGY_NAMES

    return {
        "max_wins": str(MAX_PAROLI_WINS),
        "strategies": ", ".join(STRATEGY_NAMES),
        "roads": ", ".join(ROADS),
        "stakings": ", ".join(STAKINGS),
    }


def _wins(text: str) -> int:
    """``--wins``: the range is the Paroli staking's own (imported only when it is given)."""
    from roads_app.sim.strategies import MAX_PAROLI_WINS

    return int_range(1, MAX_PAROLI_WINS)(text)


_wins.__name__ = "whole number"


def register_backtest(sub: argparse._SubParsersAction) -> None:
    from roads_app.sim.cluster import SHARD_SHOES

    s = sub.add_parser(
        "backtest",
        help="a betting strategy over many shoes: EV, CI, ruin",
        formatter_class=late_help(_strategy_names),
    )
    s.add_argument("--strategy", required=True, help="one of {strategies}")
    s.add_argument("--bet", default=None, help="bet of flat/progression strategies (banker)")
    s.add_argument(
        "--shoes",
        type=int_range(1, MAX_BACKTEST_SHOES),
        default=None,
        help=f"simulated shoes to deal (1 to {MAX_BACKTEST_SHOES:_})",
    )
    s.add_argument(
        "--seed", type=seed_number, default=1, help="seed of the shoes (1; reproducible)"
    )
    s.add_argument("--rules", default=DEFAULT_TABLE, help=f"rules name ({DEFAULT_TABLE})")
    s.add_argument("--saved", action="store_true", help="use the saved shoes in --data instead")
    s.add_argument("--data", default=argparse.SUPPRESS, help="folder of saved shoes (data/)")
    s.add_argument("--bankroll", type=money, default=1000.0, help="per shoe (1000)")
    s.add_argument("--unit", type=money, default=10.0, help="base stake (10)")
    s.add_argument("--min-bet", type=money, default=None, help="table minimum (the rules')")
    s.add_argument("--max-bet", type=money, default=None, help="table maximum (the rules')")
    s.add_argument("--stop-loss", type=money, default=None, help="stop a shoe after losing this")
    s.add_argument("--take-profit", type=money, default=None, help="stop a shoe after winning this")
    s.add_argument(
        "--side", action="append", default=[], help="flat side bet BET[:UNITS], repeatable"
    )
    s.add_argument(
        "--after",
        type=int_range(1, 100),
        default=3,
        help="against-streak: streak length, 1 to 100 (3)",
    )
    s.add_argument("--road", default=Road.BIG_EYE_BOY, help="follow-road: {roads}")
    s.add_argument(
        "--wins",
        type=_wins,
        default=3,
        help="paroli: wins before the reset, 1 to {max_wins} (3)",
    )
    s.add_argument("--progression", default="flat", help="pattern strategies' staking: {stakings}")
    s.add_argument(
        "--pattern",
        default="any",
        help="follow-good-road: a good road's key, or any (the headline)",
    )
    s.add_argument(
        "--catalogue",
        default=None,
        metavar="FILE",
        help="follow-good-road: a good-road catalogue (the one in force)",
    )
    s.add_argument("--engine", default="fast", choices=("fast", "plain"), help="fast (Numba)")
    s.add_argument(
        "--threads", type=int_range(1, 1024), default=None, help="threads for the fast engine (all)"
    )
    s.add_argument("--no-progress", action="store_true", help="no progress bar on stderr")
    s.add_argument("--json", action="store_true", help="JSON: hands, wagered, net, ev, ci, ...")
    add_cluster_options(s, SHARD_SHOES, "the shoes")
    s.set_defaults(func=_cmd_backtest)


def register(sub: argparse._SubParsersAction) -> None:
    register_backtest(sub)

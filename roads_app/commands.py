"""Registers the CLI subcommands that belong to later modules (odds, backtest, import...).

Each function takes the argparse subparsers object and adds one command; keeping
them here keeps `cli.py` small and lets each feature own its command.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from roads_app.cli import EXTRA_COMMANDS

# --- import / export (issue 6: the library of saved shoes) -----------------------------


def _cmd_import(args: argparse.Namespace) -> int:
    from roads_app import library

    meta = library.import_file(Path(args.file), Path(args.data), name=args.name)
    print(meta.id)
    return 0


def _cmd_export(args: argparse.Namespace) -> int:
    from roads_app import library
    from roads_app.storage import atomic_write_bytes

    data, filename = library.export_shoe(args.id, args.format, Path(args.data))
    if args.out == "-":
        sys.stdout.buffer.write(data)
        sys.stdout.flush()
        return 0
    out = Path(args.out) if args.out else Path(filename)
    atomic_write_bytes(out, data)
    print(out)
    return 0


def register_import(sub: argparse._SubParsersAction) -> None:
    s = sub.add_parser("import", help="add a CSV / JSON / Parquet shoe to the library")
    s.add_argument("file", help="the shoe file (.csv, .json or .parquet, at most 2 MB)")
    s.add_argument("--data", default=argparse.SUPPRESS, help="folder of saved shoes (data/)")
    s.add_argument("--name", default=None, help="name shown in the library (file name)")
    s.set_defaults(func=_cmd_import)


def register_export(sub: argparse._SubParsersAction) -> None:
    s = sub.add_parser("export", help="write a saved shoe as CSV / JSON / Parquet or its board")
    s.add_argument("id", help="the shoe's id (as `roads-app import` printed it)")
    s.add_argument("--format", required=True, choices=("csv", "json", "parquet", "png"))
    s.add_argument("--data", default=argparse.SUPPRESS, help="folder of saved shoes (data/)")
    s.add_argument("--out", default=None, help="output file ('-' for stdout); <name>_<id>.<fmt>")
    s.set_defaults(func=_cmd_export)


EXTRA_COMMANDS.extend([register_import, register_export])


# --- odds / odds-study (issues 4 and 8: exact odds, live odds from the cards seen) -----


def _cmd_odds(args: argparse.Namespace) -> int:
    import json

    from roads_app import odds
    from roads_app.errors import RoundError
    from roads_app.rules import load_table

    if args.shoe is None:
        if args.after is not None:
            raise RoundError("--after needs --shoe FILE: it counts the rounds of a saved shoe")
        table = load_table(args.rules or "classic")
        decks = table.shoe.decks if args.decks is None else args.decks
        frame = odds.bet_odds(table, odds.full_shoe_counts(decks))
        head = f"{table.title}: {decks}-deck shoe, off the top"
    else:
        from roads_app import live_odds, storage

        if args.decks is not None:
            raise RoundError("--decks cannot go with --shoe: the saved shoe says its decks")
        rounds, meta = storage.load_shoe(args.shoe, Path(getattr(args, "data", "data")))
        table = load_table(args.rules or meta.rules)
        frame = live_odds.live_odds(rounds, meta, table, args.after)
        after = rounds.height if args.after is None else args.after
        left = live_odds.remaining_counts(rounds, meta, after)
        ranks = " ".join(f"{r}:{n}" for r, n in left.by_rank.items())
        head = (
            f"{table.title}: hand {after + 1} of {meta.name or meta.id}, "
            f"{left.cards_left} cards unseen ({ranks})"
        )
    if args.json:
        print(json.dumps(odds.odds_records(frame), indent=2))
    else:
        print(head)
        print(odds.format_odds(frame))
    return 0


def _cmd_odds_study(args: argparse.Namespace) -> int:
    import json

    from roads_app import live_odds
    from roads_app.rules import load_table

    table = load_table(args.rules)
    result = live_odds.odds_study(args.seed, args.shoes, table, closing=not args.ignore_closing)
    if args.json:
        out = {
            "seed": result.seed,
            "shoes": result.n_shoes,
            "table": result.table,
            "hands": result.hands,
            "closing": result.closing,
            "bets": result.records(),
        }
        print(json.dumps(out, indent=2))
    else:
        print(live_odds.format_study(result))
    return 0


def register_odds(sub: argparse._SubParsersAction) -> None:
    s = sub.add_parser("odds", help="exact odds and house edge of every bet (or live odds)")
    s.add_argument("--rules", default=None, help="table name (classic; with --shoe: the shoe's)")
    s.add_argument("--decks", type=int, default=None, help="decks in the shoe (the table's)")
    s.add_argument("--shoe", default=None, help="a saved shoe (file or id): odds from its cards")
    s.add_argument("--after", type=int, default=None, help="with --shoe: after round N (last)")
    s.add_argument("--data", default=argparse.SUPPRESS, help="folder of saved shoes (data/)")
    s.add_argument("--json", action="store_true", help="JSON: bet, name, probability, ...")
    s.set_defaults(func=_cmd_odds)


def register_odds_study(sub: argparse._SubParsersAction) -> None:
    s = sub.add_parser("odds-study", help="how often each bet turns positive over many shoes")
    s.add_argument("--shoes", type=int, required=True, help="simulated shoes to deal")
    s.add_argument("--seed", type=int, required=True, help="seed of the shoes (reproducible)")
    s.add_argument("--rules", default="winbox", help="table name (winbox)")
    s.add_argument(
        "--ignore-closing", action="store_true", help="bet positive hands past closing rounds"
    )
    s.add_argument("--json", action="store_true", help="JSON summary per bet")
    s.set_defaults(func=_cmd_odds_study)


EXTRA_COMMANDS.extend([register_odds, register_odds_study])


# --- backtest (issue 7: strategies over many shoes) ------------------------------------


def _cmd_backtest(args: argparse.Namespace) -> int:
    import json

    from roads_app import backtest as bt
    from roads_app.engine import set_threads
    from roads_app.rules import load_table
    from roads_app.strategies import Settings, make_strategy, parse_side_bet

    table = load_table(args.rules)
    strategy = make_strategy(
        args.strategy,
        bet=args.bet,
        after=args.after,
        road=args.road,
        wins=args.wins,
        progression=args.progression,
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
    saved = Path(getattr(args, "data", "data")) if args.saved else None
    if saved is None and args.shoes is None:
        raise bt.StrategyError("--shoes N is needed (or --saved to use the saved shoes)")
    progress = None
    if not args.no_progress and (saved is not None or args.shoes >= bt.PROGRESS_FROM):
        progress = bt.progress_bar(sys.stderr)
    result = bt.backtest(
        strategy,
        settings,
        table,
        seed=args.seed,
        shoes=args.shoes,
        data_dir=saved,
        engine=args.engine,
        progress=progress,
    )
    print(json.dumps(result.to_dict(), indent=2) if args.json else result.text())
    return 0


def register_backtest(sub: argparse._SubParsersAction) -> None:
    from roads_app.strategies import ROADS, STAKINGS, STRATEGY_NAMES

    s = sub.add_parser("backtest", help="a betting strategy over many shoes: EV, CI, ruin")
    s.add_argument("--strategy", required=True, help=f"one of {', '.join(STRATEGY_NAMES)}")
    s.add_argument("--bet", default=None, help="bet of flat/progression strategies (banker)")
    s.add_argument("--shoes", type=int, default=None, help="simulated shoes to deal")
    s.add_argument("--seed", type=int, default=1, help="seed of the shoes (1; reproducible)")
    s.add_argument("--rules", default="classic", help="table name (classic)")
    s.add_argument("--saved", action="store_true", help="use the saved shoes in --data instead")
    s.add_argument("--data", default=argparse.SUPPRESS, help="folder of saved shoes (data/)")
    s.add_argument("--bankroll", type=float, default=1000.0, help="per shoe (1000)")
    s.add_argument("--unit", type=float, default=10.0, help="base stake (10)")
    s.add_argument("--min-bet", type=float, default=None, help="table minimum (the table's)")
    s.add_argument("--max-bet", type=float, default=None, help="table maximum (the table's)")
    s.add_argument("--stop-loss", type=float, default=None, help="stop a shoe after losing this")
    s.add_argument("--take-profit", type=float, default=None, help="stop a shoe after winning this")
    s.add_argument(
        "--side", action="append", default=[], help="flat side bet BET[:UNITS], repeatable"
    )
    s.add_argument("--after", type=int, default=3, help="against-streak: streak length (3)")
    s.add_argument("--road", default="big_eye_boy", help=f"follow-road: {', '.join(ROADS)}")
    s.add_argument("--wins", type=int, default=3, help="paroli: wins before the reset (3)")
    s.add_argument(
        "--progression", default="flat", help=f"pattern strategies' staking: {', '.join(STAKINGS)}"
    )
    s.add_argument("--engine", default="fast", choices=("fast", "plain"), help="fast (Numba)")
    s.add_argument("--threads", type=int, default=None, help="threads for the fast engine (all)")
    s.add_argument("--no-progress", action="store_true", help="no progress bar on stderr")
    s.add_argument("--json", action="store_true", help="JSON: hands, wagered, net, ev, ci, ...")
    s.set_defaults(func=_cmd_backtest)


EXTRA_COMMANDS.append(register_backtest)


# --- rules (issue 4: table variants as data) ------------------------------------------


def _cmd_rules(args: argparse.Namespace) -> int:
    from roads_app import rules

    if args.table is None:
        for name in rules.list_tables():
            t = rules.load_table(name)
            print(f"{name:<22}{t.title:<24}{len(t.bets):>3} bets  {t.source}")
        return 0
    print(rules.describe(rules.load_table(args.table)))
    return 0


def register_rules(sub: argparse._SubParsersAction) -> None:
    s = sub.add_parser("rules", help="list the table rules files, or check and show one")
    s.add_argument("table", nargs="?", default=None, help="a table name or a .toml file")
    s.set_defaults(func=_cmd_rules)


EXTRA_COMMANDS.append(register_rules)

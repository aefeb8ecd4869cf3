"""Commands for exact and live odds: odds, odds-study."""

from __future__ import annotations

import argparse
from pathlib import Path

from roads_app.cli.args import int_range, print_json, seed_number

MAX_STUDY_SHOES = 1_000_000
"""Most shoes one odds study deals."""


def _cmd_odds(args: argparse.Namespace) -> int:
    from roads_app.bets import odds
    from roads_app.bets.tables import load_table
    from roads_app.errors import RoundError

    if args.shoe is None:
        if args.after is not None:
            raise RoundError("--after needs --shoe FILE: it counts the rounds of a saved shoe")
        table = load_table(args.rules or "classic")
        decks = table.shoe.decks if args.decks is None else args.decks
        frame = odds.bet_odds(table, odds.full_shoe_counts(decks))
        head = f"{table.title}: {decks}-deck shoe, off the top"
    else:
        from roads_app.bets import live_odds
        from roads_app.store import files as storage

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
        print_json(odds.odds_records(frame))
    else:
        print(head)
        print(odds.format_odds(frame))
    return 0


def _cmd_odds_study(args: argparse.Namespace) -> int:
    from roads_app.bets import live_odds
    from roads_app.bets.tables import load_table

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
        print_json(out)
    else:
        print(live_odds.format_study(result))
    return 0


def register_odds(sub: argparse._SubParsersAction) -> None:
    s = sub.add_parser("odds", help="exact odds and house edge of every bet (or live odds)")
    s.add_argument("--rules", default=None, help="table name (classic; with --shoe: the shoe's)")
    s.add_argument(
        "--decks", type=int_range(1, 8), default=None, help="decks in the shoe (the table's)"
    )
    s.add_argument("--shoe", default=None, help="a saved shoe (file or id): odds from its cards")
    s.add_argument(
        "--after", type=int_range(0, 10_000), default=None, help="with --shoe: after round N (last)"
    )
    s.add_argument("--data", default=argparse.SUPPRESS, help="folder of saved shoes (data/)")
    s.add_argument("--json", action="store_true", help="JSON: bet, name, probability, ...")
    s.set_defaults(func=_cmd_odds)


def register_odds_study(sub: argparse._SubParsersAction) -> None:
    s = sub.add_parser("odds-study", help="how often each bet turns positive over many shoes")
    s.add_argument(
        "--shoes",
        type=int_range(1, MAX_STUDY_SHOES),
        required=True,
        help=f"simulated shoes to deal (1 to {MAX_STUDY_SHOES:_})",
    )
    s.add_argument(
        "--seed", type=seed_number, required=True, help="seed of the shoes (reproducible)"
    )
    s.add_argument("--rules", default="winbox", help="table name (winbox)")
    s.add_argument(
        "--ignore-closing", action="store_true", help="bet positive hands past closing rounds"
    )
    s.add_argument("--json", action="store_true", help="JSON summary per bet")
    s.set_defaults(func=_cmd_odds_study)


def register(sub: argparse._SubParsersAction) -> None:
    register_odds(sub)
    register_odds_study(sub)

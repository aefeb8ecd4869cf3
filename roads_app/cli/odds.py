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
        from roads_app.store import db, files

        if args.decks is not None:
            raise RoundError("--decks cannot go with --shoe: the saved shoe says its decks")
        if args.shoe.endswith(".parquet"):  # a shoe file exported from the library
            loaded = files.read_shoe_file(Path(args.shoe))
            if loaded is None:
                raise RoundError(f"{args.shoe}: holds several shoes; --shoe takes one")
            rounds, meta = loaded
        else:
            saved = db.open_store(Path(getattr(args, "data", "data"))).load(
                files.check_shoe_id(args.shoe)
            )
            rounds, meta = saved.rounds, saved.meta
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
    import sys
    from collections.abc import Iterator

    import polars as pl
    from tqdm import tqdm

    from roads_app.bets import live_odds
    from roads_app.bets.tables import load_table
    from roads_app.sim import study
    from roads_app.store import files as storage

    table = load_table(args.rules)
    n = live_odds.check_study_size(args.shoes)
    out = None if args.hands_out is None else Path(args.hands_out)
    if out is not None:
        storage.check_out_path(out)  # refuse a bad name before pricing anything
    parts: list[live_odds.StudyPart] = []
    quiet = args.no_progress or n < STUDY_PROGRESS_FROM
    with tqdm(total=n, unit="shoe", file=sys.stderr, disable=quiet) as bar:
        ranges = study.study_parts(
            args.seed,
            n,
            table,
            closing=not args.ignore_closing,
            with_hands=out is not None,
            progress=bar.update,
        )

        def hand_frames() -> Iterator[pl.DataFrame]:
            for part, hands in ranges:
                parts.append(part)
                if hands is not None:
                    yield hands

        if out is None:
            for _ in hand_frames():
                pass
        else:
            storage.write_batches(hand_frames(), out)
    result = live_odds.summarize_study(parts, args.seed, table, not args.ignore_closing)
    if args.json:
        doc = {
            "seed": result.seed,
            "shoes": result.n_shoes,
            "table": result.table,
            "hands": result.hands,
            "closing": result.closing,
            "bets": result.records(),
        }
        print_json(doc)
    else:
        print(live_odds.format_study(result))
    return 0


STUDY_PROGRESS_FROM = 2_000
"""Shoes from which `odds-study` draws a progress bar on stderr (a few seconds' work)."""


def register_odds(sub: argparse._SubParsersAction) -> None:
    s = sub.add_parser("odds", help="exact odds and house edge of every bet (or live odds)")
    s.add_argument("--rules", default=None, help="table name (classic; with --shoe: the shoe's)")
    s.add_argument(
        "--decks", type=int_range(1, 8), default=None, help="decks in the shoe (the table's)"
    )
    s.add_argument(
        "--shoe", default=None, help="saved shoe id (or exported .parquet): odds from its cards"
    )
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
    s.add_argument(
        "--hands-out",
        default=None,
        help="also stream every hand's odds per bet to this file (.parquet, .csv or .json)",
    )
    s.add_argument("--no-progress", action="store_true", help="no progress bar on stderr")
    s.set_defaults(func=_cmd_odds_study)


def register(sub: argparse._SubParsersAction) -> None:
    register_odds(sub)
    register_odds_study(sub)

"""Commands for exact and live odds: odds, odds-study."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Any

from roads_app.cli.args import int_range, print_json, seed_number
from roads_app.game import MAX_DECKS
from roads_app.places import DEFAULT_TABLE

MAX_STUDY_SHOES = 1_000_000
"""Most shoes one odds study deals."""


def _cmd_odds(args: argparse.Namespace) -> int:
    from roads_app.bets import odds
    from roads_app.bets.tables import load_table
    from roads_app.errors import RoundError

    if args.shoe is None:
        if args.after is not None:
            raise RoundError("--after needs --shoe FILE: it counts the rounds of a saved shoe")
        if args.shoe_index is not None:
            raise RoundError("--shoe-index needs --shoe FILE: it picks a shoe of that file")
        table = load_table(args.rules or DEFAULT_TABLE)
        decks = table.shoe.decks if args.decks is None else args.decks
        frame = odds.bet_odds(table, odds.full_shoe_counts(decks))
        head = f"{table.title}: {decks}-deck shoe, off the top"
    else:
        from roads_app.bets import live_odds

        if args.decks is not None:
            raise RoundError("--decks cannot go with --shoe: the saved shoe says its decks")
        rounds, meta = _shoe(args.shoe, args.shoe_index, Path(args.data))
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


def _shoe(shoe: str, index: int | None, data_dir: Path) -> tuple[Any, Any]:
    """``--shoe`` names a file (any the commands write) or the id of a saved shoe."""
    from roads_app.errors import StorageError, quote
    from roads_app.game.rounds import check_shoe_id
    from roads_app.store import db, library

    path = Path(shoe)
    if path.suffix.lower() in (".parquet", ".csv", ".json") or path.is_file():
        return library.read_shoe(path, index)
    if index is not None:
        raise StorageError(f"--shoe-index {index}: {quote(shoe)} is a saved shoe's id, not a file")
    saved = db.open_store(data_dir).shoes.load(check_shoe_id(shoe))
    return saved.rounds, saved.meta


def _cmd_odds_study(args: argparse.Namespace) -> int:
    from collections.abc import Iterator

    import polars as pl
    from tqdm import tqdm

    from roads_app.bets import live_odds
    from roads_app.bets.tables import load_table
    from roads_app.errors import RoundError
    from roads_app.shoefiles import files as shoe_files
    from roads_app.sim import study

    table = load_table(args.rules)
    n = live_odds.check_study_size(args.shoes)
    out = None if args.hands_out is None else Path(args.hands_out)
    if out is not None:
        shoe_files.check_out_path(out)  # refuse a bad name before pricing anything
    if args.cluster is not None:
        if out is not None:
            raise RoundError("--hands-out cannot go with --cluster: the shards keep no hands")
        return _odds_study_on_cluster(args, table, n)
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
            shoe_files.write_batches(hand_frames(), out)
    result = live_odds.summarize_study(parts, args.seed, table, not args.ignore_closing)
    return _print_study(args, result)


def _print_study(args: argparse.Namespace, result: object) -> int:

    from roads_app.bets import live_odds

    assert isinstance(result, live_odds.StudyResult)
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


def _odds_study_on_cluster(args: argparse.Namespace, table: object, n: int) -> int:
    """The study's ranges as Ray tasks, joined by the same summarize_study (same result)."""
    from roads_app.sim import cluster
    from roads_app.sim.progress import progress_bar

    cluster.check(args.cluster)  # one line now, not after a progress bar
    progress = None if args.no_progress else progress_bar(sys.stderr, "odds study", engine=False)
    try:
        result = cluster.odds_study(
            args.seed,
            n,
            table,
            address=args.cluster,
            shard_shoes=args.shard_shoes,
            closing=not args.ignore_closing,
            progress=progress,
        )
    finally:
        if progress is not None:
            progress.close()  # type: ignore[attr-defined]
    return _print_study(args, result)


STUDY_PROGRESS_FROM = 2_000
"""Shoes from which `odds-study` draws a progress bar on stderr (a few seconds' work)."""


def register_odds(sub: argparse._SubParsersAction) -> None:
    s = sub.add_parser("odds", help="exact odds and house edge of every bet (or live odds)")
    s.add_argument("--rules", default=None, help="rules name (classic; with --shoe: the shoe's)")
    s.add_argument(
        "--decks", type=int_range(1, MAX_DECKS), default=None, help="decks in the shoe (the rules')"
    )
    s.add_argument(
        "--shoe", default=None, help="a saved shoe's id or any shoe file: odds from its cards"
    )
    s.add_argument(
        "--after", type=int_range(0, 10_000), default=None, help="with --shoe: after round N (last)"
    )
    s.add_argument(
        "--shoe-index",
        type=int_range(0, 10**9),
        default=None,
        metavar="K",
        help="with --shoe FILE of many shoes: shoe K (needed unless it holds one)",
    )
    s.add_argument("--data", default=argparse.SUPPRESS, help="folder of saved shoes")
    s.add_argument("--json", action="store_true", help="JSON: bet, name, probability, ...")
    s.set_defaults(func=_cmd_odds)


def register_odds_study(sub: argparse._SubParsersAction) -> None:
    from roads_app.cli.backtest import add_cluster_options
    from roads_app.sim.cluster import STUDY_SHARD_SHOES

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
    s.add_argument("--rules", default="winbox", help="rules name (winbox)")
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
    add_cluster_options(s, STUDY_SHARD_SHOES, "the shoes")
    s.set_defaults(func=_cmd_odds_study)


def register(sub: argparse._SubParsersAction) -> None:
    register_odds(sub)
    register_odds_study(sub)

"""The good-roads command: what holds after each round of a shoe, and (--study) what each
pattern is worth over many simulated shoes."""

from __future__ import annotations

import argparse
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from roads_app.cli.args import int_range, print_json, seed_number
from roads_app.places import DEFAULT_TABLE

MAX_STUDY_SHOES = 10_000_000
"""Most shoes one good-roads study deals (as many as a backtest)."""


def _cmd_good_roads(args: argparse.Namespace) -> int:
    from roads_app.errors import RoundError
    from roads_app.roads import good_roads as gr

    catalogue = gr.load_catalogue(args.catalogue)
    if args.study:
        if args.shoe is not None or args.shoe_index is not None:
            raise RoundError("--study deals its own shoes: drop FILE|ID and --shoe-index")
        return _study(args, catalogue)
    for name in ("shoes", "cluster"):
        if getattr(args, name) is not None:
            raise RoundError(f"--{name} is for --study")
    if args.shoe is None:
        raise RoundError("name a shoe: roads-app good-roads FILE|ID (or --study --shoes N)")
    per_shoe = _per_shoe(args.shoe, args.shoe_index, Path(args.data), catalogue)
    if args.json:
        print_json([{"shoe": k, "after_round": after} for k, after, _ in per_shoe])
        return 0
    first = next(per_shoe, None)  # a refused file says so before any heading
    print(f"good roads by {catalogue.where} ({catalogue.title})")
    for k, after, winners in _chain(first, per_shoe):
        print(f"shoe {k}: {len(after)} rounds")
        for i, (keys, w) in enumerate(zip(after, winners, strict=True), 1):
            print(f"  {i:>3} {w}  {', '.join(keys) if keys else '-'}")
    return 0


def _chain(first: Any, rest: Iterator[Any]) -> Iterator[Any]:
    if first is not None:
        yield first
    yield from rest


GOOD_ROADS_BATCH = 10_000
"""Rounds of a file looked at at a time: each round's keys become a list of Python
strings to print, so an import's batch (`streaming.BATCH_ROWS`, 50,000) took the command
from 300 MB to 437 MB on a file of 30,000 shoes; 10,000 rounds: 351 MB."""


def _per_shoe(
    shoe: str, index: int | None, data_dir: Path, catalogue: Any
) -> Iterator[tuple[int, list[list[str]], list[str]]]:
    """(shoe number, keys after each round, winners) for each shoe of a file or saved id,
    a batch of shoes at a time (a `simulate` file of any size)."""
    import polars as pl

    from roads_app.cli.odds import _shoe
    from roads_app.roads import good_roads as gr
    from roads_app.store import library

    path = Path(shoe)
    if index is None and (path.suffix.lower() in (".parquet", ".csv", ".json") or path.is_file()):
        frames = library.iter_shoes(path, GOOD_ROADS_BATCH)
    else:
        rounds, _meta = _shoe(shoe, index, data_dir)
        frames = iter([rounds.select(pl.lit(index or 1, dtype=pl.Int32).alias("shoe"), pl.all())])
    for frame in frames:
        table = gr.good_roads(frame, catalogue)
        winners = frame.select("shoe", pl.col("winner").cast(pl.String))
        by_shoe = winners.partition_by("shoe", maintain_order=True, as_dict=True)
        for (k,), part in table.partition_by("shoe", maintain_order=True, as_dict=True).items():
            w = by_shoe[(k,)]["winner"].to_list()
            yield int(k), part["good_roads"].to_list(), w  # type: ignore[arg-type]


def _study(args: argparse.Namespace, catalogue: Any) -> int:
    from roads_app.bets.tables import load_table
    from roads_app.errors import StrategyError
    from roads_app.sim import good_road_study as gs

    if args.shoes is None:
        raise StrategyError("--study needs --shoes N")
    table = load_table(args.rules)
    progress = None
    if args.cluster is not None:
        from roads_app.sim import cluster

        cluster.check(args.cluster)
    if not args.no_progress and (args.shoes >= 200_000 or args.cluster is not None):
        from roads_app.sim.progress import progress_bar

        progress = progress_bar(sys.stderr, starting_text="starting")
    try:
        result = gs.study(
            catalogue,
            table,
            seed=args.seed,
            shoes=args.shoes,
            priced_shoes=args.priced_shoes,
            cluster=args.cluster,
            shard_shoes=args.shard_shoes,
            progress=progress,
        )
    finally:
        if progress is not None:
            progress.close()  # type: ignore[attr-defined]
    from roads_app.render.verdict import study_verdict_text

    if args.json:
        print_json(result.to_dict(study_verdict_text))
    else:
        print(result.text(study_verdict_text))
    return 0


def register(sub: argparse._SubParsersAction) -> None:
    from roads_app.cli.backtest import add_cluster_options

    s = sub.add_parser(
        "good-roads",
        help="good roads (好路) after each round of a shoe; --study: what each is worth",
    )
    s.add_argument(
        "shoe",
        nargs="?",
        default=None,
        metavar="FILE|ID",
        help="a shoe file (every shoe in it) or a saved shoe's id",
    )
    s.add_argument(
        "--shoe-index", type=int_range(1, 10**9), default=None, help="only shoe K of a file of many"
    )
    s.add_argument(
        "--catalogue",
        default=None,
        metavar="FILE",
        help="a good-road catalogue (yours in the rules folder, else the default)",
    )
    s.add_argument("--data", default=argparse.SUPPRESS, help="folder of saved shoes")
    s.add_argument("--json", action="store_true", help="JSON instead of text")
    s.add_argument(
        "--study",
        action="store_true",
        help="deal --shoes N simulated shoes and say what each pattern is worth",
    )
    s.add_argument(
        "--shoes",
        type=int_range(1, MAX_STUDY_SHOES),
        default=None,
        help=f"--study: shoes to deal (1 to {MAX_STUDY_SHOES:_})",
    )
    s.add_argument("--seed", type=seed_number, default=1, help="--study: seed (1)")
    s.add_argument("--rules", default=DEFAULT_TABLE, help=f"--study: rules name ({DEFAULT_TABLE})")
    s.add_argument(
        "--priced-shoes",
        type=int_range(0, 1_000_000),
        default=None,
        help="--study: shoes whose hands are priced exactly from the cards left "
        "(the first 200; 0: none)",
    )
    s.add_argument("--no-progress", action="store_true", help="no progress bar on stderr")
    add_cluster_options(s, 50_000, "the study")
    s.set_defaults(func=_cmd_good_roads)

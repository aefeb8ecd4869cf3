"""Commands on shoe files: simulate, show, import, export."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from roads_app.cli.args import int_range, seed_number
from roads_app.game import MAX_DECKS

MAX_SIMULATE_SHOES = 1_000_000
"""Most shoes one `simulate` file holds (about 80 million rounds)."""


def _cmd_simulate(args: argparse.Namespace) -> int:
    from dataclasses import replace

    from roads_app.game.shoe import ShoeOptions, check_seed, simulated_meta
    from roads_app.shoefiles import files as shoe_files
    from roads_app.sim import bulk, warmup

    opts = ShoeOptions(decks=args.decks, cut=args.cut, burn_between_hands=args.burn_between)
    n = bulk.check_shoe_count(args.shoes)
    check_seed(args.seed)
    out = Path(args.out)
    fmt = shoe_files.check_out_path(out)  # refuse a bad name before dealing anything
    deal = bulk.arrow_batches if fmt == "parquet" else bulk.batches  # Parquet: no frame
    run = replace(simulated_meta(args.seed, opts, 0, None), name=f"simulated seed {args.seed}")
    warmup.prepare([warmup.SIMULATE], bar=not args.no_progress)  # a first run says it compiles
    if args.no_progress or n < PROGRESS_FROM:  # no bar: tqdm is not even imported
        path, rows = shoe_files.write_batches(deal(args.seed, n, opts), out, run)
    else:
        from tqdm import tqdm

        with tqdm(total=n, unit="shoe", file=sys.stderr, unit_scale=True) as bar:
            path, rows = shoe_files.write_batches(
                deal(args.seed, n, opts, progress=bar.update), out, run
            )
    print(f"wrote {n} shoes, {rows} rounds to {path}")
    return 0


PROGRESS_FROM = 50_000
"""Shoes from which `simulate` draws a progress bar on stderr (about a second's work)."""


def _cmd_show(args: argparse.Namespace) -> int:
    from roads_app.shoefiles import files as shoe_files

    print(shoe_files.show_summary(Path(args.file)))  # any number of shoes, each checked
    return 0


def register_simulate(sub: argparse._SubParsersAction) -> None:
    s = sub.add_parser("simulate", help="deal N shoes from a seed into one file")
    s.add_argument(
        "--shoes",
        type=int_range(1, MAX_SIMULATE_SHOES),
        required=True,
        help=f"shoes to deal (1 to {MAX_SIMULATE_SHOES:_})",
    )
    s.add_argument("--seed", type=seed_number, required=True)
    s.add_argument(
        "--decks",
        type=int_range(1, MAX_DECKS),
        default=MAX_DECKS,
        help=f"1 to {MAX_DECKS} ({MAX_DECKS})",
    )
    s.add_argument(
        "--cut", type=int_range(0, 8 * 52), default=14, help="cards behind the cut card (14)"
    )
    s.add_argument("--burn-between", action="store_true", help="burn one card between hands")
    s.add_argument("--out", required=True, help="output file (.parquet, .csv or .json)")
    s.add_argument("--no-progress", action="store_true", help="no progress bar on stderr")
    s.set_defaults(func=_cmd_simulate)


def register_show(sub: argparse._SubParsersAction) -> None:
    s = sub.add_parser("show", help="print a summary of a shoe file")
    s.add_argument("file")
    s.set_defaults(func=_cmd_show)


def _cmd_import(args: argparse.Namespace) -> int:
    """Ids on stdout as each batch is committed; the bar (with shoes a second) and the
    end line on stderr."""
    from tqdm import tqdm

    from roads_app.shoefiles import streaming
    from roads_app.store import library

    path = Path(args.file)

    def committed(ids: list[str]) -> None:
        if ids:
            print("\n".join(ids), flush=True)

    many = None if args.shoe is not None else streaming.open_shoe_file(path)
    quiet = (
        args.no_progress
        or many is None
        or not sys.stderr.isatty()  # a bar is for a person
        or many.total < streaming.PROGRESS_FROM.get(many.progress_unit, 0)
    )
    total = None if many is None else many.total
    unit = "round" if many is None else many.progress_unit
    with tqdm(total=total, unit=unit, unit_scale=True, file=sys.stderr, disable=quiet) as bar:
        shoes = 0

        def progress(more: int, batch_shoes: int) -> None:
            nonlocal shoes
            shoes += batch_shoes
            rate = shoes / max(bar.format_dict["elapsed"], 1e-9)
            bar.set_postfix_str(f"{shoes:,} shoes, {rate:,.0f} shoes/s", refresh=False)
            bar.update(more)

        done = library.import_shoes(
            path,
            Path(args.data),
            name=args.name,
            shoe=args.shoe,
            committed=committed,
            progress=progress,
        )
    if many is not None:
        already = f" ({done.already:,} already in the library)" if done.already else ""
        print(f"imported {len(done.ids):,} shoes from {path.name}{already}", file=sys.stderr)
    return 0


def _cmd_export(args: argparse.Namespace) -> int:
    from functools import partial

    from roads_app.errors import RoundError, quote
    from roads_app.i18n import DEFAULT, LANGUAGES
    from roads_app.render.scorecard import board_png
    from roads_app.shoefiles.files import atomic_write_bytes
    from roads_app.store import library

    lang = DEFAULT if args.lang is None else args.lang
    if lang not in LANGUAGES:
        raise RoundError(f"--lang {quote(lang)}: use one of {', '.join(LANGUAGES)}")
    if args.lang is not None and args.format != "png":
        raise RoundError("--lang goes with --format png: a file of rounds has no words to put")
    draw = partial(board_png, lang=lang)
    data, filename = library.export_shoe(args.id, args.format, Path(args.data), draw=draw)
    if args.out == "-":
        sys.stdout.buffer.write(data)
        sys.stdout.flush()
        return 0
    out = Path(args.out) if args.out else Path(filename)
    atomic_write_bytes(out, data)
    print(out)
    return 0


def register_import(sub: argparse._SubParsersAction) -> None:
    s = sub.add_parser("import", help="add the shoes of a CSV / JSON / Parquet file; prints ids")
    s.add_argument(
        "file",
        help="the shoe file (.csv, .json or .parquet: one shoe of at most "
        "2 MB, or any number of shoes with a shoe column)",
    )
    s.add_argument("--data", default=argparse.SUPPRESS, help="folder of saved shoes")
    s.add_argument("--name", default=None, help="name shown in the library (file name)")
    s.add_argument(
        "--shoe",
        type=int,
        default=None,
        metavar="K",
        help="of a file of many shoes (simulate's), only shoe K (all of them)",
    )
    s.add_argument("--no-progress", action="store_true", help="no progress bar on stderr")
    s.set_defaults(func=_cmd_import)


def register_export(sub: argparse._SubParsersAction) -> None:
    s = sub.add_parser("export", help="write a saved shoe as CSV / JSON / Parquet or its board")
    s.add_argument("id", help="the shoe's id (as `roads-app import` printed it)")
    s.add_argument("--format", required=True, choices=("csv", "json", "parquet", "png"))
    s.add_argument("--data", default=argparse.SUPPRESS, help="folder of saved shoes")
    s.add_argument("--out", default=None, help="output file ('-' for stdout); <name>_<id>.<fmt>")
    s.add_argument("--lang", default=None, help="the board's language with --format png (en, zh)")
    s.set_defaults(func=_cmd_export)


def register(sub: argparse._SubParsersAction) -> None:
    register_simulate(sub)
    register_show(sub)
    register_import(sub)
    register_export(sub)

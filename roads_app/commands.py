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

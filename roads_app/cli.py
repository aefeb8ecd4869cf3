"""The `roads-app` command: the dashboard by default, plus simulate / show / odds / ...

Every error a person can cause ends as one line on stderr and exit status 2;
no traceback. Each subcommand is a small function; domain work lives in the core.
"""

from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Callable, Sequence
from pathlib import Path

from roads_app.errors import RoadsAppError

DEFAULT_PORT = 8501
DEFAULT_DATA = Path("data")


class _Parser(argparse.ArgumentParser):
    """argparse that reports a bad argument as one line, exit 2."""

    def error(self, message: str) -> None:  # type: ignore[override]
        raise SystemExit(_fail(f"{self.prog}: {message}"))


def _fail(message: str) -> int:
    print(f"error: {message}", file=sys.stderr)
    return 2


def _cmd_dashboard(args: argparse.Namespace) -> int:
    from roads_app.ui.launch import run_dashboard

    return run_dashboard(port=args.port, data_dir=Path(args.data), headless=args.headless)


def _cmd_simulate(args: argparse.Namespace) -> int:
    from roads_app import storage
    from roads_app.shoe import ShoeOptions, deal_shoes

    opts = ShoeOptions(decks=args.decks, cut=args.cut, burn_between_hands=args.burn_between)
    frame = deal_shoes(args.seed, args.shoes, opts)
    out = storage.write_frame(frame, Path(args.out))
    print(f"wrote {frame['shoe'].n_unique()} shoes, {frame.height} rounds to {out}")
    return 0


def _cmd_show(args: argparse.Namespace) -> int:
    from roads_app import storage

    print(storage.summary(storage.read_any(Path(args.file))))
    return 0


def build_parser() -> argparse.ArgumentParser:
    p = _Parser(prog="roads-app", description="Baccarat roads scoreboard and bet simulator.")
    p.add_argument("--port", type=int, default=DEFAULT_PORT, help="dashboard port (8501)")
    p.add_argument("--data", default=str(DEFAULT_DATA), help="folder of saved shoes (data/)")
    p.add_argument("--headless", action="store_true", help="do not open a browser window")
    p.set_defaults(func=_cmd_dashboard)
    sub = p.add_subparsers(dest="command", parser_class=_Parser)

    s = sub.add_parser("simulate", help="deal N shoes from a seed into one file")
    s.add_argument("--shoes", type=int, required=True)
    s.add_argument("--seed", type=int, required=True)
    s.add_argument("--decks", type=int, default=8)
    s.add_argument("--cut", type=int, default=14, help="cards behind the cut card (14)")
    s.add_argument("--burn-between", action="store_true", help="burn one card between hands")
    s.add_argument("--out", required=True, help="output file (.parquet, .csv or .json)")
    s.set_defaults(func=_cmd_simulate)

    s = sub.add_parser("show", help="print a summary of a shoe file")
    s.add_argument("file")
    s.set_defaults(func=_cmd_show)

    for register in EXTRA_COMMANDS:
        register(sub)
    return p


EXTRA_COMMANDS: list[Callable[[argparse._SubParsersAction], None]] = []
"""Subcommands added by other modules (odds, backtest, import, export) register here."""


def _load_extra_commands() -> None:
    from roads_app import commands  # noqa: F401  (registers into EXTRA_COMMANDS)


def main(argv: Sequence[str] | None = None) -> int:
    try:
        _load_extra_commands()
        args = build_parser().parse_args(argv)
        return int(args.func(args) or 0)
    except SystemExit as e:
        return int(e.code or 0) if not isinstance(e.code, str) else _fail(e.code)
    except RoadsAppError as e:
        return _fail(str(e))
    except KeyboardInterrupt:
        return _fail("interrupted")
    except BrokenPipeError:
        # output piped into `head` and closed early: not an error the user made
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 0
    except (OSError, ValueError) as e:
        return _fail(f"{type(e).__name__}: {e}")

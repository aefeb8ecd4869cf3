"""The `roads-app` command: the dashboard by default, plus simulate / show / odds / ...

Every error a person can cause (our `RoadsAppError` family) ends as one line on
stderr and exit status 2. Anything else is a bug: one line saying so and where the
full traceback was written, exit status 1. Each command family is a module of this package with a
`register(sub)` function; domain work lives in the core.
"""

from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Sequence
from pathlib import Path

from roads_app.cli import backtest, files, odds, rules, shoes
from roads_app.cli.args import host_name, port_number
from roads_app.errors import RoadsAppError, report_bug

DEFAULT_PORT = 8501
DEFAULT_HOST = "127.0.0.1"
DEFAULT_DATA = Path("data")

COMMAND_GROUPS = (files, shoes, odds, backtest, rules)
"""Modules whose `register(sub)` adds their subcommands, in `--help` order."""


class _Parser(argparse.ArgumentParser):
    """argparse that reports a bad argument as one line, exit 2."""

    def error(self, message: str) -> None:  # type: ignore[override]
        raise SystemExit(_fail(f"{self.prog}: {message}"))


def _fail(message: str) -> int:
    print(f"error: {message}", file=sys.stderr)
    return 2


def _cmd_dashboard(args: argparse.Namespace) -> int:
    from roads_app.ui.launch import run_dashboard

    return run_dashboard(
        port=args.port, data_dir=Path(args.data), headless=args.headless, host=args.host
    )


def build_parser() -> argparse.ArgumentParser:
    p = _Parser(prog="roads-app", description="Baccarat roads scoreboard and bet simulator.")
    p.add_argument("--port", type=port_number, default=DEFAULT_PORT, help="dashboard port (8501)")
    p.add_argument(
        "--host",
        type=host_name,
        default=DEFAULT_HOST,
        help="address the dashboard listens on (127.0.0.1: this machine only; "
        "0.0.0.0 lets anyone on the network use it)",
    )
    p.add_argument("--data", default=str(DEFAULT_DATA), help="folder of saved shoes (data/)")
    p.add_argument("--headless", action="store_true", help="do not open a browser window")
    p.set_defaults(func=_cmd_dashboard)
    sub = p.add_subparsers(dest="command", parser_class=_Parser)
    for group in COMMAND_GROUPS:
        group.register(sub)
    return p


def main(argv: Sequence[str] | None = None) -> int:
    try:
        args = build_parser().parse_args(argv)
        if args.command is not None and Path(args.data).is_dir():
            from roads_app.store.files import sweep_temp_files

            sweep_temp_files(Path(args.data))  # left by a write that was killed
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
    except Exception as e:  # not a user error: a bug, reported with where its traceback is
        print(f"error: {report_bug(e)}", file=sys.stderr)
        return 1

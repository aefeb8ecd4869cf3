"""The `roads-app` command: the dashboard by default, plus simulate / show / odds / ...

Every error a person can cause (our `RoadsAppError` family) ends as one line on
stderr and exit status 2. Anything else is a bug: one line saying so and where the
full traceback was written, exit status 1. Each command family is a module of this package with a
`register(sub)` function; domain work lives in the core.
"""

from __future__ import annotations

import argparse
import gc
import os
import sys
from collections.abc import Sequence
from pathlib import Path

from roads_app.cli import (
    api,
    backtest,
    database,
    files,
    floor,
    good_roads,
    odds,
    rules,
    shoes,
)
from roads_app.cli.args import host_name, int_range, port_number
from roads_app.errors import RoadsAppError, report_bug

DEFAULT_PORT = 8501
DEFAULT_HOST = "127.0.0.1"

COMMAND_GROUPS = (files, shoes, floor, odds, backtest, good_roads, rules, api, database)
"""Modules whose `register(sub)` adds their subcommands, in `--help` order."""


class _Parser(argparse.ArgumentParser):
    """argparse that reports a bad argument as one line, exit 2."""

    def error(self, message: str) -> None:  # type: ignore[override]
        raise SystemExit(_fail(f"{self.prog}: {message}"))


def _fail(message: str) -> int:
    print(f"error: {message}", file=sys.stderr)
    return 2


def _cmd_dashboard(args: argparse.Namespace) -> int:
    from roads_app.serve import DATA_ENV, dashboard_env, run_dashboard

    if args.api_port == args.port:
        raise RoadsAppError(
            f"--api-port {args.api_port} is the dashboard's own --port: give the API another "
            "(or 0 for none)"
        )
    # Every check first (ports, data folder, cluster), then the API beside it, so a
    # wrong setting is one line and never follows a note or the API's start.
    env = dashboard_env(args.port, Path(args.data), args.host, args.cluster)
    # The pages' token rule (ui.access) reads it, in Streamlit's process: in the
    # environment it is started with, not only in this one's (copied before).
    os.environ[api.HOST_ENV] = env[api.HOST_ENV] = args.host
    with api.api_beside(Path(env[DATA_ENV]), args.api_port, args.host):
        return run_dashboard(
            args.port, Path(env[DATA_ENV]), args.headless, args.host, args.cluster, env=env
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
    p.add_argument(
        "--api-port",
        type=int_range(0, 65535),
        default=None,
        help=f"port of the live-feed API started beside the dashboard "
        f"({api.DEFAULT_API_PORT}, skipped if taken; 0: none)",
    )
    p.add_argument("--data", default=None, help=DATA_HELP)
    p.add_argument("--db", default=None, metavar="URL", help=db_help())
    p.add_argument("--rules-dir", default=None, metavar="DIR", help=RULES_DIR_HELP)
    p.add_argument("--tables", default=None, help=argparse.SUPPRESS)  # deprecated: --rules-dir
    p.add_argument("--headless", action="store_true", help="do not open a browser window")
    p.add_argument(
        "--cluster",
        default=None,
        metavar="auto|HOST:PORT",
        help="run the dashboard's backtests on this Ray cluster (roads-app[cluster])",
    )
    p.set_defaults(func=_cmd_dashboard)
    sub = p.add_subparsers(dest="command", parser_class=_Parser)
    for group in COMMAND_GROUPS:
        group.register(sub)
    for command in sub.choices.values():  # after the command too: `roads-app rules --rules-dir D`
        if "--rules-dir" not in command._option_string_actions:
            command.add_argument(
                "--rules-dir", default=argparse.SUPPRESS, metavar="DIR", help=RULES_DIR_HELP
            )
        if "--tables" not in command._option_string_actions:
            command.add_argument("--tables", default=argparse.SUPPRESS, help=argparse.SUPPRESS)
        _add_db(command)
    return p


def _add_db(parser: argparse.ArgumentParser) -> None:
    """``--db`` after every command and subcommand (``roads-app shoes list --db URL``):
    whichever of them opens the library opens it there."""
    if "--db" not in parser._option_string_actions:
        parser.add_argument("--db", default=argparse.SUPPRESS, metavar="URL", help=db_help())
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            for child in action.choices.values():
                _add_db(child)


DATA_HELP = "folder of saved shoes (the platform's user data folder; $ROADS_APP_DATA)"
DB_ENV = "ROADS_APP_DB"  # the store's name for it (roads_app.store.connection.DB_ENV)


def db_help() -> str:
    """``--db``'s help, naming the server ``ROADS_APP_DB`` holds now, without its password."""
    now = os.environ.get(DB_ENV)
    if now:
        from roads_app.store.pg import shown

        where = f"now {shown(now)} from ${DB_ENV}"
    else:
        where = "default: the SQLite file roads.db in the data folder"
    return (
        f"the library on a PostgreSQL server: postgresql://user:password@host:port/dbname "
        f"(${DB_ENV} when not given; {where})"
    )


RULES_DIR_HELP = (
    "folder of your own <name>.toml rules (the platform's config folder; $ROADS_APP_RULES)"
)


def _deprecated(old: str, new: str) -> None:
    """The one line an old spelling prints: it still works for this version."""
    from roads_app.i18n import word

    print(word("msg_deprecated_spelling", old=old, new=new), file=sys.stderr)


def _places(args: argparse.Namespace) -> None:
    """Resolve the data folder once; the tables folder travels in the environment so the
    dashboard's own process and every loader see the same one."""
    from roads_app.store.location import check_data_dir, default_data_dir

    if args.data is None:
        args.data = str(default_data_dir())
    check_data_dir(args.data)
    if getattr(args, "db", None):  # every store this process and its servers open is there
        from roads_app.store.connection import db_url

        os.environ[DB_ENV] = db_url(args.db) or ""
    elif os.environ.get(DB_ENV):
        from roads_app.store.connection import db_url

        db_url()  # a malformed $ROADS_APP_DB is one line before any work
    _rules_dir(args)


def _rules_dir(args: argparse.Namespace) -> None:
    """The rules folder travels in ``$ROADS_APP_RULES`` to every loader and server this
    starts; the old spellings (``--tables``, ``$ROADS_APP_TABLES``) still set it, each
    with its one-line notice."""
    from roads_app.places import OLD_RULES_ENV, RULES_ENV

    folder = args.rules_dir
    if args.tables is not None:
        _deprecated("--tables", "--rules-dir")
        folder = folder or args.tables
    if folder is None and not os.environ.get(RULES_ENV) and os.environ.get(OLD_RULES_ENV):
        _deprecated(f"${OLD_RULES_ENV}", f"${RULES_ENV}")
        folder = os.environ[OLD_RULES_ENV]
    if folder is not None:  # the rules module (pydantic, the engine) only when needed
        os.environ[RULES_ENV] = str(Path(folder).expanduser().resolve())


def main(argv: Sequence[str] | None = None) -> int:
    before = os.environ.get(DB_ENV)
    try:
        return _main(argv)
    finally:  # ``--db`` holds for this command only (tests call main in one process)
        if before is None:
            os.environ.pop(DB_ENV, None)
        else:
            os.environ[DB_ENV] = before


def _main(argv: Sequence[str] | None) -> int:
    try:
        args = build_parser().parse_args(argv)
        _places(args)
        if args.command is not None and Path(args.data).is_dir():
            from roads_app.shoefiles.files import sweep_temp_files

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


def run() -> None:
    """The process's entry (`roads-app`, ``python -m roads_app``): `main`, then exit.

    The objects left at exit are frozen first (`gc.freeze`): the interpreter's teardown
    then skips its full garbage collections over every object Numba, Polars and
    pydantic made, half a second of CPU after a short command such as ``simulate``.
    Files are closed and atexit handlers run as before; only cycles are left to the OS.
    `main` itself stays free of this (tests call it in their own process).
    """
    code = main()
    gc.freeze()
    sys.exit(code)

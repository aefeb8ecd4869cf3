"""`roads-app db copy FROM TO`: move a library between a data folder (its SQLite file) and a
PostgreSQL server, either way round, in one transaction on the target."""

from __future__ import annotations

import argparse


def _cmd_copy(args: argparse.Namespace) -> int:
    from roads_app.store import copying

    source = copying.open_side(args.source, source=True)
    target = copying.open_side(args.target)
    before, after = copying.copy_library(source, target)
    print(f"from {before.line()}")
    print(f"to   {after.line()}")
    print("copied: the counts and the rounds checksum agree")
    return 0


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("db", help="the library's database: copy it to another")
    db = p.add_subparsers(dest="db_command", parser_class=type(p), required=True)
    s = db.add_parser(
        "copy",
        help="copy every shoe, round, bet, history row and token hash into an empty library",
        description="FROM and TO are each a data folder (or its roads.db) or a PostgreSQL "
        "URL, postgresql://user:password@host:port/dbname. The target must hold no shoes.",
    )
    s.add_argument("source", metavar="FROM")
    s.add_argument("target", metavar="TO")
    s.set_defaults(func=_cmd_copy)

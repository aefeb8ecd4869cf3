"""The rules command: list the tables, or check and show one."""

from __future__ import annotations

import argparse
import sys


def _cmd_rules(args: argparse.Namespace) -> int:
    from roads_app.bets import tables as rules

    if args.table is None:
        for name in rules.list_tables():
            t = rules.load_table(name)
            print(f"{name:<22}{t.title:<24}{len(t.bets):>3} bets  {t.source}")
        for line in rules.refused_user_tables():
            print(f"note: {line}", file=sys.stderr)
        return 0
    print(rules.describe(rules.load_table(args.table)))
    return 0


def register_rules(sub: argparse._SubParsersAction) -> None:
    s = sub.add_parser("rules", help="list the tables (built-in and yours), or check and show one")
    s.add_argument("table", nargs="?", default=None, help="a table name or a .toml file")
    s.set_defaults(func=_cmd_rules)


def register(sub: argparse._SubParsersAction) -> None:
    register_rules(sub)

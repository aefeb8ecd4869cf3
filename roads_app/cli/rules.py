"""The rules command: list the rule sets, or check and show one."""

from __future__ import annotations

import argparse
import sys


def _cmd_rules(args: argparse.Namespace) -> int:
    from roads_app.bets import tables as rules
    from roads_app.errors import shown_path

    if args.table is None:
        tables, notes = rules.load_tables()
        for name, t in tables:
            shown = shown_path(name)  # a user's file name: one line, escaped
            print(f"{shown:<22}{t.title:<24}{len(t.bets):>3} bets  {t.source}")
        for line in notes:  # a user file that cannot be used: skipped, said in one line
            print(f"note: {line}", file=sys.stderr)
        return 0
    print(rules.describe(rules.load_table(args.table)))
    return 0


def register_rules(sub: argparse._SubParsersAction) -> None:
    s = sub.add_parser("rules", help="list the rules (built-in and yours), or check and show one")
    s.add_argument(
        "table", nargs="?", default=None, metavar="NAME", help="a rules name or a .toml file"
    )
    s.set_defaults(func=_cmd_rules)


def register(sub: argparse._SubParsersAction) -> None:
    register_rules(sub)

"""`roads-app tables ...`: the floor's tables (``B07``, "Table 7") from the command line.

A table here is a place on the floor dealing shoe after shoe (`roads_app.store.floor`);
the payout rule set it plays is its ``--rules`` (`roads-app rules`). Every command goes
through the same store as the API and the dashboard; a refusal is one line, exit 2,
nothing changed.
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path
from typing import Any

LIMIT_OPTIONS = (("min", "max"), ("tie_min", "tie_max"), ("pair_min", "pair_max"))
"""The limit options: main bets, ties, pairs (each a least and a most)."""


def _store(args: argparse.Namespace) -> Any:
    from roads_app.store import db

    return db.open_store(Path(getattr(args, "data", "data")))


def _limits(args: argparse.Namespace, old: Any = None) -> Any:
    """The limits the options give, the table's ``old`` ones where an option is not
    given (None when nothing is given and there are no old ones to keep)."""
    from roads_app.game.floor import FloorLimits

    kept = [None] * 6 if old is None else list(old.row())
    given = [getattr(args, name) for pair in LIMIT_OPTIONS for name in pair]
    if old is not None and all(v is None for v in given):
        return None
    both = [g if g is not None else k for g, k in zip(given, kept, strict=True)]
    pairs = [
        None if both[i] is None and both[i + 1] is None else (both[i], both[i + 1])
        for i in (0, 2, 4)
    ]
    for (lo_name, hi_name), pair in zip(LIMIT_OPTIONS, pairs, strict=True):
        if pair is not None and None in pair:
            missing, other = (lo_name, hi_name) if pair[0] is None else (hi_name, lo_name)
            raise _needed(missing, other)
    if pairs[0] is None:
        raise _needed("min", "max")
    return FloorLimits.of(pairs[0], pairs[1], pairs[2])


def _needed(option: str, other: str) -> Exception:
    from roads_app.errors import FloorError
    from roads_app.messages import Message

    shown = [f"--{o.replace('_', '-')}" for o in (option, other)]
    return FloorError(Message("msg_table_option_needed", option=shown[0], other=shown[1]))


def _line(t: Any) -> str:
    from roads_app.i18n import word

    main = t.limits.main.text()
    shoe = "" if t.shoe_number is None else f"\t{word('table_shoe_of_day', n=t.shoe_number)}"
    state = word(f"table_state_{t.state.value}")
    hands = f"{t.shoe_rounds} {word('table_hands')}"
    return f"{t.code}\t{state}\t{t.name}\t{t.rules}\t{main}{shoe}\t{hands}"


def _cmd_add(args: argparse.Namespace) -> int:
    t = _store(args).floor.add(args.code, args.name, args.rules, _limits(args), args.position)
    print(_line(t))
    return 0


def _cmd_edit(args: argparse.Namespace) -> int:
    floor = _store(args).floor
    old = floor.get(args.code)
    t = floor.edit(
        args.code,
        name=args.name,
        rules=args.rules,
        limits=_limits(args, old.limits),
        position=args.position,
    )
    print(_line(t))
    return 0


def _cmd_list(args: argparse.Namespace) -> int:
    tables = _store(args).floor.list()
    if args.json:
        print(json.dumps([t.to_dict() for t in tables], indent=1, allow_nan=False))
        return 0
    for t in tables:
        print(_line(t))
    return 0


def _move(name: str) -> Any:
    def run(args: argparse.Namespace) -> int:
        from roads_app.game.floor import Move

        print(_line(_store(args).floor.move(args.code, Move(name))))
        return 0

    return run


def _cmd_history(args: argparse.Namespace) -> int:
    from roads_app.i18n import word

    day = _store(args).floor.day(args.code, args.day)
    if args.json:
        print(json.dumps(day.to_dict(), indent=1, allow_nan=False))
        return 0
    per_hour = "-" if day.hands_per_hour is None else f"{day.hands_per_hour:g}"
    print(
        f"{day.code}\t{day.day}\t{len(day.shoes)} {word('table_shoes_dealt')}\t"
        f"{day.hands} {word('table_hands')}\t{per_hour} {word('table_hands_per_hour')}\t"
        f"B {day.banker}  P {day.player}  T {day.tie}  BP {day.banker_pairs}  "
        f"PP {day.player_pairs}"
    )
    for s in day.shoes:
        print(
            f"{word('table_shoe_of_day', n=s.number)}\t{s.id}\t{s.hands} {word('table_hands')}\t"
            f"B {s.banker}  P {s.player}  T {s.tie}  BP {s.banker_pairs}  PP {s.player_pairs}"
            f"\t{s.started}\t{s.ended or ''}"
        )
    return 0


def _add_limits(s: argparse.ArgumentParser) -> None:
    for lo, hi in LIMIT_OPTIONS:
        what = {"min": "main bets", "tie_min": "ties", "pair_min": "pairs"}[lo]
        s.add_argument(f"--{lo.replace('_', '-')}", dest=lo, type=float, help=f"least on {what}")
        s.add_argument(f"--{hi.replace('_', '-')}", dest=hi, type=float, help=f"most on {what}")


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("tables", help="the floor's tables: add, list, edit, open, close, shuffle")
    tables = p.add_subparsers(dest="tables_command", parser_class=type(p), required=True)

    def cmd(name: str, help: str, func: Any) -> argparse.ArgumentParser:
        s = tables.add_parser(name, help=help)
        s.add_argument("--data", default=argparse.SUPPRESS, help="folder of roads.db")
        s.set_defaults(func=func)
        return s

    s = cmd("add", "a new table (closed until opened)", _cmd_add)
    s.add_argument("code", help="letters, digits, '-' (at most 16): B07")
    s.add_argument("--name", required=True, help="what the screens call it: Table 7")
    s.add_argument("--rules", required=True, help="the payout rule set it plays (roads-app rules)")
    _add_limits(s)
    s.add_argument("--position", type=int, default=None, help="its place in the floor's order")
    s = cmd("edit", "change a table's name, rules, limits or place", _cmd_edit)
    s.add_argument("code")
    s.add_argument("--name", default=None)
    s.add_argument("--rules", default=None)
    _add_limits(s)
    s.add_argument("--position", type=int, default=None)
    s = cmd("list", "the floor's tables in floor order", _cmd_list)
    s.add_argument("--json", action="store_true", help="JSON objects")
    for name, help in (
        ("open", "open a closed table"),
        ("close", "close a table (its shoe ends)"),
        ("shuffle", "end the table's shoe: it shows shuffling until the next one's first hand"),
    ):
        s = cmd(name, help, _move(name))
        s.add_argument("code")
    s = cmd("history", "a table's day: shoes, hands, hands per hour, B/P/T/pairs", _cmd_history)
    s.add_argument("code")
    s.add_argument("--day", default=None, help="YYYY-MM-DD (today, UTC)")
    s.add_argument("--json", action="store_true", help="JSON")

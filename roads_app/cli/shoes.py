"""`roads-app shoes ...`: the library from the command line (scripts, tests, a second terminal).

Every command goes through the same store as the dashboard, so a result added here while
a tab shows the shoe makes that tab's next change refused as stale, never lost.
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path


def _store(args: argparse.Namespace):
    from roads_app.store import db

    return db.open_store(Path(getattr(args, "data", "data")))


def _id(shoe_id: str) -> str:
    from roads_app.game.rounds import check_shoe_id

    return check_shoe_id(shoe_id)


def _cmd_list(args: argparse.Namespace) -> int:
    shoes = _store(args).shoes.list(trash=args.trash)
    cols = ["id", "name", "rounds", "source", "rules", "decks", "version", "created", "updated"]
    if args.trash:
        cols.append("deleted")
    shoes = shoes.select(cols)
    if args.json:
        print(json.dumps(shoes.to_dicts(), indent=1, allow_nan=False))
        return 0
    for r in shoes.iter_rows(named=True):
        gone = f"\tdeleted {r['deleted']}" if args.trash else ""
        print(f"{r['id']}\t{r['rounds']} rounds\t{r['source']}\t{r['rules']}\t{r['name']}{gone}")
    return 0


def _cmd_add(args: argparse.Namespace) -> int:
    """Append results like ``BPPT`` in one transaction, checked by the entry rules."""
    from roads_app.errors import RoundError, quote
    from roads_app.game.rounds import add_winner

    store = _store(args)
    shoe_id = _id(args.id)
    saved = store.shoes.load(shoe_id)
    given = [ch for ch in args.results if not ch.isspace() and ch not in ",;"]
    if not given:
        raise RoundError("no results given: write them as B, P and T, like BPPT")
    rounds = saved.rounds
    for i, ch in enumerate(given):  # checked as typed: "ı".upper() is "I", "ß" is "SS"
        if ch not in "BPTbpt":
            raise RoundError(f"result {i + 1} is {quote(ch)}: results are B, P or T")
    for ch in given:  # the entry rule of every door (`check_shoe`): decks, cards
        try:
            rounds = add_winner(rounds, ch.upper(), decks=saved.meta.decks)
        except RoundError as e:
            raise RoundError(f"shoe {shoe_id}: {e}") from None
    version = store.rounds.append(shoe_id, rounds.slice(saved.rounds.height), saved.version)
    print(f"{shoe_id}: {rounds.height} rounds (version {version})")
    return 0


def _cmd_rename(args: argparse.Namespace) -> int:
    meta = _store(args).shoes.rename(_id(args.id), args.name)
    print(f"{meta.id}: renamed to {meta.name!r}")
    return 0


def _cmd_delete(args: argparse.Namespace) -> int:
    _store(args).shoes.delete(_id(args.id))
    print(f"{args.id}: moved to the trash (roads-app shoes restore {args.id} brings it back)")
    return 0


def _cmd_restore(args: argparse.Namespace) -> int:
    _store(args).shoes.restore(_id(args.id))
    print(f"{args.id}: restored")
    return 0


def _cmd_empty_trash(args: argparse.Namespace) -> int:
    n = _store(args).shoes.empty_trash([_id(i) for i in args.ids] or None)
    print(f"removed {n} shoe{'s' if n != 1 else ''} for good")
    return 0


def _cmd_history(args: argparse.Namespace) -> int:
    hist = _store(args).history.of(_id(args.id))
    if args.json:
        print(json.dumps(hist.to_dicts(), indent=1, allow_nan=False))
        return 0
    for r in hist.iter_rows(named=True):
        where = f" round {r['round']}" if r["round"] is not None else ""
        print(f"{r['at']}\tv{r['version']}\t{r['action']}{where}\t{r['rounds']} rounds")
    return 0


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("shoes", help="the library: list, add results, rename, delete, restore")
    shoes = p.add_subparsers(dest="shoes_command", parser_class=type(p), required=True)

    def cmd(name: str, help: str, func) -> argparse.ArgumentParser:
        s = shoes.add_parser(name, help=help)
        s.add_argument("--data", default=argparse.SUPPRESS, help="folder of roads.db")
        s.set_defaults(func=func)
        return s

    s = cmd("list", "the saved shoes, most recently changed first", _cmd_list)
    s.add_argument("--json", action="store_true", help="one JSON object per shoe")
    s.add_argument("--trash", action="store_true", help="the deleted shoes instead")
    s = cmd("add", "append results (B, P, T) to a shoe, like BPPT", _cmd_add)
    s.add_argument("id")
    s.add_argument("results")
    s = cmd("rename", "give a shoe a new name", _cmd_rename)
    s.add_argument("id")
    s.add_argument("name")
    s = cmd("delete", "move a shoe to the trash", _cmd_delete)
    s.add_argument("id")
    s = cmd("restore", "bring a shoe back from the trash", _cmd_restore)
    s.add_argument("id")
    s = cmd("history", "every change of a shoe, oldest first", _cmd_history)
    s.add_argument("id")
    s.add_argument("--json", action="store_true", help="JSON rows")
    s = cmd("empty-trash", "remove deleted shoes for good (all, or these ids)", _cmd_empty_trash)
    s.add_argument("ids", nargs="*")

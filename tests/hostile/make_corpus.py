"""The hostile corpus: files and command lines that must each be refused in one line.

``cases()`` builds every input in memory (the tests use it directly); run this file
to write them out for a look or for another tool::

    python tests/hostile/make_corpus.py OUT_DIR

Each family of the boundaries issue has its own generator below, and every case is
something the program must refuse (exit status 2, data folder unchanged): a case the
program accepts, or one that ends in the bug path (exit 1), fails the tests.
"""

from __future__ import annotations

import io
import json
import sys
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import polars as pl

from roads_app.game.rounds import ROUNDS_SCHEMA, ShoeMeta, rounds_from_winners
from roads_app.game.shoe import deal_shoe
from roads_app.shoefiles.importing import FORMAT_KEY, META_KEY


@dataclass(frozen=True)
class Case:
    """One hostile file: its family, its file name (the extension picks the parser), bytes."""

    family: str
    filename: str
    data: bytes

    @property
    def id(self) -> str:
        return f"{self.family}:{self.filename}"


_N = [0]


def _name(stem: str, ext: str) -> str:
    _N[0] += 1
    return f"{stem}-{_N[0]:03d}.{ext}"


def _dealt() -> tuple[pl.DataFrame, ShoeMeta]:
    d = deal_shoe(7)
    return d.rounds, d.meta


def _parquet(frame: pl.DataFrame, meta_text: str | None = None, **kw: object) -> bytes:
    buf = io.BytesIO()
    md = {FORMAT_KEY: "1"}
    if meta_text is not None:
        md[META_KEY] = meta_text
    frame.write_parquet(buf, metadata=md, **kw)  # type: ignore[arg-type]
    return buf.getvalue()


def _json(doc: object) -> bytes:
    return json.dumps(doc).encode()


# --- 1, 2, 6, 8, 11: metadata of the wrong type, range or shape ------------------------

BAD_META_VALUES: dict[str, list[object]] = {
    "name": [
        123,
        ["a"],
        {"a": 1},
        None,
        "   ",
        " padded",
        "a\nb",
        "a\rb",
        "a\tb",
        "\udcff\udcfe",
        "x" * 101,
        True,
        1.5,
    ],
    "decks": [[1], 1e400, "abc", "8", 0, 9, -1, True, 1.5, None, 2**70],
    "created": [[1, 2], "yesterday", 5, None, "", "2024-13-45T99:00:00", "x" * 100],
    "seed": [-1, 2**64, "1", 1.5, [1], True],
    "rules": [
        "/etc/passwd",
        "../classic",
        "/dev/zero",
        "a b",
        "",
        "classic.toml",
        "rules/classic",
        5,
        None,
        "x" * 65,
    ],
    "notes": [5, ["a"], "\x00", "\udcff", "n" * 2001],
    "burn_card": ["Zz", 5, "", "Ks Kd", ["Ks"]],
    "cut": [-1, 1000, "5", 1.5, [1]],
    "source": ["hacker", "", 5, None],
    "id": ["../x", "a/b", "", 5, None],
}
"""Each bad value, put in turn into an exported shoe's metadata (JSON and Parquet)."""


def meta_cases() -> Iterator[Case]:
    rounds, meta = _dealt()
    good = meta.to_dict()
    winners = rounds.select("winner").cast(pl.String)["winner"].to_list()
    for field, values in BAD_META_VALUES.items():
        for v in values:
            bad = {**good, field: v}
            doc = {"format": "roads-app/1", "meta": bad, "rounds": winners[:20]}
            try:
                text = json.dumps(doc)
                meta_text = json.dumps(bad)
            except (ValueError, TypeError):  # pragma: no cover - all values are JSON
                continue
            yield Case("meta-json", _name(f"meta-{field}", "json"), text.encode())
            yield Case(
                "meta-parquet",
                _name(f"meta-{field}", "parquet"),
                _parquet(rounds.head(20), meta_text),
            )
    for extra in ({"zz": 1}, {"__proto__": {}}, {"rules_path": "/etc/passwd"}):
        yield Case(
            "meta-json",
            _name("meta-unknown", "json"),
            _json({"meta": {**good, **extra}, "rounds": "BPB"}),
        )
    # the metadata itself is not an object
    for text in ("null", "[1,2]", '"hi"', "123", "true", "{", "", "[" * 5000, "NaN"):
        yield Case(
            "meta-parquet", _name("meta-notobject", "parquet"), _parquet(rounds.head(5), text)
        )
    for v in ([1, 2], "hi", 123, True):
        yield Case("meta-json", _name("meta-notobject", "json"), _json({"meta": v, "rounds": "B"}))


# --- 3: nesting --------------------------------------------------------------------------


def depth_cases() -> Iterator[Case]:
    for n in (65, 1000, 200_000):
        yield Case("depth", _name("deep-list", "json"), b"[" * n + b"]" * n)
        yield Case("depth", _name("deep-object", "json"), b'{"a":' * n + b"1" + b"}" * n)
        yield Case(
            "depth", _name("deep-rounds", "json"), b'{"rounds": [' + b"[" * n + b"]" * n + b"]}"
        )
    yield Case(
        "depth",
        _name("deep-meta", "json"),
        b'{"meta": {"notes": ' + b"[" * 100 + b"]" * 100 + b'}, "rounds": "B"}',
    )
    yield Case("depth", _name("deep-open", "json"), b"[" * 300_000)


# --- 4, 9, 10: values that do not fit a column, or would be changed on the way in -------

CSV_CELLS: dict[str, list[str]] = {
    "player_points": [
        "99999999999999999999999",
        "1.5",
        "-1",
        "10",
        "nan",
        "inf",
        "1e3",
        "0x5",
        "five",
        "7 7",
        "٣",
    ],
    "player_pair": ["2", "yes please", "-1", "1.0", "maybe"],
    "player_natural": ["2", "TRUEISH", "0.5"],
    "round": ["0", "-3", "abc", "1.5", "99999999999999999999"],
    "winner": ["X", "BP", "", "banker!", "1", "☃"],
}


def value_cases() -> Iterator[Case]:
    # CSV cells that are not the column's type or range
    for col, cells in CSV_CELLS.items():
        for cell in cells:
            other = "player_points,banker_points" if col != "player_points" else "banker_points"
            if col == "winner":
                text = f"winner,player_points,banker_points\n{cell},5,3\n"
            elif col in ("player_points",):
                text = f"winner,player_points,{other}\nB,{cell},7\n"
            else:
                text = f"winner,{col}\nB,{cell}\n"
            yield Case("csv-value", _name(f"csv-{col}", "csv"), text.encode())
    # JSON values that would be lost or invented on the way in
    bad_rounds: list[dict[str, object]] = [
        {"winner": "P", "player_cards": "9s Kd", "banker_cards": "5c 2h"},  # strings
        {"winner": "P", "player_points": 1.5, "banker_points": 0},
        {"winner": "B", "player_pair": 1},
        {"winner": "B", "player_pair": 2},
        {"winner": "B", "banker_pair": 0},
        {"winner": "P", "player_points": 3, "banker_points": 1, "player_natural": True},
        {"winner": "P", "player_natural": True, "banker_natural": False, "x": 1},
        {"winner": "B", "player_natural": True, "banker_natural": False},
        {"winner": "B", "player_points": 3, "banker_points": 5, "player_cards": ["9s", "Kd"]},
        {"winner": "B", "player_cards": ["9s", "Kd"], "banker_cards": ["5c", "2h"]},
        {"winner": "P", "player_cards": ["10s", "Kd"], "banker_cards": ["5c", "2h"]},
        {"winner": "P", "player_cards": ["9s"], "banker_cards": ["5c", "2h"]},
        {"winner": "P", "player_cards": ["9s", "Kd", "2c", "3c"], "banker_cards": ["5c", "2h"]},
        {"winner": "P", "player_cards": ["9s", "Kd", "2c"], "banker_cards": ["5c", "2h"]},
        {"winner": "P", "player_cards": [9, 10], "banker_cards": ["5c", "2h"]},
        {"winner": "P", "player_cards": ["Zz", "Kd"], "banker_cards": ["5c", "2h"]},
        {"winner": "B", "player_points": 9e99, "banker_points": 0},
        {"winner": "B", "player_points": -0.0, "banker_points": 1},
        {"winner": "B", "player_points": True, "banker_points": 1},
        {"winner": "B", "player_points": "5", "banker_points": 6},
        {"winner": "B", "banker_points": 6},
        {"winner": "T", "player_points": 5, "banker_points": 6},
        {"winner": None},
        {"winner": 1},
        {"winner": ["B"]},
        {"winner": {"B": 1}},
        {},
        {"round": 5, "winner": "B"},
        {"round": "1", "winner": "B"},
        {"round": 1.0, "winner": "B"},
        {"winner": "B", "player_cards": None, "banker_cards": ["5c", "2h"]},
        {
            "winner": "P",
            "player_cards": ["9s", "Kd"],
            "banker_cards": ["5c", "2h"],
            "player_points": 8,
        },
        {
            "winner": "P",
            "player_cards": ["9s", "Kd"],
            "banker_cards": ["5c", "2h"],
            "player_natural": False,
        },
        {
            "winner": "P",
            "player_cards": ["9s", "9d"],
            "banker_cards": ["5c", "2h"],
            "player_pair": False,
        },
    ]
    for r in bad_rounds:
        yield Case("json-round", _name("round", "json"), _json({"rounds": [r]}))
        yield Case("json-round", _name("round-2nd", "json"), _json({"rounds": ["B", r]}))
    for text in (
        b'{"rounds": [{"winner": "B", "player_points": NaN, "banker_points": 1}]}',
        b'{"rounds": [{"winner": "B", "player_points": Infinity}]}',
        b'{"rounds": "B", "meta": {"decks": -Infinity}}',
        b'{"rounds": [{"winner": "B", "player_points": 1' + b"0" * 5000 + b"}]}",
    ):
        yield Case("json-number", _name("number", "json"), text)
    # Parquet columns of a type no shoe column has
    base = rounds_from_winners("BPB")
    typed = {
        "winner-list": base.with_columns(pl.lit(["B"]).alias("winner")),
        "winner-int": base.with_columns(pl.lit(1).alias("winner")),
        "winner-struct": base.with_columns(pl.struct(a=pl.lit(1)).alias("winner")),
        "points-float": base.with_columns(
            pl.lit(1.5).alias("player_points"), pl.lit(1.0).alias("banker_points")
        ),
        "points-big": base.with_columns(
            pl.lit(99999999999).alias("player_points"), pl.lit(1).alias("banker_points")
        ),
        "points-string": base.with_columns(
            pl.lit("5").alias("player_points"), pl.lit("6").alias("banker_points")
        ),
        "pair-int": base.with_columns(pl.lit(2).alias("player_pair")),
        "cards-string": base.with_columns(
            pl.lit("9s Kd").alias("player_cards"), pl.lit("5c 2h").alias("banker_cards")
        ),
        "cards-nested": base.with_columns(pl.lit([["9s"]]).alias("player_cards")),
        "extra-col": base.with_columns(pl.lit(1).alias("price")),
        "no-winner": base.drop("winner"),
        "round-wrong": base.with_columns(pl.Series("round", [3, 2, 1], dtype=pl.Int32)),
        "decimal": base.with_columns(
            pl.lit(1).cast(pl.Decimal(10, 2)).alias("player_points"),
            pl.lit(1).alias("banker_points"),
        ),
        # a file of many shoes (simulate's shape) whose shoe numbers are not shoe numbers
        "multi-shoe-partial": base.with_columns(pl.lit(0).alias("shoe")).drop("banker_cards"),
        "huge-string": base.with_columns(pl.lit("B" * 200_000).alias("winner")),
    }
    for stem, frame in typed.items():
        yield Case("parquet-type", _name(f"pq-{stem}", "parquet"), _parquet(frame))


# --- 7, 9: sizes and counts no shoe has --------------------------------------------------


def size_cases() -> Iterator[Case]:
    yield Case("size", _name("over-limit", "csv"), b"winner\n" + b"B\n" * (1024 * 1024 + 1))
    yield Case("size", _name("empty", "csv"), b"")
    yield Case("size", _name("empty", "json"), b"")
    yield Case("size", _name("empty", "parquet"), b"")
    yield Case("size", _name("blank", "csv"), b"\n\n  \n")
    for n in (105, 500, 200_000):
        yield Case("count", _name(f"winners-{n}", "csv"), b"winner\n" + b"B\n" * n)
        yield Case("count", _name(f"winners-{n}", "json"), _json({"rounds": "B" * n}))
        yield Case("count", _name(f"winners-list-{n}", "json"), _json(["P"] * n))
    yield Case(
        "count", _name("one-deck-14", "json"), _json({"meta": {"decks": 1}, "rounds": "B" * 14})
    )
    rounds, meta = _dealt()
    one_deck = {**meta.to_dict(), "decks": 1}
    yield Case(
        "count",
        _name("cards-over-1-deck", "json"),
        _json({"meta": one_deck, "rounds": rounds.head(20).to_dicts()}),
    )
    nine = [{"winner": "T", "player_cards": ["Kd", "Kd"], "banker_cards": ["Kd", "Kd"]}] * 3
    yield Case("count", _name("nine-kings", "json"), _json({"rounds": nine}))
    # compression bombs: tiny files, millions of rows or a huge string
    for n in (5_000_000, 2_000_000):
        frame = pl.select(pl.repeat("B", n, dtype=pl.String).alias("winner"))
        yield Case("bomb", _name(f"rows-{n}", "parquet"), _parquet(frame, compression="zstd"))
    wide = pl.DataFrame({"winner": ["B"], "player_cards": [["9s"] * 3_000_000]})
    yield Case("bomb", _name("long-list", "parquet"), _parquet(wide, compression="zstd"))
    many = pl.DataFrame({f"c{i}": [1] for i in range(40)})
    yield Case("bomb", _name("many-columns", "parquet"), _parquet(many))


# --- others: not the format it claims, wrong shape, damaged -------------------------------


def shape_cases() -> Iterator[Case]:
    rounds, meta = _dealt()
    good_parquet = _parquet(rounds, json.dumps(meta.to_dict()))
    blobs: dict[str, bytes] = {
        "binary": bytes(range(256)) * 4,
        "nul": b"\x00" * 100,
        "latin1": "winner\nB\né\n".encode("latin-1"),
        "utf16": "winner\nB\n".encode("utf-16"),
        "html": b"<html><script>alert(1)</script></html>",
        "zip": b"PK\x03\x04" + b"\x00" * 60,
        "par1": b"PAR1",
        "par1-twice": b"PAR1PAR1",
        "truncated-parquet": good_parquet[: len(good_parquet) // 2],
        "parquet-tail": good_parquet[-100:],
        "parquet-footer-len": good_parquet[:-8] + (2**31 - 1).to_bytes(4, "little") + b"PAR1",
    }
    for stem, blob in blobs.items():
        for ext in ("csv", "json", "parquet"):
            yield Case("shape", _name(stem, ext), blob)
    for ext in ("txt", "exe", "xlsx", "CSV.gz", "parquet.tmp"):
        yield Case("shape", _name("wrong-ext", ext), b"winner\nB\n")
    json_shapes: list[object] = [
        None,
        True,
        5,
        1.5,
        {},
        {"rounds": None},
        {"rounds": 5},
        {"rounds": {"a": "B"}},
        {"rounds": [1, 2]},
        {"rounds": [None]},
        {"rounds": [["B"]]},
        {"rounds": "BXP"},
        {"rounds": "B", "extra": 1},
        {"format": "roads-app/2", "rounds": "B"},
        {"format": 1, "rounds": "B"},
        {"rounds": ["B", {"winner": "P"}, 3]},
        {"rounds": ["b", "banker", "Q"]},
        {"meta": {}, "rounds": [{"winner": "B", "shoe": "x"}]},
        ["B", "P", "X"],
        [{"winner": "B"}, "Q"],
    ]
    for doc in json_shapes:
        yield Case("json-shape", _name("shape", "json"), _json(doc))
    for text in (
        b'{"rounds": "B",}',
        b"{'rounds': 'B'}",
        b'{"rounds": "B"} x',
        b"\xef\xbb\xbf",
        b'{"rounds": "\\ud800"}',
        b'{"rounds": ["\\udcff"]}',
        b'"\\u0000"',
    ):
        yield Case("json-syntax", _name("syntax", "json"), text)
    csv_shapes: list[bytes] = [
        b"winner,foo\nB,1\n",
        b"price\n1\n",
        b"winner,player_cards\nB\n",
        b"winner,player_points,banker_points\nB,1,2,3,4\n",
        b'winner,player_cards,banker_cards\nP,"9s\nKd","5c 2h"\n',
        b"winner,winner\nB,P\n",
        b"winner;player_points\nB;5\n",
        b",,,\n,,,\n",
        b'winner\n"B\n',
        b"winner\nB\nP\nX\n",
        b"result\nbanker\nQ\n",
        b"winner,player_cards,banker_cards\nP,9s Kd 2c 3c,5c 2h\n",
        b"winner,player_cards,banker_cards\nP,9s Kd,\n",
        b"winner,player_cards,banker_cards\nB,9s\tKd,5c 2h\n",
        b"round,winner\n1,B\n1,P\n",
        b"winner\n" + b"B" * 5000 + b"\n",
    ]
    for text in csv_shapes:
        yield Case("csv-shape", _name("shape", "csv"), text)


def echo_cases() -> Iterator[Case]:
    """Files whose own text a message could echo: a control character in a header, a
    1.9 MB key, a 10 KB cell; or that lack what they need (no winner column, a shoe
    column in a file that cannot be split). Each is refused in one short line."""
    texts: list[tuple[str, bytes]] = [
        ("csv", b"winner,pla\x0byer_points\nB,1\n"),
        ("csv", b"winner,winner\x1b[2J\nB,P\n"),
        ("csv", b"winner,\xe2\x80\xae" + b"z" * 5000 + b"\nB,1\n"),
        ("csv", b"winner\n" + b"X" * 10_000 + b"\n"),
        ("csv", b"shoe\n1\n2\n"),
        ("csv", b"player_points\n1\n"),
        ("csv", b"shoe,winner\n1,B,extra\n"),
        ("csv", b"shoe,winner\nx\x0b,B\n"),
        ("json", _json({"rounds": "B", "k" * 1_900_000: 1})),
        ("json", _json({"rounds": [{"winner": "B", "q\n" * 50_000: 1}]})),
        ("json", _json({"meta": {"z" * 500_000: 1}, "rounds": "B"})),
        ("json", _json({"rounds": [{"shoe": "1\n2", "winner": "B"}]})),
        ("json", _json({"meta": {"seed": 2**64}, "rounds": "B"})),
    ]
    for ext, body in texts:
        yield Case("echo", _name("echo", ext), body)
    for frame in (
        pl.DataFrame({"winner": ["B"], "a\nb" * 1000: [1]}),
        pl.DataFrame({"shoe": [1, 2], "winner": ["B", "P"], "x\x1b": [1, 2]}),
        pl.DataFrame({"shoe": [0, 1], "winner": ["B", "P"]}),
    ):
        yield Case("echo", _name("echo", "parquet"), _parquet(frame))


# --- issue 40: a shoe column of the wrong type, shoes out of order, forbidden hands -----

_WINNERS3 = ["B", "P", "T"]


def shoe_column_cases() -> Iterator[Case]:
    """Files of many shoes whose ``shoe`` column is not whole numbers, or whose rows are
    not whole shoes in order: each a user error naming the column (or row)."""
    for stem, values in (
        ("bool", [True, True, False]),
        ("float", [1.0, 1.0, 2.0]),
        ("struct", [{"a": 1}, {"a": 1}, {"a": 2}]),
        ("text", ["1", "1", "2"]),
        ("list", [[1], [1], [2]]),
    ):
        frame = pl.DataFrame({"shoe": values, "winner": _WINNERS3})
        yield Case("shoe-column", _name(f"shoe-{stem}", "parquet"), _parquet(frame))
    for stem, value in (
        ("bool", True),
        ("float", 1.0),
        ("object", {"a": 1}),
        ("null", None),
        ("zero", 0),
        ("negative", -3),
    ):
        rows = [{"shoe": 1, "winner": "B"}, {"shoe": value, "winner": "P"}]
        yield Case("shoe-column", _name(f"shoe-{stem}", "json"), _json(rows))
    for stem, text in (
        ("twice", "shoe,winner\n1,B\n2,P\n1,T\n"),  # shoe 1 again after shoe 2
        ("ragged-long", "shoe,winner\n1,B\n1,P,T\n2,B\n"),
        ("ragged-short", "shoe,winner,player_points\n1,B,3\n1,P\n"),
        ("float", "shoe,winner\n1.0,B\n1.5,P\n"),
        ("bool", "shoe,winner\ntrue,B\n"),
    ):
        yield Case("shoe-column", _name(f"shoe-{stem}", "csv"), text.encode())
    rows = [{"shoe": 1, "winner": "B"}, {"shoe": 2, "winner": "P"}, {"shoe": 1, "winner": "T"}]
    yield Case("shoe-column", _name("shoe-twice", "json"), _json(rows))
    yield Case("shoe-column", _name("shoe-twice", "parquet"), _parquet(pl.DataFrame(rows)))


FORBIDDEN_HANDS: list[tuple[str, list[str], list[str]]] = [
    ("banker-3-draws-on-8", ["2s", "3d", "8c"], ["Ks", "3h", "5d"]),
    ("banker-7-draws-after-stand", ["Ks", "7d"], ["Kd", "7h", "2d"]),
    ("player-draws-on-6", ["Ks", "6d", "2c"], ["Kd", "5h", "Ah"]),
    ("third-card-after-natural", ["Ks", "9d"], ["Kd", "2h", "3c"]),
    ("banker-6-stands-on-7", ["As", "2d", "7c"], ["Kd", "6h"]),
]
"""Hands the drawing rules never deal (issue 40's two, and one of each other kind)."""


def forbidden_cases() -> Iterator[Case]:
    """Shoe files holding a hand the drawing rules never deal, in every format."""
    for stem, p, b in FORBIDDEN_HANDS:
        pt = sum(min(int(c[0]) if c[0].isdigit() else (1 if c[0] == "A" else 0), 9) for c in p) % 10
        bt = sum(int(c[0]) if c[0].isdigit() else (1 if c[0] == "A" else 0) for c in b) % 10
        w = "B" if bt > pt else "P" if pt > bt else "T"
        r = {"winner": w, "player_cards": p, "banker_cards": b}
        yield Case("forbidden", _name(stem, "json"), _json({"rounds": [r]}))
        crlf = json.dumps({"rounds": [r]}, indent=1).replace("\n", "\r\n").encode()
        yield Case("forbidden", _name(f"{stem}-crlf", "json"), crlf)
        yield Case(
            "forbidden", _name(f"{stem}-multi", "json"), _json([{"shoe": 1, **r}, {"shoe": 2, **r}])
        )
        text = f"winner,player_cards,banker_cards\n{w},{' '.join(p)},{' '.join(b)}\n"
        yield Case("forbidden", _name(stem, "csv"), text.encode())
        yield Case(
            "forbidden",
            _name(f"{stem}-multi", "csv"),
            ("shoe," + text.replace("\n" + w, "\n1," + w)).encode(),
        )
        frame = pl.DataFrame(
            [r],
            schema={
                "winner": pl.String,
                "player_cards": pl.List(pl.String),
                "banker_cards": pl.List(pl.String),
            },
        )
        yield Case("forbidden", _name(stem, "parquet"), _parquet(frame))
        yield Case(
            "forbidden",
            _name(f"{stem}-multi", "parquet"),
            _parquet(frame.select(pl.lit(1).alias("shoe"), pl.all())),
        )


def cases() -> list[Case]:
    """Every hostile file, in a stable order."""
    _N[0] = 0
    out = [
        *meta_cases(),
        *depth_cases(),
        *value_cases(),
        *size_cases(),
        *shape_cases(),
        *echo_cases(),
        *shoe_column_cases(),
        *forbidden_cases(),
    ]
    assert len({c.filename for c in out}) == len(out)
    return out


# --- command lines: numbers, names and paths given on the command line -----------------

BAD_ARGS: list[list[str]] = [
    ["backtest", "--strategy", "against-streak", "--after", "9223372036854775808", "--shoes", "2"],
    ["backtest", "--strategy", "against-streak", "--after", "0", "--shoes", "2"],
    ["backtest", "--strategy", "flat", "--bankroll", "1e308", "--shoes", "2"],
    ["backtest", "--strategy", "flat", "--bankroll", "nan", "--shoes", "2"],
    ["backtest", "--strategy", "flat", "--bankroll", "inf", "--shoes", "2"],
    ["backtest", "--strategy", "flat", "--bankroll", "-5", "--shoes", "2"],
    ["backtest", "--strategy", "flat", "--unit", "0", "--shoes", "2"],
    ["backtest", "--strategy", "flat", "--unit", "1e400", "--shoes", "2"],
    ["backtest", "--strategy", "flat", "--min-bet", "-1", "--shoes", "2"],
    ["backtest", "--strategy", "flat", "--max-bet", "NaN", "--shoes", "2"],
    ["backtest", "--strategy", "flat", "--stop-loss", "1e10", "--shoes", "2"],
    ["backtest", "--strategy", "flat", "--take-profit", "-inf", "--shoes", "2"],
    ["backtest", "--strategy", "flat", "--shoes", "0"],
    ["backtest", "--strategy", "flat", "--shoes", "100000000000"],
    ["backtest", "--strategy", "flat", "--shoes", "2", "--seed", "-1"],
    ["backtest", "--strategy", "flat", "--shoes", "2", "--seed", "18446744073709551616"],
    ["backtest", "--strategy", "flat", "--shoes", "2", "--threads", "0"],
    ["backtest", "--strategy", "flat", "--shoes", "2", "--threads", "100000"],
    ["backtest", "--strategy", "paroli", "--shoes", "2", "--wins", "99999999999999"],
    ["backtest", "--strategy", "flat", "--shoes", "2", "--rules", "/etc/passwd"],
    ["backtest", "--strategy", "flat", "--shoes", "2", "--rules", "/dev/zero"],
    ["backtest", "--strategy", "nope", "--shoes", "2"],
    ["simulate", "--shoes", "1000000000", "--seed", "1", "--out", "x.parquet"],
    ["simulate", "--shoes", "-1", "--seed", "1", "--out", "x.parquet"],
    ["simulate", "--shoes", "1", "--seed", "1", "--decks", "0", "--out", "x.parquet"],
    ["simulate", "--shoes", "1", "--seed", "1", "--cut", "99999", "--out", "x.parquet"],
    ["simulate", "--shoes", "1", "--seed", "1.5", "--out", "x.parquet"],
    ["simulate", "--shoes", "1", "--seed", "1", "--out", "x.exe"],
    ["odds-study", "--shoes", "1000000000000", "--seed", "1"],
    ["odds-study", "--shoes", "0", "--seed", "1"],
    ["odds-study", "--shoes", "2", "--seed", "1", "--rules", "/dev/zero"],
    ["odds", "--decks", "0"],
    ["odds", "--decks", "1e400"],
    ["odds", "--rules", "/dev/zero"],
    ["odds", "--rules", "nonexistent-table"],
    ["odds", "--shoe", "../../etc/passwd"],
    ["odds", "--shoe", "/dev/zero"],
    ["odds", "--after", "-1", "--shoe", "x"],
    ["rules", "/dev/zero"],
    ["rules", "/etc/passwd"],
    ["rules", "no-such-table"],
    ["export", "../x", "--format", "csv"],
    ["export", "x", "--format", "exe"],
    ["--port", "0"],
    ["--port", "70000"],
    ["--port", "http"],
    ["--host", "a b"],
    ["--host", "$(reboot)"],
    ["show", "/dev/zero"],
    ["show", "/etc"],
    ["import", "/dev/zero"],
    ["import", "/etc"],
    ["import", "/nonexistent.csv"],
    # paths and values a message could echo raw, or an OS error could turn into a bug line
    ["backtest", "--strategy", "paroli", "--shoes", "2", "--wins", "31"],
    ["shoes", "list", "--data", "a" * 300],
    ["shoes", "list", "--data", "/".join(["a"] * 3000)],
    ["shoes", "add", "keep", "Bı", "--data", "data"],
    ["shoes", "add", "keep", "Bß", "--data", "data"],
    ["show", "a\nb.csv"],
    ["show", "x" * 300 + ".csv"],
    ["show", "/".join(["a"] * 3000) + ".parquet"],
    ["import", "x\x1b[2J.csv"],
    ["import", "/".join(["a"] * 3000) + ".csv"],
    ["odds", "--shoe", "a\nb.parquet"],
    ["rules", "a\nb.toml"],
    ["simulate", "--shoes", "1", "--seed", "1", "--out", "/".join(["a"] * 3000) + ".csv"],
    ["simulate", "--shoes", "1", "--seed", "1", "--out", "a" * 300 + ".csv"],
]
"""Command lines that must each end in one line on stderr and exit status 2."""

BAD_NAMES: list[str] = ["", "   ", "a\nb", "a\rb", "a\tb", "\udcff\udcfe", "x" * 101, "\x00"]
"""``--name`` values the one name rule refuses (import, rename and new shoes alike)."""


def main(argv: list[str]) -> int:
    if len(argv) != 1:
        print("usage: python tests/hostile/make_corpus.py OUT_DIR", file=sys.stderr)
        return 2
    out = Path(argv[0])
    out.mkdir(parents=True, exist_ok=True)
    all_cases = cases()
    for c in all_cases:
        (out / c.filename).write_bytes(c.data)
    print(f"wrote {len(all_cases)} files to {out} ({len(BAD_ARGS)} command lines in BAD_ARGS)")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))


__all__ = ["BAD_ARGS", "BAD_NAMES", "ROUNDS_SCHEMA", "Case", "cases"]

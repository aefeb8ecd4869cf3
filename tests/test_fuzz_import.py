"""Fuzz the importers and the rules loader: random bytes and random JSON/TOML structures.

The property: every input ends in a result or a `RoadsAppError` (one line); any other
exception is a bug and fails the test. Accepted shoes must survive an export/import
round trip unchanged (import is exact or refuses).
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from roads_app.bets.tables import load_table
from roads_app.errors import RoadsAppError
from roads_app.shoefiles import files as shoe_files
from roads_app.shoefiles.schemas import FIELDS

FUZZ = settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])

scalars = (
    st.none()
    | st.booleans()
    | st.integers(min_value=-(2**70), max_value=2**70)
    | st.floats(allow_nan=False)
    | st.text(max_size=12)
    | st.sampled_from(["B", "P", "T", "9s", "Kd", "classic", "/etc/passwd", "", " "])
)
keys = st.sampled_from([*FIELDS, "meta", "rounds", "format", "name", "decks", "rules", "x"])
json_values = st.recursive(
    scalars,
    lambda inner: (
        st.lists(inner, max_size=6) | st.dictionaries(keys | st.text(max_size=5), inner, max_size=6)
    ),
    max_leaves=40,
)


def _import(data: bytes, filename: str) -> None:
    try:
        rounds, meta = shoe_files.import_bytes(data, filename)
    except RoadsAppError as e:
        assert "\n" not in str(e)
        return
    for fmt in ("json", "parquet", "csv"):  # what was accepted comes back exactly
        again, _ = shoe_files.import_bytes(shoe_files.export_bytes(rounds, meta, fmt), f"x.{fmt}")
        assert again.equals(rounds)


@FUZZ
@given(st.binary(max_size=2000), st.sampled_from(["csv", "json", "parquet", "txt"]))
def test_random_bytes(data: bytes, ext: str) -> None:
    _import(data, f"fuzz.{ext}")


@FUZZ
@given(st.binary(max_size=500))
def test_random_bytes_inside_parquet_magic(body: bytes) -> None:
    _import(b"PAR1" + body + b"PAR1", "fuzz.parquet")


@FUZZ
@given(json_values)
def test_random_json_documents(doc: object) -> None:
    _import(json.dumps(doc).encode(), "fuzz.json")


@FUZZ
@given(json_values, st.lists(json_values, max_size=5))
def test_random_meta_and_rounds(meta: object, rounds: list[object]) -> None:
    _import(json.dumps({"meta": meta, "rounds": rounds}).encode(), "fuzz.json")
    _import(json.dumps({"rounds": ["B", *rounds]}).encode(), "fuzz.json")


@FUZZ
@given(
    st.lists(
        st.lists(st.text(max_size=6).filter(lambda s: "\x00" not in s), max_size=5), max_size=8
    ),
    st.lists(st.sampled_from(FIELDS), min_size=1, max_size=5),
)
def test_random_csv_tables(cells: list[list[str]], header: list[str]) -> None:
    import csv
    import io

    buf = io.StringIO()
    writer = csv.writer(buf)
    writer.writerow(header)
    writer.writerows(cells)
    _import(buf.getvalue().encode(), "fuzz.csv")


# --- rules tables (TOML) ---------------------------------------------------------------

toml_scalars = (
    st.integers(min_value=-(2**63), max_value=2**63 - 1).map(str)
    | st.floats(allow_nan=True, allow_infinity=True).map(
        lambda f: (
            "nan"
            if f != f
            else ("inf" if f == float("inf") else "-inf" if f == float("-inf") else repr(f))
        )
    )
    | st.booleans().map(lambda b: "true" if b else "false")
    | st.text(max_size=10).map(json.dumps)
)
toml_values = st.recursive(
    toml_scalars,
    lambda inner: st.lists(inner, max_size=4).map(lambda v: f"[{', '.join(v)}]"),
    max_leaves=12,
)
toml_keys = st.sampled_from(
    [
        "name",
        "title",
        "source",
        "notes",
        "decks",
        "cut",
        "burn",
        "payout",
        "six_payout",
        "closes_after",
        "min_bet",
        "max_bet",
        "label",
        "two_way",
        "x",
    ]
)
toml_tables = st.sampled_from(
    [
        "",
        "[shoe]",
        "[limits]",
        "[bets.banker]",
        "[bets.player]",
        "[bets.tie]",
        "[bets.big]",
        "[shortcuts]",
        "[bets.nope]",
        "[x]",
    ]
)


@FUZZ
@given(
    st.lists(
        st.tuples(toml_tables, st.lists(st.tuples(toml_keys, toml_values), max_size=4)), max_size=6
    )
)
def test_random_rules_tables(sections: list[tuple[str, list[tuple[str, str]]]]) -> None:
    lines = ['title = "Fuzz"', 'source = "fuzz"']
    for header, items in sections:
        lines.append(header)
        lines.extend(f"{k} = {v}" for k, v in items)
    _load_rules("\n".join(lines).encode())


@FUZZ
@given(st.binary(max_size=1000))
def test_random_bytes_as_rules(data: bytes) -> None:
    _load_rules(data)


_RULES_DIR: list[Path] = []


@pytest.fixture(autouse=True, scope="module")
def _rules_dir(tmp_path_factory: pytest.TempPathFactory) -> None:
    _RULES_DIR.append(tmp_path_factory.mktemp("fuzzrules"))


def _load_rules(data: bytes) -> None:
    path = _RULES_DIR[-1] / "fuzz.toml"
    path.write_bytes(data)
    try:
        load_table(path)
    except RoadsAppError as e:
        assert "\n" not in str(e)

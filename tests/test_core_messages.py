"""Every refusal the core raises is a `Message`, so a page says it in its own language.

Reads the syntax tree of each converted package: a ``raise SomeError(...)`` of our error
family whose text is an English f-string or string literal (or one built with ``+`` or
``.format``) fails. Relaying another error's message (``e.message``, a schema library's
``validation_message``) is allowed: the text came from elsewhere.
"""

from __future__ import annotations

import ast
import inspect
from pathlib import Path

import pytest

from roads_app import errors, i18n
from roads_app.game.rounds import check_name
from roads_app.messages import Message

ROOT = Path(__file__).resolve().parents[1] / "roads_app"
CONVERTED = ("api", "bets", "game", "roads", "sim", "store")
"""Packages whose refusals are all Messages..."""
NOT_YET: set[str] = set()
"""...but for these files, still English (none left: the file importers were the last). A
file converted leaves this set, and the test says so when it is left here."""

FAMILY = {
    name
    for name, cls in vars(errors).items()
    if inspect.isclass(cls) and issubclass(cls, errors.RoadsAppError)
} | {"StaleShoeError", "ShoeEndedError", "RequestKeyReused", "FeedError"}


def _english(node: ast.expr | None) -> bool:
    """Whether ``node`` is text written in English here (not a Message, not relayed)."""
    if isinstance(node, ast.JoinedStr):
        return True
    if isinstance(node, ast.Constant):
        return isinstance(node.value, str)
    if isinstance(node, ast.BinOp):
        return _english(node.left) or _english(node.right)
    if isinstance(node, ast.IfExp):
        return _english(node.body) or _english(node.orelse)
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute):
        return node.func.attr == "format" and _english(node.func.value)
    return False


def english_raises(source: str, name: str) -> list[str]:
    """``name:line`` of each raise of our error family with English text."""
    found = []
    for node in ast.walk(ast.parse(source, name)):
        if not (isinstance(node, ast.Raise) and isinstance(node.exc, ast.Call)):
            continue
        func = node.exc.func
        called = func.id if isinstance(func, ast.Name) else getattr(func, "attr", "")
        if called in FAMILY and node.exc.args and _english(node.exc.args[0]):
            found.append(f"{name}:{node.lineno}")
    return found


def test_the_finder_finds_english_raises_and_lets_messages_and_relays_through() -> None:
    code = (
        "raise RoundError(f'round {n} is gone')\n"
        "raise StorageError('no such shoe')\n"
        "raise BetError('a ' + b)\n"
        "raise RoundError(Message('msg_round', n=1))\n"
        "raise RulesError(e.message)\n"
        "raise ValueError(f'a bug {x}')\n"
        "raise RulesError('{} bad'.format(x))\n"
    )
    assert english_raises(code, "x.py") == ["x.py:1", "x.py:2", "x.py:3", "x.py:7"]


@pytest.mark.parametrize("package", CONVERTED)
def test_every_refusal_of_the_package_is_a_message(package: str) -> None:
    files = sorted((ROOT / package).rglob("*.py"))
    assert files
    found, english = [], set()
    for path in files:
        name = str(path.relative_to(ROOT))
        here = english_raises(path.read_text(encoding="utf-8"), name)
        if here:
            english.add(name)
        if name not in NOT_YET:
            found += here
    assert found == []
    assert {n for n in NOT_YET if n.startswith(f"{package}/")} <= english  # none left behind


def test_every_catalogue_key_has_both_languages() -> None:
    words = i18n.catalogue()
    assert set(words) == {"en", "zh"}
    assert set(words["en"]) == set(words["zh"])
    assert all(words["zh"][k].strip() for k in words["en"] if k.startswith("msg_"))


def test_a_name_refused_by_the_core_is_said_in_chinese() -> None:
    with pytest.raises(errors.RoundError) as e:
        check_name("   ")
    said = e.value.args[0]
    assert isinstance(said, Message)
    assert said == "a shoe name is one line of 1 to 100 printable characters (this one is empty)"
    assert said.text("zh") == "牌靴名称为一行 1 到 100 个可打印字符（这个是空的）"

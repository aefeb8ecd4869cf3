"""One exception family, so callers (CLI, dashboard) catch one type and show one line.

Every message says what is wrong and where, in words a player understands.
"""

from __future__ import annotations

import numbers
import os
import re
import tempfile
import time
import traceback
from pathlib import Path

from roads_app.messages import Message


class RoadsAppError(Exception):
    """Base of every error a person or a file can cause; its str() is a one-line message."""

    @property
    def message(self) -> str:
        """The one line as raised: a `roads_app.messages.Message` where the raiser gave
        one (so a page can say it in its own language), else the plain text."""
        first = self.args[0] if len(self.args) == 1 else None
        return first if isinstance(first, str) else str(self)


class CardError(RoadsAppError, ValueError):
    """A card code that is not a card (`Zz`, `11h`, empty)."""


class DrawingRuleError(RoadsAppError, ValueError):
    """A hand whose cards the punto banco drawing rules do not allow."""


class ShoeCompositionError(RoadsAppError, ValueError):
    """More copies of a card than the shoe's decks hold (a ninth As in 8 decks)."""


class RoundError(RoadsAppError, ValueError):
    """A round that contradicts itself (winner against points) or an entry out of range."""


class StorageError(RoadsAppError, OSError):
    """A saved shoe that cannot be read or written: corrupt, truncated, foreign, bad name."""


class FloorError(RoadsAppError, ValueError):
    """A floor table asked for something it cannot do: a bad code, a move its state does
    not allow (a round to a closed table, a shuffle sent twice), limits outside its rules'."""


class RulesError(RoadsAppError, ValueError):
    """A rules table (TOML) that is missing a field or holds a value that makes no sense."""


class BetError(RoadsAppError, ValueError):
    """A bet that cannot be placed: unknown bet, bad stake."""


class StrategyError(RoadsAppError, ValueError):
    """Bad strategy or backtest settings (a negative unit, an unknown strategy)."""


class ClusterError(RoadsAppError, RuntimeError):
    """A Ray cluster that cannot be used: Ray not installed, address unreachable, a shard lost."""


class SchemaError(RoadsAppError):
    """A value that does not fit its schema (wrong type, out of range, unknown field).

    Deliberately not a ValueError: the schema library (pydantic) lets it through its
    validators unchanged, so a failed check surfaces as this one-line message.
    """


QUOTE_LIMIT = 60


def quote(value: object, limit: int = QUOTE_LIMIT) -> str:
    """A short, escaped, one-line quote of what a person or a file gave, for a message.

    Whatever came in (a 1 MB card code, a 4,000-digit number, a name with a newline or
    markup) is shown as at most about ``limit`` characters of its ``repr``, control and
    invisible characters escaped, so a message stays one line and never echoes a payload.

    >>> quote("Kd")
    "'Kd'"
    >>> quote("a\\nb")
    "'a\\\\nb'"
    >>> len(quote("x" * 10_000)) <= 63
    True
    >>> quote(10 ** 5000)
    'a number of about 5001 digits'
    >>> quote("庄\u200b")
    "'庄\\\\u200b'"
    """
    if isinstance(value, int) and not isinstance(value, bool) and abs(value) > 10**40:
        digits = int(abs(value).bit_length() * 0.30103) + 1  # str() of it is slow, capped
        return f"a number of about {digits} digits"
    if isinstance(value, str) and len(value) > limit:
        value = value[:limit] + "…"  # repr of a 2 MB string is no use in one line
    shown = repr(value)  # escapes line breaks, controls and invisible characters
    return shown if len(shown) <= limit else shown[: limit - 3] + "..."


def whole_number(
    value: object,
    what: str,
    lo: int | None = None,
    hi: int | None = None,
    *,
    error: type[RoadsAppError] = RoadsAppError,
) -> int:
    """``value`` as an ``int`` when it is a whole number from ``lo`` to ``hi`` (an end that
    is None is open); else ``error`` in one line saying so, the value quoted (`quote`).

    The one check of a count, a size or a position a person, a file or a request gave: a
    bool, a float or a string is no whole number; a NumPy integer is. ``what`` names the
    value (a `Message` says itself in the page's language).

    >>> whole_number(3, "decks", 1, 8)
    3
    >>> whole_number(True, "decks", 1, 8)
    Traceback (most recent call last):
    roads_app.errors.RoadsAppError: decks must be a whole number from 1 to 8, not True
    >>> whole_number("4", "seed", 0, error=RoundError)
    Traceback (most recent call last):
    roads_app.errors.RoundError: seed must be a whole number 0 or more, not '4'
    """
    number = isinstance(value, numbers.Integral) and not isinstance(value, bool)
    if number and (lo is None or value >= lo) and (hi is None or value <= hi):  # type: ignore[operator]
        return int(value)  # type: ignore[call-overload]
    shown = quote(value)
    if lo is not None and hi is not None:
        raise error(
            Message("msg_whole_number_range", what=what, lo=f"{lo:,}", hi=f"{hi:,}", value=shown)
        )
    if lo is not None:
        raise error(Message("msg_whole_number_min", what=what, lo=f"{lo:,}", value=shown))
    if hi is not None:
        raise error(Message("msg_whole_number_max", what=what, hi=f"{hi:,}", value=shown))
    raise error(Message("msg_whole_number", what=what, value=shown))


PATH_LIMIT = 160
"""Longest path a message shows whole (a path a person types; the test folders' ~100)."""


def shown_path(value: object, limit: int = PATH_LIMIT) -> str:
    """A file name or path as a message shows it: as given when it is one printable line
    of at most ``limit`` characters, else shortened at its start (the end names the file)
    and escaped like `quote`.

    The one place a message turns a path a person or a file gave into text.

    >>> shown_path("shoes/a.csv")
    'shoes/a.csv'
    >>> shown_path("a\\nb.csv")
    "'a\\\\nb.csv'"
    >>> shown_path("/".join(["a"] * 1000))[:3], len(shown_path("/".join(["a"] * 1000)))
    ('…a/', 160)
    """
    text = str(value)
    if len(text) > limit:
        text = "…" + text[-(limit - 1) :]
    if text.isprintable():
        return text
    shown = repr(text)
    return shown if len(shown) <= 2 * limit else shown[: 2 * limit - 3] + "..."


def validation_message(errors: list[dict], where: str = "") -> str:
    """One line from a schema library's error list: the field, what was wanted, what came.

    >>> validation_message([{"loc": ("meta", "decks"), "msg": "Input should be a valid integer",
    ...                      "input": "abc"}], "f.json")
    "f.json: meta.decks: Input should be a valid integer (got 'abc')"
    """
    if not errors:
        return f"{where}: invalid" if where else "invalid"
    first = errors[0]
    loc = ".".join(_field(p) for p in first.get("loc", ()) if p != "__root__")
    shown = quote(first.get("input"), 40)
    msg = str(first.get("msg", "invalid")).removeprefix("Value error, ")
    if first.get("type") in ("extra_forbidden", "unexpected_keyword_argument"):
        msg = "unknown field"
    more = f" (and {len(errors) - 1} more)" if len(errors) > 1 else ""
    parts = [p for p in (where, loc) if p]
    head = ": ".join(parts)
    tail = f"{msg} (got {shown}){more}" if "input" in first else f"{msg}{more}"
    return f"{head}: {tail}" if head else tail


def _field(part: object) -> str:
    """A field name from a file's keys, as a message shows it: one line, at most 40 characters."""
    text = str(part)
    if len(text) > 40:
        text = text[:40] + "…"
    return text.encode("unicode_escape").decode("ascii")


BUG_LOG_ENV = "ROADS_APP_LOG_DIR"


def bug_log_dir() -> Path:
    """Where full tracebacks of bugs go: ``$ROADS_APP_LOG_DIR`` or ``~/.cache/roads-app``."""
    env = os.environ.get(BUG_LOG_ENV)
    return Path(env) if env else Path.home() / ".cache" / "roads-app"


_KV_PASSWORD = re.compile(r"\bpassword\s*=\s*('(?:[^'\\]|\\.)*'|\S*)", re.IGNORECASE)
"""A ``password=...`` of a libpq key/value connection string (``host=h password=x``)."""


def _password_key(param: str) -> bool:
    """Whether a URL query parameter is a password: libpq decodes the key's %-escapes
    too, so ``pass%77ord=`` is one."""
    from urllib.parse import unquote

    return unquote(param.partition("=")[0]).strip().lower() == "password"


def _userinfo_end(rest: str) -> int:
    """Where the user part of a URL (after ``scheme://``) ends: its last ``@`` before the
    first ``/``, or before the first ``?`` if later (libpq reads up to the first ``@``
    before a ``/``, Python's urlsplit up to the last one before a ``/``, ``?`` or ``#``;
    a password with a bare ``/`` is no URL to either, but was typed as one); -1 if none."""
    return max(rest.split("/", 1)[0].rfind("@"), rest.split("?", 1)[0].rfind("@"))


def url_without_password(url: str) -> str:
    """A database URL (or libpq key/value string) as it may be shown: the password of its
    user part and every ``password`` query parameter taken out, even when malformed.

    >>> url_without_password("postgresql://roads:s3cret@db.local:5433/floor")
    'postgresql://roads@db.local:5433/floor'
    >>> url_without_password("postgresql://roads@db/floor?sslmode=require&pass%77ord=s3cret")
    'postgresql://roads@db/floor?sslmode=require'
    >>> url_without_password("postgresql://db?password=s3cret")
    'postgresql://db'
    >>> url_without_password("host=db password='s 3' dbname=floor")
    'host=db dbname=floor'
    """
    scheme, sep, rest = url.partition("://")
    if not sep:
        return " ".join(_KV_PASSWORD.sub("", url).split())
    at = _userinfo_end(rest)
    if at >= 0:
        rest = rest[:at].split(":", 1)[0] + rest[at:]
    where, q, query = rest.partition("?")
    if q:
        kept = [p for p in query.split("&") if p and not _password_key(p)]
        rest = where + ("?" + "&".join(kept) if kept else "")
    return f"{scheme}://{rest}"


def url_passwords(url: str) -> set[str]:
    """Every password a database URL holds (user part and query), as written and as
    decoded: what is scrubbed from a driver's text or a bug log.

    >>> sorted(url_passwords("postgresql://u:a%40b@h/d?password=c%64&x=1"))
    ['a%40b', 'a@b', 'c%64', 'cd']
    """
    from urllib.parse import unquote

    found: set[str] = set()
    _, sep, rest = url.partition("://")
    if not sep:
        found = {m.group(1).strip("'") for m in _KV_PASSWORD.finditer(url)}
    else:
        at = _userinfo_end(rest)
        if at >= 0:
            found.add(rest[:at].partition(":")[2])
        for query in {rest.partition("?")[2], rest[at + 1 :].partition("?")[2]}:
            found |= {p.partition("=")[2] for p in query.split("&") if _password_key(p)}
    return {s for pw in found for s in (pw, unquote(pw)) if s}


def _without_passwords(text: str) -> str:
    """``text`` with the database password (``$ROADS_APP_DB``'s, which ``--db`` sets) out:
    a bug log or its line never holds it, whatever the failing code put in its message."""
    url = os.environ.get("ROADS_APP_DB") or ""
    for secret in sorted(url_passwords(url), key=len, reverse=True):
        text = text.replace(secret, "***")
    return text


def report_bug(exc: BaseException) -> str:
    """Write ``exc``'s traceback to a log file; one line for the person, saying where it is.

    Used for every exception outside `RoadsAppError`: those are our bugs, not user errors.
    """
    text = _without_passwords("".join(traceback.format_exception(exc)))
    stamp = time.strftime("%Y%m%d-%H%M%S")
    where: str
    for folder in (bug_log_dir(), Path(tempfile.gettempdir()) / "roads-app"):
        try:
            folder.mkdir(parents=True, exist_ok=True)
            fd, name = tempfile.mkstemp(prefix=f"bug-{stamp}-", suffix=".log", dir=folder)
            with os.fdopen(fd, "w", encoding="utf-8", errors="replace") as fh:
                fh.write(text)
            where = name
            break
        except OSError:
            continue
    else:  # pragma: no cover - nowhere writable
        where = "(no writable log folder)"
    first = _without_passwords((str(exc).strip().splitlines() or [""])[0])[:160]
    what = f"{type(exc).__name__}: {first}" if first else type(exc).__name__
    return f"bug in roads-app ({what}); the full traceback is in {where}"

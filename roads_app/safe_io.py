"""Bounded reading of a file a person or another file names.

A size from ``stat`` says nothing about ``/dev/zero``, a FIFO or a file that grows
while it is read, so the checks are made on the open descriptor: it is opened
non-blocking (a FIFO with no writer cannot hang the open), ``fstat`` must say it is a
regular file, and at most ``limit + 1`` bytes are read, so an over-long file is refused
without holding more than the limit in memory. Text parsers that recurse (``json``,
``tomllib``) get a nesting-depth check first, so ``[[[[...`` is an error, not a
``RecursionError``.

Imports only `roads_app.errors`, so every layer can use it.
"""

from __future__ import annotations

import errno
import os
import stat
from pathlib import Path

from roads_app.errors import StorageError, shown_path

MAX_DEPTH = 64
"""Deepest nesting of arrays/tables accepted in a JSON or TOML file (ours use 3)."""


class InputFileError(StorageError):
    """A file that cannot be read safely: missing, not a regular file, too large."""


MAX_LINE_BYTES = 4096
"""Longest line a text shoe file may hold (a CSV row with cards is under 100 bytes)."""


def _size_text(n: int) -> str:
    if n and n % 2**20 == 0:
        return f"{n // 2**20} MB"
    return f"{n / 2**20:.1f} MB" if n >= 2**20 else f"{n / 1024:.0f} KB"


def over_limit(where: str, size: int, limit: int) -> InputFileError:
    """``f.csv: 3.5 MB is over the 2 MB limit``; in bytes when the rounded sizes look alike."""
    got, most = _size_text(size), _size_text(limit)
    if got == most:  # 256.4 KB and 256 KB both print as "256 KB"
        got, most = f"{size:,} bytes", f"{most} ({limit:,} bytes)"
    return InputFileError(f"{where}: {got} is over the {most} limit")


def _open_regular(path: str | Path, where: str) -> tuple[int, os.stat_result]:
    """An open descriptor and its `fstat`, refusing anything but a regular file.

    Opened non-blocking and checked on the descriptor, so a FIFO, device or a path swapped
    after a check is refused without ever being read.
    """
    flags = os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_NOCTTY", 0)
    try:
        fd = os.open(path, flags)
    except FileNotFoundError:
        raise InputFileError(f"{where}: no such file") from None
    except IsADirectoryError:
        raise InputFileError(f"{where}: is a folder, not a file") from None
    except OSError as e:
        if e.errno == errno.ENXIO:  # a FIFO or socket with nobody on the other end
            raise InputFileError(f"{where}: not a regular file") from None
        raise InputFileError(f"{where}: cannot be read ({e.strerror})") from None
    st = os.fstat(fd)
    if stat.S_ISREG(st.st_mode):
        return fd, st
    os.close(fd)
    if stat.S_ISDIR(st.st_mode):
        raise InputFileError(f"{where}: is a folder, not a file")
    raise InputFileError(f"{where}: not a regular file (a device, pipe or socket cannot be read)")


def read_bounded(path: str | Path, limit: int, label: str | None = None) -> bytes:
    """The bytes of a regular file of at most ``limit`` bytes; `InputFileError` otherwise."""
    where = label or shown_path(path)
    fd, st = _open_regular(path, where)
    try:
        if st.st_size > limit:
            raise over_limit(where, st.st_size, limit)
        chunks: list[bytes] = []
        got = 0
        while got <= limit:  # the file may grow after fstat: never read past limit + 1
            try:
                chunk = os.read(fd, min(1 << 20, limit + 1 - got))
            except BlockingIOError:  # pragma: no cover - regular files do not block
                continue
            except OSError as e:
                raise InputFileError(f"{where}: cannot be read ({e.strerror})") from None
            if not chunk:
                break
            chunks.append(chunk)
            got += len(chunk)
        if got > limit:
            raise InputFileError(f"{where}: over the {_size_text(limit)} limit")
        return b"".join(chunks)
    finally:
        os.close(fd)


def check_regular_file(path: str | Path, label: str | None = None) -> int:
    """Refuse anything but a regular file (checked on the open descriptor); its size."""
    fd, st = _open_regular(path, label or shown_path(path))
    os.close(fd)
    return st.st_size


def check_text_file(
    path: str | Path, limit: int, label: str | None = None, max_line: int = MAX_LINE_BYTES
) -> int:
    """Refuse a text file over ``limit`` bytes or with a line over ``max_line`` bytes; its size.

    For files handed whole to a scanner (Polars reads a CSV by its path): the size comes
    from `fstat` on the open descriptor and the lines are measured a megabyte at a time,
    so a file whose first line never ends is refused holding at most a megabyte.
    """
    where = label or shown_path(path)
    fd, st = _open_regular(path, where)
    try:
        if st.st_size > limit:
            raise over_limit(where, st.st_size, limit)
        line_no, line_len, got = 1, 0, 0  # the line being read, its bytes so far
        while got <= limit:
            chunk = os.read(fd, min(1 << 20, limit + 1 - got))
            if not chunk:
                break
            got += len(chunk)
            parts = chunk.split(b"\n")  # parts[0] ends the current line; the last goes on
            lengths = [line_len + len(parts[0]), *map(len, parts[1:])]
            longest = max(lengths)
            if longest > max_line:
                raise InputFileError(
                    f"{where}: line {line_no + lengths.index(longest):,} is longer than "
                    f"{max_line:,} bytes (a shoe file's lines are short: is it a shoe file?)"
                )
            line_no += len(parts) - 1
            line_len = lengths[-1]
        if got > limit:
            raise InputFileError(f"{where}: over the {_size_text(limit)} limit")
        return st.st_size
    except OSError as e:
        if isinstance(e, StorageError):
            raise
        raise InputFileError(f"{where}: cannot be read ({e.strerror})") from None
    finally:
        os.close(fd)


def read_text_bounded(path: str | Path, limit: int, label: str | None = None) -> str:
    """`read_bounded` decoded as UTF-8 (one-line error if it is not)."""
    data = read_bounded(path, limit, label)
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as e:
        raise InputFileError(
            f"{label or shown_path(path)}: cannot be read as UTF-8 text "
            f"(byte {e.start} is {data[e.start]:#04x})"
        ) from None


def nesting_depth(text: str | bytes, quotes: str = '"') -> int:
    """Deepest ``[``/``{`` nesting outside strings (``quotes`` open strings; ``\\`` escapes).

    >>> nesting_depth('{"a": [1, [2, "[[["]]}')
    3
    >>> nesting_depth("a = ['[', [1]]", quotes="\\"'")
    2
    """
    if isinstance(text, bytes):
        text = text.decode("utf-8", errors="replace")
    depth = deepest = 0
    in_str: str | None = None
    escaped = False
    for ch in text:
        if in_str is not None:
            if escaped:
                escaped = False
            elif ch == "\\" and in_str == '"':
                escaped = True
            elif ch == in_str:
                in_str = None
        elif ch in quotes:
            in_str = ch
        elif ch in "[{":
            depth += 1
            deepest = max(deepest, depth)
        elif ch in "]}":
            depth = max(depth - 1, 0)  # a stray closer (in a comment) buys no credit
    return deepest


def check_depth(text: str | bytes, label: str, quotes: str = '"', limit: int = MAX_DEPTH) -> None:
    """Refuse text nested deeper than ``limit`` before a recursive parser sees it."""
    opens = (
        text.count("[") + text.count("{")
        if isinstance(text, str)
        else (text.count(b"[") + text.count(b"{"))
    )
    if opens > limit and nesting_depth(text, quotes) > limit:
        raise InputFileError(f"{label}: nested more than {limit} levels deep")

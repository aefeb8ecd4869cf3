"""Hostile HTTP requests and server command lines: each must be refused in one line.

`BAD_REQUESTS` go to a real ``roads-app api`` server (`tests/test_hostile_api.py`):
each must get its status with a ``detail`` of one line, at most 300 characters, no
server path and no more than a short quote of what was sent, and change nothing.
`BAD_SERVER_ARGS` are ``roads-app`` command lines that start a server: each must end in
one line on stderr and exit status 2 before anything is started. `BAD_FEED_ARGS` are
``roads-app feed`` lines refused before any request.

In a request, ``{cards}`` is a shoe recorded by cards (one round), ``{deck1}`` a 1-deck
shoe that is full (13 rounds by result), ``{open}`` an empty shoe; in a command line,
``{busy}`` is a port that is taken and ``{free}`` one that is free.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field

LONG = 1_500  # under the round body's 2 KB cap, so the schema, not the cap, answers


@dataclass(frozen=True)
class BadRequest:
    """One hostile request and the status it must get."""

    name: str
    method: str
    path: str
    status: int
    body: bytes | None = None
    headers: dict[str, str] = field(default_factory=dict)
    token: bool = True  # sent with the operator token
    payload: str = ""  # a long run that must not come back in the detail

    @property
    def id(self) -> str:
        return self.name


def _json(obj: object) -> bytes:
    return json.dumps(obj).encode()


NAT = {"player_cards": ["9s", "Kd"], "banker_cards": ["5c", "2h"]}
ROUNDS = "/shoes/{cards}/rounds"


def _round(name: str, body: object, status: int = 422, payload: str = "") -> BadRequest:
    return BadRequest(name, "POST", ROUNDS, status, _json(body), payload=payload)


def _open(name: str, body: object) -> BadRequest:
    """A round into the empty shoe, which would take it by result if its types passed."""
    return BadRequest(name, "POST", "/shoes/{open}/rounds", 422, _json(body))


def _create(name: str, body: object, payload: str = "") -> BadRequest:
    return BadRequest(name, "POST", "/shoes", 422, _json(body), payload=payload)


BAD_REQUESTS: list[BadRequest] = [
    # echoes: a long card code, a long number, a long key, a long id (issue 27 item 2)
    _round(
        "card-1500",
        {"player_cards": ["X" * LONG, "Kd"], "banker_cards": ["5c", "2h"]},
        payload="X" * 61,
    ),
    _round(
        "points-1500-digits",
        {"player_points": int("9" * LONG), "banker_points": 1},
        payload="9" * 61,
    ),
    _round("key-1500", {"winner": "B", "k" * LONG: 1}, payload="k" * 61),
    _round("winner-1500", {"winner": "B" * LONG}, payload="B" * 61),
    _round("card-newline", {"player_cards": ["9s\nKd", "Kd"], "banker_cards": ["5c", "2h"]}),
    _round("cards-as-text", {"player_cards": "9s Kd", "banker_cards": "5c 2h"}),
    _round("four-cards", {"player_cards": ["9s", "Kd", "2c", "3c"], "banker_cards": ["5c", "2h"]}),
    _create("name-1500", {"name": "n" * LONG}, payload="n" * 61),
    _create("name-markup", {"name": "<script>alert(1)</script>\n# x"}),
    _create("table-1500", {"table": "t" * LONG}, payload="t" * 61),
    _create("table-path", {"table": "../../etc/passwd"}),
    _create("table-absolute", {"table": "/etc/passwd"}),
    BadRequest("id-10k-get", "GET", "/shoes/" + "a" * 10_000, 404, payload="a" * 61),
    BadRequest(
        "id-10k-append",
        "POST",
        "/shoes/" + "a" * 10_000 + "/rounds",
        404,
        _json({"winner": "B"}),
        payload="a" * 61,
    ),
    BadRequest("id-10k-events", "GET", "/shoes/" + "a" * 10_000 + "/events", 404, payload="a" * 61),
    BadRequest("id-markup", "GET", "/shoes/%3Cb%3Ex%3C%2Fb%3E%0A", 404),
    BadRequest(
        "void-4000-digits",
        "POST",
        "/shoes/{cards}/rounds/" + "9" * 4000 + "/void",
        422,
        payload="9" * 61,
    ),
    BadRequest("void-0", "POST", "/shoes/{cards}/rounds/0/void", 422),
    BadRequest("void-minus-1", "POST", "/shoes/{cards}/rounds/-1/void", 422),
    BadRequest("void-2", "POST", "/shoes/{cards}/rounds/2/void", 422),
    BadRequest(
        "key-header-10k",
        "POST",
        ROUNDS,
        422,
        _json(NAT),
        headers={"Idempotency-Key": "i" * 10_000},
        payload="i" * 61,
    ),
    # strict types: a flag is a JSON boolean, a total a JSON integer (item 5)
    *(_open(f"flag-{v!r}", {"winner": "B", "player_pair": v}) for v in ("yes", "true", 1, 0)),
    _open("natural-string", {"winner": "P", "player_natural": "True"}),
    _open("points-string", {"player_points": "7", "banker_points": 1}),
    _open("points-float", {"player_points": 7.0, "banker_points": 1}),
    _open("points-bool", {"player_points": True, "banker_points": 1}),
    _open("points-10", {"player_points": 10, "banker_points": 1}),
    _create("decks-string", {"decks": "8"}),
    _create("decks-float", {"decks": 8.0}),
    _create("decks-9", {"decks": 9}),
    _create("name-number", {"name": 7}),
    # one rule with the other doors (item 4)
    _round("winner-into-cards", {"winner": "B"}),
    _round("points-into-cards", {"player_points": 9, "banker_points": 7}),
    BadRequest("round-14-in-1-deck", "POST", "/shoes/{deck1}/rounds", 422, _json({"winner": "B"})),
    # bodies that are no round
    BadRequest("not-json", "POST", ROUNDS, 422, b"{winner: B"),
    BadRequest("json-array", "POST", ROUNDS, 422, b"[]"),
    BadRequest("json-null", "POST", ROUNDS, 422, b"null"),
    BadRequest("nested-1000", "POST", ROUNDS, 400, b"[" * 1000 + b"]" * 1000),
    BadRequest("empty-body", "POST", ROUNDS, 422, b""),
    BadRequest("text-plain", "POST", ROUNDS, 422, _json(NAT), {"Content-Type": "text/plain"}),
    BadRequest("nan", "POST", ROUNDS, 422, b'{"player_points": NaN, "banker_points": 1}'),
    BadRequest("bad-utf8", "POST", ROUNDS, 400, b'{"winner": "\xff\xfe"}'),
    # sizes and tokens before the body (item 1)
    BadRequest("body-3k", "POST", ROUNDS, 413, b" " * 3000 + _json(NAT)),
    BadRequest("body-3k-no-token", "POST", ROUNDS, 401, b" " * 3000 + _json(NAT), token=False),
    BadRequest("create-5k", "POST", "/shoes", 413, _json({"name": "x" * 5000})),
    BadRequest("body-on-a-read", "GET", "/shoes", 413, b"x" * 5000),
    BadRequest("undo-no-token", "POST", "/shoes/{cards}/undo", 401, token=False),
    BadRequest(
        "basic-auth",
        "POST",
        ROUNDS,
        401,
        _json(NAT),
        {"Authorization": "Basic dXNlcjpwYXNz"},
        token=False,
    ),
    BadRequest(
        "token-10k",
        "POST",
        ROUNDS,
        401,
        _json(NAT),
        {"Authorization": "Bearer " + "z" * 10_000},
        token=False,
        payload="z" * 61,
    ),
]
"""Requests a real server must refuse with their status, one line, and change nothing."""


BAD_SERVER_ARGS: list[list[str]] = [
    ["api", "--host", "a b c"],
    ["api", "--host", "x.invalid"],
    ["api", "--host", "256.1.1.1"],
    ["api", "--host", "$(reboot)"],
    ["api", "--port", "{busy}"],
    ["api", "--port", "0"],
    ["api", "--port", "65536"],
    ["--port", "{free}", "--api-port", "{free}"],
    ["--port", "{free}", "--api-port", "{busy}"],
    ["--port", "{free}", "--api-port", "70000"],
    ["--port", "{free}", "--api-port", "-1"],
    ["--port", "{busy}"],
    ["--port", "{free}", "--host", "x.invalid"],
    ["--port", "{free}", "--data", "/dev/null/data"],
    ["--port", "{free}", "--cluster", "no-such-host-x.invalid:1"],
]
"""Command lines that must end in one line and exit status 2 before any server starts
(the dashboard's lines run with the default API port taken, so a "note: the API is not
started" line would show up as a second line)."""

BAD_FEED_ARGS: list[list[str]] = [
    ["feed", "--shoe", "x", "--simulate", "--seed", "1", "--api", api]
    for api in ("http://[::1", "ftp://x", "http://", "not a url", "http://x:99999", "")
]
"""``roads-app feed`` lines whose ``--api`` is no address: one line, exit status 2."""

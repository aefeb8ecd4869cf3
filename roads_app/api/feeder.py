"""The example feeder: deal a simulated shoe into the API hand by hand, as an electronic
shoe would, so a person can watch a display fill.

Each hand is one ``POST /shoes/{id}/rounds`` by cards with an ``Idempotency-Key`` made
from the shoe, the seed and the hand number. On a dropped connection, a timeout or a
5xx the same request is sent again with the same key, so the hand is entered once
whatever happened to the answer; restarting the feeder with the same seed skips the
hands already in. A 4xx is the server refusing the hand: the feeder stops and says why.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import Any

import httpx

from roads_app.errors import RoadsAppError, quote
from roads_app.game.shoe import ShoeOptions, deal_shoe
from roads_app.messages import Message

RETRY_DELAYS_S: tuple[float, ...] = (0.1, 0.2, 0.5, 1.0, 2.0)
"""Waits before the first retries of one hand; later retries wait the last of these."""

PATIENCE_S = 60.0
"""How long one hand is retried (a server restarting, a network blip) before giving up."""


class FeedError(RoadsAppError):
    """The server refused a hand or could not be reached after every retry."""


@dataclass(frozen=True)
class Fed:
    """What became of one hand."""

    hand: int
    status: int
    replayed: bool
    attempts: int
    version: int | None


def hands(seed: int, decks: int) -> Iterator[tuple[list[str], list[str]]]:
    """The hands of simulated shoe ``seed`` (the same shoe `roads-app simulate` deals)."""
    dealt = deal_shoe(seed, ShoeOptions(decks=decks))
    yield from zip(
        dealt.rounds["player_cards"].to_list(), dealt.rounds["banker_cards"].to_list(), strict=True
    )


def idempotency_key(shoe_id: str, seed: int, hand: int) -> str:
    """Stable per hand, so a retry or a restart with the same seed never doubles a hand."""
    return f"feed-{shoe_id}-s{seed}-h{hand}"


def post_hand(
    client: httpx.Client,
    shoe_id: str,
    body: dict,
    key: str,
    *,
    patience: float = PATIENCE_S,
    sleep: Callable[[float], None] = time.sleep,
) -> tuple[httpx.Response, int]:
    """POST one round, retrying with the same key on network errors, 5xx and 429."""
    return post_to(client, f"/shoes/{shoe_id}/rounds", key, body, patience=patience, sleep=sleep)


def post_to(
    client: httpx.Client,
    path: str,
    key: str,
    body: dict | None = None,
    *,
    patience: float = PATIENCE_S,
    sleep: Callable[[float], None] = time.sleep,
) -> tuple[httpx.Response, int]:
    """POST ``body`` to ``path``, retrying with the same key on network errors, 5xx, 429."""
    give_up = time.monotonic() + patience
    attempts = 0
    while True:
        attempts += 1
        try:
            r = client.post(path, json=body, headers={"Idempotency-Key": key})
        except httpx.TransportError as e:
            last = f"{type(e).__name__}: {e}" if str(e) else type(e).__name__
        else:
            if r.status_code < 500 and r.status_code != 429:
                return r, attempts
            last = f"HTTP {r.status_code}: {_reason(r)}"
        delay = RETRY_DELAYS_S[min(attempts, len(RETRY_DELAYS_S)) - 1]
        if time.monotonic() + delay > give_up:
            raise FeedError(
                Message(
                    "msg_feed_not_delivered",
                    path=path,
                    attempts=attempts,
                    seconds=f"{patience:g}",
                    last=last,
                )
            )
        sleep(delay)


def api_url(text: str) -> httpx.URL:
    """The API's address as given to ``--api``: an http(s) URL with a host, or one line.

    >>> str(api_url("http://127.0.0.1:8502/"))
    'http://127.0.0.1:8502'
    """
    try:
        url: httpx.URL | None = httpx.URL(text.strip().rstrip("/"))
    except (httpx.InvalidURL, ValueError, TypeError):
        url = None
    if (
        url is None
        or url.scheme not in ("http", "https")
        or not url.host
        or not 1 <= (url.port or 80) <= 65535
    ):
        raise FeedError(
            Message(
                "msg_feed_bad_url", option="--api", url=quote(text), example="http://127.0.0.1:8502"
            )
        )
    return url


def feed(
    api: str,
    shoe_id: str,
    seed: int,
    every: float,
    token: str | None,
    *,
    limit: int | None = None,
    on_hand: Callable[[Fed], None] | None = None,
    timeout: float = 10.0,
    patience: float = PATIENCE_S,
) -> list[Fed]:
    """Feed simulated shoe ``seed`` into shoe ``shoe_id``, one hand every ``every`` seconds."""
    headers = {"Authorization": f"Bearer {token}"} if token else {}
    out: list[Fed] = []
    base = api_url(api)
    with httpx.Client(base_url=base, headers=headers, timeout=timeout) as client:
        decks = _decks(client, shoe_id)
        start = time.monotonic()
        for i, (pc, bc) in enumerate(hands(seed, decks), start=1):
            if limit is not None and i > limit:
                break
            r, attempts = post_hand(
                client,
                shoe_id,
                {"player_cards": pc, "banker_cards": bc},
                idempotency_key(shoe_id, seed, i),
                patience=patience,
            )
            fed = _fed(r, i, attempts)
            out.append(fed)
            if on_hand is not None:
                on_hand(fed)
            wait = start + i * every - time.monotonic()  # a steady beat, not drifting
            if wait > 0:
                time.sleep(wait)
        else:  # the cut card's last hand was played: the shoe ends itself
            r, _ = post_to(
                client, f"/shoes/{shoe_id}/end", end_key(shoe_id, seed), patience=patience
            )
            if r.status_code >= 400:
                raise FeedError(
                    Message("msg_feed_not_ended", status=f"HTTP {r.status_code}", reason=_reason(r))
                )
    return out


def feed_table(
    api: str,
    code: str,
    seed: int,
    every: float,
    token: str | None,
    *,
    shoes: int | None = None,
    limit: int | None = None,
    on_hand: Callable[[Fed], None] | None = None,
    timeout: float = 10.0,
) -> list[Fed]:
    """Deal simulated shoes at floor table ``code``, shoe after shoe (``seed``, ``seed``+1,
    ...), a shuffle between them (``POST /tables/{code}/shuffle``), one hand every
    ``every`` seconds, as a table's card reader does. ``shoes``: stop after that many
    (None: go on until stopped); ``limit``: at most that many hands a shoe.

    Each hand and each shuffle has its own ``Idempotency-Key`` (the day, the seed, the
    shoe, the hand), so a retry never deals a hand twice; a 4xx (a closed table) stops
    the feeder with its reason."""
    headers = {"Authorization": f"Bearer {token}"} if token else {}
    out: list[Fed] = []
    day = time.strftime("%Y%m%d", time.gmtime())
    with httpx.Client(base_url=api_url(api), headers=headers, timeout=timeout) as client:
        decks = _table_decks(client, code)
        start, beat = time.monotonic(), 0
        k = 0
        while shoes is None or k < shoes:
            stem = f"feed-{code}-{day}-s{seed}-k{k}"
            for i, (pc, bc) in enumerate(hands(seed + k, decks), start=1):
                if limit is not None and i > limit:
                    break
                body = {"player_cards": pc, "banker_cards": bc}
                r, attempts = post_to(client, f"/tables/{code}/rounds", f"{stem}-h{i}", body)
                fed = _fed(r, i, attempts)
                out.append(fed)
                if on_hand is not None:
                    on_hand(fed)
                beat += 1
                wait = start + beat * every - time.monotonic()
                if wait > 0:
                    time.sleep(wait)
            r, _ = post_to(client, f"/tables/{code}/shuffle", f"{stem}-shuffle")
            if r.status_code >= 400:
                raise FeedError(
                    Message(
                        "msg_feed_not_shuffled",
                        shoe=k + 1,
                        status=f"HTTP {r.status_code}",
                        reason=_reason(r),
                    )
                )
            k += 1
    return out


def _fed(r: httpx.Response, hand: int, attempts: int) -> Fed:
    """What became of a hand, from its answer; a refusal (4xx) stops the feeder."""
    if r.status_code >= 400:
        raise FeedError(
            Message(
                "msg_feed_hand_refused",
                hand=hand,
                status=f"HTTP {r.status_code}",
                reason=_reason(r),
            )
        )
    replayed = r.headers.get("Idempotent-Replayed") == "true"
    return Fed(hand, r.status_code, replayed, attempts, r.json().get("version"))


def _table_decks(client: httpx.Client, code: str) -> int:
    """The decks of the rules the table plays (``GET /tables/{code}``, ``GET /rules``)."""
    table = _get(client, f"/tables/{code}", "msg_feed_table_status", code=code)
    decks = {
        t["name"]: int(t["decks"])
        for t in _get(client, "/rules", "msg_feed_table_status", code=code)
    }
    return decks.get(table["rules"], 8)


def _get(client: httpx.Client, path: str, refused: str, **where: str) -> Any:
    """The JSON answer of a GET; unreachable or refused (``refused``, the message that
    names ``where``), one line."""
    try:
        r = client.get(path)
    except httpx.TransportError as e:
        raise FeedError(
            Message("msg_feed_unreachable", url=quote(str(client.base_url)), error=str(e))
        ) from None
    if r.status_code != 200:
        raise FeedError(
            Message(refused, **where, status=f"HTTP {r.status_code}", reason=_reason(r))
        )
    return r.json()


def end_key(shoe_id: str, seed: int) -> str:
    """The end of a fed shoe is asked once too: a restarted feeder ends it only once."""
    return f"feed-{shoe_id}-s{seed}-end"


def _decks(client: httpx.Client, shoe_id: str) -> int:
    return int(_get(client, f"/shoes/{shoe_id}", "msg_feed_shoe_status", shoe=shoe_id)["decks"])


def _reason(r: httpx.Response) -> str:
    try:
        return str(r.json().get("detail"))
    except ValueError:
        return r.text[:200]

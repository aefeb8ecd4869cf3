"""What an operator watches: a server's ``/metrics`` (Prometheus' text format) and whether
it is ready to serve (``/health``).

Each server (the API, the dashboard) keeps its metrics on a registry of its own
(`Metrics`), not the library's global one, so two apps in one process never mix their
numbers. The core keeps plain numbers (the change feed's watcher: its reconnects and
whether it has lost the database; the store's reconnects) and the servers their live
ones (followers, sessions): those are read when scraped (`_Live`). What is measured as
it happens (an append's time, a refusal, the feed's lag) goes to a histogram or a
counter as it happens.

Labels are ids and codes only: a shoe's id, never its name; a refusal's `Reason`,
never its text. No token, password or name a person typed is ever in a scrape.

One registry per process: the API runs as one uvicorn process (`roads_app.api.server`),
the dashboard as one Streamlit process, so each answers for itself and a scraper names
each process as a target of its own.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterator, Mapping
from enum import StrEnum

from prometheus_client import CONTENT_TYPE_LATEST, CollectorRegistry, Counter, Histogram
from prometheus_client.core import CounterMetricFamily, GaugeMetricFamily, Metric
from prometheus_client.exposition import generate_latest
from prometheus_client.registry import Collector

from roads_app.store import pg
from roads_app.store.watch import Watcher

CONTENT_TYPE = CONTENT_TYPE_LATEST
PREFIX = "roads_app_"

APPEND_BUCKETS = (0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0)
"""Seconds: an append on a quiet server takes a few milliseconds, a busy database up to
its lock timeout (5 s)."""
LAG_BUCKETS = (0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0, 10.0, 30.0, 60.0)
"""Seconds from a change's commit to this process's watcher seeing it."""
LAG_CAP_S = 3600.0
"""A shoe whose time stamp is older than this when seen did not just change (a shoe
restored from the trash keeps its time): not a lag."""


class Reason(StrEnum):
    """Why a request was refused, as a metric's label: a bounded set of codes, never the
    refusal's text (which may quote what the client sent)."""

    BAD_REQUEST = "bad_request"
    UNAUTHORIZED = "unauthorized"
    FORBIDDEN = "forbidden"
    NOT_FOUND = "not_found"
    METHOD = "method_not_allowed"
    CONFLICT = "conflict"
    TOO_BIG = "too_big"
    INVALID = "invalid"
    UNAVAILABLE = "unavailable"
    BUG = "bug"
    OTHER = "other"


REASON_OF_STATUS: Mapping[int, Reason] = {
    400: Reason.BAD_REQUEST,
    401: Reason.UNAUTHORIZED,
    403: Reason.FORBIDDEN,
    404: Reason.NOT_FOUND,
    405: Reason.METHOD,
    409: Reason.CONFLICT,
    413: Reason.TOO_BIG,
    422: Reason.INVALID,
    500: Reason.BUG,
    503: Reason.UNAVAILABLE,
}


def reason_of(status: int) -> Reason:
    """A refusal's reason code from its HTTP status.

    >>> reason_of(413), reason_of(418)
    (<Reason.TOO_BIG: 'too_big'>, <Reason.OTHER: 'other'>)
    """
    return REASON_OF_STATUS.get(status, Reason.OTHER)


def not_ready(watcher: Watcher) -> str | None:
    """Why this server should get no new requests now (one line), None when it is ready:
    its watcher has lost the database, so writes fail and followers fall behind here.

    >>> from pathlib import Path
    >>> w = Watcher(Path("/nonexistent"))
    >>> not_ready(w) is None
    True
    >>> w.lost_since = time.monotonic() - 3
    >>> not_ready(w)
    'not ready: the database is unreachable (for 3 s)'
    """
    since = watcher.lost_since
    if since is None:
        return None
    return f"not ready: the database is unreachable (for {time.monotonic() - since:.0f} s)"


class _Live(Collector):
    """The numbers read when scraped: followers, events sent, reconnects, the database's
    state, sessions."""

    def __init__(
        self,
        watcher: Watcher,
        followers: Callable[[], Mapping[str, int]],
        sent: Callable[[], int],
        sessions: Callable[[], int] | None,
    ) -> None:
        self.watcher = watcher
        self.followers = followers
        self.sent = sent
        self.sessions = sessions

    def collect(self) -> Iterator[Metric]:
        g = GaugeMetricFamily(
            PREFIX + "followers", "Followers now per followed shoe (its id)", labels=["shoe"]
        )
        for shoe_id, n in sorted(self.followers().items()):
            g.add_metric([shoe_id], n)
        yield g
        yield CounterMetricFamily(
            PREFIX + "events_sent", "Changes sent to followers", value=self.sent()
        )
        c = CounterMetricFamily(
            PREFIX + "db_reconnects",
            "Connections to the database made again after it was lost: the change feed's "
            "listener (feed) and the store's (store)",
            labels=["connection"],
        )
        c.add_metric(["feed"], self.watcher.reconnects)
        c.add_metric(["store"], pg.RECONNECTS.value)
        yield c
        yield GaugeMetricFamily(
            PREFIX + "database_up",
            "1 while the change feed reaches the database, 0 while it is lost",
            value=0 if self.watcher.lost_since is not None else 1,
        )
        if self.sessions is not None:
            yield GaugeMetricFamily(
                PREFIX + "sessions_open", "Dashboard sessions open (tabs)", value=self.sessions()
            )


class Metrics:
    """One server's metrics, on a registry of its own.

    ``followers``, ``sent`` and ``sessions`` are read at each scrape; ``appends``: the
    server takes appends (the API's feeders, the dashboard's entry pages), so their time
    is measured.
    """

    def __init__(
        self,
        watcher: Watcher,
        followers: Callable[[], Mapping[str, int]],
        sent: Callable[[], int],
        *,
        sessions: Callable[[], int] | None = None,
        appends: bool = False,
    ) -> None:
        self.registry = CollectorRegistry(auto_describe=False)
        self.watcher = watcher
        self.append_seconds = (
            Histogram(
                PREFIX + "append_seconds",
                "Time to append a round, from the request's arrival to its answer",
                buckets=APPEND_BUCKETS,
                registry=self.registry,
            )
            if appends
            else None
        )
        self.refusals = Counter(
            PREFIX + "refusals", "Requests refused, by reason", ["reason"], registry=self.registry
        )
        for reason in Reason:  # every code listed from the start, at 0
            self.refusals.labels(reason.value)
        self.feed_lag = Histogram(
            PREFIX + "feed_lag_seconds",
            "Seconds from a shoe's change to this process's change feed seeing it",
            buckets=LAG_BUCKETS,
            registry=self.registry,
        )
        self.registry.register(_Live(watcher, followers, sent, sessions))
        self._unsubscribe = watcher.subscribe(self._seen)

    def refused(self, status: int) -> None:
        self.refusals.labels(reason_of(status).value).inc()

    def _seen(self, _seq: int, changed: frozenset[str]) -> None:
        """On the watcher's thread: how late each changed shoe's change reached us."""
        now = time.time()
        for shoe_id in changed:
            shoe = self.watcher.shoe(shoe_id)
            if shoe is not None and shoe.modified > 0:
                lag = now - shoe.modified
                if lag < LAG_CAP_S:
                    self.feed_lag.observe(max(lag, 0.0))  # another host's clock may run ahead

    def scrape(self) -> bytes:
        """The registry in Prometheus' text format."""
        return generate_latest(self.registry)

    def close(self) -> None:
        self._unsubscribe()

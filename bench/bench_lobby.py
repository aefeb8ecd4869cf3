"""The lobby stream (``GET /lobby/events``) of one API process: many tables fed, many
followers, where an event's time goes.

Run: .venv/bin/python bench/bench_lobby.py [--tables 100] [--every 2] [--followers 2000]
[--clients 4] [--seconds 30] [--start 30] [--hands 60] [--code DIR ...]

One API process (SQLite, a fresh data folder) with ``--tables`` floor tables open, each
``--start`` hands into its shoe; each table is dealt a hand by cards every ``--every``
seconds (open loop, spread evenly, each with an Idempotency-Key, one asyncio feeder with
a connection a table, so an append that waits holds up no other table's), and after
``--hands`` hands it shuffles (``POST /tables/{code}/shuffle``, not timed), so the next
hand starts its next shoe. ``--followers`` lobby streams are held by ``--clients`` client
processes: raw sockets on one event loop each (uvloop, an asyncio Protocol a stream, no
task or thread a stream), each event's table, shoe number and round count read by
byte search (the client parses no JSON after the first snapshot), so a follower costs
its client little and the bench is not what it measures.

The server runs `roads_app.api.server.serve` as `roads-app api` does, in a wrapper
(`bench_fanout.server_main`'s way) that records when each table append's transaction
was committed (`Tables.append` returned), when each lobby event was published to the
followers (`fanout.Channel.publish` on the lobby's key: start and end, so the writes to
every follower are timed) and every garbage collection's pause. All times are one
system-wide monotonic clock.

Printed: event latency from the append's commit to each follower's receipt, p50/p99/max,
split into commit -> published and published -> received; the followers that missed
anything (their last (shoe number, round count, state) of some table differs from the
table's at the end, or their stream ended); the appends' own latency as the feeder saw
it (sent -> answered); the CPU of the server's process tree and of each client as a
share of one core; GC pauses; the machine's load before and after (a shared machine).
``--code DIR``: serve another checkout (e.g. main: its ``.venv``, else this one's Python
with ``PYTHONPATH=DIR``), interleaved with this one's runs by ``--repeat``.
"""

from __future__ import annotations

import argparse
import array
import asyncio
import contextlib
import gc
import json
import os
import re
import signal
import subprocess
import sys
import tempfile
import time
from collections.abc import Awaitable, Callable
from pathlib import Path

import httpx

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "bench"))  # not ROOT: the server runs ``--code``'s own
if sys.argv[1:2] != ["_server"]:
    sys.path.insert(0, str(ROOT))

import bench_fanout as bf  # noqa: E402

LOBBY = "lobby"
CHANGES = (b"table", b"round")
"""A table's change: its whole summary, or (this version on) a round's change alone;
both carry the four fields read here (`fields`)."""
_FIELDS = (b'"code":"', b'"shoe_number":', b'"round_count":', b'"state":"')


def fields(data: bytes) -> tuple[str, int, int, str]:
    """(code, shoe number, round count, state) of a ``table`` or ``round`` event's JSON,
    by byte search (its keys are unique in it: the big road's cells are lists).

    >>> fields(b'{"code":"T1","state":"open","shoe_number":2,"round_count":41,"x":[]}')
    ('T1', 2, 41, 'open')
    """
    out: list[str] = []
    for key in _FIELDS:
        i = data.find(key) + len(key)
        stop = data.find(b'"', i) if key.endswith(b'"') else _number_end(data, i)
        out.append(data[i:stop].decode())
    code, number, count, state = out
    return code, int(number) if number != "null" else 0, int(count), state


def _number_end(data: bytes, i: int) -> int:
    j = i
    while j < len(data) and data[j : j + 1] not in (b",", b"}"):
        j += 1
    return j


# --- the server, wrapped ---------------------------------------------------------------


def server_main(data: str, port: int, trace: str) -> None:
    """`roads-app api`, with commit, publish and GC times written to ``trace`` on exit."""
    bf.more_files()
    from roads_app.api import app, fanout, floor_feed, server

    commits: list[tuple[str, int, int, float]] = []
    published: list[tuple[str, int, int, float, float]] = []
    pauses: list[float] = []
    served: list[tuple[float, float]] = []  # an append's request: (in, answered)
    stored: list[tuple[float, float]] = []  # its store call: (start, end), wherever it ran
    bf.gc_pauses(pauses)
    real_append, real_publish = floor_feed.Tables.append, fanout.Channel.publish
    real_call = app.App.__call__

    async def call(self, scope, receive, send):  # type: ignore[no-untyped-def]
        if scope.get("method") != "POST" or not scope.get("path", "").endswith("/rounds"):
            return await real_call(self, scope, receive, send)
        t0 = time.monotonic()
        await real_call(self, scope, receive, send)
        served.append((t0, time.monotonic()))

    def append(self, code, body, key, who=None):  # type: ignore[no-untyped-def]
        t0 = time.monotonic()
        reply = real_append(self, code, body, key, who)
        stored.append((t0, time.monotonic()))
        b = reply.body
        if isinstance(b, dict) and "round" in b:
            commits.append(
                (b["table"], b["shoe_number"] or 0, b["round"]["round"], time.monotonic())
            )
        return reply

    def publish(self, frame):  # type: ignore[no-untyped-def]
        t0 = time.monotonic()
        real_publish(self, frame)
        if self.key == LOBBY:  # every event of the frame (a tick's batch holds several)
            t1 = time.monotonic()
            for kind, rest in bf.split_events(frame.sse)[0]:
                if kind in CHANGES:
                    code, number, count, state = fields(rest.removeprefix(b"data: "))
                    if state == "open":  # a round's event (a shuffle's repeats the count)
                        published.append((code, number, count, t0, t1))

    app.App.__call__ = call  # type: ignore[method-assign]
    floor_feed.Tables.append = append  # type: ignore[method-assign]
    fanout.Channel.publish = publish  # type: ignore[method-assign]

    def dump(*_: object) -> None:
        Path(trace).write_text(
            json.dumps(
                {
                    "commits": commits,
                    "published": published,
                    "gc": pauses,
                    "served": served,
                    "stored": stored,
                }
            )
        )
        os._exit(0)

    signal.signal(signal.SIGUSR1, dump)
    server.serve(Path(data), port)


# --- the followers -------------------------------------------------------------------------


EVENT = re.compile(
    rb'event: (?:round\ndata: \{"code":"([^"]*)","shoe_number":(\d+|null),'
    rb'"round_count":(\d+),"state":"(\w+)"|(\w+)\ndata: ([^\n]*))'
)
"""Every event of a read, by one regular expression (C's speed, not Python's per event):
a ``round`` event's first four fields (`floor_stream.ALWAYS`, in that order) as found,
any other event (or a ``round`` event not so laid out) as its kind and its data.

>>> EVENT.findall(b'event: round\ndata: {"code":"T1","shoe_number":2,"round_count":5,'
...               b'"state":"open","last":[]}\n\n: ping\n\nevent: gone\ndata: {}\n\n')
[(b'T1', b'2', b'5', b'open', b'', b''), (b'', b'', b'', b'', b'gone', b'{}')]
"""

Found = tuple[bytes, bytes, bytes, bytes, bytes, bytes]


class Stream(asyncio.Protocol):
    """One lobby follower: each table or round event's (table, shoe number, rounds,
    arrival) and every table's last (shoe number, rounds, state).

    Why kept raw: four client processes share the server's two cores, and parsing each
    of ~100,000 events a second in Python took the clients nearly a core between them,
    a core the server then waited for (and a client that fell behind read more per
    turn, so parsed more per turn, and fell further behind: seconds at each round of
    shuffles). Each read's events are found by one regular expression (`EVENT`) and
    kept with its arrival; `settle` reads them after the run."""

    def __init__(self, c: Clients) -> None:
        self.c = c
        self.buf = b""
        self.seen: list[tuple[float, list[Found]]] = []
        self.last: dict[str, tuple[int, int, str]] = {}
        self.ended = ""

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        transport.write(b"GET /lobby/events HTTP/1.1\r\nHost: b\r\n\r\n")  # type: ignore[attr-defined]

    def data_received(self, data: bytes) -> None:
        now = time.monotonic()
        buf = self.buf + data
        end = buf.rfind(b"\n\n") + 2
        whole, self.buf = buf[:end], buf[end:]  # whole events; the rest waits for more
        if whole:
            self.seen.append((now, EVENT.findall(whole)))
            self.c.ready += whole.count(b"event: lobby\n")  # the snapshot: streaming

    def settle(self) -> None:
        """What was kept into the client's log (a change's events: table, shoe number,
        rounds, arrival) and this stream's last (shoe number, rounds, state) of each table."""
        log, index, last = self.c.log, self.c.index, self.last
        for now, found in self.seen:
            for code, number, count, state, kind, data in found:
                if not kind:  # a round event, as found
                    name, shoe, rounds = (
                        code.decode(),
                        int(number.replace(b"null", b"0")),
                        int(count),
                    )
                    got_state = state.decode()
                elif kind in CHANGES:
                    name, shoe, rounds, got_state = fields(data)
                elif kind == b"lobby":
                    for t in json.loads(data)["tables"]:
                        last[t["code"]] = (t["shoe_number"] or 0, t["round_count"], t["state"])
                    continue
                else:
                    self.ended = kind.decode()
                    continue
                last[name] = (shoe, rounds, got_state)
                if got_state == "open":  # a round's event (a shuffle's repeats the count)
                    log.extend((index[name], shoe, rounds, now))
        self.seen = []

    def connection_lost(self, exc: Exception | None) -> None:
        self.ended = self.ended or "closed"


class Clients:
    def __init__(self, codes: list[str]) -> None:
        self.index = {code: i for i, code in enumerate(codes)}
        self.log = array.array("d")
        self.ready = 0
        self.lag: list[float] = []
        self.gc: list[float] = []


async def clients_main(url: str, codes: list[str], n: int, out: str) -> None:
    """Hold ``n`` lobby streams; "ready" once each has its snapshot; at a line on stdin,
    write what was seen to ``out``."""
    host, port = url.removeprefix("http://").split(":")
    # What the streams keep (`Stream.seen`) grows to millions of objects, and a full
    # collection walks all of them: pauses of a second in a 90 s run, late receipts the
    # server would be blamed for. They hold no cycles: no collector while they run.
    gc.disable()
    c = Clients(codes)
    loop = asyncio.get_running_loop()
    streams: list[Stream] = []
    for i in range(n):
        _, proto = await loop.create_connection(lambda: Stream(c), host, int(port))
        streams.append(proto)  # type: ignore[arg-type]
        if i % 100 == 99:
            await asyncio.sleep(0.05)  # not all at once: the server's listen backlog
    cpu = await bf.hold(c, n, 2.0)  # then the last appends' events
    for s in streams:
        s.settle()
    final = [{"last": s.last, "ended": s.ended} for s in streams]
    Path(out).write_text(
        json.dumps({"log": c.log.tolist(), "final": final, "cpu": cpu, "lag": c.lag, "gc": c.gc})
    )


# --- the tables and the feeder ---------------------------------------------------------------


def add_tables(data: Path, n: int, start: int) -> list[str]:
    """``n`` open floor tables, each ``start`` hands into its first shoe."""
    from roads_app.game import rounds as game_rounds
    from roads_app.game.floor import FloorLimits
    from roads_app.store import db

    store = db.Store(data)
    codes = [f"T{i:03d}" for i in range(n)]
    for i, code in enumerate(codes):
        store.floor.add(code, f"Table {i}", "classic", FloorLimits.of((10, 5000)), i)
        store.floor.open(code)
        for pc, bc in hands(2000 + 100 * i, start):  # the feeder deals on
            store.floor.append(
                code, lambda r, d, pc=pc, bc=bc: game_rounds.add_cards(r, pc, bc, decks=d)
            )
    store.close()
    return codes


def hands(seed: int, n: int) -> list[tuple[list[str], list[str]]]:
    from roads_app.game.shoe import ShoeOptions, deal_shoe

    r = deal_shoe(seed, ShoeOptions()).rounds.head(n)
    return list(zip(r["player_cards"].to_list(), r["banker_cards"].to_list(), strict=True))


def dealt_at(k: int, a: argparse.Namespace) -> list[list[tuple[list[str], list[str]]]]:
    """Every shoe table ``k`` is dealt in the feed (its first from hand ``--start``), dealt
    before the feed starts: a shoe dealt on the feeder's event loop held up every
    table's requests (the appends' tail was a second long at the feed's start, all the
    feeder's own)."""
    seed, beats = 2000 + 100 * k, int(a.seconds / a.every) + 1
    out = [hands(seed, a.hands)[a.start :]]
    left = beats - len(out[0])
    while left > 0:
        seed += 1
        out.append(hands(seed, a.hands))
        left -= a.hands
    return out


class RawClient:
    """One keep-alive HTTP/1.1 connection written and read by hand (``--raw-feeder``): a
    card-reading shoe is a device of its own, and httpx's client, a hundred of them in the
    bench's one process, took a fifth of a core beside the server; the time it spent is
    in the appends' measured tail. Same requests, same keys, same sent -> answered."""

    def __init__(self, url: str, token: str) -> None:
        self.host, port = url.removeprefix("http://").split(":")
        self.port = int(port)
        self.head = f"Host: {self.host}\r\nAuthorization: Bearer {token}\r\n"
        self.reader: asyncio.StreamReader | None = None
        self.writer: asyncio.StreamWriter | None = None

    async def post(self, path: str, body: dict | None = None, key: str | None = None) -> int:
        """The answer's status (its body read and dropped)."""
        if self.writer is None:
            self.reader, self.writer = await asyncio.open_connection(self.host, self.port)
        assert self.reader is not None
        data = json.dumps(body, separators=(",", ":")).encode() if body is not None else b""
        extra = f"Idempotency-Key: {key}\r\n" if key else ""
        self.writer.write(
            f"POST {path} HTTP/1.1\r\n{self.head}{extra}Content-Type: application/json\r\n"
            f"Content-Length: {len(data)}\r\n\r\n".encode()
            + data
        )
        head = await self.reader.readuntil(b"\r\n\r\n")
        status = int(head.split(b" ", 2)[1])
        length = int(re.search(rb"(?i)content-length: *(\d+)", head).group(1))  # type: ignore[union-attr]
        await self.reader.readexactly(length)
        return status

    def close(self) -> None:
        if self.writer is not None:
            self.writer.close()


Send = Callable[[str, "dict | None", "str | None"], Awaitable[None]]
"""Posts one request of a table's: ``("shuffle", None, None)`` or ``("rounds", body, key)``."""


async def deal_on_beats(
    k: int, codes: list[str], a: argparse.Namespace, shoes: list, t0: float, send: Send
) -> None:
    """Table ``k``'s hands, each on its beat (every ``--every`` s from ``t0``, the tables
    spread evenly over it), a shuffle when a shoe runs out; each hand with its key."""
    code, seed, dealt = codes[k], 2000 + 100 * k, a.start
    left = shoes.pop(0)
    beat = 0
    while True:
        due = t0 + k * a.every / len(codes) + beat * a.every
        if due > t0 + a.seconds:
            return
        await asyncio.sleep(max(0.0, due - time.monotonic()))
        beat += 1
        if not left:  # the shoe's end: a shuffle, then the next shoe's first hand
            await send("shuffle", None, None)
            seed, dealt = seed + 1, 0
            left = shoes.pop(0)
        pc, bc = left.pop(0)
        dealt += 1
        await send("rounds", {"player_cards": pc, "banker_cards": bc}, f"{code}-{seed}-{dealt}")


async def raw_feed(url: str, token: str, codes: list[str], a: argparse.Namespace) -> list[float]:
    """`feed` through `RawClient`s: the appends' own latency (ms), sent -> answered."""
    own: list[float] = []
    refused: list[str] = []
    shoes = [dealt_at(k, a) for k in range(len(codes))]
    clients = [RawClient(url, token) for _ in codes]

    def sender(code: str, c: RawClient) -> Send:
        async def send(kind: str, body: dict | None, key: str | None) -> None:
            t = time.monotonic()
            status = await c.post(f"/tables/{code}/{kind}", body, key)
            if kind == "shuffle":
                assert status == 200, status
                return
            own.append((time.monotonic() - t) * 1e3)
            if status != 201:
                refused.append(f"{code} {status}")

        return send

    t0 = time.monotonic() + 0.5
    try:
        await asyncio.gather(
            *(
                deal_on_beats(k, codes, a, shoes[k], t0, sender(code, clients[k]))
                for k, code in enumerate(codes)
            )
        )
    finally:
        for c in clients:
            c.close()
    if refused:
        print(f"  appends refused: {len(refused)} ({refused[0]})")
    return own


async def feed(url: str, token: str, codes: list[str], a: argparse.Namespace) -> list[float]:
    """Deal every table a hand each ``--every`` s for ``--seconds`` s (a shuffle after
    ``--hands``); the appends' own latency (ms), sent -> answered."""
    own: list[float] = []
    retried: list[str] = []
    refused: list[str] = []
    headers = {"Authorization": f"Bearer {token}"}
    shoes = [dealt_at(k, a) for k in range(len(codes))]

    def sender(code: str, c: httpx.AsyncClient) -> Send:
        async def send(kind: str, body: dict | None, key: str | None) -> None:
            if kind == "shuffle":
                assert (await c.post(f"/tables/{code}/shuffle")).status_code == 200
                return
            t = time.monotonic()
            for attempt in range(5):  # a dropped connection: the same key again
                try:
                    r = await c.post(
                        f"/tables/{code}/rounds", json=body, headers={"Idempotency-Key": key}
                    )
                    break
                except httpx.TransportError as e:
                    retried.append(f"{code} {type(e).__name__} {e}")
                    if attempt == 4:
                        raise
            own.append((time.monotonic() - t) * 1e3)
            if r.status_code != 201:  # e.g. the database busy at a heavy load: said
                refused.append(f"{code} {r.status_code} {r.text}")

        return send

    async with contextlib.AsyncExitStack() as stack:
        clients = [
            await stack.enter_async_context(
                httpx.AsyncClient(base_url=url, headers=headers, timeout=60)
            )
            for _ in codes
        ]
        t0 = time.monotonic() + 0.5  # the feed's start, once every client is made
        await asyncio.gather(
            *(
                deal_on_beats(k, codes, a, shoes[k], t0, sender(code, clients[k]))
                for k, code in enumerate(codes)
            )
        )
    if retried:
        print(f"  appends sent again after a lost connection: {len(retried)} ({retried[0]})")
    if refused:
        print(f"  appends refused: {len(refused)} ({refused[0]})")
    return own


# --- the run -------------------------------------------------------------------------------


def python_for(code: Path) -> tuple[str, dict[str, str]]:
    """The checkout's own venv's Python, else this one's with the checkout first on the path."""
    own = code / ".venv" / "bin" / "python"
    return (str(own) if own.exists() else sys.executable), {**os.environ, "PYTHONPATH": str(code)}


def run(code: Path, a: argparse.Namespace) -> None:
    b = bf._bench_api()
    py, env = python_for(code)
    env.pop("ROADS_APP_DB", None)
    tmp = Path(tempfile.mkdtemp(prefix="bench_lobby_"))
    port, trace = b.free_port(), tmp / "trace.json"
    url = f"http://127.0.0.1:{port}"
    head = bf.head_of(code)
    token = bf.operator_token(py, code, tmp, env)
    codes = add_tables(tmp, a.tables, a.start)
    server = subprocess.Popen(
        [py, __file__, "_server", str(tmp), str(port), str(trace)],
        cwd=code,
        env=env,
        stdout=subprocess.DEVNULL,
        stderr=open(tmp / "server.log", "wb"),  # noqa: SIM115
        start_new_session=True,
    )
    clients: list[subprocess.Popen[str]] = []
    outs = [tmp / f"client{i}.json" for i in range(a.clients)]
    try:
        b.wait_health(url, server)
        per = [a.followers // a.clients + (i < a.followers % a.clients) for i in range(a.clients)]
        t_open = time.monotonic()
        for i, n in enumerate(per):
            argv = [
                sys.executable,
                __file__,
                "_clients",
                url,
                ",".join(codes),
                str(n),
                str(outs[i]),
            ]
            clients.append(
                subprocess.Popen(argv, stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
            )
        b.all_ready(clients)
        opened = time.monotonic() - t_open
        load0 = os.getloadavg()
        cpu0, wait0, t0 = bf.tree_cpu_s(server.pid), bf.waited_s(server.pid), time.monotonic()
        print("feeding", flush=True)
        feeder0 = time.process_time()
        own = asyncio.run((raw_feed if a.raw_feeder else feed)(url, token, codes, a))
        took = time.monotonic() - t0
        feeder_cpu = (time.process_time() - feeder0) / took
        server_cpu = (bf.tree_cpu_s(server.pid) - cpu0) / took
        server_waited = (bf.waited_s(server.pid) - wait0) / took
        final = {
            t["code"]: (t["shoe_number"] or 0, t["round_count"], t["state"])
            for t in httpx.get(f"{url}/tables", headers={"Authorization": f"Bearer {token}"}).json()
        }
        bf.stop_clients(clients)
        load1 = os.getloadavg()
        os.kill(server.pid, signal.SIGUSR1)
        server.wait(timeout=60)
    finally:
        bf.end_run(clients, server)

    tr = json.loads(trace.read_text())
    t1 = t0 + took
    commit = {(c, s, n): t for c, s, n, t in tr["commits"] if t0 <= t <= t1}
    pub = {(c, s, n): (p0, p1) for c, s, n, p0, p1 in tr["published"]}
    delays, to_pub, from_pub, missed, ended = [], [], [], 0, 0
    cpus, lags, client_gc = [], [], []
    for out in outs:
        got = json.loads(out.read_text())
        cpus.append(got["cpu"] / took)
        lags += got["lag"]
        client_gc += bf.within(got["gc"], t0, t1 + 2)
        log = got["log"]
        for i in range(0, len(log), 4):
            key = (codes[int(log[i])], int(log[i + 1]), int(log[i + 2]))
            if key in commit:
                delays.append((log[i + 3] - commit[key]) * 1e3)
                if key in pub:
                    from_pub.append((log[i + 3] - pub[key][0]) * 1e3)
        for f in got["final"]:
            ended += bool(f["ended"])
            last = {k: tuple(v) for k, v in f["last"].items()}
            missed += any(last.get(k) != v for k, v in final.items()) or bool(f["ended"])
    for key, (p0, _p1) in pub.items():
        if key in commit:
            to_pub.append((p0 - commit[key]) * 1e3)
    publish_ms = [(p1 - p0) * 1e3 for key, (p0, p1) in pub.items() if key in commit]
    print(
        f"lobby, code {code.name} ({head}): {a.followers} followers "
        f"in {a.clients} client processes, {a.tables} tables, a hand each every {a.every:g} s "
        f"for {took:.0f} s ({len(commit)} appends); streams opened in {opened:.1f} s; load "
        f"{load0[0]:.2f} before, {load1[0]:.2f} after ({os.cpu_count()} cores)"
    )
    print(bf.ms("  commit -> event received (every follower)", delays))
    print(bf.ms("    commit -> published", to_pub))
    print(bf.ms("    publishing one event (all writes)", publish_ms))
    print(bf.ms("    published -> received", from_pub))
    print(f"  followers that missed anything {missed} (their stream ended: {ended})")
    feeder = "raw HTTP" if a.raw_feeder else "httpx"
    print(bf.ms(f"  appends, from sent to answered ({feeder})", own))
    print(bf.ms("    in the server (request in -> answered)", spans(tr["served"], t0, t1)))
    print(bf.ms("    of that, the store call", spans(tr["stored"], t0, t1)))
    print(
        f"  CPU, share of one core: server (whole process tree) {100 * server_cpu:.0f}%, "
        f"clients {' + '.join(f'{100 * x:.0f}%' for x in cpus)}, feeder {100 * feeder_cpu:.0f}%"
    )
    print(f"  the server's threads waited for a core {1000 * server_waited:.0f} ms a second")
    print(bf.ms("  clients' event-loop lag (10 ms ticker)", lags))
    print(bf.ms("  server's GC pauses", bf.within(tr["gc"], t0, t1 + 2)))
    print(bf.ms("    of them full collections", bf.full(tr["gc"], t0, t1 + 2)))
    print(bf.ms("  clients' GC pauses", client_gc), flush=True)


def spans(kept: list[list[float]], t0: float, t1: float) -> list[float]:
    """The lengths (ms) of the (start, end) spans that started within [t0, t1].

    >>> spans([[0.5, 0.51], [2.0, 2.1], [9.0, 9.5]], 0.0, 5.0)
    [10.000000000000009, 100.00000000000009]
    """
    return [(b - a) * 1e3 for a, b in kept if t0 <= a <= t1]


def main() -> None:
    bf.more_files()
    if sys.argv[1:2] == ["_server"]:
        server_main(sys.argv[2], int(sys.argv[3]), sys.argv[4])
        return
    if sys.argv[1:2] == ["_clients"]:
        bf.client_loop()
        url, codes, n, out = sys.argv[2:6]
        asyncio.run(clients_main(url, codes.split(","), int(n), out))
        return
    ap = bf.arguments(followers=2000, tables=100, seconds=30.0)
    ap.add_argument("--hands", type=int, default=60, help="hands a shoe, then a shuffle")
    ap.add_argument(
        "--raw-feeder", action="store_true", help="feed over hand-written HTTP, not httpx"
    )
    bf.each_checkout(ap.parse_args(), run)


if __name__ == "__main__":
    main()

"""Many event-stream followers of one API process: where an event's time goes.

Run: .venv/bin/python bench/bench_fanout.py [--followers 10000] [--tables 24] [--every 2]
[--seconds 60] [--clients 4] [--code DIR ...]

One API process (SQLite, a fresh data folder) serves ``--tables`` shoes, each fed a hand
by cards every ``--every`` seconds (open loop, spread evenly, with an Idempotency-Key),
while ``--followers`` event streams follow them, spread evenly over the tables and held
by ``--clients`` client processes: raw sockets on one event loop each (uvloop, an
asyncio Protocol per stream, no task per stream), so a follower costs its client little.

The server runs `roads_app.api.server.serve` as `roads-app api` does, in a wrapper that
records when each append's transaction was committed (`Feed.append` returned), when
the event hub took each new version (`Hub._apply`: start and end; on this code it
writes the event to every follower inside it) and every garbage collection's pause
(`gc.callbacks`). The clients record the time each event arrived (one system-wide
monotonic clock), their own event loop's lag (a 10 ms ticker: a client that is late
reads late), their garbage collections and their CPU.

Printed: event latency from the append's commit to each follower's receipt, p50/p99/max,
split into commit -> hub took the version (watcher's wake-up and the read) and hub ->
receipt; followers that missed anything (their rounds or version differ from the
shoe's at the end, or they were dropped); the appends' own latency; the CPU of the
server's whole process tree and of each client, as a share of one core; GC pauses; the
machine's load before and after (a shared machine: the clients compete with it too).
``--code DIR``: serve from another checkout (its ``.venv``), e.g. main, interleaved.
"""

from __future__ import annotations

import argparse
import array
import asyncio
import gc
import json
import os
import resource
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import httpx

ROOT = Path(__file__).resolve().parents[1]


def _bench_api():  # type: ignore[no-untyped-def]
    """bench_api's helpers; not imported by the server wrapper, which runs another
    checkout's code."""
    for p in (str(ROOT), str(ROOT / "bench")):
        if p not in sys.path:
            sys.path.insert(0, p)
    import bench_api

    return bench_api


def more_files() -> None:
    """Raise this process's open-file limit to the hard one (a stream is a socket)."""
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    if soft < hard:
        resource.setrlimit(resource.RLIMIT_NOFILE, (hard, hard))


def gc_pauses(into: list[float]) -> None:
    """Record every garbage collection's end (monotonic s), generation and pause (ms)."""
    started = [0.0]

    def cb(phase: str, info: dict) -> None:
        if phase == "start":
            started[0] = time.perf_counter()
        else:
            into.extend(
                (time.monotonic(), info["generation"], (time.perf_counter() - started[0]) * 1e3)
            )

    gc.callbacks.append(cb)


def head_of(code: Path) -> str:
    """The checkout's commit, short, with " +changes" when its package differs from it."""
    git = ["git", "-C", str(code)]
    head = subprocess.run([*git, "rev-parse", "--short", "HEAD"], capture_output=True, text=True)
    dirty = subprocess.run(
        [*git, "status", "--porcelain", "roads_app"], capture_output=True, text=True
    )
    return head.stdout.strip() + (" +changes" if dirty.stdout.strip() else "")


def operator_token(py: str, code: Path, data: Path, env: dict[str, str] | None = None) -> str:
    """A new operator token for the library in ``data``, made by the checkout's own CLI."""
    argv = [py, "-m", "roads_app", "token", "--data", str(data)]
    return subprocess.run(
        argv, cwd=code, env=env, capture_output=True, text=True, check=True
    ).stdout.strip()


def client_loop() -> None:
    """uvloop for a client process where it is installed (as the server has it)."""
    try:
        import uvloop

        uvloop.install()
    except ImportError:
        pass


# --- the server, wrapped ---------------------------------------------------------------


def server_main(data: str, port: int, trace: str) -> None:
    """`roads-app api` with the commit, hub and GC times written to ``trace`` on exit."""
    more_files()
    from roads_app.api import server, service, stream

    commits: list[tuple[str, int, float]] = []
    applied: list[tuple[str, int, float, float]] = []
    pauses: list[float] = []
    gc_pauses(pauses)
    real_append, real_apply = service.Feed.append, stream.Hub._apply

    def append(self, shoe_id, body, key, *who):  # type: ignore[no-untyped-def]
        reply = real_append(self, shoe_id, body, key, *who)
        if isinstance(reply.body, dict) and "version" in reply.body:
            commits.append((shoe_id, int(reply.body["version"]), time.monotonic()))
        return reply

    def apply(self, s, *args):  # type: ignore[no-untyped-def]
        t0 = time.monotonic()
        real_apply(self, s, *args)
        applied.append((s.id, s.version or 0, t0, time.monotonic()))

    service.Feed.append = append  # type: ignore[method-assign]
    stream.Hub._apply = apply  # type: ignore[method-assign]

    heap = {"objects": 0, "frozen": 0}

    def count(*_: object) -> None:  # at the end of the feed, every stream still open
        heap.update(objects=len(gc.get_objects()) + gc.get_freeze_count())
        heap.update(frozen=gc.get_freeze_count())

    def dump(*_: object) -> None:
        Path(trace).write_text(
            json.dumps({"commits": commits, "applied": applied, "gc": pauses, **heap})
        )
        os._exit(0)

    signal.signal(signal.SIGUSR2, count)
    signal.signal(signal.SIGUSR1, dump)
    server.serve(Path(data), port)


# --- the followers -------------------------------------------------------------------------


def split_events(buf: bytes) -> tuple[list[tuple[bytes, bytes]], bytes]:
    """The whole Server-Sent Events in what a stream sent so far, each as (its kind, the
    rest of it), and what is left of ``buf`` (pings and the headers skipped).

    >>> split_events(b"HTTP/1.1 200\\r\\n\\r\\nevent: a\\ndata: 1\\n\\n: ping\\n\\nevent: b")
    ([(b'a', b'data: 1')], b'event: b')
    """
    out, at = [], 0
    while True:  # by offsets: slicing off each event would copy the rest each time
        end = buf.find(b"\n\n", at)
        if end < 0:
            return out, buf[at:]
        i = buf.find(b"event: ", at, end)
        if i >= 0:
            kind, _, rest = buf[i + 7 : end].partition(b"\n")
            out.append((kind, rest))
        at = end + 2


class Stream(asyncio.Protocol):
    """One follower: parses its events as they arrive and keeps (shoe, version, time) of
    each, its rounds and its last version."""

    def __init__(self, c: Clients, shoe: int) -> None:
        self.c, self.shoe = c, shoe
        self.buf = b""
        self.rounds = 0
        self.version = -1
        self.ended = ""
        self.started = False

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        path = f"/shoes/{self.c.shoes[self.shoe]}/events"
        transport.write(f"GET {path} HTTP/1.1\r\nHost: b\r\n\r\n".encode())  # type: ignore[attr-defined]

    def data_received(self, data: bytes) -> None:
        now = time.monotonic()
        events, self.buf = split_events(self.buf + data)
        for kind, rest in events:
            j = rest.find(b"\nid: ")
            vid = int(rest[j + 5 :]) if j >= 0 else -1
            n = rest.count(b'"round":')
            if kind == b"append":
                self.rounds += n
                self.c.log.extend((self.shoe, vid, now))
            elif kind in (b"snapshot", b"reset"):
                self.rounds = n
                if not self.started:
                    self.started = True
                    self.c.ready += 1
                else:
                    self.c.log.extend((self.shoe, vid, now))
            else:
                self.ended = kind.decode()
            self.version = vid if vid >= 0 else self.version

    def connection_lost(self, exc: Exception | None) -> None:
        self.ended = self.ended or "closed"


class Clients:
    def __init__(self, shoes: list[str], first: int, n: int) -> None:
        self.shoes = shoes
        self.first, self.n = first, n
        self.log = array.array("d")
        self.ready = 0
        self.lag: list[float] = []
        self.gc: list[float] = []


async def hold(c: Any, n: int, tail_s: float) -> float:
    """A client process's part once its ``n`` streams are open: "ready" when each has its
    snapshot (``c.ready``), then the loop's lag (``c.lag``) and its garbage collections
    (``c.gc``) until a line on stdin, and ``tail_s`` more for the last events; its CPU
    seconds meanwhile."""
    while c.ready < n:
        await asyncio.sleep(0.05)
    gc_pauses(c.gc)
    print("ready", flush=True)
    cpu0 = time.process_time()
    stop = asyncio.get_running_loop().run_in_executor(None, sys.stdin.readline)
    while not stop.done():  # the loop's lag: how late a 10 ms sleep wakes
        t = time.perf_counter()
        await asyncio.sleep(0.01)
        c.lag.append((time.perf_counter() - t - 0.01) * 1e3)
    await asyncio.sleep(tail_s)
    return time.process_time() - cpu0


async def clients_main(url: str, shoes: list[str], first: int, n: int, out: str) -> None:
    """Hold streams ``first`` .. ``first + n - 1`` (follower i follows shoe i mod tables);
    "ready" once each has its snapshot; at a line on stdin, write what was seen to ``out``."""
    host, port = url.removeprefix("http://").split(":")
    c = Clients(shoes, first, n)
    loop = asyncio.get_running_loop()
    streams: list[Stream] = []
    for i in range(first, first + n):
        _, proto = await loop.create_connection(
            lambda i=i: Stream(c, i % len(shoes)), host, int(port)
        )
        streams.append(proto)  # type: ignore[arg-type]
        if i % 200 == 199:
            await asyncio.sleep(0.02)  # not all at once: the server's listen backlog
    cpu = await hold(c, n, 1.0)
    Path(out).write_text(
        json.dumps(
            {
                "log": c.log.tolist(),
                "final": [(s.shoe, s.version, s.rounds, s.ended) for s in streams],
                "cpu": cpu,
                "lag": c.lag,
                "gc": c.gc,
            }
        )
    )


# --- the run -------------------------------------------------------------------------------


def stop_clients(clients: list[subprocess.Popen[str]]) -> None:
    """Tell every client process to write what it saw, and wait for them."""
    for cl in clients:
        assert cl.stdin is not None
        cl.stdin.write("stop\n")
        cl.stdin.flush()
    for cl in clients:
        cl.wait(timeout=300)


def end_run(clients: list[subprocess.Popen[str]], server: subprocess.Popen[bytes]) -> None:
    """Whatever is still running of a run (after an error, or the server), stopped."""
    for cl in clients:
        if cl.poll() is None:
            cl.kill()
    if server.poll() is None:
        os.killpg(server.pid, signal.SIGTERM)
        server.wait(timeout=30)


def tree_cpu_s(pid: int) -> float:
    """CPU seconds of a process and all its descendants now."""
    kids: dict[int, list[int]] = {}
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            parent = int(stat.read_text().rsplit(")", 1)[1].split()[1])
            kids.setdefault(parent, []).append(int(stat.parent.name))
        except (OSError, ValueError):
            continue
    total, todo = 0.0, [pid]
    while todo:
        p = todo.pop()
        try:
            total += _bench_api().cpu_s(p)
        except OSError:
            continue
        todo += kids.get(p, [])
    return total


def waited_s(pid: int) -> float:
    """Seconds the process's threads have spent runnable but waiting for a core (Linux
    schedstat): what a busy machine adds to a server that is itself idle."""
    total = 0.0
    for f in Path(f"/proc/{pid}/task").glob("*/schedstat"):
        try:
            total += int(f.read_text().split()[1]) / 1e9
        except (OSError, ValueError, IndexError):
            continue
    return total


def within(pauses: list[float], t0: float, t1: float) -> list[float]:
    """The pauses (of `gc_pauses`' triples) that ended between t0 and t1."""
    return [pauses[i + 2] for i in range(0, len(pauses), 3) if t0 <= pauses[i] <= t1]


def full(pauses: list[float], t0: float, t1: float) -> list[float]:
    """The full collections' (generation 2) pauses between t0 and t1."""
    return [
        pauses[i + 2]
        for i in range(0, len(pauses), 3)
        if t0 <= pauses[i] <= t1 and pauses[i + 1] == 2
    ]


def ms(label: str, xs: list[float]) -> str:
    pct = _bench_api().pct
    if not xs:
        return f"{label:<46} (none)"
    return (
        f"{label:<46} p50 {pct(xs, 0.5):7.1f} ms  p99 {pct(xs, 0.99):7.1f} ms  "
        f"max {max(xs):7.1f} ms  (n={len(xs)})"
    )


def run(code: Path, a: argparse.Namespace) -> None:
    b = _bench_api()
    Hands, free_port, wait_health = b.Hands, b.free_port, b.wait_health
    py = code / ".venv" / "bin" / "python"
    tmp = Path(tempfile.mkdtemp(prefix="bench_fanout_"))
    port, url, trace = free_port(), "", tmp / "trace.json"
    url = f"http://127.0.0.1:{port}"
    head = head_of(code)
    token = operator_token(str(py), code, tmp)
    server = subprocess.Popen(
        [str(py), __file__, "_server", str(tmp), str(port), str(trace)],
        cwd=code,
        env={**os.environ, "PYTHONPATH": str(code)},
        stdout=subprocess.DEVNULL,
        stderr=open(tmp / "server.log", "wb"),  # noqa: SIM115
        start_new_session=True,
    )
    clients: list[subprocess.Popen[str]] = []
    try:
        wait_health(url, server)
        c = httpx.Client(base_url=url, headers={"Authorization": f"Bearer {token}"}, timeout=30)
        tables = [Hands(c, 5000 + 100 * t) for t in range(a.tables)]
        for h in tables:
            for _ in range(a.start):
                shoe, body, key = h.next()
                r = c.post(f"/shoes/{shoe}/rounds", json=body, headers={"Idempotency-Key": key})
                assert r.status_code == 201, r.text
        shoes = [h.shoe for h in tables]
        k = a.clients
        per = [a.followers // k + (i < a.followers % k) for i in range(k)]
        t_open = time.monotonic()
        outs = [tmp / f"client{i}.json" for i in range(k)]
        for i, n in enumerate(per):
            clients.append(
                subprocess.Popen(
                    [
                        sys.executable,
                        __file__,
                        "_clients",
                        url,
                        ",".join(shoes),
                        str(sum(per[:i])),
                        str(n),
                        str(outs[i]),
                    ],
                    stdin=subprocess.PIPE,
                    stdout=subprocess.PIPE,
                    text=True,
                )
            )
        b.all_ready(clients)
        opened = time.monotonic() - t_open
        load0 = os.getloadavg()
        own: list[float] = []
        step = a.every / a.tables
        cpu0, wait0, t0 = tree_cpu_s(server.pid), waited_s(server.pid), time.monotonic()
        for j in range(int(a.seconds / step)):
            wait = t0 + j * step - time.monotonic()
            if wait > 0:
                time.sleep(wait)
            shoe, body, key = tables[j % a.tables].next()
            if shoe not in shoes:  # the simulated shoe ran out: a new shoe, not followed
                continue
            t = time.monotonic()
            r = c.post(f"/shoes/{shoe}/rounds", json=body, headers={"Idempotency-Key": key})
            own.append((time.monotonic() - t) * 1e3)
            assert r.status_code == 201, r.text
        took = time.monotonic() - t0
        server_cpu = (tree_cpu_s(server.pid) - cpu0) / took
        server_waited = (waited_s(server.pid) - wait0) / took
        final = {s: c.get(f"/shoes/{s}").json() for s in shoes}
        os.kill(server.pid, signal.SIGUSR2)  # the heap, every stream still open
        stop_clients(clients)
        load1 = os.getloadavg()
        os.kill(server.pid, signal.SIGUSR1)
        server.wait(timeout=60)
        c.close()
    finally:
        end_run(clients, server)

    tr = json.loads(trace.read_text())
    t1 = t0 + took
    commit = {(s, v): t for s, v, t in tr["commits"] if t0 <= t <= t1}
    took_at = {(s, v): t0 for s, v, t0, _t1 in tr["applied"]}
    delays, to_hub, from_hub, missed, dropped = [], [], [], 0, 0
    cpus, lags, client_gc = [], [], []
    for out in outs:
        got = json.loads(out.read_text())
        cpus.append(got["cpu"] / took)
        lags += got["lag"]
        client_gc += within(got["gc"], t0, t1 + 1)
        log = got["log"]
        for i in range(0, len(log), 3):
            key = (shoes[int(log[i])], int(log[i + 1]))
            if key in commit:
                delays.append((log[i + 2] - commit[key]) * 1e3)
                if key in took_at:
                    from_hub.append((log[i + 2] - took_at[key]) * 1e3)
        for shoe, version, rounds, ended in got["final"]:
            want = final[shoes[shoe]]
            dropped += ended == "dropped"
            missed += (version, rounds) != (want["version"], want["round_count"]) or bool(ended)
    for key, t in took_at.items():
        if key in commit:
            to_hub.append((t - commit[key]) * 1e3)
    apply_ms = [(t1 - t0) * 1e3 for s, v, t0, t1 in tr["applied"] if (s, v) in commit]
    print(
        f"fan-out, code {code.name} ({head}): {a.followers} followers in {a.clients} client "
        f"processes over {a.tables} tables, a hand each every {a.every:g} s for {took:.0f} s; "
        f"streams opened in {opened:.1f} s; load {load0[0]:.2f} before, {load1[0]:.2f} after "
        f"({os.cpu_count()} cores)"
    )
    print(ms("  commit -> event received (every follower)", delays))
    print(ms("    commit -> hub took the version", to_hub))
    print(ms("    hub's work for a version (all writes)", apply_ms))
    print(ms("    hub took the version -> event received", from_hub))
    print(f"  followers that missed anything {missed} (dropped {dropped})")
    print(ms("  appends, from sent to answered", own))
    print(
        f"  CPU, share of one core: server (whole process tree) {100 * server_cpu:.0f}%, "
        f"clients {' + '.join(f'{100 * x:.0f}%' for x in cpus)}"
    )
    print(
        f"  the server's threads waited for a core {1000 * server_waited:.0f} ms a second "
        "(runnable, not running: the machine's other work)"
    )
    print(ms("  clients' event-loop lag (10 ms ticker)", lags))
    print(ms("  server's GC pauses", within(tr["gc"], t0, t1 + 1)))
    print(ms("    of them full collections", full(tr["gc"], t0, t1 + 1)))
    print(f"    server's objects with every stream open {tr['objects']:,}, frozen {tr['frozen']:,}")
    print(ms("  clients' GC pauses", client_gc), flush=True)


def main() -> None:
    more_files()
    if sys.argv[1:2] == ["_server"]:
        server_main(sys.argv[2], int(sys.argv[3]), sys.argv[4])
        return
    if sys.argv[1:2] == ["_clients"]:
        client_loop()
        args = sys.argv[2:]
        asyncio.run(clients_main(args[0], args[1].split(","), int(args[2]), int(args[3]), args[4]))
        return
    ap = arguments(followers=10000, tables=24, seconds=60.0)
    a = ap.parse_args()
    each_checkout(a, run)


def arguments(followers: int, tables: int, seconds: float) -> argparse.ArgumentParser:
    """The options this bench and `bench_lobby` share (their defaults differ)."""
    ap = argparse.ArgumentParser()
    ap.add_argument("--followers", type=int, default=followers)
    ap.add_argument("--tables", type=int, default=tables)
    ap.add_argument("--every", type=float, default=2.0)
    ap.add_argument("--seconds", type=float, default=seconds)
    ap.add_argument("--clients", type=int, default=4)
    ap.add_argument("--start", type=int, default=30, help="hands in each shoe at the start")
    ap.add_argument("--code", nargs="*", default=[str(ROOT)], help="checkouts to serve from")
    ap.add_argument("--repeat", type=int, default=1)
    return ap


def each_checkout(a: argparse.Namespace, run: Any) -> None:
    """``run(checkout, a)`` for each ``--code``, ``--repeat`` times, interleaved."""
    for _ in range(a.repeat):
        for code in a.code:
            run(Path(code).resolve(), a)


if __name__ == "__main__":
    main()

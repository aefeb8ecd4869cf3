"""The live-feed API under load, over real HTTP on this machine.

Run: .venv/bin/python bench/bench_api.py [--appends N] [--rate R] [--seconds S]
Starts `roads-app api` (a real uvicorn process) on a free port with a fresh data folder,
then measures with time.perf_counter, after 50 warm-up appends:
  * append latency, one client one request at a time (N appends by cards, each with an
    Idempotency-Key, simulated shoes one after another): p50, p99, max, and the server
    process's CPU time per append (/proc), which a busy machine does not inflate;
  * sustained appends at R per second for S seconds, open loop: request i is due at
    t0 + i/R and its latency counts from when it was due (so a server falling behind
    shows as latency, not as a slower sender), 4 connections; achieved rate, p50, p99;
  * the most appends per second 4 clients get, closed loop, for S seconds;
  * append -> SSE event: from sending an append to a following client receiving it.
The append -> display-page redraw time is measured in the browser test
(tests/browser/test_api_display.py, recorded as a figure), not here.

Fan-out: .venv/bin/python bench/bench_api.py --followers 2000 [--tables 24] [--every 2]
[--seconds 60] [--code DIR ...] [--repeat K]
One `roads-app api` with ``--tables`` shoes (each starting ``--start`` hands in), each fed
a hand by cards every ``--every`` seconds (open loop, spread evenly, with an
Idempotency-Key), while ``--followers`` event streams follow them (spread evenly over
the tables, held by `FOLLOWER_PROCS` client processes reading raw sockets, so the
clients cost little). Printed per run: append -> event received (each follower's own
clock reading against the append's send time; one system-wide monotonic clock),
p50/p99/max; versions a follower never got as an event of its own (skipped: a later
event carried its round) and rounds it never got at all (missed: its rounds differ from
the shoe's); the appends' own latency from when each was due (a server falling behind
shows here), p50/p99/max, and the rate achieved; the server's CPU share of one core.
``--code DIR`` runs the server from another checkout (its ``.venv``), e.g. main, and
``--repeat`` interleaves the checkouts: A B A B ... With ``ROADS_APP_DB`` set to a
PostgreSQL URL in the environment, the server (and its token) use that library instead
of the temporary folder's SQLite file.

Replicas: ``--db sqlite:1 pg:2`` runs each setup in turn (interleaved with the checkouts
and repeats): ``BACKEND:N`` is N API processes on that library, ``sqlite`` one SQLite
file in a shared folder, ``pg`` a fresh database on a throwaway PostgreSQL 15 server
this run starts (`tests.pgserver`, with PostgreSQL's default fsync) and removes. The
followers are spread over the replicas (``--followers 2000`` over 2 replicas: 1,000
each), the feeder spreads its appends over them (each table's hands alternate between
the replicas), so every follower of a replica sees results appended through the other;
those are printed apart too ("through one replica, at another": A -> B).
``pg-nofsync``: the same on a server with fsync off, a diagnostic only (it tells the
disk's flushes, which a machine shared with other work slows, from the rest).
The servers' CPU is their sum (and PostgreSQL's own, all its processes, on ``pg``).
``--apart``: every API process on a host of its own, a network namespace reached over a
bridge (tests/netns.py; needs root), the followers and the feeder on this machine.
E.g. the issue's two bounds side by side:
  .venv/bin/python bench/bench_api.py --followers 2000 --seconds 30 --db sqlite:1 pg:2 \
      --repeat 2
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import os
import queue
import signal
import subprocess
import sys
import tempfile
import threading
import time
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path

import httpx

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from roads_app.game.shoe import ShoeOptions, deal_shoe  # noqa: E402
from tests import netns, pgserver  # noqa: E402


def free_port() -> int:
    import socket

    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


class Hands:
    """Legal hands without end: simulated shoes one after another, a new API shoe each."""

    def __init__(self, client: httpx.Client, seed: int) -> None:
        self.client, self.seed, self.lock = client, seed, threading.Lock()
        self.shoe, self.left, self.n = "", [], 0

    def next(self) -> tuple[str, dict, str]:
        with self.lock:
            if not self.left:
                self.seed += 1
                r = deal_shoe(self.seed, ShoeOptions()).rounds
                self.left = list(
                    zip(r["player_cards"].to_list(), r["banker_cards"].to_list(), strict=True)
                )[::-1]
                made = self.client.post("/shoes", json={"name": f"bench {self.seed}"})
                self.shoe = made.json()["id"]
            pc, bc = self.left.pop()
            self.n += 1
            return self.shoe, {"player_cards": pc, "banker_cards": bc}, f"b{self.seed}-{self.n}"


def cpu_s(pid: int) -> float:
    """CPU seconds (user + system) a process has used: what an append costs the server,
    whatever else the machine is doing (Linux /proc)."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def pct(xs: list[float], q: float) -> float:
    xs = sorted(xs)
    return xs[min(len(xs) - 1, int(q * len(xs)))]


def line(label: str, ms: list[float]) -> None:
    print(
        f"{label:<44} p50 {pct(ms, 0.5):6.2f} ms  p99 {pct(ms, 0.99):6.2f} ms  "
        f"max {max(ms):7.2f} ms  (n={len(ms)})"
    )


def append(c: httpx.Client, hands: Hands) -> float:
    shoe, body, key = hands.next()
    t = time.perf_counter()
    r = c.post(f"/shoes/{shoe}/rounds", json=body, headers={"Idempotency-Key": key})
    dt = time.perf_counter() - t
    assert r.status_code == 201, r.text
    return dt * 1e3


def main() -> None:
    if sys.argv[1:2] == ["_followers"]:
        token = sys.argv[5] if len(sys.argv) > 5 else ""
        asyncio.run(followers_client(sys.argv[2], sys.argv[3].split(","), int(sys.argv[4]), token))
        return
    ap = argparse.ArgumentParser()
    ap.add_argument("--appends", type=int, default=1000)
    ap.add_argument("--rate", type=float, default=100.0)
    ap.add_argument("--seconds", type=float, default=10.0)
    ap.add_argument("--followers", type=int, default=0, help="run the fan-out benchmark")
    ap.add_argument("--tables", type=int, default=24)
    ap.add_argument("--every", type=float, default=2.0)
    ap.add_argument("--start", type=int, default=30, help="hands in each shoe at the start")
    ap.add_argument("--code", nargs="*", default=[str(ROOT)], help="checkouts to serve from")
    ap.add_argument("--repeat", type=int, default=1)
    ap.add_argument(
        "--db",
        nargs="+",
        default=[],
        metavar="BACKEND[:N]",
        help="fan-out setups: sqlite, pg or pg-nofsync, N API replicas each (default --replicas)",
    )
    ap.add_argument("--replicas", type=int, default=1)
    ap.add_argument(
        "--apart",
        action="store_true",
        help="each API process on a host of its own (a network namespace; needs root)",
    )
    a = ap.parse_args()
    if a.followers:
        setups = [setup(x, a.replicas) for x in a.db] or [("", a.replicas)]
        print(f"load before: {os.getloadavg()}, {os.cpu_count()} cores", flush=True)
        with contextlib.ExitStack() as stack:
            hosts = None
            if a.apart:
                most = max(n for _, n in setups)
                hosts = stack.enter_context(netns.lan(*(f"r{i}" for i in range(most))))
                if hosts.kind != netns.NAMESPACES:
                    raise SystemExit("--apart: network namespaces need root here")
            listen = dict(listen=(hosts.gateway,), allow=hosts.subnet) if hosts else {}
            servers = {  # PostgreSQL's defaults, and the diagnostic without its flushes
                b: stack.enter_context(pgserver.running_server(fsync=b == "pg", **listen))
                for b in {b for b, _ in setups if b.startswith("pg")}
            }
            for _ in range(a.repeat):
                for code in a.code:
                    for backend, n in setups:
                        lib = Library(backend, n, servers.get(backend), hosts)
                        fanout(Path(code).resolve(), a, lib)
        print(f"load after: {os.getloadavg()}", flush=True)
        return
    tmp = Path(tempfile.mkdtemp(prefix="bench_api_"))
    port = free_port()
    url = f"http://127.0.0.1:{port}"
    token = subprocess.run(
        [sys.executable, "-m", "roads_app", "token", "--data", str(tmp)],
        capture_output=True,
        text=True,
        check=True,
    ).stdout.strip()
    server = subprocess.Popen(
        [sys.executable, "-m", "roads_app", "api", "--port", str(port), "--data", str(tmp)],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        start_new_session=True,
    )
    try:
        for _ in range(600):
            try:
                if httpx.get(f"{url}/health").status_code == 200:
                    break
            except httpx.TransportError:
                time.sleep(0.1)
        auth = {"Authorization": f"Bearer {token}"}
        clients = [httpx.Client(base_url=url, headers=auth, timeout=30) for _ in range(4)]
        hands = Hands(clients[0], 1000)
        for _ in range(50):
            append(clients[0], hands)
        print(f"server pid {server.pid}, {os.cpu_count()} cores, data {tmp}")

        cpu0 = cpu_s(server.pid)
        line(
            "append, one client (sequential)", [append(clients[0], hands) for _ in range(a.appends)]
        )
        per = (cpu_s(server.pid) - cpu0) / a.appends * 1e3
        print(
            f"{'  server CPU per append':<44} {per:7.2f} ms  (-> at most {1000 / per:,.0f} "
            "appends/s on one free core)"
        )

        n = int(a.rate * a.seconds)
        due0 = time.perf_counter() + 0.05
        lat: list[float] = []
        conns: queue.Queue[httpx.Client] = queue.Queue()
        for c in clients:
            conns.put(c)

        def paced(i: int) -> None:
            due = due0 + i / a.rate
            wait = due - time.perf_counter()
            if wait > 0:
                time.sleep(wait)
            c = conns.get()
            try:
                append(c, hands)
            finally:
                conns.put(c)
            lat.append((time.perf_counter() - due) * 1e3)

        t0 = time.perf_counter()
        with ThreadPoolExecutor(max_workers=8) as pool:
            list(pool.map(paced, range(n)))
        took = time.perf_counter() - t0
        line(f"append at {a.rate:g}/s target, open loop", lat)
        print(f"{'  achieved':<44} {n / took:7.1f} appends/s over {took:.1f} s")

        stop = time.perf_counter() + a.seconds
        counts = [0] * 4

        def closed(k: int) -> None:
            while time.perf_counter() < stop:
                append(clients[k], hands)
                counts[k] += 1

        with ThreadPoolExecutor(max_workers=4) as pool:
            list(pool.map(closed, range(4)))
        print(f"{'most appends/s, 4 clients closed loop':<44} {sum(counts) / a.seconds:7.1f} /s")

        sse_ms = sse_latency(url, clients[0])
        line("append sent -> SSE event received", sse_ms)
        for c in clients:
            c.close()
    finally:
        os.killpg(server.pid, signal.SIGTERM)
        server.wait(timeout=30)


def sse_latency(url: str, c: httpx.Client, seed: int = 5) -> list[float]:
    """One simulated shoe appended hand by hand while a client follows its stream."""
    shoe = c.post("/shoes", json={"name": "bench sse"}).json()["id"]
    r = deal_shoe(seed, ShoeOptions()).rounds
    got: queue.Queue[float] = queue.Queue()
    ready = threading.Event()

    def follow() -> None:
        try:
            with (
                httpx.Client(timeout=httpx.Timeout(30, read=None)) as s,
                s.stream("GET", f"{url}/shoes/{shoe}/events") as resp,
            ):
                event = ""
                for ln in resp.iter_lines():
                    if ln.startswith("event:"):
                        event = ln[6:].strip()
                        ready.set()
                    elif ln.startswith("data:") and event == "append":
                        got.put(time.perf_counter())
        except httpx.HTTPError:
            pass  # the server stopped at the end of the run

    threading.Thread(target=follow, daemon=True).start()
    ready.wait(30)
    out = []
    for i, (pc, bc) in enumerate(
        zip(r["player_cards"].to_list(), r["banker_cards"].to_list(), strict=True)
    ):
        t = time.perf_counter()
        resp = c.post(
            f"/shoes/{shoe}/rounds",
            json={"player_cards": pc, "banker_cards": bc},
            headers={"Idempotency-Key": f"sse-{i}"},
        )
        assert resp.status_code == 201, resp.text
        out.append((got.get(timeout=10) - t) * 1e3)
    return out


# --- fan-out: many event-stream followers -------------------------------------------------

FOLLOWER_PROCS = 2
"""Client processes holding the followers (each one event loop)."""


async def followers_client(url: str, shoes: list[str], n: int, token: str = "") -> None:
    """Hold ``n`` event streams over ``shoes`` (follower i follows shoe i mod len); print
    "ready" when every one has its snapshot, stop at a line on stdin, then print what
    each got as JSON: per follower its shoe, its snapshot's version and round count, and
    (version, rounds in the event, monotonic time received) of every later event."""
    host, port = url.removeprefix("http://").split(":")
    got: list[dict] = [{"shoe": shoes[i % len(shoes)], "events": []} for i in range(n)]
    ready = asyncio.Semaphore(0)

    async def follow(i: int) -> None:
        me = got[i]
        reader, writer = await asyncio.open_connection(host, int(port), limit=1 << 22)
        auth = f"Authorization: Bearer {token}\r\n" if token else ""
        writer.write(f"GET /shoes/{me['shoe']}/events HTTP/1.1\r\nHost: b\r\n{auth}\r\n".encode())
        head = await reader.readuntil(b"\r\n\r\n")
        assert head.startswith(b"HTTP/1.1 200"), head[:100]
        buf = b""
        first = True
        while True:
            chunk = await reader.read(1 << 16)
            if not chunk:
                return
            now = time.monotonic()
            buf += chunk
            while b"\n\n" in buf:
                event, _, buf = buf.partition(b"\n\n")
                # chunked transfer: the size lines sit between events; find the fields
                kind = data = vid = None
                for ln in event.split(b"\n"):
                    if ln.startswith(b"event: "):
                        kind = ln[7:].strip()
                    elif ln.startswith(b"data: "):
                        data = ln[6:]
                    elif ln.startswith(b"id: "):
                        vid = int(ln[4:])
                if kind is None or data is None:
                    continue  # a ping, or the chunk size line alone
                rounds = data.count(b'"round":')
                if first:
                    me["snapshot"], me["rounds0"] = vid, rounds
                    first = False
                    ready.release()
                else:
                    me["events"].append((vid, rounds, now, kind.decode()))

    tasks = []
    for i in range(n):
        tasks.append(asyncio.create_task(follow(i)))
        if i % 100 == 99:
            await asyncio.sleep(0.05)  # not all at once: the server's listen backlog
    for _ in range(n):
        await ready.acquire()
    print("ready", flush=True)
    await asyncio.get_running_loop().run_in_executor(None, sys.stdin.readline)
    await asyncio.sleep(1.0)  # the last appends' events
    for t in tasks:
        t.cancel()
    print(json.dumps(got), flush=True)


def all_ready(clients: list[subprocess.Popen[str]]) -> None:
    """Wait until every client process says "ready" (each follower has its snapshot)."""
    for cl in clients:
        assert cl.stdout is not None and cl.stdout.readline().strip() == "ready"


def setup(text: str, replicas: int) -> tuple[str, int]:
    """``sqlite``, ``pg``, ``sqlite:1``, ``pg:2``: a backend and its replica count."""
    backend, _, n = text.partition(":")
    if backend not in ("sqlite", "pg", "pg-nofsync"):
        raise SystemExit(f"--db: {backend!r} is not sqlite, pg or pg-nofsync")
    return backend, int(n or replicas)


@dataclass
class Library:
    """Where a fan-out run keeps its library: ``backend`` ("" as the environment says,
    "sqlite", "pg"), ``replicas`` API processes, the PostgreSQL server when "pg"."""

    backend: str
    replicas: int
    pg: pgserver.PgServer | None = None
    hosts: netns.Lan | None = None
    """The replicas' hosts r0, r1, ... (namespaces, ``--apart``); None: this machine."""

    def where(self, i: int) -> tuple[str, list[str]]:
        """Replica ``i``'s address and what it runs under."""
        if self.hosts is None:
            return "127.0.0.1", []
        host = self.hosts[f"r{i}"]
        return host.ip, host.prefix()

    def label(self) -> str:
        kind = {
            "": "as ROADS_APP_DB says",
            "sqlite": "SQLite",
            "pg": "PostgreSQL",
            "pg-nofsync": "PostgreSQL with fsync off",
        }
        n = self.replicas
        apart = f" on hosts of their own ({self.hosts.kind})" if self.hosts else ""
        return f"{kind[self.backend]}, {n} API {'process' if n == 1 else 'replicas'}{apart}"

    def env(self) -> dict[str, str]:
        """The servers' (and token's) environment: a fresh database on "pg"."""
        env = dict(os.environ)
        if self.backend == "sqlite":
            env.pop("ROADS_APP_DB", None)
        elif self.backend.startswith("pg"):
            assert self.pg is not None
            url = self.pg.new_database("bench")
            if self.hosts is not None:  # reached from the hosts at this machine's gateway
                url = url.replace("@127.0.0.1:", f"@{self.hosts.gateway}:")
            env["ROADS_APP_DB"] = url
        return env


def pg_cpu_s(pg: pgserver.PgServer | None) -> dict[int, float]:
    """CPU seconds of every PostgreSQL process (the postmaster and its children) by pid."""
    if pg is None:
        return {}
    top = int((pg.folder / "data" / "postmaster.pid").read_text().split()[0])
    out = {}
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            pid = int(stat.parent.name)
            if pid == top or int(stat.read_text().rsplit(")", 1)[1].split()[1]) == top:
                out[pid] = cpu_s(pid)
        except (OSError, ValueError):
            continue  # a backend that ended meanwhile
    return out


def wait_health(url: str, proc: subprocess.Popen) -> None:
    for _ in range(600):
        try:
            if httpx.get(f"{url}/health").status_code == 200:
                return
        except httpx.TransportError:
            if proc.poll() is not None:
                raise RuntimeError(f"the API at {url} exited with {proc.returncode}") from None
            time.sleep(0.1)
    raise RuntimeError(f"the API at {url} did not answer")


def fanout(code: Path, a: argparse.Namespace, lib: Library) -> None:
    py = code / ".venv" / "bin" / "python"
    tmp = Path(tempfile.mkdtemp(prefix="bench_fanout_"))
    ports = [free_port() for _ in range(lib.replicas)]
    where = [lib.where(i) for i in range(lib.replicas)]
    urls = [f"http://{ip}:{p}" for (ip, _), p in zip(where, ports, strict=True)]
    env = lib.env()
    # replicas on PostgreSQL are separate hosts: a data folder each; on SQLite the folder
    # holds the library, so they share it
    datas = [tmp / f"r{i}" if lib.pg is not None else tmp for i in range(lib.replicas)]
    head = subprocess.run(
        ["git", "-C", str(code), "rev-parse", "--short", "HEAD"], capture_output=True, text=True
    ).stdout.strip()
    token = subprocess.run(
        [str(py), "-m", "roads_app", "token", "--data", str(datas[0])],
        cwd=code,
        env=env,
        capture_output=True,
        text=True,
        check=True,
    ).stdout.strip()
    servers = [
        subprocess.Popen(
            [
                *pre,
                str(py),
                "-m",
                "roads_app",
                "api",
                "--port",
                str(port),
                "--host",
                ip,
                "--data",
                str(d),
            ],
            cwd=code,
            env=env,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
            start_new_session=True,
        )
        for port, d, (ip, pre) in zip(ports, datas, where, strict=True)
    ]
    clients: list[subprocess.Popen[str]] = []
    feeds: list[httpx.Client] = []
    try:
        for url, server in zip(urls, servers, strict=True):
            wait_health(url, server)
        auth = {"Authorization": f"Bearer {token}"}
        feeds = [httpx.Client(base_url=u, headers=auth, timeout=30) for u in urls]
        c = feeds[0]
        tables = [Hands(c, 5000 + 100 * t) for t in range(a.tables)]
        for h in tables:
            for _ in range(a.start):
                shoe, body, key = h.next()
                assert (
                    c.post(
                        f"/shoes/{shoe}/rounds", json=body, headers={"Idempotency-Key": key}
                    ).status_code
                    == 201
                )
        shoes = [h.shoe for h in tables]
        procs = max(FOLLOWER_PROCS, lib.replicas)
        per = [a.followers // procs + (k < a.followers % procs) for k in range(procs)]
        t_open = time.monotonic()
        for k, n in enumerate(per):
            rotated = shoes[k % len(shoes) :] + shoes[: k % len(shoes)]
            clients.append(
                subprocess.Popen(
                    [
                        sys.executable,
                        __file__,
                        "_followers",
                        urls[k % lib.replicas],
                        ",".join(rotated),
                        str(n),
                        token if lib.hosts else "",  # another address: reading takes a token
                    ],
                    stdin=subprocess.PIPE,
                    stdout=subprocess.PIPE,
                    text=True,
                )
            )
        all_ready(clients)
        opened = time.monotonic() - t_open

        sent: dict[tuple[str, int], float] = {}
        through: dict[tuple[str, int], int] = {}  # the replica an append went through
        lat: list[float] = []
        own: list[float] = []
        step = a.every / a.tables
        n = int(a.seconds / step)
        cpu0, pg0, t0 = [cpu_s(x.pid) for x in servers], pg_cpu_s(lib.pg), time.monotonic()
        for k in range(n):
            due = t0 + k * step
            wait = due - time.monotonic()
            if wait > 0:
                time.sleep(wait)
            h = tables[k % a.tables]
            shoe, body, key = h.next()
            if shoe not in shoes:  # the simulated shoe ran out: a new shoe, not followed
                continue
            i = (k + k // a.tables) % lib.replicas  # a table's hands alternate
            t = time.monotonic()
            r = feeds[i].post(f"/shoes/{shoe}/rounds", json=body, headers={"Idempotency-Key": key})
            lat.append((time.monotonic() - due) * 1e3)
            own.append((time.monotonic() - t) * 1e3)
            assert r.status_code == 201, r.text
            sent[(shoe, r.json()["version"])] = t
            through[(shoe, r.json()["version"])] = i
        took = time.monotonic() - t0
        cpu = [(cpu_s(x.pid) - c0) / took for x, c0 in zip(servers, cpu0, strict=True)]
        pg1 = pg_cpu_s(lib.pg)
        pg_cpu = sum(v - pg0.get(pid, 0.0) for pid, v in pg1.items()) / took
        final = {s: c.get(f"/shoes/{s}").json() for s in shoes}
        got = []
        for k, cl in enumerate(clients):
            out, _ = cl.communicate("stop\n", timeout=120)
            for f in json.loads(out.splitlines()[-1]):
                f["replica"] = k % lib.replicas  # the one it followed
                got.append(f)
    finally:
        for f in feeds:
            f.close()
        for cl in clients:
            if cl.poll() is None:
                cl.kill()
        for server in servers:
            os.killpg(server.pid, signal.SIGTERM)
        for server in servers:
            server.wait(timeout=30)

    delays, skipped, missed = [], 0, 0
    across: list[float] = []  # appended through one replica, followed on another
    for f in got:
        rounds = f["rounds0"] + sum(r for _v, r, _t, k in f["events"] if k == "append")
        others = any(k != "append" for *_x, k in f["events"])
        if others or rounds != final[f["shoe"]]["round_count"]:
            missed += 1
        last = f["snapshot"]
        for v, _r, t, _k in f["events"]:
            skipped += v - last - 1
            last = v
            if (f["shoe"], v) in sent:
                delays.append((t - sent[(f["shoe"], v)]) * 1e3)
                if through[(f["shoe"], v)] != f["replica"]:
                    across.append(delays[-1])
        skipped += final[f["shoe"]]["version"] - last
    print(
        f"fan-out, code {code.name} ({head}), {lib.label()}: {a.followers} followers over "
        f"{a.tables} tables, a hand each every {a.every:g} s for {a.seconds:g} s; streams "
        f"opened in {opened:.1f} s; load {os.getloadavg()[0]:.2f}"
    )
    line("  append sent -> event received", delays)
    if across:
        line("    of them through one replica, at another", across)
    print(
        f"  versions skipped {skipped} (a later event carried them), followers missing "
        f"rounds {missed}"
    )
    line("  appends, from when due", lat)
    line("  appends, from when sent", own)
    print(
        f"  appends achieved {len(lat) / took:.1f}/s of {a.tables / a.every:.1f}/s; "
        f"server CPU {' + '.join(f'{100 * x:.0f}%' for x in cpu)} of one core"
        + (f"; PostgreSQL {100 * pg_cpu:.0f}%" if lib.pg is not None else ""),
        flush=True,
    )


if __name__ == "__main__":
    main()

"""Browser-test fixtures: the app started as the README starts it, and the system Chromium.

* `AppServer` runs ``python3 dev.py app --port N --data DIR --headless`` from the repo
  root in its own process group, waits on ``/_stcore/health`` and kills the group on
  stop, so no Streamlit is ever left running. ``restart()`` keeps port and data folder.
* ``app_server`` is one server per test module (tests share it but each page starts its
  own shoe); ``fresh_server`` is one per test, for tests that stop or restart it.
* ``page`` is a new page per test (own Streamlit session, sessionStorage, listeners,
  routes and init scripts) in a context each worker keeps, its cookies and storage
  cleared before and after each test. A test marked ``own_context`` gets a new context
  instead (an empty HTTP cache, nothing shared). Why: a new context's page loads
  Streamlit's bundle into a new renderer process; with ``--process-per-site`` and the
  last test's page kept (parked on ``about:blank``) until the next test has loaded its
  own, the renderer and its compiled scripts, decoded fonts and styles are reused.
  Measured at load 40-60 (CPU-seconds per scoreboard load, all of Chromium and the
  server): 4.5 with a new context, 2.6 kept (renderer 3.0 -> 1.6 s).
* Waiting is always on Streamlit's own state (``data-test-script-state`` on the app
  root) or on the expected element, never on sleeps.

Helpers the page tests use: `wait_idle`, `wait_rounds`, `board_meta`, `round_count`.
"""

from __future__ import annotations

import contextlib
import fcntl
import json
import os
import re
import signal
import socket
import subprocess
import time
import urllib.error
import urllib.parse
import urllib.request
from collections.abc import Iterator
from pathlib import Path

import pytest
from playwright.sync_api import Browser, BrowserContext, Page, Request, Route, sync_playwright
from playwright.sync_api import Error as PlaywrightError
from playwright.sync_api import TimeoutError as PlaywrightTimeout

from tests import procs

REPO = Path(__file__).resolve().parents[2]
CHROMIUM = os.environ.get("ROADS_APP_CHROMIUM", "/usr/bin/chromium")
CHROMIUM_ARGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
    # One renderer for a context's pages of one site (localhost, whatever the port): a
    # test's page reuses the last one's process instead of starting and compiling anew.
    "--process-per-site",
]
VIEWPORT = {"width": 1440, "height": 960}
START_TIMEOUT_S = 90.0
APP_IDLE = '[data-testid="stApp"][data-test-script-state="notRunning"][data-test-connection-state="CONNECTED"]'  # noqa: E501


def free_port() -> int:
    """A TCP port nobody listens on right now."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


class PortTaken(RuntimeError):
    """Another server took the port `free_port` chose before the app bound it."""


class AppServer:
    """The dashboard as a person starts it, on a free port and a private data folder."""

    def __init__(
        self,
        data_dir: Path,
        log_path: Path,
        port: int | None = None,
        api_port: int = 0,
        args: tuple[str, ...] = (),
        host: str = "localhost",
        prefix: tuple[str, ...] = (),
    ) -> None:
        self.data_dir = data_dir
        self.args = args  # more of `roads-app`'s options (e.g. ``--host 0.0.0.0``)
        self.host = host  # where the browser finds it (another host's address: ``--host``)
        self.prefix = prefix  # what it runs under (another host's namespace: tests/netns.py)
        self.log_path = log_path
        self.port = port or free_port()
        self.port_chosen = port is None  # ours to change if another server takes it
        self.api_port = api_port  # 0: no API beside the dashboard (tests that feed it pick one)
        self.proc: subprocess.Popen[bytes] | None = None
        self.started_in_s: float | None = None
        self.cwd = REPO  # the checkout whose app is started

    @property
    def url(self) -> str:
        return f"http://{self.host}:{self.port}"

    def command(self) -> list[str]:
        """How this server is started: the README's command, headless, on our port."""
        return [
            *self.prefix,
            "python3",
            "dev.py",
            "app",
            "--port",
            str(self.port),
            "--data",
            str(self.data_dir),
            "--headless",
            "--api-port",
            str(self.api_port),
            *self.args,
        ]

    def environment(self) -> dict[str, str] | None:
        """The started server's environment (None: this process's own)."""
        return None

    def start(self) -> AppServer:
        """Start the server and wait until it is ours that answers on the port (a subclass
        changes `command`, `environment` or `cwd`, never this: the checks live here once)."""
        t0 = time.perf_counter()
        self.log_path.touch()
        self._log_from = self.log_path.stat().st_size  # this start's lines begin here
        with self.log_path.open("ab") as log:
            self.proc = subprocess.Popen(
                self.command(),
                cwd=self.cwd,
                env=self.environment(),
                stdout=log,
                stderr=subprocess.STDOUT,
                start_new_session=True,
            )
        try:
            self._wait_healthy()
        except PortTaken:
            self.stop()
            if not self.port_chosen:
                raise
            self.port = free_port()
            return self.start()
        self.started_in_s = time.perf_counter() - t0
        return self

    def _bound(self) -> bool:
        """This start's server said it listens on its port: a health check alone may be
        answered by another test's server that took the port between `free_port` and the
        start (seen once: Streamlit said "Port N is not available", and the pages asked
        another server for shoes it never had)."""
        with self.log_path.open("rb") as f:
            f.seek(self._log_from)
            lines = f.read().decode(errors="replace")
        taken = (f"Port {self.port} is not available", f"port {self.port} is already in use")
        if any(said in lines for said in taken):  # Streamlit's words, or roads-app's
            raise PortTaken(f"port {self.port} was taken before the app could use it")
        said = f":{self.port}"
        return any(
            "server started on" in ln and ln.rstrip().endswith(said) for ln in lines.splitlines()
        )

    def _wait_healthy(self) -> None:
        assert self.proc is not None
        deadline = time.monotonic() + START_TIMEOUT_S
        while time.monotonic() < deadline:
            try:
                with urllib.request.urlopen(f"{self.url}/_stcore/health", timeout=2) as r:
                    if r.status == 200 and self._bound():
                        return
            except (urllib.error.URLError, ConnectionError, TimeoutError):
                pass
            try:  # doubles as the pause between polls, and notices a server that died
                code = self.proc.wait(timeout=0.2)
            except subprocess.TimeoutExpired:
                continue
            self._bound()  # a port taken meanwhile: said as such
            raise RuntimeError(f"the app exited with {code}:\n{self.log_tail()}")
        self.stop()
        raise RuntimeError(
            f"the app did not become healthy in {START_TIMEOUT_S}s:\n{self.log_tail()}"
        )

    def log_tail(self, n: int = 40) -> str:
        try:
            return "\n".join(self.log_path.read_text(errors="replace").splitlines()[-n:])
        except OSError:
            return ""

    def stop(self) -> None:
        """Kill the whole process group (roads-app, which dev.py became, and Streamlit, and
        whatever else it started) and wait for all of it.

        The group's other processes may still be shutting down, holding the port, when
        our direct child has exited: wait for every process of the group (a pidfd per
        process, no polling).
        """
        if self.proc is None:
            return
        pgid = self.proc.pid
        members = procs.group_members(pgid)
        with contextlib.suppress(ProcessLookupError):
            os.killpg(pgid, signal.SIGTERM)
        if not procs.wait_exit(members, timeout=20):
            with contextlib.suppress(ProcessLookupError):
                os.killpg(pgid, signal.SIGKILL)
            procs.wait_exit(members, timeout=10)
        self.proc.wait(timeout=10)
        self.proc = None

    def restart(self) -> AppServer:
        self.stop()
        return self.start()


@contextlib.contextmanager
def app_with_api(root: Path) -> Iterator[AppServer]:
    """A dashboard with its API beside it, in ``root``, up until the block ends (a
    module's server for pages that follow results written through the API)."""
    server = AppServer(root / "data", root / "server.log", api_port=free_port())
    server.start()
    try:
        wait_api(server)
        yield server
    finally:
        server.stop()


def wait_api(server: AppServer, timeout_s: float = 60.0) -> None:
    """Until the API started beside the dashboard answers its health check (it starts
    after Streamlit does). The pause between polls is not a wait for a result."""
    import httpx

    deadline = time.monotonic() + timeout_s
    api = f"http://127.0.0.1:{server.api_port}"
    # one client for every poll: ``httpx.get`` makes one (and its TLS context) a call,
    # about 50 ms of CPU, a few seconds' worth over a start on a loaded machine
    with httpx.Client(timeout=2) as client:
        while True:
            try:
                if client.get(f"{api}/health").status_code == 200:
                    return
            except httpx.TransportError:
                if time.monotonic() > deadline:
                    raise RuntimeError(f"the API never answered:\n{server.log_tail()}") from None
            time.sleep(0.1)


@pytest.fixture(scope="session")
def browser() -> Iterator[Browser]:
    if not Path(CHROMIUM).exists():
        pytest.fail(f"{CHROMIUM} is missing: install it (apt-get install chromium)")
    with sync_playwright() as p:
        b = p.chromium.launch(executable_path=CHROMIUM, headless=True, args=CHROMIUM_ARGS)
        yield b
        b.close()


@pytest.fixture(scope="module")
def app_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[AppServer]:
    root = tmp_path_factory.mktemp("app")
    server = AppServer(root / "data", root / "server.log").start()
    yield server
    server.stop()


@pytest.fixture
def fresh_server(tmp_path: Path) -> Iterator[AppServer]:
    server = AppServer(tmp_path / "data", tmp_path / "server.log").start()
    yield server
    server.stop()


class KeptContext:
    """A worker's browser context, reset between tests (see the module docstring).

    Cookies go with `BrowserContext.clear_cookies`; local storage, IndexedDB, cache
    storage and service workers with the DevTools protocol for every origin a page of
    the context has asked anything of. The HTTP cache stays (the pages' own files are
    ``no-cache`` and revalidated; Streamlit's are content-hashed).
    """

    def __init__(self, browser: Browser) -> None:
        self.context = new_context(browser)
        self.origins: set[str] = set()
        self.context.on("request", self._seen)

    def _seen(self, request: Request) -> None:
        parts = urllib.parse.urlsplit(request.url)
        if parts.scheme in ("http", "https"):
            self.origins.add(f"{parts.scheme}://{parts.netloc}")

    def reset(self, page: Page) -> None:
        """Clear every test's traces from the context, through ``page`` (one of its own)."""
        self.context.clear_cookies()
        cdp = self.context.new_cdp_session(page)
        try:
            for origin in sorted(self.origins):
                cdp.send(
                    "Storage.clearDataForOrigin",
                    {"origin": origin, "storageTypes": STORAGE_TYPES},
                )
        finally:
            cdp.detach()
        self.origins.clear()

    def new_page(self) -> Page:
        pg = self.context.new_page()
        self.reset(pg)
        return pg

    def done(self, page: Page) -> None:
        """After a test: close its other pages and the last parked one, and park this one
        on ``about:blank`` (navigated from inside, so it stays in its renderer), which
        keeps the renderer alive for the next test's page."""
        for other in self.context.pages:
            if other is not page:
                other.close()
        parked = False
        with contextlib.suppress(PlaywrightError):
            if not page.is_closed() and page.url.startswith("http"):
                page.evaluate("() => { location.href = 'about:blank'; }")
                page.wait_for_url("about:blank", timeout=10_000)
                parked = True
        if parked:
            self.reset(page)
        elif not page.is_closed():
            page.close()


STORAGE_TYPES = "local_storage,indexeddb,cache_storage,service_workers,file_systems,websql"


def new_context(browser: Browser) -> BrowserContext:
    """A context as every test's page had one: 1440 x 960, 30 s to wait."""
    context = browser.new_context(viewport=VIEWPORT)
    context.set_default_timeout(30_000)
    return context


@pytest.fixture(scope="session")
def kept_context(browser: Browser) -> Iterator[KeptContext]:
    kept = KeptContext(browser)
    yield kept
    kept.context.close()


@pytest.fixture
def page(request: pytest.FixtureRequest, browser: Browser) -> Iterator[Page]:
    """A new page at 1440 x 960; in the worker's kept context unless the test is marked
    ``own_context`` (a new context, as each test had before)."""
    if request.node.get_closest_marker("own_context"):
        context = new_context(browser)
        pg = context.new_page()
        watch_console(pg)
        yield pg
        context.close()
        _CONSOLE.pop(id(pg), None)  # an id is reused once the page is gone
        return
    kept = request.getfixturevalue("kept_context")
    pg = kept.new_page()
    pg.set_default_timeout(30_000)
    watch_console(pg)
    yield pg
    _CONSOLE.pop(id(pg), None)
    kept.done(pg)


_CONSOLE: dict[int, list[str]] = {}


def watch_console(page: Page) -> None:
    """Keep the page's first distinct console warnings and errors (and uncaught errors), so
    a failed wait can quote what the Streamlit client complained of: its connection's fatal
    errors are logged there, before their many echoes."""
    lines: list[str] = []
    _CONSOLE[id(page)] = lines

    def keep(line: str) -> None:
        if line not in lines and len(lines) < 12:
            lines.append(line)

    page.on(
        "console", lambda m: m.type in ("warning", "error") and keep(f"{m.type}: {m.text[:300]}")
    )
    page.on("pageerror", lambda exc: keep(f"pageerror: {str(exc)[:300]}"))


# --- waiting on Streamlit ----------------------------------------------------------------


def wait_idle(page: Page) -> None:
    """Until the app is connected and no script run is going on (on a timeout, the
    states the page was in instead, so a failure says which never ended)."""
    try:
        page.wait_for_selector(APP_IDLE, state="attached")
    except PlaywrightTimeout:
        raise AssertionError(f"the app never went idle; {page_state(page)}") from None


def wait_keys_answered(page: Page) -> None:
    """Until the server has answered every key press the page queued (applied or refused:
    `page_head.js` drops a press from ``__roadsKeys.pending`` only on the server's
    acknowledgement), then until the app is idle. Idle alone can come between a press
    being queued and being sent again after a swallowed rerun, on a loaded machine."""
    page.wait_for_function(
        "() => !window.__roadsKeys || window.__roadsKeys.pending.length === 0", timeout=60_000
    )
    wait_idle(page)


def round_count(page: Page) -> int:
    """The round counter in the scoreboard header ("Round 12")."""
    text = page.locator('[data-testid="round-count"]').inner_text()
    return int(text.split()[-1])


def board_meta(page: Page) -> dict[str, dict]:
    """``layout.meta`` of every road drawn in the page, by road name.

    A combined board figure (`board.board_figure`) is expanded into its roads, so
    callers see ``{"big_road": {"rounds": n, "marks": m}, ...}`` either way.
    """
    metas = page.evaluate(f"() => {PLOT_METAS}")
    out: dict[str, dict] = {}
    for m in metas:
        if m["road"] == "board":
            out.update(m["roads"])
        else:
            out[m["road"]] = {k: v for k, v in m.items() if k != "road"}
    return out


PLOT_METAS = (
    "Array.from(document.querySelectorAll('.rd-plot'))"
    ".map(g => g.layout && g.layout.meta).filter(m => m && m.road)"
)
"""A JavaScript expression: ``layout.meta`` of every road figure drawn in the page."""

WAIT_ROUNDS_JS = """(n) => {
  const c = document.querySelector('[data-testid="round-count"]');
  if (!c || c.textContent.trim() !== 'Round ' + n) return false;
  const m = PLOTS;
  const bead = m.filter(x => x.road === 'bead_plate' || x.road === 'board');
  return bead.length === 1 && bead[0].rounds === n;
}""".replace("PLOTS", PLOT_METAS)


def wait_keys(page: Page, timeout_ms: float = 30_000) -> None:
    """Until the scoreboard's key listener is in the page (it mounts just after the board
    first shows; a key pressed before it is not seen by the page at all)."""
    page.wait_for_function(
        "() => document.documentElement.dataset.roadsKeys === 'ready'", timeout=timeout_ms
    )


def wait_rounds(page: Page, n: int, timeout_ms: float = 30_000) -> None:
    """Until the header says ``Round n`` and the drawn board holds n rounds (on a timeout,
    what the page showed instead, so a failure in CI says where the page stood)."""
    try:
        page.wait_for_function(WAIT_ROUNDS_JS, arg=n, timeout=timeout_ms, polling="raf")
    except PlaywrightTimeout:
        raise AssertionError(f"the page never showed {n} rounds; {page_state(page)}") from None


PAGE_STATE_JS = """() => {
  const a = document.querySelector('[data-testid="stApp"]');
  const c = document.querySelector('[data-testid="round-count"]');
  const m = PLOTS.map(m => m.road + ':' + m.rounds);
  return {
    script: a && a.dataset.testScriptState, connection: a && a.dataset.testConnectionState,
    header: c && c.textContent.trim(), plots: m,
    text: (document.body ? document.body.innerText : '').replace(/\\s+/g, ' ').slice(0, 400),
  };
}""".replace("PLOTS", PLOT_METAS)


def page_state(page: Page) -> str:
    """Where a page stood: its address, the app's states, its header and plots, the start of
    its text and the console's first warnings and errors (for a failed wait's message)."""
    try:
        state = page.evaluate(PAGE_STATE_JS)
    except PlaywrightError as exc:  # a page gone or navigating: say so instead
        state = f"(unreadable: {str(exc).splitlines()[0][:200]})"
    console = "\n".join(_CONSOLE.get(id(page), [])) or "(nothing)"
    return f"at {page.url}: {state}; the console's first warnings and errors:\n{console}"


class HeldFollow:
    """Holds a page's requests to the live path (``/_roads/follow``) until `release`, so
    the page cannot follow another writer: a key it sends then carries the version it
    last read, which is how a tab that is behind arises when the follow is slower than a
    key. Install before the page opens, so no request slips past."""

    PATTERN = re.compile(r"/_roads/follow\?")

    def __init__(self, page: Page) -> None:
        self.held: list[Route] = []
        self.on = True
        page.route(self.PATTERN, self._route)

    def _route(self, route: Route) -> None:
        if self.on:
            self.held.append(route)
        else:
            route.continue_()

    def release(self) -> None:
        """Let the held requests (and every later one) through to the server."""
        self.on = False
        for route in self.held:
            with contextlib.suppress(PlaywrightError):  # one the page gave up on meanwhile
                route.continue_()
        self.held.clear()


PROBE_JS = """() => {
  if (window.__roadsProbe) return;
  const p = window.__roadsProbe = {down: null, seen: null, from: null};
  const rounds = () => {
    const m = Array.from(document.querySelectorAll('.rd-plot'))
      .map(g => g.layout && g.layout.meta)
      .find(m => m && (m.road === 'board' || m.road === 'bead_plate'));
    return m ? m.rounds : null;
  };
  // On the window, capturing: before the page's own key listener (on the document),
  // which may already draw the new board while it handles the press.
  window.addEventListener('keydown', () => {
    p.down = performance.now(); p.seen = null; p.from = rounds();
  }, true);
  const tick = () => {
    if (p.down !== null && p.seen === null && rounds() !== p.from) p.seen = performance.now();
    requestAnimationFrame(tick);
  };
  requestAnimationFrame(tick);
}"""


def install_latency_probe(page: Page) -> None:
    """Time, inside the page, from a keydown to the first frame whose board has changed.

    This is the latency a person sees; the Python-side clock around a press and a wait
    adds the test driver's own round trips on top.
    """
    page.evaluate(PROBE_JS)


def probe_latency_ms(page: Page) -> float:
    """Milliseconds from the last keydown to the board's change (call after `wait_rounds`)."""
    ms = page.evaluate("() => window.__roadsProbe.seen - window.__roadsProbe.down")
    return round(float(ms), 1)


TIMINGS = REPO / ".benchmarks" / "dashboard.json"
"""Figures the browser tests measure (git-ignored; read by bench/ and the closing notes)."""


def record(name: str, value: object) -> None:
    """Keep a measured figure for the report (not an assertion).

    The test workers (pytest-xdist) share the file: each read-modify-write holds a lock
    on it and the new text replaces the old at once, so no figure is lost or half read.
    """
    TIMINGS.parent.mkdir(exist_ok=True)
    with (TIMINGS.parent / "dashboard.lock").open("a") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        figures = json.loads(TIMINGS.read_text()) if TIMINGS.exists() else {}
        figures[name] = value
        tmp = TIMINGS.with_suffix(f".{os.getpid()}.tmp")
        tmp.write_text(json.dumps(figures, indent=2))
        tmp.replace(TIMINGS)
    print(f"\n{name}: {value}")


LONGTASK_JS = """() => {
  if (window.__roadsLong) return;
  const seen = window.__roadsLong = [];
  new PerformanceObserver(list => {
    for (const e of list.getEntries()) seen.push([e.startTime, e.duration]);
  }).observe({type: 'longtask', buffered: true});
}"""


class MainThread:
    """The page's main-thread work between `start` and `stop`: every task the renderer
    ran (Chromium's own ``TaskDuration``, through the DevTools protocol: short tasks
    too) and the long tasks the page itself sees (``PerformanceObserver('longtask')``:
    tasks of 50 ms or more, their sum and the total blocking time, the part of each
    beyond 50 ms). Issue 26 measured a key press this way (the long tasks' sum)."""

    def __init__(self, page: Page) -> None:
        self.page = page
        self.cdp = page.context.new_cdp_session(page)
        self.cdp.send("Performance.enable")
        page.evaluate(LONGTASK_JS)
        self.t0 = self.p0 = 0.0

    def _task_ms(self) -> float:
        metrics = self.cdp.send("Performance.getMetrics")["metrics"]
        return next(m["value"] for m in metrics if m["name"] == "TaskDuration") * 1000

    def start(self) -> None:
        self.t0, self.p0 = self._task_ms(), self.page.evaluate("() => performance.now()")

    def stop(self, presses: int) -> dict[str, float]:
        """Per press: ``task_ms`` (all tasks), ``long_ms`` and ``blocking_ms``."""
        self.page.evaluate(
            "() => new Promise(r => requestAnimationFrame(() => requestAnimationFrame(r)))"
        )  # what the last press drew, painted
        task = self._task_ms() - self.t0
        long = self.page.evaluate(
            "(t0) => window.__roadsLong.filter(e => e[0] >= t0).map(e => e[1])", self.p0
        )
        n = max(presses, 1)
        return {
            "task_ms": round(task / n, 1),
            "long_ms": round(sum(long) / n, 1),
            "blocking_ms": round(sum(max(0.0, d - 50) for d in long) / n, 1),
        }


BADGES_JS = """() => [...document.querySelectorAll('[data-testid="tile-badge"]')].map(b => {
  const line = b.parentElement.getBoundingClientRect(), r = b.getBoundingClientRect();
  return {text: b.textContent, cut: b.scrollWidth > b.clientWidth + 0.5
    || r.right > line.right + 0.5 || r.left < line.left - 0.5 || r.width < 1};
})"""


def good_road_badges(page: Page) -> list[dict]:
    """Every good-road badge on a wall's tiles: its text, and whether it is cut (by its
    own width, or by the line it stands in)."""
    return page.evaluate(BADGES_JS)

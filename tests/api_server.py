"""A real API server for tests: `roads-app api` in its own process on a free port.

Tests talk to it over real HTTP (httpx) and follow shoes with a real SSE client
(`SseFollower`, a thread reading the event stream). Waiting is always on a condition
(the health answer, an event arriving), never a sleep.
"""

from __future__ import annotations

import contextlib
import json
import os
import signal
import socket
import subprocess
import sys
import threading
import time
from pathlib import Path
from typing import Any

import httpx

START_TIMEOUT_S = 60.0


def free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def roads_app(*args: str, check: bool = True, timeout: float = 120) -> subprocess.CompletedProcess:
    """Run the CLI as a person does (a real process)."""
    out = subprocess.run(
        [sys.executable, "-m", "roads_app", *args], capture_output=True, text=True, timeout=timeout
    )
    if check and out.returncode != 0:
        raise AssertionError(f"roads-app {' '.join(args)} exited {out.returncode}: {out.stderr}")
    return out


class ApiServer:
    """`roads-app api --port N --data DIR [--host H]`, started and stopped by a test;
    ``prefix``: what it runs under, e.g. another host's namespace (`tests.netns`)."""

    def __init__(
        self,
        data_dir: Path,
        host: str = "127.0.0.1",
        port: int | None = None,
        prefix: list[str] | None = None,
        cwd: Path | None = None,
    ):
        self.data_dir = data_dir
        self.cwd = cwd  # where it runs (``python -m`` finds a package there first)
        self.host = host
        self.prefix = prefix or []
        self.port = port or free_port()
        self.proc: subprocess.Popen[bytes] | None = None
        self.log = data_dir.parent / f"api-{self.port}.log"

    @property
    def url(self) -> str:
        return f"http://{'127.0.0.1' if self.host == '0.0.0.0' else self.host}:{self.port}"

    def start(self) -> ApiServer:
        self.data_dir.mkdir(parents=True, exist_ok=True)
        cmd = [
            *self.prefix,
            sys.executable,
            "-m",
            "roads_app",
            "api",
            "--port",
            str(self.port),
            "--data",
            str(self.data_dir),
            "--host",
            self.host,
        ]
        with self.log.open("ab") as log:
            self.proc = subprocess.Popen(
                cmd, stdout=log, stderr=subprocess.STDOUT, start_new_session=True, cwd=self.cwd
            )
        deadline = time.monotonic() + START_TIMEOUT_S
        while time.monotonic() < deadline:
            with contextlib.suppress(httpx.TransportError):
                if httpx.get(f"{self.url}/health", timeout=2).status_code == 200:
                    return self
            try:  # the pause between polls; notices a server that died
                code = self.proc.wait(timeout=0.1)
            except subprocess.TimeoutExpired:
                continue
            raise RuntimeError(f"the API exited with {code}: {self.log.read_text()[-2000:]}")
        self.stop()
        raise RuntimeError(f"the API did not answer in {START_TIMEOUT_S}s")

    def stop(self, sig: int = signal.SIGTERM) -> None:
        if self.proc is None:
            return
        with contextlib.suppress(ProcessLookupError):
            os.killpg(self.proc.pid, sig)
        try:
            self.proc.wait(timeout=20)
        except subprocess.TimeoutExpired:
            os.killpg(self.proc.pid, signal.SIGKILL)
            self.proc.wait(timeout=10)
        self.proc = None

    def client(self, token: str | None = None) -> httpx.Client:
        headers = {"Authorization": f"Bearer {token}"} if token else {}
        return httpx.Client(base_url=self.url, headers=headers, timeout=30)


class SseFollower:
    """Follows one shoe's event stream in a thread and rebuilds its rounds from the events."""

    def __init__(self, url: str, shoe_id: str, token: str | None = None) -> None:
        self.url = f"{url}/shoes/{shoe_id}/events"
        self.token = token
        self.events: list[tuple[str, dict[str, Any]]] = []
        self.rounds: list[dict[str, Any]] = []
        self.version: int | None = None
        self.status: int | None = None
        self.ended = False
        """The stream was closed (by the server, or by `__exit__`)."""
        self._cond = threading.Condition()
        self._stop = threading.Event()
        self._client = httpx.Client(timeout=httpx.Timeout(30, read=None))
        self._socket: socket.socket | None = None
        self._thread = threading.Thread(target=self._run, daemon=True)

    def __enter__(self) -> SseFollower:
        self._thread.start()
        self.wait_for(lambda f: f.status is not None, 30)
        return self

    def __exit__(self, *exc: object) -> None:
        self._stop.set()
        if self._socket is not None:  # wakes the blocked read at once: closing the client
            with contextlib.suppress(OSError):  # alone leaves it waiting for the next
                self._socket.shutdown(socket.SHUT_RDWR)  # keep-alive
        self._client.close()
        self._thread.join(timeout=30)

    def _run(self) -> None:
        headers = {"Authorization": f"Bearer {self.token}"} if self.token else {}
        try:
            with self._client.stream("GET", self.url, headers=headers) as r:
                self._socket = r.extensions["network_stream"].get_extra_info("socket")
                with self._cond:
                    self.status = r.status_code
                    self._cond.notify_all()
                if r.status_code != 200:
                    return
                event, data = "message", []
                for line in r.iter_lines():
                    if line == "":
                        if data:
                            self._apply(event, json.loads("\n".join(data)))
                        event, data = "message", []
                    elif line.startswith("event:"):
                        event = line[6:].strip()
                    elif line.startswith("data:"):
                        data.append(line[5:].strip())
        except (httpx.HTTPError, RuntimeError, ValueError):
            if not self._stop.is_set():
                raise
        finally:
            with self._cond:
                self.status = self.status or -1
                self.ended = True
                self._cond.notify_all()

    def _apply(self, event: str, payload: dict[str, Any]) -> None:
        with self._cond:
            self.events.append((event, payload))
            if event in ("snapshot", "reset"):
                self.rounds = list(payload["rounds"])
            elif event == "append":
                self.rounds.extend(payload["rounds"])
            self.version = payload.get("version")
            self._cond.notify_all()

    def wait_for(self, cond: Any, timeout: float = 30) -> None:
        with self._cond:
            if not self._cond.wait_for(lambda: cond(self), timeout=timeout):
                raise AssertionError(
                    f"stream condition not met in {timeout}s; "
                    f"events so far: {[e for e, _ in self.events]}"
                )

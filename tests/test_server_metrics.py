"""What an operator watches: ``/metrics`` of a real API server and of a real dashboard,
on PostgreSQL, scraped as Prometheus does and read with its own parser.

A scrape holds ids and counts only: never a token, the database's password or a shoe's
name (here one holding markup).
"""

from __future__ import annotations

import contextlib
import os
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from unittest import mock

import httpx
import pytest
from prometheus_client.parser import text_string_to_metric_families

from roads_app.store import tokens
from tests import pgserver
from tests.api_server import ApiServer, SseFollower, free_port

NAME = "<b>Lucky</b> <script>alert(8)</script>"


def samples(text: str) -> dict[tuple[str, tuple[tuple[str, str], ...]], float]:
    """Every sample of a scrape: (name, labels) -> value."""
    return {
        (s.name, tuple(sorted(s.labels.items()))): s.value
        for family in text_string_to_metric_families(text)
        for s in family.samples
    }


def value(text: str, name: str, **labels: str) -> float | None:
    return samples(text).get((name, tuple(sorted(labels.items()))))


def secrets_absent(text: str, *secret: str) -> None:
    for s in (*secret, pgserver.PASSWORD, NAME, "Lucky", "<"):
        assert s not in text, f"{s!r} is in the scrape"


@pytest.fixture
def on_pg(pg_url: str, tmp_path: Path) -> Iterator[tuple[Path, str]]:
    """A data folder whose library is a fresh PostgreSQL database (what the servers and
    the tokens this test makes open)."""
    with mock.patch.dict(os.environ, {"ROADS_APP_DB": pg_url}):
        yield tmp_path / "data", pg_url


def test_the_api_counts_followers_events_appends_refusals_and_the_feed(
    on_pg: tuple[Path, str],
) -> None:
    data, _url = on_pg
    server = ApiServer(data, host="0.0.0.0").start()  # open to the network: reads need tokens
    try:
        op, viewer = tokens.issue(data, "operator"), tokens.issue(data, "viewer")
        with server.client(op) as c, server.client(viewer) as v:
            shoe = c.post("/shoes", json={"name": NAME, "table": "classic"}).json()["id"]
            with SseFollower(server.url, shoe, viewer) as f:
                f.wait_for(lambda f: f.events)  # the snapshot, before any round: 2+ events
                for w in "BPT":
                    assert c.post(f"/shoes/{shoe}/rounds", json={"winner": w}).status_code == 201
                f.wait_for(lambda f: len(f.rounds) == 3)
                assert httpx.post(f"{server.url}/shoes/{shoe}/rounds", json={}).status_code == 401
                assert v.post(f"/shoes/{shoe}/rounds", json={"winner": "B"}).status_code == 403
                big = c.post(f"/shoes/{shoe}/rounds", content=b"x" * 5000)
                assert big.status_code == 413
                assert c.get("/shoes/no-such-shoe").status_code == 404
                assert httpx.get(f"{server.url}/metrics").status_code == 401
                scrape = v.get("/metrics")
            assert scrape.status_code == 200
            assert scrape.headers["content-type"].startswith("text/plain")
            text = scrape.text
    finally:
        server.stop()
    secrets_absent(text, op, viewer)
    assert value(text, "roads_app_followers", shoe=shoe) == 1
    assert value(text, "roads_app_events_sent_total") >= 2  # the snapshot, then the appends
    assert value(text, "roads_app_append_seconds_count") == 3  # the refused never reached it
    for reason in ("unauthorized", "forbidden", "too_big", "not_found"):
        assert value(text, "roads_app_refusals_total", reason=reason) >= 1, reason
    assert value(text, "roads_app_refusals_total", reason="conflict") == 0  # each code listed
    assert value(text, "roads_app_feed_lag_seconds_count") >= 1  # (changes close together: one)
    assert value(text, "roads_app_database_up") == 1
    assert value(text, "roads_app_db_reconnects_total", connection="feed") == 0


def test_two_apps_in_one_process_keep_their_own_numbers(tmp_path: Path) -> None:
    from starlette.testclient import TestClient

    from roads_app.api.app import create_app

    with (
        mock.patch.dict(os.environ, {"ROADS_APP_DB": ""}),
        TestClient(create_app(tmp_path / "a")) as a,
        TestClient(create_app(tmp_path / "b")) as b,
    ):
        assert a.get("/shoes/nope").status_code == 404
        assert value(a.get("/metrics").text, "roads_app_refusals_total", reason="not_found") == 1
        assert value(b.get("/metrics").text, "roads_app_refusals_total", reason="not_found") == 0


# --- the dashboard ---------------------------------------------------------------------------


@contextlib.contextmanager
def dashboard(data: Path) -> Iterator[str]:
    """`roads-app` (the dashboard alone, no API beside it) open to the network; its URL."""
    port = free_port()
    log = data.parent / "dashboard.log"
    data.mkdir(parents=True, exist_ok=True)
    cmd = [sys.executable, "-m", "roads_app", "--port", str(port), "--data", str(data)]
    cmd += ["--headless", "--api-port", "0", "--host", "0.0.0.0"]
    with log.open("ab") as out:
        proc = subprocess.Popen(cmd, stdout=out, stderr=subprocess.STDOUT, start_new_session=True)
    url = f"http://127.0.0.1:{port}"
    try:
        deadline = time.monotonic() + 90
        while time.monotonic() < deadline:
            with contextlib.suppress(httpx.TransportError):
                if httpx.get(f"{url}/_stcore/health", timeout=2).status_code == 200:
                    break
            with contextlib.suppress(subprocess.TimeoutExpired):
                raise AssertionError(f"the dashboard exited {proc.wait(timeout=0.2)}")
        else:
            raise AssertionError(f"the dashboard did not start: {log.read_text()[-2000:]}")
        yield url
    finally:
        os.killpg(proc.pid, 15)
        proc.wait(timeout=30)


def test_the_dashboard_counts_its_pages_followers_and_sessions(on_pg: tuple[Path, str]) -> None:
    import asyncio
    from concurrent.futures import ThreadPoolExecutor

    import websockets

    from roads_app.store import db

    data, _url = on_pg
    store = db.open_store(data)
    meta = _meta()
    store.shoes.create(meta)
    shoe = meta.id
    viewer = tokens.issue(data, "viewer")
    tab = tokens.hash_token(viewer)  # what a tab's follower sends (`ui.access.follow_pass`)
    with dashboard(data) as url:
        auth = {"Authorization": f"Bearer {viewer}"}
        v = str(store.shoes.version(shoe))

        def follow_until_news() -> None:  # as a page does: asked again after each renewal
            ask = {"shoe": shoe, "v": v}
            while True:
                got = httpx.get(
                    f"{url}/_roads/follow", params=ask, headers={"X-Roads-Tab": tab}, timeout=60
                )
                if str(got.json()["v"]) != v:
                    return

        waiting = threading.Thread(target=follow_until_news, daemon=True)
        waiting.start()
        assert httpx.get(f"{url}/_roads/follow", params={"shoe": "no!"}).status_code == 400
        assert httpx.get(f"{url}/metrics").status_code == 401

        async def with_a_tab() -> str:
            ws_url = url.replace("http", "ws") + "/_stcore/stream"
            async with (
                websockets.connect(ws_url, subprotocols=["streamlit"]),
                httpx.AsyncClient() as client,
            ):
                while True:  # until the page following and the tab are both counted
                    text = (await client.get(f"{url}/metrics", headers=auth)).text
                    if value(text, "roads_app_followers", shoe=shoe) == 1 and value(
                        text, "roads_app_sessions_open"
                    ):
                        return text
                    await asyncio.sleep(0.05)

        # on a thread of its own: a worker that ran a browser test holds a loop in its main thread
        with ThreadPoolExecutor(1) as pool:
            text = pool.submit(asyncio.run, asyncio.wait_for(with_a_tab(), 60)).result()
        store.rounds.append(shoe, _one_round(), None)  # the waiting page is told
        waiting.join(timeout=60)
        after = httpx.get(f"{url}/metrics", headers=auth).text
    secrets_absent(text + after, viewer, tab)
    assert value(text, "roads_app_sessions_open") == 1
    assert value(text, "roads_app_refusals_total", reason="bad_request") == 1
    assert value(text, "roads_app_refusals_total", reason="unauthorized") == 1
    assert value(after, "roads_app_events_sent_total") == 1
    assert value(after, "roads_app_followers", shoe=shoe) is None  # answered: none waits
    assert value(after, "roads_app_feed_lag_seconds_count") >= 1


def _meta():  # type: ignore[no-untyped-def]
    from roads_app.game.rounds import ShoeMeta

    return ShoeMeta(name=NAME, source="hand", rules="classic", decks=8)


def _one_round():  # type: ignore[no-untyped-def]
    from roads_app.game.rounds import rounds_from_winners

    return rounds_from_winners("B")


def test_the_dashboard_times_the_results_its_pages_enter(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A result entered on a page (saved, or refused as from a tab that is behind) is
    timed on the dashboard's ``/metrics``, as the API's appends are; an undo is not."""
    from starlette.applications import Starlette
    from starlette.testclient import TestClient
    from streamlit.testing.v1 import AppTest

    from roads_app.ui import follow, server_metrics, session

    data = tmp_path / "data"
    monkeypatch.setenv(session.DATA_ENV, str(data))
    monkeypatch.setattr(session, "appended_hooks", [], raising=False)
    monkeypatch.setattr(follow, "refused_hooks", [])
    scrape = Starlette(routes=server_metrics.routes(data, None))
    app = str(Path(__file__).resolve().parents[1] / "roads_app" / "ui" / "app.py")

    def click(at: AppTest, key: str) -> None:
        at.button(key=key).click().run()
        assert not at.exception, at.exception

    first = AppTest.from_file(app, default_timeout=60)
    first.run()
    for key in ("btn_B", "btn_P", "btn_undo"):
        click(first, key)
    second = AppTest.from_file(app, default_timeout=60)
    second.query_params[session.URL_PARAM] = first.query_params[session.URL_PARAM]
    second.run()
    click(second, "btn_T")  # the shoe moves on in another tab
    click(first, "btn_B")  # this tab is behind: refused, and timed too
    with TestClient(scrape) as client:
        text = client.get(server_metrics.ROUTE).text
    assert value(text, "roads_app_append_seconds_count") == 4
    assert value(text, "roads_app_append_seconds_sum") > 0

"""Hostile uploads in the real dashboard: each refused by the uploader, the library
unchanged, no page shows a traceback afterwards, and a name is only text."""

from __future__ import annotations

from pathlib import Path

import polars as pl
import pytest
from conftest import AppServer, wait_idle
from playwright.sync_api import Page, expect

from roads_app.store import db
from tests.hostile.make_corpus import cases

pytestmark = pytest.mark.browser

PAGES = ("scoreboard", "lobby", "library", "replay", "backtest", "odds-study")
PICK = (
    "meta-name-",
    "meta-decks-",
    "meta-created-",
    "meta-rules-",
    "deep-list-",
    "rows-5000000",
    "winners-500",
    "round-",
)
MARKUP_NAME = "<b>bold</b> **star** ![img](http://127.0.0.1:9/x.png) :red[red]"


def key(name: str) -> str:
    return f".st-key-{name}"


def button(page: Page, name: str):
    return page.locator(f"{key(name)} button").locator("visible=true").first


def no_traceback(page: Page, where: str) -> None:
    wait_idle(page)
    assert page.locator('[data-testid="stException"]').count() == 0, where
    body = page.locator("body").inner_text()
    assert "Traceback" not in body and "bug in roads-app" not in body, where


def upload(page: Page, path: Path) -> None:
    page.locator('[data-testid="stFileUploaderDropzoneInput"]').set_input_files(str(path))
    expect(page.get_by_text(f"Ready to add: {path.name}")).to_be_visible(timeout=120_000)


def test_hostile_uploads_are_refused_and_no_page_breaks(
    app_server: AppServer, page: Page, tmp_path: Path
) -> None:
    page.set_default_timeout(120_000)  # a hang guard on a shared, loaded machine, not a speed bar
    data = app_server.data_dir
    corpus = cases()  # built once: each build makes every file again (about a CPU-second)
    picks = [next(c for c in corpus if c.filename.startswith(prefix)) for prefix in PICK]
    before = db.open_store(data).shoes.list().drop("modified").rows()

    page.goto(f"{app_server.url}/library")
    wait_idle(page)
    for c in picks:
        f = tmp_path / c.filename
        f.write_bytes(c.data)
        upload(page, f)
        button(page, "lib_import").click()
        alert = page.locator('[data-testid="stAlert"]').filter(has_text=c.filename)
        expect(alert).to_be_visible(timeout=120_000)
        no_traceback(page, c.filename)
    assert db.open_store(data).shoes.list().drop("modified").rows() == before

    # a name full of markup is added and shown exactly as typed, as text
    good = tmp_path / "good.csv"
    good.write_text("winner\nB\nP\nT\n")
    upload(page, good)
    page.locator(key("library_import_name") + " input").fill(MARKUP_NAME)
    button(page, "lib_import").click()
    expect(page.get_by_text("to the library")).to_be_visible(timeout=120_000)
    sid = db.open_store(data).shoes.list().filter(pl.col("name") == MARKUP_NAME)["id"].item()
    button(page, f"lib_open_{sid}").click()
    page.wait_for_url(f"**shoe={sid}*")
    title = page.locator('[data-testid="stMarkdownContainer"] h3').first
    page.wait_for_function(  # as typed; the invisible joiners that keep a URL text aside
        "(n) => { const h = document.querySelector('[data-testid=\"stMarkdownContainer\"] h3');"
        " return h !== null && h.innerText.replaceAll('\\u2060', '') === n; }",
        arg=MARKUP_NAME,
        timeout=120_000,
    )
    assert title.locator("a:not([href^='#']), b, img, strong").count() == 0

    for name in PAGES:
        page.goto(f"{app_server.url}/{name}")
        no_traceback(page, name)

"""The issue's "smaller" list, tried once more in the system Chromium as a person would.

The library filter ignores case; a successful import empties the form (a second click
adds nothing); the edit form shows only the inputs of the chosen "Replace by"; a
one-card hand is "1 card"; no message shows the server's folder; a bare URL offers the
last shoe; the replay's EV chart draws Banker red and Player blue as the board does.
"""

from __future__ import annotations

import time
from pathlib import Path

import pytest
from conftest import AppServer, wait_idle, wait_keys, wait_rounds
from playwright.sync_api import Page, expect

from roads_app.game.rounds import ShoeMeta, rounds_from_winners
from roads_app.game.shoe import deal_shoe
from roads_app.render import board
from tests import storehelp as sh

pytestmark = pytest.mark.browser
LOAD_MS = 120_000


def key(name: str) -> str:
    return f".st-key-{name}"


def button(page: Page, name: str):
    return page.locator(f"{key(name)} button").locator("visible=true").first


def test_library_filter_ignores_case(app_server: AppServer, page: Page) -> None:
    for name in ("Macau evening", "Lisboa noon"):
        sh.save_shoe(
            rounds_from_winners("BP"), ShoeMeta(source="hand", name=name), app_server.data_dir
        )
    page.goto(f"{app_server.url}/library", timeout=LOAD_MS)
    wait_idle(page)
    page.locator(key("library_filter")).locator("input").fill("mACAU")
    page.keyboard.press("Enter")
    main = page.get_by_test_id("stMain")
    expect(main.get_by_text("Lisboa noon")).to_have_count(0)
    expect(main.get_by_text("Macau evening").first).to_be_visible()


def test_a_successful_import_empties_the_form(
    app_server: AppServer, page: Page, tmp_path: Path
) -> None:
    f = tmp_path / "paper.csv"
    f.write_text("winner\nB\nP\nT\nB\n")
    before = sh.list_shoes(app_server.data_dir).height
    page.goto(f"{app_server.url}/library", timeout=LOAD_MS)
    wait_idle(page)
    page.locator('[data-testid="stFileUploaderDropzoneInput"]').set_input_files(str(f))
    expect(page.get_by_text("Ready to add: paper.csv")).to_be_visible()
    page.locator(key("library_import_name")).locator("input").fill("from paper")
    page.keyboard.press("Enter")
    button(page, "lib_import").click()
    expect(page.get_by_text("added 'from paper'")).to_be_visible()
    wait_idle(page)
    # the uploader holds no file and the name is empty: a second click adds nothing
    expect(page.get_by_text("Ready to add: paper.csv")).to_have_count(0)
    expect(page.locator('[data-testid="stFileUploaderFile"]')).to_have_count(0)
    expect(page.locator(key("library_import_name")).locator("input")).to_have_value("")
    button(page, "lib_import").click()
    expect(page.get_by_text("choose a .csv, .json or .parquet file first")).to_be_visible()
    assert sh.list_shoes(app_server.data_dir).height == before + 1


def _edit_labels(page: Page, want: set[str]) -> set[str]:
    """The edit form's input labels once they are ``want``, or as they are after 10 s (a
    run still replacing the form's inputs may show the old ones for a moment)."""
    form = page.locator('[data-testid="stForm"]').filter(
        has=page.get_by_role("button", name="Replace round")
    )
    deadline = time.monotonic() + 10
    while True:
        wait_idle(page)
        labels = {
            t.strip() for t in form.locator('[data-testid="stWidgetLabel"]').all_inner_texts()
        }
        if labels == want or time.monotonic() > deadline:
            return labels
        page.wait_for_timeout(100)


def test_edit_form_shows_only_the_inputs_replace_by_asks_for(
    app_server: AppServer, page: Page
) -> None:
    m = ShoeMeta(source="hand", name="to edit")
    sh.save_shoe(rounds_from_winners("BPB"), m, app_server.data_dir)
    page.goto(f"{app_server.url}/?shoe={m.id}", timeout=LOAD_MS)
    wait_rounds(page, 3, timeout_ms=LOAD_MS)
    page.get_by_role("tab", name="Edit a round").click()
    expect(page.locator(key("edit_how"))).to_be_visible()
    want = {"Result", "Banker pair", "Player pair"}
    assert _edit_labels(page, want) == want
    page.locator(key("edit_how")).get_by_text("Cards", exact=True).click()
    expect(page.get_by_label("Player cards").last).to_be_visible()
    assert _edit_labels(page, want := {"Player cards", "Banker cards"}) == want
    page.locator(key("edit_how")).get_by_text("Points", exact=True).click()
    expect(page.get_by_label("Player points").last).to_be_visible()
    want = {"Player points", "Banker points", "Banker pair", "Player pair"}
    assert _edit_labels(page, want) == want


def test_one_card_is_singular_and_no_message_names_the_server_folder(
    app_server: AppServer, page: Page
) -> None:
    page.goto(f"{app_server.url}/?shoe=nosuchshoe1", timeout=LOAD_MS)
    wait_idle(page)
    alert = page.locator('[data-testid="stAlert"]').first
    expect(alert).to_contain_text("nosuchshoe1")
    assert str(app_server.data_dir) not in page.get_by_test_id("stMain").inner_text()
    page.get_by_role("tab", name="By cards").click()
    page.get_by_label("Player cards").first.fill("9s")
    page.get_by_label("Banker cards").first.fill("5c 2h")
    page.get_by_role("button", name="Add by cards").click()
    box = page.locator('[data-testid="stAlert"]').filter(has_text="card")
    expect(box).to_contain_text("player has 1 card:")
    text = page.get_by_test_id("stMain").inner_text()
    assert "1 cards" not in text and str(app_server.data_dir) not in text


def test_a_bare_url_offers_the_last_shoe_and_continues_it(
    app_server: AppServer, page: Page
) -> None:
    m = ShoeMeta(source="hand", name="last night")
    sh.save_shoe(rounds_from_winners("BPBBT"), m, app_server.data_dir)
    shoes_before = sh.list_shoes(app_server.data_dir).height
    page.goto(app_server.url, timeout=LOAD_MS)
    wait_keys(page, timeout_ms=LOAD_MS)
    resume = page.locator(key("resume"))
    expect(resume).to_contain_text("last night")
    button(page, "btn_resume").click()
    wait_rounds(page, 5)
    assert f"shoe={m.id}" in page.url
    assert sh.list_shoes(app_server.data_dir).height == shoes_before  # no empty shoe left


def test_the_replay_ev_chart_draws_banker_red_and_player_blue(
    app_server: AppServer, page: Page
) -> None:
    dealt = deal_shoe(4)
    sh.save_shoe(dealt.rounds, dealt.meta, app_server.data_dir)
    page.goto(f"{app_server.url}/replay?shoe={dealt.meta.id}&round=10", timeout=LOAD_MS)
    wait_rounds(page, 10, timeout_ms=LOAD_MS)
    page.get_by_text("EV of each bet through the shoe").click()
    page.wait_for_function(
        "() => Array.from(document.querySelectorAll('.js-plotly-plot'))"
        ".some(g => g.data && g.data.some(t => t.name === 'Banker'))",
        timeout=LOAD_MS,
    )
    colours = page.evaluate(
        "() => Object.fromEntries(Array.from(document.querySelectorAll('.js-plotly-plot'))"
        ".flatMap(g => (g.data || []).filter(t => t.mode === 'lines')"
        ".map(t => [t.name, t.line && t.line.color])))"
    )
    assert colours["Banker"] == board.RED and colours["Player"] == board.BLUE
    assert colours.get("Tie") == board.GREEN

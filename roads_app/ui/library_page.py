"""The library page: every saved shoe, to open, replay, rename, export or delete; imports.

Each shoe is one row with its name, date, rounds, source and table. Delete asks first
and moves the shoe (with its bets) to the trash, shown under the list, from which it is
restored or, with "Empty trash", removed for good.
An import is checked whole (`library.import_upload`: size first, then every round)
before anything is written, so a refused file shows its one-line message next to the
uploader and leaves the data folder as it was. Exports are built only when their
download button is clicked (the board PNG takes a browser render).
"""

from __future__ import annotations

import functools
import time
from collections.abc import Callable
from datetime import datetime
from pathlib import Path

import polars as pl
import streamlit as st

from roads_app.errors import RoadsAppError, quote
from roads_app.render.scorecard import board_png
from roads_app.shoefiles import files as shoe_files
from roads_app.store import library
from roads_app.ui import access, session
from roads_app.ui.board_view import lang
from roads_app.ui.guard import guarded
from roads_app.ui.nav import switch_to
from roads_app.ui.simulate_view import render_simulate
from roads_app.ui.words import Md, md_text, say, tr

MESSAGE = "library.message"  # (kind, text) shown once above the list
IMPORT_ERROR = "library.import_error"
UPLOAD_ROUND = "library.upload_round"
CONFIRM = "library.confirm_delete"
UPLOAD = "library_upload"
UPLOAD_MB = shoe_files.MAX_IMPORT_BYTES // 2**20
SOURCE_ICON = {
    "hand": ":material/edit:",
    "simulated": ":material/casino:",
    "imported": ":material/upload_file:",
}


# --- actions -------------------------------------------------------------------------------


def _say(kind: str, text: Md) -> None:
    """Keep a message (already fit for a page: `tr` with escaped names, or `say`) for the
    next run to show above the list."""
    st.session_state[MESSAGE] = (kind, text)


def _named(name: object) -> Md:
    """A shoe's name quoted in a message: short, escaped, text."""
    return md_text(quote(name))


def _upload_key() -> str:
    """The uploader's key; a new one after each import empties it (its file is not
    something Streamlit lets a script clear), so a second click cannot add it twice."""
    n = st.session_state.get(UPLOAD_ROUND, 0)
    return f"{UPLOAD}.{n}" if n else UPLOAD


@guarded
@access.writes
def on_import() -> None:
    st.session_state[IMPORT_ERROR] = None
    upload = st.session_state.get(_upload_key())
    if upload is None:
        st.session_state[IMPORT_ERROR] = tr("choose_file_first")
        return
    name = (st.session_state.get("library_import_name") or "").strip() or None
    bar, start = None, time.monotonic()

    def progress(share: float, shoes: int) -> None:  # a file of many shoes, batch by batch
        nonlocal bar
        rate = f"{shoes / max(time.monotonic() - start, 1e-6):,.0f}"
        text = tr("importing_shoes", shoes=f"{shoes:,}", rate=rate)
        bar = st.progress(share, text=text) if bar is None else bar.progress(share, text=text)

    try:
        done = library.import_any_upload(
            upload.getvalue(), upload.name, session.data_dir(), name, progress
        )
    except RoadsAppError as e:
        st.session_state[IMPORT_ERROR] = say(e)
        return
    if bar is None:
        meta = session.store().shoes.meta(done.ids[0])
        _say("success", tr("added_shoe", name=_named(meta.name), id=md_text(meta.id)))
    else:
        bar.empty()
        counts = {"count": f"{len(done.ids):,}", "already": f"{done.already:,}"}
        _say("success", tr("added_shoes", **counts))
    st.session_state[UPLOAD_ROUND] = st.session_state.get(UPLOAD_ROUND, 0) + 1
    st.session_state["library_import_name"] = ""


@guarded
@access.writes
def on_rename(shoe_id: str) -> None:
    name = st.session_state.get(f"lib_name_{shoe_id}") or ""
    try:
        meta = session.store().shoes.rename(shoe_id, name)
    except RoadsAppError as e:
        _say("error", say(e))
        return
    _say("success", tr("renamed_to", name=_named(meta.name)))


@guarded
@access.writes
def on_delete(shoe_id: str, name: str) -> None:
    st.session_state[CONFIRM] = None
    try:
        session.store().shoes.delete(shoe_id)
    except RoadsAppError as e:
        _say("error", say(e))
        return
    _say("success", tr("moved_to_trash", name=_named(name)))


@access.writes
def on_restore(shoe_id: str, name: str) -> None:
    try:
        session.store().shoes.restore(shoe_id)
    except RoadsAppError as e:
        _say("error", say(e))
        return
    _say("success", tr("restored", name=_named(name)))


@access.writes
def on_empty_trash(ids: list[str]) -> None:
    """Remove for good the shoes the page showed in the trash (not any deleted since)."""
    try:
        gone = session.store().shoes.empty_trash(ids)
    except RoadsAppError as e:
        _say("error", say(e))
        return
    _say("success", tr("removed_for_good", n=gone))


def _exporter(shoe_id: str, fmt: str, folder: Path, lg: str) -> Callable[[], bytes]:
    """Built on click, in Streamlit's download thread (no Streamlit calls in here); the
    PNG in the page's language ``lg``."""
    draw = functools.partial(board_png, lang=lg)
    return lambda: library.export_shoe(shoe_id, fmt, folder, draw=draw)[0]


# --- drawing -------------------------------------------------------------------------------


def _when(created: str | None) -> str:
    if not created:
        return "–"
    try:
        return datetime.fromisoformat(created).strftime("%Y-%m-%d %H:%M")
    except ValueError:
        return md_text(created)  # as the file had it: text


def render_row(row: dict, folder: Path) -> None:
    """One shoe: what it is, and what can be done with it."""
    sid = row["id"]
    with st.container(border=True, key=f"shoe-{sid}"):
        if row["error"]:
            st.markdown(f"**{md_text(sid)}** · {tr('cannot_be_read')}")
            st.caption(say(row["error"]))
        else:
            icon = SOURCE_ICON.get(row["source"], "")
            source = row["source"]
            source = tr(f"source_{source}") if source in SOURCE_ICON else md_text(source)
            st.markdown(
                tr(
                    "shoe_line",
                    name=md_text(row["name"]),
                    icon=icon,
                    source=source,
                    rules=md_text(row["rules"]),
                    decks=row["decks"],
                    rounds=row["rounds"],
                    when=_when(row["created"]),
                )
            )
            if row.get("ended"):
                st.caption(tr("finished_at", when=_when(row["ended"])))
        with st.container(horizontal=True, gap="small"):
            if not row["error"]:
                if st.button(
                    tr("open"),
                    key=f"lib_open_{sid}",
                    icon=":material/edit_note:",
                    help=tr("open_help"),
                ):
                    switch_to("scoreboard", {"shoe": sid})
                if st.button(tr("page_replay"), key=f"lib_replay_{sid}", icon=":material/replay:"):
                    switch_to("replay", {"shoe": sid, "round": "0"})
                with st.popover(tr("rename"), icon=":material/edit:"):
                    st.text_input(
                        tr("name"), value=row["name"], key=f"lib_name_{sid}", max_chars=100
                    )
                    st.button(
                        tr("save_name"), key=f"lib_rename_{sid}", on_click=on_rename, args=(sid,)
                    )
                with st.popover(tr("export"), icon=":material/download:"):
                    for fmt in library.EXPORT_FORMATS:
                        label = tr("board_png") if fmt == "png" else fmt.upper()
                        st.download_button(
                            label,
                            data=_exporter(sid, fmt, folder, lang()),
                            file_name=f"{sid}.{fmt}",
                            mime=library.MIME[fmt],
                            key=f"lib_dl_{fmt}_{sid}",
                            on_click="ignore",
                        )
            if st.session_state.get(CONFIRM) == sid:
                name = row["name"] or tr("shoe_default_name", id=sid)  # never ''
                st.warning(tr("confirm_delete", name=_named(name)))
                st.button(
                    tr("yes_delete"),
                    key=f"lib_del_yes_{sid}",
                    type="primary",
                    on_click=on_delete,
                    args=(sid, name),
                )
                st.button(
                    tr("cancel"),
                    key=f"lib_del_no_{sid}",
                    on_click=lambda: st.session_state.update({CONFIRM: None}),
                )
            else:
                st.button(
                    tr("delete"),
                    key=f"lib_del_{sid}",
                    icon=":material/delete:",
                    on_click=lambda s=sid: st.session_state.update({CONFIRM: s}),
                )


def render_import() -> None:
    """Upload a shoe file; its message (if refused) appears right under the uploader."""
    st.markdown(f"**{tr('import_shoe')}**")
    st.file_uploader(
        tr("upload_label", mb=UPLOAD_MB),
        type=["csv", "json", "parquet"],
        key=_upload_key(),
        max_upload_size=UPLOAD_MB,
    )
    chosen = st.session_state.get(_upload_key())
    if chosen is not None:
        st.caption(tr("ready_to_add", name=md_text(chosen.name), size=f"{chosen.size:,}"))
    st.text_input(tr("import_name"), key="library_import_name", max_chars=100)
    st.button(tr("add_to_library"), key="lib_import", icon=":material/upload:", on_click=on_import)
    message = st.session_state.get(IMPORT_ERROR)
    if message:
        st.error(say(message), icon=":material/error:")


def render_library_page() -> None:
    """``/library``: the saved shoes, newest change first."""

    folder = session.data_dir()
    st.title(tr("page_library"))
    left, right = st.columns(2, gap="large")
    with left:
        render_import()
    with right:
        render_simulate(folder, key="lib_sim")
    shown = st.session_state.pop(MESSAGE, None)
    if shown:
        kind, text = shown
        (st.success if kind == "success" else st.error)(text)
    shoes = session.store(folder).shoes.list()
    st.markdown(tr("saved_shoes", n=shoes.height))
    query = st.text_input(
        tr("filter_by_name"), key="library_filter", placeholder=tr("filter_placeholder")
    )
    if query:
        shoes = shoes.filter(  # as a person reads names: "Macau" finds "macau evening"
            pl.col("name").str.to_lowercase().str.contains(query.lower(), literal=True)
        )
    for row in shoes.iter_rows(named=True):
        render_row(row, folder)
    render_trash(folder)


def render_trash(folder: Path) -> None:
    """Deleted shoes: restore one, or empty the trash (final)."""
    trash = session.store(folder).shoes.list(trash=True)
    if not trash.height:
        return
    with st.expander(tr("trash", n=trash.height), icon=":material/delete:"):
        for row in trash.iter_rows(named=True):
            sid = row["id"]
            with st.container(
                horizontal=True, gap="small", key=f"trash-{sid}", vertical_alignment="center"
            ):
                st.markdown(
                    tr(
                        "trash_line",
                        name=md_text(row["name"]),
                        rounds=row["rounds"],
                        when=_when(row["deleted"]),
                    )
                )
                st.button(
                    tr("restore"),
                    key=f"lib_restore_{sid}",
                    icon=":material/restore:",
                    on_click=on_restore,
                    args=(sid, row["name"]),
                )
        st.button(
            tr("empty_trash"),
            key="lib_empty_trash",
            type="primary",
            icon=":material/delete_forever:",
            on_click=on_empty_trash,
            args=(trash["id"].to_list(),),
            help=tr("empty_trash_help"),
        )

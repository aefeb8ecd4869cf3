"""The good-roads page: what each pattern is worth (the study, as a table and a chart),
and the catalogue's settings (switch patterns off, change thresholds, save your file).

The figures come from `roads_app.sim.good_road_study` (the engine's shoes); the page
lays them out. Pattern names and rules come from the catalogue, possibly the player's
own file, so they go into dataframe cells and plain text, never Markdown.
"""

from __future__ import annotations

import dataclasses
from typing import Any

import polars as pl
import streamlit as st

from roads_app.bets.tables import fallback_table, list_tables, load_table
from roads_app.errors import RoadsAppError
from roads_app.game.hand import Winner
from roads_app.render.verdict import study_verdict_text
from roads_app.roads import good_roads as gr
from roads_app.sim import good_road_study as gs
from roads_app.ui.board_view import lang
from roads_app.ui.words import md_text, say, tr

MAX_PAGE_SHOES = 1_000_000
RESULT = "gr.study.result"


def _pct(x: float | None) -> float | None:
    return None if x is None else round(x * 100, 3)


def study_frame(study: gs.Study, language: str) -> pl.DataFrame:
    """The study as the page's table: one row a pattern, in the catalogue's order."""
    names = {p.key: p.name(language) for p in study.catalogue.patterns}
    rows = []
    for f in study.patterns:
        lo, hi = f.ci if f.ci else (None, None)
        rows.append(
            {
                tr("gr_pattern"): names.get(f.key, f.key),
                tr("gr_rounds"): _pct(f.share_of_rounds),
                tr("gr_shoes"): _pct(f.share_of_shoes),
                tr("gr_longest"): f.longest_run,
                tr("gr_next_b"): _pct(f.next_share[Winner.BANKER]),
                tr("gr_exact_b"): _pct(f.exact_next[Winner.BANKER]),
                tr("gr_next_p"): _pct(f.next_share[Winner.PLAYER]),
                tr("gr_exact_p"): _pct(f.exact_next[Winner.PLAYER]),
                tr("gr_next_t"): _pct(f.next_share[Winner.TIE]),
                tr("gr_bets"): f.bets,
                tr("gr_ev"): _pct(f.ev),
                tr("gr_ci_lo"): _pct(lo),
                tr("gr_ci_hi"): _pct(hi),
                tr("gr_edge"): _pct(f.edge),
            }
        )
    return pl.DataFrame(rows)


def ev_chart(study: gs.Study, language: str) -> dict[str, Any]:
    """EV per unit with its 95% interval beside the table's exact edge, per pattern."""
    names = {p.key: p.name(language) for p in study.catalogue.patterns}
    x = [names.get(f.key, f.key) for f in study.patterns]
    ev = [_pct(f.ev) for f in study.patterns]
    up = [None if f.ci is None or f.ev is None else _pct(f.ci[1] - f.ev) for f in study.patterns]
    down = [None if f.ci is None or f.ev is None else _pct(f.ev - f.ci[0]) for f in study.patterns]
    return {
        "data": [
            {
                "type": "scatter",
                "mode": "markers",
                "x": x,
                "y": ev,
                "name": tr("gr_ev"),
                "error_y": {"type": "data", "symmetric": False, "array": up, "arrayminus": down},
            },
            {
                "type": "scatter",
                "mode": "markers",
                "x": x,
                "name": tr("gr_edge"),
                "y": [_pct(f.edge) for f in study.patterns],
                "marker": {"symbol": "line-ew-open", "size": 18},
            },
        ],
        "layout": {
            "yaxis": {"title": {"text": "% / unit"}, "zeroline": True},
            "height": 380,
            "margin": {"t": 20},
        },
    }


def _run_study() -> None:
    tables = list_tables()
    c1, c2, c3 = st.columns([2, 1, 1])
    name = c1.selectbox(
        tr("table"),
        tables,
        index=tables.index(fallback_table(tables)),
        key="gr.study.table",
    )
    seed = int(c2.number_input(tr("seed"), min_value=0, value=1, step=1, key="gr.study.seed"))
    shoes = int(
        c3.number_input(
            tr("bt_shoes"),
            min_value=100,
            max_value=MAX_PAGE_SHOES,
            value=20_000,
            step=10_000,
            key="gr.study.shoes",
        )
    )
    if st.button(tr("gr_run"), type="primary", key="gr.study.run"):
        bar = st.progress(0.0, text=tr("gr_running"))
        try:
            result = gs.study(
                gr.in_force(),
                load_table(name),
                seed=seed,
                shoes=shoes,
                progress=lambda d, t: bar.progress(min(d / t, 1.0)),
            )
        except RoadsAppError as e:
            bar.empty()
            st.error(say(e))
            return
        bar.empty()
        st.session_state[RESULT] = result
    result = st.session_state.get(RESULT)
    if result is None:
        return
    lg = lang()
    st.text(
        tr(
            "gr_study_head",
            shoes=f"{result.part.shoes:,}",
            seed=result.seed,
            table=result.table.title,
            priced=f"{result.part.priced_shoes:,}",
        )
    )
    with st.container(key="gr_study_table"):
        st.dataframe(study_frame(result, lg), hide_index=True)
    st.plotly_chart(ev_chart(result, lg), width="stretch")
    names = {p.key: p.name(lg) for p in result.catalogue.patterns}
    with st.container(key="gr_verdicts"):
        for f in result.patterns:
            st.text(f"{names.get(f.key, f.key)}: {study_verdict_text(f, lg)}")


def _settings() -> None:
    try:
        cat = gr.in_force()
    except RoadsAppError as e:
        st.error(say(e))
        cat = gr.load_catalogue(gr.default_path())
    st.text(tr("gr_settings_intro", path=f"{gr.CATALOGUE_DIR}/{gr.USER_FILE}"))
    rows = [
        {
            "key": p.key,
            "name": p.name(lang()),
            "enabled": p.enabled,
            "columns": ", ".join(c.text for c in p.columns),
            "invites": p.invites.value,
            "rule": p.description,
        }
        for p in cat.patterns
    ]
    edited = st.data_editor(
        pl.DataFrame(rows),
        hide_index=True,
        key="gr.settings.editor",
        disabled=["key", "name", "invites", "rule"],
        column_config={
            "enabled": st.column_config.CheckboxColumn(tr("gr_enabled")),
            "columns": st.column_config.TextColumn(tr("gr_columns")),
        },
    )
    c1, c2 = st.columns(2)
    if c1.button(tr("gr_save"), type="primary", key="gr.settings.save"):
        try:
            new = edited_catalogue(cat, edited)
            path = gr.save_user_catalogue(new)
        except RoadsAppError as e:
            st.error(say(e))
        else:
            st.success(tr("gr_saved", path=md_text(f"{gr.CATALOGUE_DIR}/{path.name}")))
    upload = st.file_uploader(
        tr("gr_upload"), type=["toml"], key="gr.settings.upload", max_upload_size=1
    )
    if upload is not None and st.button(tr("gr_use_upload"), key="gr.settings.use"):
        try:
            data = upload.getvalue()
            if len(data) > gr.MAX_CATALOGUE_BYTES:
                raise gr.RulesError(tr("gr_upload_big", kb=gr.MAX_CATALOGUE_BYTES // 1024))
            chosen = gr.parse_catalogue(data.decode("utf-8", "replace"), tr("gr_upload_where"))
            path = gr.save_user_catalogue(chosen)
        except RoadsAppError as e:
            st.error(say(e))
        else:
            st.success(tr("gr_saved", path=md_text(f"{gr.CATALOGUE_DIR}/{path.name}")))
    if gr.user_path().is_file() and c2.button(tr("gr_reset"), key="gr.settings.reset"):
        gr.user_path().unlink(missing_ok=True)
        st.rerun()


def edited_catalogue(cat: gr.Catalogue, edited: Any) -> gr.Catalogue:
    """The catalogue with the table's switches and columns (``B=1, P>=2``), checked by
    the catalogue's own schema as a file would be (one line naming the field if not)."""
    frame = edited if isinstance(edited, pl.DataFrame) else pl.from_pandas(edited)
    by_key = {r["key"]: r for r in frame.iter_rows(named=True)}
    patterns = []
    for p in cat.patterns:
        r = by_key.get(p.key)
        if r is not None:
            typed = tuple(_Raw(c.strip()) for c in str(r["columns"] or "").split(",") if c.strip())
            p = dataclasses.replace(p, enabled=bool(r["enabled"]), columns=typed)  # type: ignore[arg-type]
        patterns.append(p)
    text = gr.catalogue_toml(dataclasses.replace(cat, patterns=tuple(patterns)))
    return gr.parse_catalogue(text, tr("gr_settings_where"))


@dataclasses.dataclass(frozen=True)
class _Raw:
    """A column as the player typed it, written to the file as is for the schema to check."""

    text: str


def render_good_roads_page() -> None:
    """Page body: what each good road is worth, and the catalogue's settings."""
    st.header(tr("gr_title"))
    st.text(tr("gr_intro"))
    study, settings = st.tabs([tr("gr_tab_study"), tr("gr_tab_settings")])
    with study:
        _run_study()
    with settings:
        _settings()

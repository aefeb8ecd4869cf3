"""The scoreboard page: the board, statistics, ask road, and entering a shoe.

Everything below the title is one ``st.fragment``, so a result entered by click or
key reruns only the board and the controls, not the page. Every action goes through
`session.apply`: the new rounds are computed by the pure `rounds` functions, saved
atomically, and only then shown; a refused input leaves the shoe as it was and its
message appears next to the input that caused it.
"""

from __future__ import annotations

import urllib.parse
from typing import Any

import polars as pl
import streamlit as st

from roads_app.bets.tables import list_tables, load_table
from roads_app.errors import RoadsAppError, RoundError
from roads_app.game import MAX_DECKS
from roads_app.game.hand import Side, Winner
from roads_app.game.rounds import (
    NAME_MAX,
    Flag,
    ShoeMeta,
    add_cards,
    add_points,
    add_winner,
    apply_keys,
    can_undo,
    default_name,
    edit_round,
    round_by_cards,
    round_by_points,
    round_by_winner,
    undo,
)
from roads_app.i18n import word
from roads_app.render import board
from roads_app.roads import good_roads as gr
from roads_app.ui import access, board_host, follow, page_head, session
from roads_app.ui.bet_panel import render_entry_bets
from roads_app.ui.board_view import lang, render_board, render_next, round_count
from roads_app.ui.good_roads_view import render_tags
from roads_app.ui.guard import guarded
from roads_app.ui.live_odds import render_live_odds
from roads_app.ui.stats_view import render_stats
from roads_app.ui.table_day_view import render_table_day
from roads_app.ui.words import (
    Md,
    labels,
    md_text,
    say,
    tr,
    winner_word,
)

FLAGS: tuple[Flag, ...] = (
    Flag.BANKER_PAIR,
    Flag.PLAYER_PAIR,
    Flag.PLAYER_NATURAL,
    Flag.BANKER_NATURAL,
)
"""Round flags entered by toggles, in the toggles' order; each is also its label's
catalogue key."""


REPLACE_BY = {"Result": "by_result", "Points": "by_points", "Cards": "by_cards"}
"""How a round can be replaced (the widget's values) and their labels' keys."""


# --- actions (widget callbacks: they run before the fragment redraws) --------------------


NEXT_KEY = "roads_app.next_flags"
"""The flags the next result takes as the server last set them (a pair key of the
numpad, 4 or 5, or a result clearing them): what the toggles are drawn showing."""

TOGGLES_KEY = "roads_app.toggles_drawn"
"""How many times the server has set `NEXT_KEY`: the toggles' keys carry it
(`toggle_key`), so each change draws new toggles showing the flags, a pair key's lit.
Why not set a toggle's value from the server: a value set that way can come back stale
with a rerun the page asked for before it saw the change (a key typed 30 ms later), and
the pair would be lost or land on a later round. A new toggle's value changes only by a
click, and an older toggle's value, sent by a page that has not seen the new ones,
names a toggle no longer drawn."""


def toggle_key(flag: str) -> str:
    """The key of ``flag``'s toggle as drawn now."""
    return f"flag_{flag}_{st.session_state.setdefault(TOGGLES_KEY, 0)}"


def _flags() -> dict[str, bool | None]:
    """The flags the next result takes, each as its toggle says (a click since it was
    drawn included), or as the server last set it: on means yes, off means not recorded
    (null)."""
    kept = st.session_state.get(NEXT_KEY) or {}
    shown = {k: st.session_state.get(toggle_key(k)) for k in FLAGS}
    return {k: True if (kept.get(k) if shown[k] is None else shown[k]) else None for k in FLAGS}


def _set_flags(flags: dict[str, bool | None]) -> None:
    """The next result's flags set by the server: the toggles are drawn anew with them."""
    st.session_state[NEXT_KEY] = {k: True for k in FLAGS if flags.get(k)}
    st.session_state[TOGGLES_KEY] = st.session_state.get(TOGGLES_KEY, 0) + 1


def _reset_flags() -> None:
    """After a result: the next takes no flag (the toggles drawn anew only if one was on)."""
    if any(_flags().values()):
        _set_flags({})


@access.writes
def on_winner(winner: str) -> None:
    flags = _flags()
    if session.apply("result", lambda r, m: add_winner(r, winner, decks=m.decks, **flags)):
        _reset_flags()


@access.writes
def on_points() -> None:
    pp, bp = st.session_state.get("points_player"), st.session_state.get("points_banker")
    if pp is None or bp is None:
        session.set_error("points", tr("need_both_totals"))
        return
    flags = _flags()
    if session.apply(
        "points", lambda r, m: add_points(r, int(pp), int(bp), decks=m.decks, **flags)
    ):
        _reset_flags()
        st.session_state["points_player"] = st.session_state["points_banker"] = None


@access.writes
def on_cards() -> None:
    pc = st.session_state.get("cards_player", "")
    bc = st.session_state.get("cards_banker", "")
    if session.apply("cards", lambda r, m: add_cards(r, pc, bc, decks=m.decks)):
        st.session_state["cards_player"] = st.session_state["cards_banker"] = ""


@access.writes
def on_undo() -> None:
    session.apply("result", lambda r, m: undo(r))


def key_runs(
    keys: list[str], flags: dict[str, bool | None]
) -> tuple[list[tuple[list[str], dict[str, bool | None]]], dict[str, bool | None]]:
    """The page's queue as runs of B/P/T/U presses, each with the flags its first result
    takes, and the toggles after them all: a pair key (the numpad's 4 and 5) flips its
    toggle for the next result, as a click on the toggle does; a result takes the
    toggles and clears them.

    >>> key_runs(["player_pair", "b", "p"], {"player_pair": None})
    ([([], {'player_pair': None}), (['b', 'p'], {'player_pair': True})], {'player_pair': None})
    >>> key_runs(["banker_pair", "banker_pair", "u"], {"banker_pair": None})[1]
    {'banker_pair': None}
    """
    runs: list[tuple[list[str], dict[str, bool | None]]] = []
    now, run = dict(flags), []
    for k in keys:
        if k in board_host.KEYS:
            run.append(k)
            continue
        runs.append((run, now))
        if set(run) - {"u"}:
            now = dict.fromkeys(now)
        now = {**now, k: None if now.get(k) else True}
        run = []
    runs.append((run, now))
    return runs, (dict.fromkeys(now) if set(run) - {"u"} else now)


@access.writes
def on_keys(keys: list[str]) -> None:
    """Presses from the page's queue (B/P/T/U and the numpad's), applied in order and
    saved in one write."""
    before = _flags()
    runs, after = key_runs(keys, before)
    notes: list[str] = []

    def change(rounds: pl.DataFrame, meta: ShoeMeta) -> pl.DataFrame:
        for run, flags in runs:
            if run:
                rounds, skipped = apply_keys(rounds, run, decks=meta.decks, **flags)
                notes.extend(skipped)
        return rounds

    if not any(run for run, _ in runs) or session.apply("result", change):
        # a pair key alone saves nothing: it sets its pair for the next result, and
        # its toggle shows it
        if after != before:
            _set_flags(after)
        if notes:
            session.set_error("result", Md("; ".join(dict.fromkeys(map(say, notes)))))


@access.writes
def on_bring_back() -> None:
    session.bring_back("result")


def _edit_row() -> dict[str, Any]:
    how = st.session_state.get("edit_how", "Result")
    flags = {
        "banker_pair": True if st.session_state.get("edit_banker_pair") else None,
        "player_pair": True if st.session_state.get("edit_player_pair") else None,
    }
    if how == "Result":
        return round_by_winner(st.session_state.get("edit_winner") or "", **flags)
    if how == "Points":
        pp, bp = st.session_state.get("edit_pp"), st.session_state.get("edit_bp")
        if pp is None or bp is None:
            raise RoundError(tr("need_both_totals_edit"))
        return round_by_points(int(pp), int(bp), **flags)
    return round_by_cards(st.session_state.get("edit_pc", ""), st.session_state.get("edit_bc", ""))


@access.writes
def on_edit() -> None:
    no = int(st.session_state.get("edit_round") or 0)
    session.apply("edit", lambda r, m: edit_round(r, no, _edit_row(), decks=m.decks))


def on_table_change() -> None:
    """A new table suggests its own deck count (a broken rules file says why instead)."""
    session.clear_errors()
    try:
        st.session_state["new_decks"] = load_table(st.session_state["new_table"]).shoe.decks
    except RoadsAppError as e:
        session.set_error("new", e)


@access.writes
def on_new_shoe() -> None:
    rules = st.session_state.get("new_table") or session.DEFAULT_TABLE
    decks = int(st.session_state.get("new_decks") or session.DEFAULT_DECKS)
    try:
        session.start_new_shoe(rules, decks, st.session_state.get("new_name"))
    except RoadsAppError as e:
        session.set_error("new", e)
        return
    st.session_state.pop("new_name", None)  # the next new shoe gets a default of its own


def on_end_shoe() -> None:
    session.end_shoe("new")


# --- drawing ---------------------------------------------------------------------------------


def pays_six_apart(rules: str) -> bool:
    """Whether the shoe's table pays a Banker win on 6 apart (`Table.pays_six_apart`);
    a table whose rules do not load marks nothing."""
    try:
        return load_table(rules).pays_six_apart
    except RoadsAppError:
        return False


def render_ask_toggle() -> None:
    """Picking B or P ghosts on the board the marks that result would add."""
    st.segmented_control(tr("ask_on_board"), list(Side), key="ask_road", format_func=winner_word)


def render_odds(state: session.ShoeState, room: int | None = None) -> None:
    """The next hand's exact odds from the unseen cards (a note when cards are missing);
    ``room``: the page's width where the odds take all of it (a phone)."""
    st.markdown(f"**{tr('live_odds')}**")
    try:
        table = load_table(state.meta.rules)
    except RoadsAppError as e:
        st.warning(tr("no_odds", why=say(e)))
        return
    render_live_odds(state.rounds, state.meta, table, room=room)


def _header(state: session.ShoeState) -> None:
    meta: ShoeMeta = state.meta
    title = md_text(meta.name) if meta.name else tr("shoe_default_name", id=md_text(meta.id))
    saved = "" if state.saved else f" · {tr('header_new')}"
    if state.ended is not None:
        saved = f" · **{tr('ended_badge')}**"
    st.markdown(f"### {title}")  # names are text (`md_text`); no HTML where they are
    with st.container(horizontal=True, gap="xsmall", key="shoe_line"):
        st.markdown(
            f"{tr('header_table', rules=md_text(meta.rules), decks=meta.decks)}{saved} ·",
            width="content",
        )
        round_count(tr("round_of", n=state.round_count))
        if state.saved:
            link = f"display?shoe={urllib.parse.quote(meta.id, safe='')}"
            st.markdown(f"· [{tr('display_link')}]({link})", width="content")
    render_tags(gr.tags_now(state.rounds), lang())


def _error(area: str) -> None:
    message = session.errors().get(area)
    if message:
        st.error(message, icon=":material/error:")


def render_quick_entry(state: session.ShoeState) -> None:
    st.html(f"<style>{page_head.static_text('scoreboard.css')}</style>")  # touch targets
    with st.container(horizontal=True, gap="small", vertical_alignment="center"):
        lg = lang()
        for w, colour in zip(Winner, ("red", "blue", "green"), strict=True):
            st.button(
                f":{colour}[**{word(w, lg)}**] · {w}", key=f"btn_{w}", on_click=on_winner, args=(w,)
            )
        st.button(
            f"{word('undo', lg)} · U",
            key="btn_undo",
            on_click=on_undo,
            disabled=not can_undo(state.rounds),
            icon=":material/undo:",
        )
        st.button(
            tr("bring_back"),
            key="btn_redo",
            on_click=on_bring_back,
            disabled=not session.can_bring_back(state),
            icon=":material/redo:",
            help=tr("bring_back_help"),
        )
        render_ask_toggle()
    drawn = st.session_state.get(NEXT_KEY) or {}
    with st.container(horizontal=True, gap="medium"):
        for k in FLAGS:
            st.toggle(tr(k), value=bool(drawn.get(k)), key=toggle_key(k))
    st.caption(tr("keys_help"))  # the letters and the dealer's numpad (`page_head.NUMPAD`)
    _error("result")


def render_points_entry() -> None:
    with st.form("points_form", border=False):
        c1, c2 = st.columns(2, vertical_alignment="bottom")
        c1.number_input(tr("player_points"), 0, 9, value=None, step=1, key="points_player")
        c2.number_input(tr("banker_points"), 0, 9, value=None, step=1, key="points_banker")
        st.form_submit_button(tr("add_by_points"), on_click=on_points)
    st.caption(tr("points_caption"))
    _error("points")


def render_cards_entry() -> None:
    with st.form("cards_form", border=False):
        c1, c2 = st.columns(2, vertical_alignment="bottom")
        c1.text_input(tr("player_cards"), key="cards_player", placeholder="9s Kd")
        c2.text_input(tr("banker_cards"), key="cards_banker", placeholder="5c 2h 3d")
        st.form_submit_button(tr("add_by_cards"), on_click=on_cards)
    st.caption(tr("cards_caption"))
    _error("cards")


def render_edit(state: session.ShoeState) -> None:
    """Pick a round (its content shows at once), then enter its replacement."""
    n = state.round_count
    if not n:
        st.caption(tr("no_rounds_to_edit"))
        return
    if not 1 <= st.session_state.get("edit_round", 0) <= n:
        st.session_state["edit_round"] = n  # first time, or the shoe got shorter
    c1, c2 = st.columns([1, 3], vertical_alignment="bottom")
    no = int(c1.number_input(tr("round"), 1, n, step=1, key="edit_round"))
    c2.caption(tr("round_now", n=no, what=_describe(state.rounds.row(no - 1, named=True))))
    # Outside the form, so picking how to replace the round shows only its inputs.
    # (not the control's default: with its value kept in the session as well, a
    # default makes Streamlit warn on the page)
    st.session_state.setdefault("edit_how", "Result")
    how = st.segmented_control(
        tr("replace_by"),
        list(REPLACE_BY),
        key="edit_how",
        required=True,
        format_func=labels(REPLACE_BY),
    )
    with st.form("edit_form", border=False):
        if how == "Result":
            c1, c2 = st.columns(2)
            c1.selectbox(tr("result"), list(Winner), key="edit_winner", format_func=winner_word)
        elif how == "Points":
            c1, c2, c3 = st.columns(3)
            c1.number_input(tr("player_points"), 0, 9, value=None, step=1, key="edit_pp")
            c2.number_input(tr("banker_points"), 0, 9, value=None, step=1, key="edit_bp")
            c2 = c3
        else:
            c1, c2 = st.columns(2)
            c1.text_input(tr("player_cards"), key="edit_pc", placeholder="9s Kd")
            c2.text_input(tr("banker_cards"), key="edit_bc", placeholder="5c 2h 3d")
        if how != "Cards":  # cards say for themselves whether there is a pair
            c2.checkbox(tr("banker_pair"), key="edit_banker_pair")
            c2.checkbox(tr("player_pair"), key="edit_player_pair")
        st.form_submit_button(tr("replace_round"), on_click=on_edit)
    _error("edit")


def _describe(row: dict[str, Any]) -> str:
    text = winner_word(row["winner"])
    if row["player_points"] is not None:
        text += ", " + tr("describe_points", pp=row["player_points"], bp=row["banker_points"])
    if row["player_cards"] is not None:
        text += f" ({' '.join(row['player_cards'])} / {' '.join(row['banker_cards'])})"
    return text


def render_new_shoe(state: session.ShoeState) -> None:
    tables = list_tables()
    if "new_table" not in st.session_state:
        st.session_state["new_table"] = (
            state.meta.rules if state.meta.rules in tables else session.DEFAULT_TABLE
        )
        st.session_state["new_decks"] = state.meta.decks
    if "new_name" not in st.session_state:
        st.session_state["new_name"] = default_name(st.session_state["new_table"])
    st.text_input(tr("shoe_name"), key="new_name", max_chars=NAME_MAX, help=tr("shoe_name_help"))
    c1, c2, c3 = st.columns([2, 1, 1], vertical_alignment="bottom")
    c1.selectbox(tr("table_rules"), tables, key="new_table", on_change=on_table_change)
    c2.number_input(tr("decks"), 1, MAX_DECKS, step=1, key="new_decks")
    c3.button(tr("start_new_shoe"), key="btn_new", on_click=on_new_shoe)
    if state.saved and state.ended is None:
        st.button(
            tr("end_shoe"),
            key="btn_end",
            on_click=on_end_shoe,
            icon=":material/stop:",
            help=tr("end_shoe_help"),
        )
    _error("new")


def render_resume() -> None:
    """A bare URL on a new, empty shoe: offer the last shoe to go on with."""
    last = session.last_shoe()
    if last is None:
        return
    with st.container(horizontal=True, vertical_alignment="center", key="resume"):
        st.markdown(tr("resume_offer", name=md_text(last["name"] or last["id"]), n=last["rounds"]))
        st.button(
            tr("continue_last"),
            key="btn_resume",
            icon=":material/history:",
            on_click=session.open_shoe,
            args=(last["id"],),
        )


@st.fragment
@guarded
def shoe_fragment() -> None:
    """The part of the page one result reruns: the board across the whole width, the
    entry under it, then the entry tabs and bets beside the statistics and odds, or
    above them where the page is too narrow for both (`SIDE_BY_SIDE_PX`)."""
    access.rerun_if_refused()
    first = board_first()
    board_host.mount(on_keys, more=first)
    state = session.current()
    # A result written elsewhere (another tab, the CLI, the API) reruns this. On the page
    # from its first run (following nothing until the shoe is saved), and the error in a
    # container always there: an element that comes and goes above the board shifts
    # every element after it, and while the run's deltas arrive the count strip under the
    # board went missing for a frame (the entry buttons jumped 66 px).
    follow.follow_shoe(state.meta.id if state.saved else None, state.version)
    with st.container():
        _error("shoe")
    _header(state)
    with st.container():  # always there, so the elements after it keep their places
        if not state.saved:
            render_resume()
        elif state.ended is not None:
            st.info(tr("shoe_ended_note"), icon=":material/flag:")
    drawn = render_board(
        state.rounds,
        board.BoardLook(
            ask=st.session_state.get("ask_road"),
            decks=state.meta.decks,
            six=pays_six_apart(state.meta.rules),
        ),
        follows=board_host.applied(),
    )
    if first:  # the rest when the page asks, right after it has drawn the board
        render_next(drawn, next_rounds(state))
        return
    render_quick_entry(state)
    side_by_side = (drawn.width or board.DEFAULT_WIDTH_PX) >= SIDE_BY_SIDE_PX
    if side_by_side:
        main, side = st.columns([1.25, 1], gap="medium")
    else:
        main, side = st.container(), st.container()
    with main:
        render_entry_tabs(state)
        render_entry_bets(state)
    with side:
        render_stats(state.rounds)
        render_odds(state, None if side_by_side else drawn.width)
        if state.saved:
            render_table_day(state.meta.id)
    render_next(drawn, next_rounds(state))


KEPT_WHILE_CLOSED: dict[str, tuple[str, ...]] = {
    "tab_edit": (
        "edit_round",
        "edit_how",
        "edit_winner",
        "edit_pp",
        "edit_bp",
        "edit_pc",
        "edit_bc",
        "edit_banker_pair",
        "edit_player_pair",
    ),
    "tab_new": ("new_name", "new_table", "new_decks"),
}
"""The inputs of the tabs sent only while open (`render_entry_tabs`), kept meanwhile."""


def render_entry_tabs(state: session.ShoeState) -> None:
    """Points, cards, editing a round and a new shoe, one tab each; the edit and new-shoe
    tabs are sent only while open. Why: every run of the fragment (each key press) sent
    all four tabs' forms, and the page's update of them was most of a key press's
    main-thread work on the page (issue 26: 50-90 ms of long tasks a press; about 10
    with the edit and new-shoe tabs left out). A closed tab's inputs are not on the page,
    so Streamlit would forget them: they are kept in the session (written back each run
    while the tab is closed), so the round picked or the name given is there when the
    tab is opened again. An open tab's are left alone: writing them back would send the
    server's value over what is being typed. The points and cards tabs are always sent:
    two inputs each, and what is typed in them stays typed while another tab is open (a
    form's input keeps its text in the page only while it is on the page)."""
    points, cards, edit, new = st.tabs(
        [tr("tab_points"), tr("tab_cards"), tr("tab_edit"), tr("tab_new")],
        key="entry_tabs",
        on_change="rerun",
    )
    with points:
        render_points_entry()
    with cards:
        render_cards_entry()
    for name, tab, render in (("tab_edit", edit, render_edit), ("tab_new", new, render_new_shoe)):
        if tab.open:
            with tab:
                render(state)
            continue
        for k in KEPT_WHILE_CLOSED[name]:
            if k in st.session_state:
                st.session_state[k] = st.session_state[k]


SIDE_BY_SIDE_PX = 760
"""The page width (the board's) from which the statistics and odds sit beside the entry.
Narrower, the odds column would be under 290 px, the width its five columns need (a
1024 px laptop with the sidebar open gave it 233 px, hiding "Now" behind a scroll)."""

FIRST_KEY = "roads_app.board_first"


def board_first() -> bool:
    """Whether this is the scoreboard's first run in a browser (the page sent its
    window's width), which sends the board alone (and the key component: a result key
    works from the start); the page asks for the rest once it has drawn it
    (`board_host.mount`). Why: the browser's first rendering of the whole page (entry
    tabs, bet panel, statistics, odds) took 0.6-0.7 s before the board's element could
    draw, and the board is what the page is opened for. The entry buttons and toggles
    under the board come with the rest too: rendering them (and fetching their code)
    in the first run held the board's drawing back by another 0.25-0.35 s on a loaded
    machine (`bench/bench_first_load.py`)."""
    if st.session_state.get(FIRST_KEY) or board_host.viewport_width() is None:
        return False
    st.session_state[FIRST_KEY] = True
    return True


def next_rounds(state: session.ShoeState) -> dict[str, pl.DataFrame]:
    """The shoe after each result key, as `on_keys` would make it (keys it would refuse,
    such as U on an empty shoe, left out): the boards the page draws on a press."""
    out = {}
    for key in board_host.KEYS:
        rounds, refused = apply_keys(state.rounds, [key], decks=state.meta.decks, **_flags())
        if not refused:
            out[key] = rounds
    return out


def render_viewer() -> None:
    """The board without the controls, for a viewer of an exposed dashboard."""
    access.viewer_notice()
    if access.may_view():
        viewer_fragment()


@st.fragment
@guarded
def viewer_fragment() -> None:
    """A viewer's board follows the table as the display does: a result written anywhere
    reruns this fragment (`follow.follow_shoe`), and it shows the store's shoe."""
    if not access.may_view():  # the token was revoked since: the page says why
        st.rerun(scope="app")
    state = session.current()
    if state.saved:
        follow.follow_shoe(state.meta.id, state.version)
    _header(state)
    render_board(
        state.rounds,
        board.BoardLook(decks=state.meta.decks, six=pays_six_apart(state.meta.rules)),
    )
    render_stats(state.rounds)


def render_entry_page() -> None:
    """The default page: ready to enter a new shoe, or the shoe named in the URL."""
    if not access.may_enter():
        render_viewer()
        return
    shoe_fragment()

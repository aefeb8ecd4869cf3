"""The replay page: step through a saved or simulated shoe, round by round.

``/replay?shoe=<id>&round=<n>`` shows the board as it stood after round n; the address
follows every step, so a position can be shared or bookmarked.

The board, statistics, hand reveal and bet panel are one ``st.fragment``: previous /
next / the slider rerun only it. Play reruns it every ``1/speed`` seconds
(``run_every``), and the position is computed from the clock (rounds since play began
x speed), so a slow draw skips ahead instead of falling behind. Play, pause and the
speed change the fragment's timer, so they rerun the page.

The hand reveal is drawn once per round and animated by the browser (CSS delays): the
four first cards face down Player, Banker, Player, Banker, turned in that order, then
the third cards, each on its own beat ("card turn", a second by default, as a squeeze
turns them; while autoplay runs the beat scales with its speed, the setting being the
beat at a round a second). Autoplay gives each round its reveal and then the pause of
its speed.
"""

from __future__ import annotations

import html
import time
from pathlib import Path

import polars as pl
import streamlit as st

from roads_app.errors import RoadsAppError, quote
from roads_app.game.cards import card_face
from roads_app.game.hand import Side
from roads_app.game.rounds import ShoeMeta
from roads_app.render import board
from roads_app.render.fonts import TEXT_FONT
from roads_app.roads import good_roads as gr
from roads_app.roads import replay
from roads_app.store import library
from roads_app.ui import access, session
from roads_app.ui.bet_panel import render_bet_panel
from roads_app.ui.board_view import lang
from roads_app.ui.good_roads_view import render_tags
from roads_app.ui.guard import guarded
from roads_app.ui.page_head import static_text
from roads_app.ui.simulate_view import SHOE, open_replay, render_simulate
from roads_app.ui.stats_view import render_stats, stats_markdown
from roads_app.ui.words import md_text, say, tr, winner_word

POS = "replay.pos"  # rounds shown
PLAYING = "replay.playing"
ANCHOR = "replay.anchor"  # (monotonic time, position) when play began or was moved
SPEED = "replay_speed"
REVEAL = "replay_reveal"
BEAT = "replay_beat"
SLIDER = "replay_slider"
ERROR = "replay.error"
SOURCES = ("hand", "simulated", "imported")
"""Where a shoe came from; each has its word in the catalogue (``source_<name>``)."""


# --- position (session state + URL) -------------------------------------------------


def _set_pos(pos: int, n: int, shoe_id: str) -> int:
    pos = replay.clamp(pos, n)
    st.session_state[POS] = pos
    st.session_state[SLIDER] = pos
    if st.session_state.get(PLAYING):
        st.session_state[ANCHOR] = (time.monotonic(), pos)
    want = replay.query_for(shoe_id, pos)
    if {k: st.query_params.get(k) for k in want} != want:
        st.query_params.update(want)
    return pos


def _speed() -> float:
    return replay.SPEEDS.get(st.session_state.get(SPEED) or "", 2.0)


def _beat() -> float:
    """Seconds between two cards of the reveal: the "card turn" setting is the beat at
    the normal speed (a round a second); while autoplay runs it scales with the chosen
    speed (5 a second turns each card 5 times faster), so the speed chosen is kept."""
    beat = replay.CARD_BEATS.get(
        st.session_state.get(BEAT) or "", replay.CARD_BEATS[replay.DEFAULT_BEAT]
    )
    return beat * replay.play_interval(_speed()) if st.session_state.get(PLAYING) else beat


def _revealing() -> bool:
    return bool(st.session_state.get(REVEAL, True))


def _periods(rounds: pl.DataFrame, start: int) -> list[float]:
    """Seconds autoplay shows each round after ``start``: the pause of the chosen speed,
    after the hand's reveal when it has one (a card a beat, the beat scaled by the speed)."""
    pause = replay.play_interval(_speed())
    if not _revealing():
        return [pause] * (rounds.height - start)
    tail = rounds.slice(start).select("player_cards", "banker_cards").iter_rows()
    return [
        pause
        + (
            reveal_done_s({"player_cards": p, "banker_cards": b}, _beat())
            if p is not None and b is not None
            else 0.0
        )
        for p, b in tail
    ]


def _on_step(delta: int, n: int, shoe_id: str) -> None:
    _set_pos(st.session_state.get(POS, 0) + delta, n, shoe_id)


def _on_slider(n: int, shoe_id: str) -> None:
    _set_pos(int(st.session_state[SLIDER]), n, shoe_id)


def _init_position(shoe_id: str, n: int) -> None:
    """Take the position from the URL when the tab arrives on this shoe.

    Later in the same session the URL only echoes what the page wrote (a browser can
    send back an older copy on a rerun), so the session's position stands.
    """
    if st.session_state.get(SHOE) == shoe_id and POS in st.session_state:
        _set_pos(st.session_state[POS], n, shoe_id)
        return
    try:
        pos = replay.parse_round(replay.first(st.query_params.to_dict(), "round"), n)
    except RoadsAppError as e:
        st.session_state[ERROR] = say(e)
        pos = n
    st.session_state[SHOE] = shoe_id
    st.session_state[PLAYING] = False
    _set_pos(pos, n, shoe_id)


# --- the hand reveal -------------------------------------------------------------------


def _card_html(code: str | None, delay_s: float, dealt_s: float) -> str:
    if code is None:
        return ""
    rank, glyph, red = card_face(code)
    colour = "#c62828" if red else "#1b1b1b"
    face = f"<span style='color:{colour}'>{rank}{glyph}</span>"
    return (
        f"<div class='rv-card' data-card='{html.escape(code)}' "
        f"style='animation-delay:{dealt_s:.3f}s'>"
        f"<div class='rv-back' style='animation-delay:{delay_s:.3f}s'></div>"
        f"<div class='rv-face' style='animation-delay:{delay_s:.3f}s'>{face}</div></div>"
    )


REVEAL_CSS = f"<style>{static_text('reveal.css')}</style>"
"""The reveal's style (``static/reveal.css``), sent with each hand."""


def reveal_done_s(row: dict, beat: float) -> float:
    """Seconds until the reveal of ``row``, a card every ``beat``, has turned its last
    card (and its face has shown: the board holds the result until then)."""
    return replay.reveal_seconds(row["player_cards"], row["banker_cards"], beat) + 0.1


def reveal_html(row: dict, beat: float) -> str:
    """One hand as the peek reveal shows it, one card turned every ``beat`` seconds.

    Each card carries ``data-card`` and its turn order (``data-turn``) so a test can
    check the order without timing the animation.
    """
    pc, bc = row["player_cards"], row["banker_cards"]
    steps = replay.reveal_steps(pc, bc)
    per = beat
    # when each card is dealt and turned: step index of its first and its face-up showing
    turned: dict[tuple[str, int], int] = {}
    for k, s in enumerate(steps):
        for side, shown in ((Side.PLAYER, s.player), (Side.BANKER, s.banker)):
            for i, code in enumerate(shown):
                if code not in (None, replay.FACE_DOWN) and (side, i) not in turned:
                    turned[(side, i)] = k
    order = sorted(turned, key=turned.__getitem__)
    done = reveal_done_s(row, beat)  # the totals wait for the last card

    def side_html(side: str, cards: list[str], title: str, pts: object) -> str:
        parts = []
        for i, code in enumerate(cards):
            k = turned[(side, i)]
            dealt = 0.0 if i < 2 else k * per
            card = _card_html(code, k * per, dealt)
            turn = order.index((side, i)) + 1
            parts.append(card.replace("class='rv-card'", f"class='rv-card' data-turn='{turn}'"))
        return (
            f"<div class='rv-side' data-side='{side}'><b>{title}</b>"
            f"<div class='rv-cards'>{''.join(parts)}</div>"
            f"<small class='rv-total' data-testid='reveal-total' "
            f"style='animation-delay:{done:.3f}s'>{pts if pts is not None else ''}</small></div>"
        )

    body = side_html(
        Side.PLAYER, pc, html.escape(winner_word(Side.PLAYER)), row["player_points"]
    ) + side_html(Side.BANKER, bc, html.escape(winner_word(Side.BANKER)), row["banker_points"])
    return (
        f"{REVEAL_CSS}<div class='rv-hand' style='font-family:{TEXT_FONT}' data-testid='reveal' "
        f"data-round='{row['round']}'>"
        f"{body}</div>"
    )


# --- the page ------------------------------------------------------------------------------


def _header(meta: ShoeMeta, n: int) -> None:
    st.markdown(
        f"### {md_text(meta.name or meta.id)}\n"
        + tr(
            "replay_header",
            rules=md_text(meta.rules),
            decks=meta.decks,
            n=n,
            source=tr(f"source_{meta.source}") if meta.source in SOURCES else md_text(meta.source),
        )
    )


def _position_line(pos: int, n: int) -> None:
    st.markdown(
        f"<span data-testid='round-count'>{tr('round_of', n=pos)}</span> {tr('of_n', n=n)}",
        unsafe_allow_html=True,
    )


def _body(shoe_id: str, rounds: pl.DataFrame, meta: ShoeMeta, folder: Path) -> None:
    """The fragment: where the shoe is, and everything that follows the position."""
    from roads_app.ui import board_host
    from roads_app.ui.board_view import render_board

    access.rerun_if_refused()
    n = rounds.height
    pos = st.session_state.get(POS, n)
    if st.session_state.get(PLAYING):
        t0, p0 = st.session_state.get(ANCHOR) or (time.monotonic(), pos)
        due = replay.due_position(p0, time.monotonic() - t0, _periods(rounds, p0))
        if due != pos:
            pos = _set_pos(due, n, shoe_id)
            st.session_state[ANCHOR] = (t0, p0)  # keep the clock of this play
        if pos >= n:
            st.session_state[PLAYING] = False
            st.rerun(scope="app")  # removes the timer
    shown = rounds.head(pos)
    row = shown.row(pos - 1, named=True) if pos else None
    revealing = bool(_revealing() and row and row["player_cards"] is not None)
    _position_line(pos, n)
    # the good roads of the round on show; while its cards turn, those before it
    render_tags(gr.tags_now(rounds, pos - 1 if revealing else pos), lang(), "replay_good_roads")
    with st.container(horizontal=True, gap="small", vertical_alignment="center"):
        st.button(
            tr("previous"),
            key="rp_prev",
            icon=":material/skip_previous:",
            shortcut="Left",
            disabled=not replay.can_step(pos, n, -1),
            on_click=_on_step,
            args=(-1, n, shoe_id),
        )
        st.button(
            tr("next"),
            key="rp_next",
            icon=":material/skip_next:",
            shortcut="Right",
            disabled=not replay.can_step(pos, n, 1),
            on_click=_on_step,
            args=(1, n, shoe_id),
        )
    if st.session_state.get(PLAYING):
        # No slider while playing: the browser reports a slider's value late (debounced,
        # and again on the next page rerun), which would drag the replay back.
        st.progress(pos / max(n, 1), text=tr("playing_note"))
    else:
        st.session_state[SLIDER] = pos
        st.slider(
            tr("round"),
            0,
            max(n, 1),
            key=SLIDER,
            on_change=_on_slider,
            args=(n, shoe_id),
            disabled=n == 0,
        )
    board_host.mount()
    # While the hand's cards are still face down the board must not tell the result. The
    # board has the page's whole width (issue 26: in a column it was squeezed to 500 px
    # at 1440 with blank space under it), the hand and the bets under it.
    render_board(
        shown,
        board.BoardLook(decks=meta.decks),
        hold_last_s=reveal_done_s(row, _beat()) if revealing else None,
    )
    main, side = st.columns([4, 1.6], gap="medium")
    with main:
        if revealing:
            st.caption(tr("as_dealt", n=pos))
            st.html(reveal_html(row, _beat()))
        render_ev(rounds, meta, pos)
    with side:
        if revealing:
            held_stats(shown)
        else:
            render_stats(shown)
        render_bet_panel(
            shoe_id=shoe_id,
            rounds=rounds,
            meta=meta,
            data_dir=folder,
            position=pos,
            kind="replay-bets",
            allow_void=False,
            key="rbets",
            hold=revealing,
        )


def held_stats(shown: pl.DataFrame) -> None:
    """The statistics as they stood before the hand being revealed, swapped for the
    ones with it when its last card has turned (with the board's held marks): counts
    tell no result early. One element (`held_pair`): a frame between two
    elements' updates once showed the statistics of the round before."""
    from roads_app.ui.board_view import held_pair

    n = shown.height
    st.markdown(
        held_pair("rp-stats", n, stats_markdown(shown.head(n - 1)), stats_markdown(shown)),
        unsafe_allow_html=True,
    )


def render_ev(rounds: pl.DataFrame, meta: ShoeMeta, pos: int) -> None:
    """Each bet's exact EV through the shoe up to the replay position (shoes with cards)."""
    from roads_app.ui.bet_panel import table_for
    from roads_app.ui.live_odds import render_ev_chart

    if not rounds.height or rounds["player_cards"].null_count():
        return
    if st.session_state.get(PLAYING):  # the heaviest chart: drawn when the replay stops
        st.caption(tr("ev_when_paused"))
        return
    with st.expander(tr("ev_through_shoe"), expanded=False):
        render_ev_chart(rounds, meta, table_for(meta)[0], upto=pos, key="replay_ev")


def _controls(n: int, shoe_id: str, has_cards: bool) -> None:
    """Play / pause and speed: they change the fragment's timer, so they rerun the page."""
    playing = bool(st.session_state.get(PLAYING))
    c1, c2, c3, c4 = st.columns([1, 1.4, 1.4, 2], vertical_alignment="bottom")
    pos = st.session_state.get(POS, 0)
    if playing:
        if c1.button(tr("pause"), key="rp_pause", icon=":material/pause:", shortcut="K"):
            st.session_state[PLAYING] = False
            st.rerun()
    elif c1.button(
        tr("play"), key="rp_play", icon=":material/play_arrow:", shortcut="K", disabled=n == 0
    ):
        start = 0 if pos >= n else pos
        _set_pos(start, n, shoe_id)
        st.session_state[PLAYING] = True
        st.session_state[ANCHOR] = (time.monotonic(), start)
        st.rerun()
    if SPEED not in st.session_state:
        st.session_state[SPEED] = "2 / s"
    c2.selectbox(
        tr("speed"),
        list(replay.SPEEDS),
        key=SPEED,
        on_change=lambda: st.session_state.update(
            {ANCHOR: (time.monotonic(), st.session_state.get(POS, 0))}
        ),
    )
    if BEAT not in st.session_state:
        st.session_state[BEAT] = replay.DEFAULT_BEAT
    c3.selectbox(
        tr("card_beat"),
        list(replay.CARD_BEATS),
        key=BEAT,
        help=tr("card_beat_help"),
        disabled=not has_cards,
        on_change=lambda: st.session_state.update(
            {ANCHOR: (time.monotonic(), st.session_state.get(POS, 0))}
        ),
    )
    c4.toggle(tr("reveal_toggle"), key=REVEAL, value=True, disabled=not has_cards)


def render_picker(folder: Path) -> None:
    """No shoe named: choose one from the library, or deal a new one from a seed."""
    shoes = session.store(folder).shoes.list()
    left, right = st.columns(2, gap="large")
    with left:
        st.markdown(f"**{tr('replay_saved')}**")
        if shoes.height:
            labels = {
                r["id"]: f"{r['name']} · {tr('rounds_n', n=r['rounds'])} · "
                + (tr(f"source_{r['source']}") if r["source"] in SOURCES else r["source"])
                for r in shoes.iter_rows(named=True)
            }
            choice = st.selectbox(
                tr("shoe"), list(labels), format_func=labels.__getitem__, key="rp_choice"
            )
            if st.button(tr("page_replay"), key="rp_open", icon=":material/replay:") and choice:
                open_replay(choice, 0)
        else:
            st.caption(tr("library_empty"))
    with right:
        render_simulate(folder, key="rp_sim")


def render_replay_page() -> None:
    """``/replay``: the picker, or the shoe the URL names at its position."""
    folder = session.data_dir()
    shoe_id = replay.first(st.query_params.to_dict(), "shoe")
    if not shoe_id:
        st.title(tr("page_replay"))
        render_picker(folder)
        return
    loaded = library.safe_load(shoe_id, folder)
    if isinstance(loaded, str):
        st.title(tr("page_replay"))
        st.error(
            tr("cannot_replay", id=md_text(quote(shoe_id)), why=say(loaded)),
            icon=":material/error:",
        )
        render_picker(folder)
        return
    rounds, meta = loaded
    n = rounds.height
    _init_position(shoe_id, n)
    _header(meta, n)
    message = st.session_state.pop(ERROR, None)
    if message:
        st.warning(message, icon=":material/warning:")
    _controls(n, shoe_id, rounds["player_cards"].is_not_null().any())
    interval = replay.play_interval(_speed()) if st.session_state.get(PLAYING) else None
    st.fragment(guarded(_body), run_every=interval)(shoe_id, rounds, meta, folder)
    with st.expander(tr("another_shoe")):
        render_picker(folder)

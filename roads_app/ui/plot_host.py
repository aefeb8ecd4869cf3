"""A Plotly figure drawn in place: one ``Plotly.react`` per change, no element replaced.

``st.plotly_chart`` treats each new figure as a new element: the old chart is taken
down and the new one built and drawn (twice) by Streamlit's chart code, about 0.8 s
per key press on an 80-round board. Here a small `st.components.v2` component (no
iframe) keeps one plot ``div`` for as long as its element stays on the page and hands
each new figure spec (the plain ``{"data", "layout"}`` dict, as JSON) to
``Plotly.react`` (which still redraws the whole figure when its marks changed). A spec
equal to the one drawn is not drawn again, so a chart whose inputs did not change stays
still on a rerun.

plotly.js is the basic bundle shipped with the package (`page_head.PLOTLY_BUNDLE`),
served beside the page by the launcher and loaded by the page's head as it opens;
nothing is fetched from the network. On the scoreboard a key press draws the board
that key gives before the server has answered (`plot_next`): the boards one key away
are drawn ahead into hidden divs while the page is idle, and a press shows one of
them (a redraw of the whole board takes 80-200 ms in the page on this project's
2-core test machine; showing a drawn one, a frame). The div shown is then the drawn
one; the one it replaces is kept hidden, as it is the board U gives back.

A figure wider than the page (a phone's board, `board._narrow_layout`) scrolls sideways
in the component's own box, and each new board opens at its right-hand end: there every
road of such a board shows its newest columns.

The drawn ``div`` is Plotly's own graph div (``.js-plotly-plot``, with ``layout``,
``data`` and ``on``), as ``st.plotly_chart`` leaves it, so the held reveal
(`board_host.show_held_after`) and the browser tests read it the same way; hidden
boards drawn ahead are ``.rd-spare`` without that class, so neither counts them.
"""

from __future__ import annotations

import hashlib
import json
from typing import Any

import streamlit as st

from roads_app.ui import page_head

_JS = r"""
export default function (component) {
  const { data, parentElement: box } = component;
  // The state lives on the component's element: on the scoreboard the drawn div changes
  // when a press shows a board drawn ahead of time (`prepare`).
  const s = box.__rd || (box.__rd = {spares: []});
  // A board wider than the page (a phone's, `board._narrow_layout`) scrolls sideways in
  // its own box, never the page; spares are placed in it, so they widen nothing else.
  if (!s.styled) {
    box.style.overflowX = 'auto';
    box.style.overflowY = 'hidden';
    box.style.position = 'relative';
    s.styled = true;
  }
  let gd = box.querySelector(':scope > .rd-plot');
  if (!gd) {
    gd = document.createElement('div');
    gd.className = 'rd-plot';
    box.appendChild(gd);
  }
  s.want = data;  // only the newest spec is drawn, whatever order loading ends in
  expose();
  swipes();
  // A board that follows the key queue draws, on a key press, the board that key gives
  // (laid out by the server beforehand, `plot_next`), without waiting for the server.
  if (data.follows && !s.onKey) s.onKey = () => {
    if (s.want.draw && window.Plotly) draw(window.Plotly, false);
  };
  const onKey = data.follows ? s.onKey : null;
  if (onKey) {  // the same function each time: added once however often this runs
    window.addEventListener('roads-key', onKey);
    window.addEventListener('roads-next', onKey);
  }
  const cleanup = () => {
    swipes(true);  // gone from the page (or about to run again, which puts it back)
    if (!onKey) return;
    window.removeEventListener('roads-key', onKey);
    window.removeEventListener('roads-next', onKey);
  };
  if (!data.draw) {
    if (s.drawn) return cleanup;
    gd.style.minHeight = (data.height || 0) + 'px';
    // Should the page's width report never get through, the newest spec is drawn anyway.
    if (!s.late) s.late = setTimeout(() => {
      s.late = null;
      if (!s.drawn && !s.want.draw) start(true);
    }, __LATE_MS__);
    return cleanup;
  }
  start(false);
  return cleanup;

  function start(late) {
    if (window.Plotly) { draw(window.Plotly, late); return; }
    const src = __SRC__;
    let tag = document.getElementById(__ID__);
    if (!tag) {  // a page not served by our launcher: load the bundle now
      tag = document.createElement('script');
      tag.id = __ID__;
      tag.src = src;
      document.head.appendChild(tag);
    }
    const loaded = () => window.Plotly ? draw(window.Plotly, late)
      : (gd.textContent = 'The chart library did not load (' + src + ').');
    if (tag.dataset.failed) { loaded(); return; }
    tag.addEventListener('load', loaded, {once: true});
    tag.addEventListener('error', loaded, {once: true});
  }

  // What the tests (and anyone debugging) read on the drawn div.
  function expose() {
    const g = box.querySelector(':scope > .rd-plot');
    if (!g) return;
    g.__rdWant = s.want;
    g.__rdDrawn = s.drawn;
    if (s.first) g.__rdFirst = s.first;
  }

  // The server's board, or, while the first key press it has not applied yet is
  // waiting, the board that press gives (when the server sent it for this very board).
  function pick(want) {
    const f = want.follows, q = window.__roadsKeys;
    if (!f || !q) return want;
    const acked = q.epoch === f.epoch ? f.acked : 0;  // none of this page load's presses yet
    const first = q.pending.find(p => p[0] > acked);
    const next = first && (window.__rdNext || {})[want.name];
    const got = next && next.base === want.sig && next.specs[first[1]];
    return got ? {...want, spec: got.spec, sig: got.sig} : want;
  }

  function draw(P, late) {
    const want = pick(s.want);
    if (!(want.draw || late) || s.drawn === want.sig) { prepare(P); return; }
    s.drawn = want.sig;
    // what the first drawing was laid out for, and why (tests read it)
    s.first = s.first || {width: want.spec.layout.width, note: want.note};
    const ready = s.spares.find(d => d.__rdSig === want.sig);
    if (ready) { show(ready); toEnd(); }
    else {
      const g = box.querySelector(':scope > .rd-plot');
      g.style.minHeight = '';
      Promise.resolve(P.react(g, want.spec.data, want.spec.layout, want.config || {}))
        .then(toEnd);  // drawn (this runs before the next paint when the draw was at once)
      g.__rdSig = want.sig;
    }
    expose();
    prepare(P);
  }

  // A new board opens on its newest columns (the right-hand end, where every road of a
  // board wider than the page ends); earlier ones are a sideways scroll away.
  function toEnd() {
    box.scrollLeft = box.scrollWidth;
    swipes();
  }

  // While a board on the page scrolls sideways, a swipe that reaches its first column
  // and goes on must not become the browser's swipe-back (it left the page). Chromium
  // (156, mobile) heeds only the root's overscroll-behavior here, and only while no
  // scroller inside sets its own: the box keeps the default. Pages without such a
  // board keep the browser's swipe-back.
  function swipes(gone) {
    const wide = window.__rdWide || (window.__rdWide = new Set());
    if (!gone && box.isConnected && box.scrollWidth > box.clientWidth + 1) wide.add(box);
    else wide.delete(box);
    for (const b of wide) if (!b.isConnected) wide.delete(b);
    document.documentElement.style.overscrollBehaviorX = wide.size ? 'none' : '';
  }

  // A board drawn ahead becomes the drawn one; the one it replaces is kept as a spare
  // (after B, the board U gives is the one just shown).
  function show(d) {
    const g = box.querySelector(':scope > .rd-plot');
    s.spares = s.spares.filter(x => x !== d);
    d.className = 'rd-plot js-plotly-plot';
    d.style.cssText = '';
    box.insertBefore(d, g);
    hide(g);
    s.spares.push(g);
  }

  // Out of sight and out of the tests' and the reveal's lookups (no `js-plotly-plot`),
  // yet laid out, so Plotly can measure it while it draws.
  function hide(d) {
    d.className = 'rd-spare';
    d.style.cssText = 'position:absolute;left:0;top:0;height:0;overflow:hidden;' +
      'visibility:hidden;pointer-events:none';
  }

  // On the scoreboard, the boards one key away are drawn ahead, hidden, one per idle
  // moment after the page has painted, so a press only has to show one: a Plotly redraw
  // of the whole board takes 80-200 ms here, too long to wait for after a press.
  function prepare(P) {
    if (!s.want.follows || s.preparing) return;
    const nx = (window.__rdNext || {})[s.want.name];
    if (!nx || nx.base !== s.drawn || nx.base !== s.want.sig) return;
    const have = new Set([s.drawn, ...s.spares.map(d => d.__rdSig)]);
    const todo = ORDER.filter(k => nx.specs[k] && !have.has(nx.specs[k].sig));
    if (!todo.length) return;
    s.preparing = true;
    requestAnimationFrame(() => setTimeout(() => {
      s.preparing = false;
      const now = (window.__rdNext || {})[s.want.name];
      if (now !== nx || nx.base !== s.drawn || nx.base !== s.want.sig) return;
      const x = nx.specs[todo[0]];
      const keep = new Set([s.drawn, ...Object.values(nx.specs).map(v => v.sig)]);
      let d = s.spares.find(v => !keep.has(v.__rdSig));
      if (!d && s.spares.length < ORDER.length) {
        d = document.createElement('div');
        hide(d);
        box.appendChild(d);
        s.spares.push(d);
      }
      if (!d) return;
      P.react(d, x.spec.data, x.spec.layout, s.want.config || {});
      hide(d);  // Plotly marks the div `js-plotly-plot` as it draws
      d.__rdSig = x.sig;
      prepare(P);
    }, 0));
  }
}
""".replace("__SRC__", json.dumps(page_head.PLOTLY_SRC)).replace("__LATE_MS__", "1500").replace(
    "__ID__", json.dumps(page_head.PLOTLY_ID)
).replace("ORDER", '["b", "p", "t", "u"]')

_NEXT_JS = r"""
export default function (component) {
  const { data } = component;
  (window.__rdNext || (window.__rdNext = {}))[data.name] = data;
  window.dispatchEvent(new Event('roads-next'));
}
"""

_component = st.components.v2.component("roads_app.plot", js=_JS, isolate_styles=False)
_next = st.components.v2.component("roads_app.plot_next", js=_NEXT_JS, isolate_styles=False)


def signature(spec: dict[str, Any], config: dict[str, Any]) -> str:
    """A digest of what would be drawn: the page skips a spec equal to the one it shows.

    >>> signature({"data": [], "layout": {}}, {}) == signature({"layout": {}, "data": []}, {})
    True
    >>> signature({"data": [], "layout": {"width": 1}}, {}) == signature(
    ...     {"data": [], "layout": {"width": 2}}, {})
    False
    """
    text = json.dumps([spec, config], sort_keys=True, separators=(",", ":"))
    return hashlib.blake2b(text.encode(), digest_size=12).hexdigest()


def plot(spec: dict[str, Any], *, key: str, config: dict[str, Any] | None = None,
         draw: bool = True, placeholder_height: int = 0,
         follows: tuple[str, int] | None = None, note: str = "") -> str:
    """Draw ``spec`` (a plain Plotly ``{"data", "layout"}`` dict) in place under ``key``;
    returns its `signature`.

    ``draw=False`` sends the spec (a test reads it) but the page does not draw it: it
    keeps what it last drew, or on a first draw holds ``placeholder_height`` pixels so
    the page does not jump when the real drawing comes (and draws this spec after all
    if none has come within 1.5 s).

    ``follows``: the key queue's ``(epoch, last press applied)`` this spec includes
    (`board_host`); a press after it makes the page draw the spec `plot_next` sent for
    that key at once, and the server's own spec when its run has applied the press.
    ``note``: a word on how the spec was made, kept by the page with its first drawing.
    """
    config = config or {}
    sig = signature(spec, config)
    _component(key=key, height="content", data={
        "spec": spec, "config": config, "sig": sig, "draw": draw, "name": key, "note": note,
        "height": placeholder_height,
        "follows": {"epoch": follows[0], "acked": follows[1]} if follows else None,
    })  # fmt: skip
    return sig


def plot_next(specs: dict[str, dict[str, Any]], *, key: str, base: str,
              config: dict[str, Any] | None = None) -> None:
    """What the plot under ``key`` becomes after each key press (``{"b": spec, ...}``),
    while it shows the spec whose signature is ``base``.

    Why: a key press's own round trip (the script run, its messages, the page's update
    of every element) took 150-250 ms before the board could be drawn; with the boards
    one key away already on the page, the press draws its board at once, from specs the
    server laid out with the same code as every board. The server's own board follows
    and is not drawn again when it is the same (same signature). Sent after the rest of
    the page, so laying them out never delays what the press changed.
    """
    config = config or {}
    _next(key=f"{key}_next", height=1, data={
        "name": key, "base": base,
        "specs": {k: {"spec": s, "sig": signature(s, config)} for k, s in specs.items()},
    })  # fmt: skip

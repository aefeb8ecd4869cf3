"""A Plotly figure drawn in place: one ``Plotly.react`` per change, no element replaced.

``st.plotly_chart`` treats each new figure as a new element: the old chart is taken
down and the new one built and drawn (twice) by Streamlit's chart code, about 0.8 s
per key press on an 80-round board. Here a small `st.components.v2` component (no
iframe) keeps one plot ``div`` for as long as its element stays on the page and hands
each new figure spec (the plain ``{"data", "layout"}`` dict, as JSON) to
``Plotly.react``, which redraws only what changed. A spec equal to the one drawn is
not drawn again, so a chart whose inputs did not change stays still on a rerun.

plotly.js comes from the ``plotly`` package installed with the app
(``plotly/package_data/plotly.min.js``), served beside the page by the launcher
(`page_head.PLOTLY_JS`) and loaded by the page's head as it opens; nothing is fetched
from the network. The drawn ``div`` is Plotly's own graph div (``.js-plotly-plot``,
with ``layout``, ``data`` and ``on``), as ``st.plotly_chart`` leaves it, so the held
reveal (`board_host.show_held_after`) and the browser tests read it the same way.
"""

from __future__ import annotations

import hashlib
import json
from typing import Any

import streamlit as st

from roads_app.ui import page_head

_JS = r"""
export default function (component) {
  const { data, parentElement } = component;
  let gd = parentElement.querySelector(':scope > .rd-plot');
  if (!gd) {
    gd = document.createElement('div');
    gd.className = 'rd-plot';
    parentElement.appendChild(gd);
  }
  gd.__rdWant = data;  // only the newest spec is drawn, whatever order loading ends in
  if (!data.draw) {
    if (gd.__rdDrawn) return;
    gd.style.minHeight = (data.height || 0) + 'px';
    // Should the page's width report never get through, the newest spec is drawn anyway.
    if (!gd.__rdLate) gd.__rdLate = setTimeout(() => {
      gd.__rdLate = null;
      if (!gd.__rdDrawn && !gd.__rdWant.draw) start(true);
    }, __LATE_MS__);
    return;
  }
  start(false);

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

  function draw(P, late) {
    const want = gd.__rdWant;
    if (!(want.draw || late) || gd.__rdDrawn === want.sig) return;
    gd.__rdDrawn = want.sig;
    gd.style.minHeight = '';
    P.react(gd, want.spec.data, want.spec.layout, want.config || {});
  }
}
""".replace("__SRC__", json.dumps(page_head.PLOTLY_SRC)).replace("__LATE_MS__", "1500").replace(
    "__ID__", json.dumps(page_head.PLOTLY_ID)
)

_component = st.components.v2.component("roads_app.plot", js=_JS, isolate_styles=False)


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
         draw: bool = True, placeholder_height: int = 0) -> None:
    """Draw ``spec`` (a plain Plotly ``{"data", "layout"}`` dict) in place under ``key``.

    ``draw=False`` sends the spec (a test reads it) but the page does not draw it: it
    keeps what it last drew, or on a first draw holds ``placeholder_height`` pixels so
    the page does not jump when the real drawing comes (and draws this spec after all
    if none has come within 1.5 s).
    """
    config = config or {}
    _component(key=key, height="content", data={
        "spec": spec, "config": config, "sig": signature(spec, config), "draw": draw,
        "height": placeholder_height,
    })  # fmt: skip

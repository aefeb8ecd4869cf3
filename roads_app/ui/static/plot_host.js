// A Plotly figure drawn in place (`plot_host.py`): one Plotly.react per change, into the
// same div, and on the scoreboard the board a key press gives drawn before the server
// has answered. Settings come in ``data`` (JSON): the plotly.js bundle's address and
// script id, how long to wait for a width report, the result keys.
export default function (component) {
  const { data, parentElement: box } = component;
  // The state lives on the component's element, across the script's runs.
  const s = box.__rd || (box.__rd = {});
  // A board wider than the page (a phone's, `board._narrow_layout`) scrolls sideways in
  // its own box, never the page.
  if (!s.styled) {
    box.style.overflowX = 'auto';
    box.style.overflowY = 'hidden';
    box.style.position = 'relative';
    box.classList.add('rd-board-box');
    box.addEventListener('scroll', edges, {passive: true});
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
    }, data.lateMs);
    return cleanup;
  }
  start(false);
  return cleanup;

  function start(late) {
    if (window.Plotly) { draw(window.Plotly, late); return; }
    const src = data.src;
    let tag = document.getElementById(data.scriptId);
    if (!tag) {  // a page not served by our launcher: load the bundle now
      tag = document.createElement('script');
      tag.id = data.scriptId;
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
    if (!(want.draw || late) || s.drawn === want.sig) return;
    s.drawn = want.sig;
    // what the first drawing was laid out for, and why (tests read it)
    s.first = s.first || {width: want.spec.layout.width, note: want.note};
    const g = box.querySelector(':scope > .rd-plot');
    g.style.minHeight = '';
    Promise.resolve(P.react(g, want.spec.data, want.spec.layout, want.config || {}))
      .then(toEnd)  // drawn (this runs before the next paint when the draw was at once)
      .then(() => unmarkLater(P, g, want));
    g.__rdSig = want.sig;
    expose();
  }

  // The last result framed on the board (`board.board_spec`, ``meta.last``) is taken
  // off after its few seconds, unless a newer board is on show by then.
  function unmarkLater(P, g, want) {
    const last = want.spec.layout.meta && want.spec.layout.meta.last;
    if (!last) return;
    const marks = want.spec.data.map((t, i) => (t.name === 'last' ? i : -1)).filter((i) => i >= 0);
    setTimeout(() => {
      if (g.__rdSig !== want.sig || !marks.length) return;
      P.restyle(g, { opacity: 0 }, marks);
      g.dataset.lastMarked = '';
    }, last.ms);
    g.dataset.lastMarked = String(last.round);
  }

  // A new board opens on its newest columns (the right-hand end, where every road of a
  // board wider than the page ends); earlier ones are a sideways scroll away.
  function toEnd() {
    box.scrollLeft = box.scrollWidth;
    swipes();
    edges();
  }

  // A board that scrolls sideways says that more lies beyond an edge: that edge fades
  // (`plot_host.css`), so a phone's board opened at its newest columns shows that the
  // shoe starts further left. Kept up to date as it scrolls.
  function edges() {
    const end = box.scrollWidth - box.clientWidth;
    box.classList.toggle('rd-more-left', end > 1 && box.scrollLeft > 1);
    box.classList.toggle('rd-more-right', end > 1 && box.scrollLeft < end - 1);
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

}

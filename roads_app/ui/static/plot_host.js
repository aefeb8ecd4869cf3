// A figure drawn in place (`plot_host.py`): each new spec drawn into the same div, a
// road as SVG (`drawSvg`, from `svg_plot.js`, which the component's script carries
// before this file), any other chart by Plotly.react; and on the scoreboard the board a
// key press gives drawn before the server has answered. Settings come in ``data``
// (JSON): how to draw, the plotly.js bundle's address and script id, how long to wait
// for a width report.
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
    if (s.want.draw) start(false);
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

  // A road needs nothing loaded; a Plotly chart loads the bundle the first time one is
  // drawn (the page's head only prefetched it: run at start, it held up the first board).
  function start(late) {
    if (s.want.svg || window.Plotly) { draw(late); return; }
    let tag = document.getElementById(data.scriptId);
    if (!tag) {
      tag = document.createElement('script');
      tag.id = data.scriptId;
      tag.src = data.src;
      document.head.appendChild(tag);
    }
    const loaded = () => window.Plotly ? draw(late)
      : (gd.textContent = 'The chart library did not load (' + data.src + ').');
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

  function draw(late) {
    const want = pick(s.want);
    if (!(want.draw || late) || s.drawn === want.sig) return;
    s.drawn = want.sig;
    // what the first drawing was laid out for, and why (tests read it)
    s.first = s.first || {width: want.spec.layout.width, note: want.note};
    const g = box.querySelector(':scope > .rd-plot');
    g.style.minHeight = '';
    g.__rdSig = want.sig;
    expose();
    if (!want.svg) {
      Promise.resolve(window.Plotly.react(g, want.spec.data, want.spec.layout, want.config))
        .then(toEnd);
      return;
    }
    drawSvg(g, want.spec);
    g.layout = want.spec.layout;  // what it shows, as a Plotly div says (tests read it)
    g.data = want.spec.data;
    toEnd();
    unmarkLater(g, want);
    // the held reveal shows what it holds (show_held.js); tests count the drawings
    g.dispatchEvent(new Event('rd-drawn', {bubbles: true}));
  }

  // The last result framed on the board (`board.board_spec`, ``meta.last``) is taken
  // off after its few seconds, unless a newer board is on show by then.
  function unmarkLater(g, want) {
    const last = want.spec.layout.meta && want.spec.layout.meta.last;
    if (!last) return;
    setTimeout(() => {
      if (g.__rdSig !== want.sig) return;
      for (const t of g.querySelectorAll('.rd-trace[data-name="last"]')) t.setAttribute('opacity', 0);
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

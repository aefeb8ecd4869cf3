// What the served page's <head> runs before the app has connected (`page_head.py`
// puts this file inline, then calls both functions with their settings as JSON), and
// what the scoreboard's key component (`board_host.js`, which follows this file) calls
// when the page did not carry it.

/** The queue of result key presses (B/P/T/U, and the dealer's numpad: ``CODES`` maps a
 * physical key, ``KeyboardEvent.code``, to its entry): listening from the moment the
 * page is parsed, each press numbered, until the scoreboard's component takes the queue
 * over and sends it to the server. One queue per window, whoever calls this first. */
// eslint-disable-next-line no-unused-vars
function roadsKeyQueue(w, KEYS, CODES) {
  if (w.__roadsKeys) return w.__roadsKeys;
  const q = w.__roadsKeys = {
    epoch: Date.now().toString(36) + Math.random().toString(36).slice(2, 8),
    seq: 0, pending: [], send: null, sentAt: 0, unsent: false,
  };
  // Only where a key types text is it not a result: a text or number input, a text
  // area, an editable element, a select's search field while its list is open. A toggle,
  // a button, a tab or a closed select keeps the focus after a click, and the next key
  // still goes to the board (the toggles go with it).
  const TEXT = ['', 'text', 'search', 'number', 'email', 'url', 'tel', 'password'];
  const typing = (el) => {
    if (!el) return false;
    if (el.isContentEditable || el.tagName === 'TEXTAREA' || el.tagName === 'SELECT') return true;
    if (el.tagName !== 'INPUT') return false;
    if (el.getAttribute('role') === 'combobox') return el.getAttribute('aria-expanded') === 'true';
    return TEXT.includes((el.getAttribute('type') || '').toLowerCase());
  };
  // ``at`` makes a resend differ from the last send, so it is never deduplicated.
  q.flush = () => {
    if (!q.send) { q.unsent = q.pending.length > 0; return; }
    if (!q.pending.length) return;
    q.unsent = false;
    q.sentAt = Date.now();
    q.send('presses', {epoch: q.epoch, items: q.pending.map(p => [p[0], p[1]]), at: q.sentAt});
  };
  // The scoreboard's component takes the queue: presses made on another page of the
  // app (same window, another path) are not for this shoe.
  // Presses made before any component took the queue are sent at once.
  q.claim = (send) => {
    q.send = send;
    q.pending = q.pending.filter(p => p[2] === w.location.pathname);
    if (q.unsent) q.flush();
  };
  q.release = () => { q.send = null; };
  w.document.addEventListener('keydown', (e) => {
    const key = (CODES || {})[e.code] || (e.key || '').toLowerCase();
    if (!KEYS.includes(key) || e.ctrlKey || e.metaKey || e.altKey || e.repeat) return;
    if (typing(e.target) || typing(w.document.activeElement)) return;
    e.preventDefault();
    q.pending.push([++q.seq, key, w.location.pathname]);
    q.flush();
    // The board draws what it already knows (`plot_host`), in the next frame: the
    // press is sent first, and the drawing runs before the server's answer arrives.
    requestAnimationFrame(() => w.dispatchEvent(new Event('roads-key')));
  }, true);
  // A rerun request can be swallowed while another run is starting (right after a
  // page load): presses not acknowledged within a second are sent again.
  setInterval(() => {
    if (q.send && q.pending.length && Date.now() - q.sentAt > 1000) q.flush();
  }, 500);
  return q;
}

/** The window's width, in a cookie the server's first run reads (`board_host.py`). */
// eslint-disable-next-line no-unused-vars
function roadsViewportCookie(name) {
  document.cookie = name + '=' + innerWidth + '; path=/; SameSite=Strict';
}

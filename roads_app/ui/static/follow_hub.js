// The page's one request for the wall (`hub`), shared by the wall's grid (`follow.js`)
// and every tile (`wall_tile.js`): one open request to `/_roads/follow` answered with
// every live shoe's version (a browser holds 6 connections to a server: one request per
// tile would not do). And `serial`: one component state change per task.
// (Put before `follow.js` and `wall_tile.js` in their components' modules.)

const PATH = () => new URL('_roads/follow', window.location.href).pathname;
const headers = (pass) => (pass ? { 'X-Roads-Tab': pass } : {});

// The page's one request for the wall, shared by its grid and tiles.
function hub() {
  if (window.__rdWall) return window.__rdWall;
  const h = { subs: new Set(), last: null, seq: '', running: false, pass: '' };
  const loop = async () => {
    h.running = true;
    let delay = 250;
    while (h.subs.size) {
      try {
        const r = await fetch(`${PATH()}?wall=${encodeURIComponent(h.seq)}`,
          { cache: 'no-store', headers: headers(h.pass) });
        if (r.status === 401 || r.status === 403) {  // the key was revoked: the grid
          for (const f of [...h.subs]) f({ refused: r.status });  // runs the page again
        }
        if (!r.ok) throw new Error(`HTTP ${r.status}`);
        const got = await r.json();
        delay = 250;
        h.seq = String(got.seq);
        h.last = got;
        document.documentElement.dataset.rdFollowed = h.seq;
        for (const f of [...h.subs]) f(got);
      } catch (e) {  // the server restarting, or this tab's token refused
        await new Promise((ok) => setTimeout(ok, delay));
        delay = Math.min(delay * 2, 5000);
      }
    }
    h.running = false;
  };
  h.sub = (f, pass) => {
    h.pass = pass || '';
    h.subs.add(f);
    if (h.last) f(h.last);  // what is known already (a tile drawn after the news)
    if (!h.running) loop();
    return () => h.subs.delete(f);
  };
  return (window.__rdWall = h);
}

// One state change per macrotask: Streamlit sends the widget changes of one task as one
// rerun request for one fragment, so two tiles asking at once would rerun only one.
function serial(f) {
  const q = window.__rdSerial || (window.__rdSerial = { items: [], busy: false });
  const next = () => {
    const g = q.items.shift();
    if (!g) { q.busy = false; return; }
    g();
    setTimeout(next, 0);  // after the flush Streamlit scheduled for g's change
  };
  q.items.push(f);
  if (!q.busy) { q.busy = true; setTimeout(next, 0); }
}

// A screen (the display, the wall) keeps its last board while its dashboard is away
// (killed, restarting, the network down), with a small mark of ours instead of the
// framework's overlay (hidden by `reconnecting.css` on a screen). Streamlit's app root
// says its connection's state: the mark shows while it is anything but connected.
function screenMark(words) {
  const html = document.documentElement;
  html.dataset.rdScreen = 'on';
  let mark = document.getElementById('rd-reconnecting');
  if (!mark) {
    mark = document.createElement('div');
    mark.id = 'rd-reconnecting';
    mark.setAttribute('role', 'status');
    document.body.appendChild(mark);
  }
  mark.textContent = words || '';
  if (window.__rdConnection) return;
  const look = () => {
    const app = document.querySelector('[data-test-connection-state]');
    if (!app) return;
    const state = app.getAttribute('data-test-connection-state');
    if (state === 'CONNECTED') delete html.dataset.rdOffline;
    else html.dataset.rdOffline = state;
  };
  window.__rdConnection = new MutationObserver(look);
  window.__rdConnection.observe(document.body, {
    subtree: true, attributes: true, attributeFilter: ['data-test-connection-state'],
  });
  look();
}

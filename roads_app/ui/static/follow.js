// Follow a shoe (or the wall of live tables) without polling the app: one request waits
// at the server (`/_roads/follow`, answered by the process's one watcher of the store)
// until what this page shows is out of date, then the component's state changes, which
// reruns the fragment it sits in, and nothing else. An idle page holds one open request,
// renewed every `WAIT_S` seconds, and costs the server no script run at all.
//
// The wall: its grid shares the page's one request for the wall (`hub`, in
// `follow_hub.js`) with the tiles (`wall_tile.js`); the grid reruns when the set of live
// shoes (or the floor's tables, in their order) changed or a shoe the filter hides moved
// on. A tile draws its own news.

const sameIds = (a, b) => a.length === b.length && a.every((x, i) => x === b[i]);

export default function (component) {
  const { data, setStateValue } = component;
  if (data.reconnecting) screenMark(data.reconnecting);
  if (!data.wall && data.shoe == null) return () => {};  // nothing saved yet
  // Kept per followed thing, not per element: Streamlit may mount a component anew on
  // a rerun, and a retry left on the old element would rerun its fragment for ever.
  const states = window.__rdFollowing || (window.__rdFollowing = {});
  const id = data.wall ? 'wall' : `shoe:${data.shoe}`;
  // The same place on the page now following another thing (a table's screen on its
  // next shoe: Streamlit hands the component new data, no clean-up): the old one's loop
  // stops and its state goes, or every past shoe of the day would still be asked after.
  const place = component.parentElement;
  const was = place && place.__rdFollowId;
  if (was && was !== id && states[was]) {
    const old = states[was];
    old.gen += 1;
    clearTimeout(old.timer);
    if (old.unsub) old.unsub();
    release(old);
    delete states[was];
  }
  if (place) place.__rdFollowId = id;
  const s = states[id] || (states[id] = { asked: null, timer: null, gen: 0 });
  const gen = ++s.gen;  // only the newest render's loop may ask: an older one sees old data
  s.set = setStateValue;  // a retry asks through the element on show now
  // The render before this one is done with: its request stops now, not when the server
  // next answers it, and its resize listener goes (a page drawn again each round would
  // hold a request and a listener per round).
  release(s);
  const stop = s.stop = new AbortController();
  const known = data.wall ? data.seq : data.version;

  // A news is asked for once: a second rerun at once would supersede the first, and what
  // that run showed only once (a good-road toast) would be lost with it. A news asked for
  // and still not shown after a while is asked again: a rerun request made while a run
  // was starting can be folded into it and lost. The wall's grid asks one per task
  // (`serial`, shared with its tiles). While one is asked for, newer news waits for it:
  // the rerun reads the store as it is then (and the grid drawn behind the wall's news is
  // told again when it subscribes, `hub`).
  const send = (now) => {
    s.stamp = Math.max(Date.now(), (s.stamp || 0) + 1);  // each request's own, increasing
    const asked = s.asked = { now, at: s.stamp };
    const go = () => { if (s.asked === asked) s.set('seen', asked); };  // unless shown since
    if (data.wall) serial(go); else go();
    clearTimeout(s.timer);
    s.timer = setTimeout(() => { if (s.asked && s.asked.now === now) send(now); }, 3000);
  };
  const ask = (now) => {
    if (gen !== s.gen) return;  // an older render's: its data is not what is shown
    if (s.asked) return;  // asked; the timer minds it
    send(now);
  };
  // Asked and answered: the server ran with what was asked (``got``: the stamp of the
  // last state it received), or the page shows that news (or a later one) already.
  const answered = s.asked && ((data.got != null && Number(data.got) >= s.asked.at)
    || Number(known) >= Number(s.asked.now));
  if (answered) { s.asked = null; clearTimeout(s.timer); }

  const loop = async () => {
    const query = `shoe=${encodeURIComponent(data.shoe)}&v=${encodeURIComponent(known ?? '')}`;
    let delay = 250;
    while (!stop.signal.aborted && gen === s.gen) {
      try {
        const r = await fetch(`${PATH()}?${query}`,
          { signal: stop.signal, cache: 'no-store', headers: headers(data.pass) });
        if (r.status === 401 || r.status === 403) {  // the key was revoked: the page
          ask(`refused:${r.status}`);  // runs again, and shows what the key allows now
          return;
        }
        if (!r.ok) throw new Error(`HTTP ${r.status}`);
        const got = await r.json();
        delay = 250;
        if (String(got.v ?? '') !== String(known ?? '')) {
          document.documentElement.dataset.rdFollowed = String(got.v);
          ask(got.v);
          return;  // the rerun brings this component its new data, and a new loop
        }
      } catch (e) {
        if (stop.signal.aborted) return;
        await new Promise((ok) => setTimeout(ok, delay));  // the server restarting
        delay = Math.min(delay * 2, 5000);
      }
    }
  };

  // One subscription per followed thing, judging by what is on show now (`s.data`): a
  // component drawn again is not always told to clean up first.
  s.data = data;
  if (s.unsub) { s.unsub(); s.unsub = null; }
  if (data.wall) {
    s.unsub = hub().sub((got) => {
      const d = s.data;
      if (got.refused) { ask(`refused:${got.refused}`); return; }  // the key was revoked
      if (Number(got.seq) < Number(d.seq) || !got.shoes) return;
      // a wall of shoes follows the set of live shoes; a wall of floor tables (``ids``
      // null) does not: a table's shoes come and go inside its tile (`wall_tile.js`)
      const moved = (d.ids != null && !sameIds(Object.keys(got.shoes).sort(), d.ids))
        || !sameIds(got.floor || [], d.floor || [])
        || Object.entries(d.hidden || {}).some(([k, v]) => (k.startsWith('table:')
          ? (got.tables || {})[k.slice(6)] ?? v : got.shoes[k] ?? v) > v);
      if (moved) ask(Number(got.seq));
    }, data.pass);
  } else {
    loop();
  }

  // A page laid out for the screen (the display, the wall) reports the window's size.
  let onResize = null;
  if (data.screen) {
    const report = () => {
      const w = window.innerWidth, h = window.innerHeight, had = data.screen_now || {};
      if (Math.abs((had.w || 0) - w) > 2 || Math.abs((had.h || 0) - h) > 2) {
        setStateValue('screen', { w, h });
      }
    };
    onResize = () => { clearTimeout(s.resize); s.resize = setTimeout(report, 150); };
    s.onResize = onResize;  // one listener per followed thing (`release`)
    window.addEventListener('resize', onResize);
    report();
  }
  document.documentElement.dataset.rdFollow = 'on';
  dropRunMarks();
  return () => {
    stop.abort();
    if (onResize) window.removeEventListener('resize', onResize);
    if (s.onResize === onResize) s.onResize = null;
  };
}

// What a render of a followed thing holds: its request and its resize listener. The
// clean-up a render returns is not always called before the next render, and a listener
// left per render kept that render's whole closure for as long as the screen stayed open.
function release(st) {
  if (st.stop) st.stop.abort();
  if (st.onResize) window.removeEventListener('resize', st.onResize);
  st.onResize = null;
}

// Streamlit marks each script run's state on the page's performance timeline (a mark per
// state, a `script-run-cycle` measure) and never clears them: a screen drawn again each
// round kept three entries a round for as long as it stayed open. Nothing reads them back
// (the measure is taken inside a try, from the newest marks), so a followed page clears them.
const RUN_STATES = ['initial', 'running', 'notRunning', 'rerunRequested', 'stopRequested',
  'compilationError'];
function dropRunMarks() {
  for (const name of RUN_STATES) performance.clearMarks(name);
  performance.clearMeasures('script-run-cycle');
}

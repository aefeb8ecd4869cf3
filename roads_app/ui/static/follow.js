// Follow a shoe (or the whole wall of tables) without polling the app: one request
// waits at the server (`/_roads/follow`, answered by the process's one watcher of the
// store) until what this page shows is out of date, then the component's state changes,
// which reruns the fragment it sits in, and nothing else. An idle page holds one open
// request, renewed every `WAIT_S` seconds, and costs the server no script run at all.
export default function (component) {
  const { data, setStateValue, parentElement } = component;
  const root = parentElement.host || parentElement;
  const s = root.__rdFollow || (root.__rdFollow = { asked: null, timer: null, gen: 0 });
  const gen = ++s.gen;  // only the newest render's loop may ask: an older one sees old data
  const stop = new AbortController();
  const known = data.wall ? data.seq : data.version;
  const query = data.wall ? `wall=${encodeURIComponent(known)}`
    : `shoe=${encodeURIComponent(data.shoe)}&v=${encodeURIComponent(known ?? '')}`;
  const url = new URL('_roads/follow', window.location.href);
  let delay = 250;

  // A news is asked for once: a second rerun at once would supersede the first, and what
  // that run showed only once (a good-road toast) would be lost with it. A news asked for
  // and still not shown after a while is asked again: a rerun request made while a run
  // was starting can be folded into it and lost.
  const send = (now) => {
    s.stamp = Math.max(Date.now(), (s.stamp || 0) + 1);  // each request's own, increasing
    s.asked = { now, at: s.stamp };
    setStateValue('seen', s.asked);
    clearTimeout(s.timer);
    s.timer = setTimeout(() => { if (s.asked && s.asked.now === now) send(now); }, 3000);
  };
  const ask = (now) => {
    if (gen !== s.gen) return;  // an older render's loop: its data is not what is shown
    if (s.asked && String(s.asked.now) === String(now)) return;  // asked; the timer minds it
    send(now);
  };
  // Asked and answered: the server ran with what was asked (``got``: the stamp of the
  // last state it received), or the page shows that news already.
  const answered = s.asked && ((data.got != null && Number(data.got) >= s.asked.at)
    || String(s.asked.now) === String(known));
  if (answered) { s.asked = null; clearTimeout(s.timer); }

  const loop = async () => {
    while (!stop.signal.aborted && gen === s.gen) {
      try {
        const r = await fetch(`${url.pathname}?${query}`, { signal: stop.signal, cache: 'no-store' });
        if (!r.ok) throw new Error(`HTTP ${r.status}`);
        const got = await r.json();
        const now = data.wall ? got.seq : got.v;
        delay = 250;
        if (String(now ?? '') !== String(known ?? '')) {
          document.documentElement.dataset.rdFollowed = String(now);
          ask(now);
          return;  // the rerun brings this component its new data, and a new loop
        }
      } catch (e) {
        if (stop.signal.aborted) return;
        await new Promise((ok) => setTimeout(ok, delay));  // the server restarting
        delay = Math.min(delay * 2, 5000);
      }
    }
  };
  // A page laid out for the screen (the display) reports the window's size.
  let onResize = null;
  if (data.screen) {
    const report = () => {
      const w = window.innerWidth, h = window.innerHeight, had = data.screen_now || {};
      if (Math.abs((had.w || 0) - w) > 2 || Math.abs((had.h || 0) - h) > 2) {
        setStateValue('screen', { w, h });
      }
    };
    onResize = () => { clearTimeout(s.resize); s.resize = setTimeout(report, 150); };
    window.addEventListener('resize', onResize);
    report();
  }
  // The wall also wakes when a table is due to turn stale (no result for N minutes).
  const wake = data.wake_ms > 0 && setTimeout(() => ask(`t${Date.now()}`), data.wake_ms);
  document.documentElement.dataset.rdFollow = 'on';
  loop();
  return () => {
    stop.abort();
    if (wake) clearTimeout(wake);
    if (onResize) window.removeEventListener('resize', onResize);
  };
}

// The board's eyes and ears (`board_host.py`): the width the board has on the page, and,
// on the scoreboard, the key queue (`roadsKeyQueue`, from page_head.js, which the
// component's script carries before this file) taken over and sent to the server.
export default function (component) {
  const { data, setStateValue, parentElement } = component;
  const root = parentElement.host || parentElement;
  const box = root.closest('[data-testid="stVerticalBlock"]') || root;
  let sent = null;
  const report = () => {
    const w = Math.floor(box.getBoundingClientRect().width);
    if (w > 0 && w !== sent && Math.abs(w - (data.width || 0)) >= 2) {
      sent = w;
      setStateValue('width', w);
    }
  };
  const watcher = new ResizeObserver(report);
  watcher.observe(box);
  report();
  // A page sent in part asks for the rest (a width report asks too, once): every second
  // until a run has sent the whole page, however a request is lost.
  root.__rdMore = data.more;
  const more = data.more && setInterval(() => {
    if (root.__rdMore) setStateValue('more', Date.now()); else clearInterval(more);
  }, 1000);
  const stop = () => { watcher.disconnect(); if (more) clearInterval(more); };
  if (!data.keys) return stop;

  const q = roadsKeyQueue(window, data.keyList, data.keyCodes);
  if (data.epoch === q.epoch) q.pending = q.pending.filter(p => p[0] > data.acked);
  q.claim(setStateValue);
  document.documentElement.dataset.roadsKeys = 'ready';
  return () => {
    stop();
    q.release();
    delete document.documentElement.dataset.roadsKeys;
  };
}

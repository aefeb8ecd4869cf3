// A wall tile's live part (`wall_tile.py`): the round count, the stale mark, the small
// roads (plain SVG, `drawSvg` from `svg_plot.js`) and the counts, kept current by the
// page itself. The tile shares the page's one request for the wall (`hub`, from
// `follow_hub.js`); when its shoe moves on it asks `/_roads/tile` for what to show and
// draws it in place, with no script run. When the answer says ``rerun`` (the tile's
// tags changed, it entered a good road, it left the filter or the wall) it reruns its
// fragment instead, as a followed page does (`follow.js`). A floor table's tile also
// reruns its fragment when the table itself changes (the wall's news carries every
// table's version): a shuffle, the next shoe, closed.
// (Put after `svg_plot.js` and `follow_hub.js` in the component's one module.)

// Kept per shoe, not per element: Streamlit may mount a component anew on a rerun.
const tileStates = () => window.__rdTiles || (window.__rdTiles = {});
const FORGET_MS = 10000;  // a tile's state outlives its element this long (a rerun's remount)

function textNode(parent, tag, cls, text) {
  const node = document.createElement(tag);
  if (cls) node.className = cls;
  node.textContent = text;  // user text stays text: no markup is parsed
  parent.appendChild(node);
  return node;
}

// A floor table's own line (`wall_tile.table_data`): on the kiosk wall its name first;
// its state while it deals no shoe ("Shuffling", "Closed"), its shoe's number of the
// day, its limits. All text, set as text.
function tableLine(root, d) {
  const line = textNode(root, 'div', 'rd-tile-line rd-tile-table', '');
  if (d.kiosk) textNode(line, 'span', 'rd-tile-name', d.title).dataset.testid = 'tile-name';
  if (!d.shoe) {
    const st = textNode(line, 'span', 'rd-tile-state', d.state_text);
    st.dataset.testid = 'tile-state';
    st.dataset.state = d.state;
  }
  for (const [testid, text] of d.head || []) {
    textNode(line, 'span', 'rd-tile-part', text).dataset.testid = `tile-${testid}`;
  }
  return line;
}

// The headline good road as a badge (its short name), whole: it never gives way to the
// name or the round count beside it (they shorten first); a badge wider than its line
// still is set in somewhat smaller type until it fits (a long name in a narrow tile).
function fitBadge(b, line, rounds) {
  const cut = () => b.scrollWidth > b.clientWidth + 0.5
    || b.getBoundingClientRect().right > line.getBoundingClientRect().right + 0.5;
  let size = 100;
  b.style.fontSize = '';
  rounds.hidden = false;
  while (b.isConnected && cut() && size > 75) {
    size -= 5;
    b.style.fontSize = `${size}%`;
  }
  // a round count cut short says nothing: the line drops it (the roads show the count)
  if (rounds.scrollWidth > rounds.clientWidth + 0.5) rounds.hidden = true;
}

// What the tile shows, from ``s.view`` (the newest known) and the page's settings.
function drawTile(s) {
  const v = s.view, d = s.data, box = s.box;
  if (!box) return;  // gone from the page meanwhile (an answer that came after)
  const sig = JSON.stringify([v.version, v.modified, d.stale_text, d.stale_s, d.query,
    d.shoe, d.table_version ?? null]);
  if (box.__rdSig !== sig) {
    box.__rdSig = sig;
    s.draws += 1;
    const root = document.createElement('div');
    root.className = d.kiosk ? 'rd-tile-live rd-kiosk-tile' : 'rd-tile-live';
    if (d.table) {
      root.dataset.table = d.table;
      root.dataset.state = d.state;
      tableLine(root, d);
    }
    // The kiosk wall's line: name (a table's is on its own line above), round count,
    // B/P/T, the good roads as a badge.
    const line = d.kiosk ? textNode(root, 'div', 'rd-tile-line', '') : root;
    if (d.kiosk && !d.table) {
      textNode(line, 'span', 'rd-tile-name', v.name || '').dataset.testid = 'tile-name';
    }
    const n = textNode(line, 'span', 'rd-tile-rounds', v.rounds);
    n.dataset.testid = 'tile-rounds';
    n.dataset.run = String(s.draws);  // how often this tile was drawn (one result: once)
    s.roundsNode = n;
    let badge = null;
    if (d.kiosk) {
      for (const [letter, count, w] of v.bpt || []) {
        textNode(line, 'b', `rd-w-${w} rd-tile-count`, `${letter} ${count}`).dataset.count = w;
      }
      const good = v.badges || [];  // the headline good road; the others on hover
      if (good.length) {
        const [name, bg, fg] = good[0];
        badge = textNode(line, 'span', 'rd-badge', good.length > 1 ? `${name} +${good.length - 1}` : name);
        badge.dataset.testid = 'tile-badge';
        badge.title = good.map((g) => g[3] || g[0]).join(' · ');  // the names in full
        badge.style.background = bg;
        badge.style.color = fg;
      }
    }
    s.staleNode = textNode(line, d.kiosk ? 'span' : 'div', 'rd-tile-stale', '');
    for (const spec of v.roads || []) {
      const scroll = document.createElement('div');
      scroll.className = 'rd-tile-road';  // a tile narrower than its road scrolls sideways
      const gd = document.createElement('div');
      gd.className = 'rd-plot rd-svg-plot';
      drawSvg(gd, spec);
      gd.layout = spec.layout;  // read as on a Plotly graph div (tests, benches)
      gd.data = spec.data;
      scroll.appendChild(gd);
      root.appendChild(scroll);
    }
    if (!d.kiosk) {
      const counts = document.createElement('div');
      counts.className = 'rd-tile-counts';
      for (const [text, w] of v.counts || []) {
        textNode(counts, w ? 'b' : 'span', w ? `rd-w-${w}` : '', text);
      }
      root.appendChild(counts);
    }
    const was = box.querySelector(':scope > .rd-tile-live');  // not the box's style sheet
    if (was) was.replaceWith(root); else box.appendChild(root);
    // fitted now, and again whenever the line's width changes (the grid laid out anew)
    if (s.sizes) s.sizes.disconnect();
    s.sizes = badge ? new ResizeObserver(() => fitBadge(badge, line, n)) : null;
    if (s.sizes) s.sizes.observe(line);
  }
  // how often its fragment ran, as of its last run (which need not draw it anew)
  if (s.roundsNode) s.roundsNode.dataset.scriptRun = String(d.runs);
  markStale(s);
}

// "no result for N min" once the table's last change is older than the page's setting,
// judged on the server's clock (``data.now`` is the server's time when it sent the data).
function markStale(s) {
  clearTimeout(s.staleTimer);
  const age = (Date.now() + s.offset) / 1000 - s.view.modified;
  const left = s.data.stale_s - age;
  const stale = s.view.modified != null && left < 0;  // a table between shoes: never
  if (s.staleNode) {
    s.staleNode.textContent = stale ? s.data.stale_text : '';
    s.staleNode.hidden = !stale;
  }
  if (!stale && s.view.modified != null) s.staleTimer = setTimeout(() => markStale(s), left * 1000 + 250);
}

// Ask the fragment to run (once per news, again after a while if it did not).
// ``table``: the news is the floor table's own (its version, not its shoe's).
function askRun(s, now, table = false) {
  s.stamp = Math.max(Date.now(), (s.stamp || 0) + 1);
  const asked = s.asked = { now, at: s.stamp, table };
  serial(() => { if (s.asked === asked) s.set('seen', asked); });
  clearTimeout(s.askTimer);
  s.askTimer = setTimeout(() => { if (s.asked === asked) askRun(s, now, table); }, 3000);
}

// The wall's news: this tile's floor table changed (a shuffle, its next shoe, closed:
// its fragment draws the table anew), or its shoe moved past what it shows.
async function tileNews(s, got) {
  const tv = s.data.table && got && got.tables && got.tables[s.data.table];
  if (typeof tv === 'number' && tv > s.data.table_version && !s.asked) {
    askRun(s, tv, true);
    return;
  }
  if (!s.data.shoe) return;  // a table between shoes: only the table's news moves it
  const v = got && got.shoes && got.shoes[s.data.shoe];
  if (typeof v !== 'number' || v <= (s.view.version ?? -1) || s.asked) return;
  if (s.fetching) { s.again = true; return; }
  s.fetching = true;
  try {
    const url = new URL(s.data.route, window.location.href);
    for (const [k, x] of Object.entries(s.data.query)) url.searchParams.set(k, String(x));
    const r = await fetch(url.pathname + url.search,
      { cache: 'no-store', headers: headers(s.data.pass) });
    if (!r.ok) throw new Error(`HTTP ${r.status}`);
    const view = await r.json();
    if (view.rerun) askRun(s, view.version ?? v);
    else if (view.version > (s.view.version ?? -1)) { s.view = view; drawTile(s); }
  } catch (e) {  // the server restarting: try again with the wall's latest news
    setTimeout(() => tileNews(s, hub().last), 1000);
  } finally {
    s.fetching = false;
  }
  if (s.again) { s.again = false; tileNews(s, hub().last); }
}

export default function (component) {
  const { data, parentElement: box, setStateValue } = component;
  const all = tileStates();
  const id = data.table ? `table:${data.table}` : data.shoe;  // a floor table's tile stays
  const s = all[id] || (all[id] = { draws: 0, view: { version: -1 }, shoe: data.shoe });
  if (s.shoe !== data.shoe) {  // the table's next shoe (or none): its news start afresh
    s.shoe = data.shoe;
    s.view = { version: -1 };
    s.asked = null;
    clearTimeout(s.askTimer);
  }
  s.data = data;
  s.set = setStateValue;
  s.box = box;
  s.offset = data.now * 1000 - Date.now();
  if ((data.view.version ?? -1) >= (s.view.version ?? -1)) s.view = data.view;
  const came = s.asked && (s.asked.table ? (data.table_version ?? -1)
    : (data.view.version ?? -1)) >= s.asked.now;
  if (came) {  // the run asked for came
    s.asked = null;
    clearTimeout(s.askTimer);
  }
  drawTile(s);
  if (s.unsub) s.unsub();
  const unsub = s.unsub = hub().sub((got) => tileNews(s, got), data.pass);
  clearTimeout(s.forget);
  return () => {  // gone from the page (or drawn again, which subscribes anew)
    if (s.unsub !== unsub) return;
    unsub();
    s.unsub = null;
    clearTimeout(s.staleTimer);
    if (s.sizes) s.sizes.disconnect();
    clearTimeout(s.askTimer);  // a tile gone from the wall asks nothing more
    s.asked = null;
    // A tile holds none of its nodes once gone, and a shoe not drawn again soon (it
    // ended, left the wall or the filter) is forgotten: a wall that runs for days sees
    // thousands of shoes come and go.
    s.box = null;
    s.staleNode = null;
    s.roundsNode = null;
    s.forget = setTimeout(() => { if (!s.unsub && all[id] === s) delete all[id]; }, FORGET_MS);
  };
}

// Roads drawn as plain SVG from the Plotly spec the server lays out (`render.board`):
// every board on the pages (`plot_host.js`) and the wall's tiles (`wall_tile.js`).
// Plotly's own drawing of an 80-round board took 55-100 ms of the page's main thread per
// key press, most of issue 26's budget, and a display paid it on every result; a road is
// a grid and a few kinds of mark, drawn here in a few milliseconds. Only that subset of
// Plotly is read: each subplot's axes (domain, range, grid, frame), scatter markers
// (circle, circle-open, line-ne, star, square-open) with their text and each trace's
// opacity, and paper-anchored annotations. Anything else in a spec is not drawn. The
// drawing is built with DOM calls: no text is parsed as markup.
//
// What it leaves for the page and the tests to read: each subplot is a
// ``g.rd-sub[data-sub="x2y2"]`` whose ``data-l/t/w/h`` give its plot area in the SVG's
// pixels and ``data-cols/rows`` its cells; each trace a ``g.rd-trace`` with ``data-trace``
// (its index in the spec) and ``data-name``, holding its marks in spec order.
// (Put before the script that calls `drawSvg` in a component's one module.)

const SVG_NS = 'http://www.w3.org/2000/svg';

function el(parent, tag, attrs) {
  const node = document.createElementNS(SVG_NS, tag);
  for (const k in attrs) node.setAttribute(k, String(attrs[k]));
  parent.appendChild(node);
  return node;
}

const each = (v, i) => (Array.isArray(v) ? v[i] : v);

// The five points of a star of outer radius r (Plotly draws a "star" of size s about
// 1.4 s across: `board.SYMBOL_EXTENT`).
function starPoints(cx, cy, r) {
  const pts = [];
  for (let k = 0; k < 10; k++) {
    const a = -Math.PI / 2 + (k * Math.PI) / 5;
    const rr = k % 2 ? r * 0.4 : r;
    pts.push(`${(cx + rr * Math.cos(a)).toFixed(2)},${(cy + rr * Math.sin(a)).toFixed(2)}`);
  }
  return pts.join(' ');
}

function mark(g, symbol, cx, cy, m, i) {
  const size = each(m.size, i) || 6;
  const colour = each(m.color, i) || '#000';
  const line = m.line || {};
  const lw = each(line.width, i) || 0;
  const lc = each(line.color, i) || colour;
  const r = size / 2;
  if (symbol === 'circle') {
    el(g, 'circle', { cx, cy, r, fill: colour, stroke: lw ? lc : 'none', 'stroke-width': lw });
  } else if (symbol === 'circle-open') {
    el(g, 'circle', { cx, cy, r, fill: 'none', stroke: colour, 'stroke-width': lw || 1 });
  } else if (symbol === 'square-open') {
    el(g, 'rect', { x: cx - r, y: cy - r, width: size, height: size, fill: 'none',
      stroke: colour, 'stroke-width': lw || 1 });
  } else if (symbol === 'line-ne') {
    el(g, 'line', { x1: cx - r, y1: cy + r, x2: cx + r, y2: cy - r, stroke: lc,
      'stroke-width': lw || 1, 'stroke-linecap': 'round' });
  } else if (symbol === 'star') {
    el(g, 'polygon', { points: starPoints(cx, cy, r * 1.4), fill: colour });
  }
}

// One subplot's frame: background, grid between its cells, outline, and the group its
// marks go in (clipped to it). Returns how to place a point and where marks go.
function subplot(svg, defs, L, area, xname, yname) {
  const xa = L['xaxis' + xname.slice(1)] || {};
  const ya = L['yaxis' + yname.slice(1)] || {};
  const [dx0, dx1] = xa.domain || [0, 1];
  const [dy0, dy1] = ya.domain || [0, 1];
  const l = area.l + dx0 * area.w;
  const w = (dx1 - dx0) * area.w;
  const t = area.t + (1 - dy1) * area.h;
  const h = (dy1 - dy0) * area.h;
  const [x0, x1] = xa.range || [0, 1];
  const [yb, yt] = ya.range || [1, 0];  // [bottom, top]: a road's rows count downwards
  const sx = (x) => l + ((x - x0) / (x1 - x0)) * w;
  const sy = (y) => t + ((y - yt) / (yb - yt)) * h;
  const sub = xname + yname;
  const g = el(svg, 'g', { class: 'rd-sub', 'data-sub': sub, 'data-l': l, 'data-t': t,
    'data-w': w, 'data-h': h, 'data-cols': Math.abs(x1 - x0), 'data-rows': Math.abs(yb - yt) });
  el(g, 'rect', { x: l, y: t, width: w, height: h, fill: L.plot_bgcolor || '#fff' });
  const rule = (axis, a, lines) => {
    if (a.showgrid === false) return;
    const grid = el(g, 'g', { class: 'rd-grid', 'data-axis': axis, stroke: a.gridcolor || '#ddd',
      'stroke-width': a.gridwidth || 1, 'shape-rendering': 'crispEdges' });
    lines(grid);
  };
  rule(xname, xa, (grid) => {  // between the columns: the frame is each edge's line
    for (let k = Math.floor(Math.min(x0, x1)) + 1; k < Math.max(x0, x1); k++) {
      el(grid, 'line', { x1: sx(k), y1: t, x2: sx(k), y2: t + h });
    }
  });
  rule(yname, ya, (grid) => {
    for (let k = Math.floor(Math.min(yb, yt)) + 1; k < Math.max(yb, yt); k++) {
      el(grid, 'line', { x1: l, y1: sy(k), x2: l + w, y2: sy(k) });
    }
  });
  if (xa.showline !== false) {
    el(g, 'rect', { x: l, y: t, width: w, height: h, fill: 'none',
      stroke: xa.linecolor || '#ddd', 'shape-rendering': 'crispEdges' });
  }
  const id = `rd-clip-${(drawSvg.n = (drawSvg.n || 0) + 1)}`;
  el(el(defs, 'clipPath', { id }), 'rect', { x: l, y: t, width: w, height: h });
  return { sx, sy, marks: el(g, 'g', { 'clip-path': `url(#${id})` }) };
}

// A note placed on the paper (a road's title): its anchor as Plotly reads it.
function annotate(svg, note, area, family) {
  if (note.xref !== 'paper' || note.yref !== 'paper' || note.text == null) return;
  const font = note.font || {};
  const pad = 2;  // Plotly's border and its pad around a note's text
  const dx = { left: pad, right: -pad }[note.xanchor] || 0;
  const dy = { bottom: -pad, top: pad }[note.yanchor] || 0;
  const node = el(svg, 'text', {
    x: area.l + note.x * area.w + dx,
    y: area.t + (1 - note.y) * area.h + dy,
    'text-anchor': { left: 'start', right: 'end' }[note.xanchor] || 'middle',
    'dominant-baseline': { bottom: 'text-after-edge', top: 'text-before-edge' }[note.yanchor]
      || 'central',
    'font-size': font.size || 12, 'font-family': font.family || family,
    fill: font.color || '#444', class: 'rd-note',
  });
  node.textContent = String(note.text);
}

// Draw ``spec`` ({data, layout}) into ``host``, replacing what it held.
function drawSvg(host, spec) {
  const L = spec.layout || {};
  const W = L.width || 300;
  const H = L.height || 150;
  const mg = { l: 0, r: 0, t: 0, b: 0, ...(L.margin || {}) };
  const area = { l: mg.l, t: mg.t, w: W - mg.l - mg.r, h: H - mg.t - mg.b };
  // text with no family of its own takes the layout's, as in Plotly (the spec names the
  // page's CJK face first: render/fonts.py)
  const family = (L.font || {}).family || 'sans-serif';

  const svg = document.createElementNS(SVG_NS, 'svg');
  svg.setAttribute('width', W);
  svg.setAttribute('height', H);
  svg.setAttribute('viewBox', `0 0 ${W} ${H}`);
  svg.classList.add('rd-svg');
  const defs = el(svg, 'defs', {});
  el(svg, 'rect', { x: 0, y: 0, width: W, height: H, fill: L.paper_bgcolor || '#fff' });
  const subs = {};
  const data = spec.data || [];
  data.forEach((t, index) => {
    if (t.type && t.type !== 'scatter') return;
    const xname = t.xaxis || 'x';
    const yname = t.yaxis || 'y';
    const s = subs[xname + yname] || (subs[xname + yname] = subplot(svg, defs, L, area, xname, yname));
    if (t.visible === false) return;
    const attrs = { class: 'rd-trace', 'data-trace': index, 'data-name': t.name || '' };
    if (t.opacity != null) attrs.opacity = t.opacity;
    const g = el(s.marks, 'g', attrs);
    const m = t.marker || {};
    const xs = t.x || [];
    const ys = t.y || [];
    const mode = t.mode || 'markers';
    const font = t.textfont || {};
    for (let i = 0; i < xs.length; i++) {
      const cx = s.sx(xs[i]);
      const cy = s.sy(ys[i]);
      if (mode.includes('markers')) mark(g, each(m.symbol, i) || 'circle', cx, cy, m, i);
      const text = mode.includes('text') ? each(t.text, i) : null;
      if (text != null && text !== '') {
        const node = el(g, 'text', { x: cx, y: cy, 'text-anchor': 'middle',
          'dominant-baseline': 'central', 'font-size': each(font.size, i) || 11,
          'font-family': font.family || family, fill: each(font.color, i) || '#000' });
        node.textContent = String(text);
      }
    }
  });
  // roads with no round yet (a table's cleared board) still show their empty grids
  if (!Object.keys(subs).length) {
    for (const key of Object.keys(L)) {
      const n = (key.match(/^xaxis(\d*)$/) || [])[1];
      if (n !== undefined && L[`yaxis${n}`]) subplot(svg, defs, L, area, `x${n}`, `y${n}`);
    }
  }
  for (const note of L.annotations || []) annotate(svg, note, area, family);
  host.replaceChildren(svg);
}

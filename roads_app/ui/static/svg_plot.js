// A small, static road drawn as plain SVG from the same Plotly spec the boards use: the
// wall's tiles (`wall_tile.js`). Plotly's layout pass costs tens of
// milliseconds per figure; a wall of 24 live tables redraws a few every second, and its
// main thread was 94% busy with them (issue 29). A road is a grid and a few kinds of
// mark, so only that subset of Plotly is read here: the axes' ranges and grid, and
// scatter markers (circle, circle-open, line-ne, star) with their text. Anything else in
// a spec is not drawn. The drawing is built with DOM calls: no text is parsed as markup.
// (Put before `wall_tile.js` in the component's one module, `wall_tile.py`.)

const SVG_NS = 'http://www.w3.org/2000/svg';

function el(parent, tag, attrs) {
  const node = document.createElementNS(SVG_NS, tag);
  for (const [k, v] of Object.entries(attrs)) node.setAttribute(k, String(v));
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
  } else if (symbol === 'line-ne') {
    el(g, 'line', { x1: cx - r, y1: cy + r, x2: cx + r, y2: cy - r, stroke: lc,
      'stroke-width': lw || 1, 'stroke-linecap': 'round' });
  } else if (symbol === 'star') {
    el(g, 'polygon', { points: starPoints(cx, cy, r * 1.4), fill: colour });
  }
}

// Draw ``spec`` ({data, layout}) into ``host``, replacing what it held.
function drawSvg(host, spec) {
  const L = spec.layout || {};
  const W = L.width || 300;
  const H = L.height || 150;
  const mg = { l: 0, r: 0, t: 0, b: 0, ...(L.margin || {}) };
  const w = W - mg.l - mg.r;
  const h = H - mg.t - mg.b;
  const xa = L.xaxis || {};
  const ya = L.yaxis || {};
  const [x0, x1] = xa.range || [0, 1];
  const [yb, yt] = ya.range || [1, 0];  // [bottom, top]: a road's rows count downwards
  const sx = (x) => mg.l + ((x - x0) / (x1 - x0)) * w;
  const sy = (y) => mg.t + ((y - yt) / (yb - yt)) * h;

  const svg = document.createElementNS(SVG_NS, 'svg');
  svg.setAttribute('width', W);
  svg.setAttribute('height', H);
  svg.setAttribute('viewBox', `0 0 ${W} ${H}`);
  svg.classList.add('rd-svg');
  el(svg, 'rect', { x: 0, y: 0, width: W, height: H, fill: L.paper_bgcolor || '#fff' });
  el(svg, 'rect', { x: mg.l, y: mg.t, width: w, height: h, fill: L.plot_bgcolor || '#fff' });
  const grid = el(svg, 'g', { stroke: xa.gridcolor || '#ddd', 'stroke-width': xa.gridwidth || 1,
    'shape-rendering': 'crispEdges' });
  for (let k = Math.ceil(Math.min(x0, x1)); k <= Math.max(x0, x1); k++) {
    el(grid, 'line', { x1: sx(k), y1: mg.t, x2: sx(k), y2: mg.t + h });
  }
  for (let k = Math.ceil(Math.min(yb, yt)); k <= Math.max(yb, yt); k++) {
    el(grid, 'line', { x1: mg.l, y1: sy(k), x2: mg.l + w, y2: sy(k) });
  }
  el(svg, 'rect', { x: mg.l, y: mg.t, width: w, height: h, fill: 'none',
    stroke: xa.linecolor || '#ddd', 'shape-rendering': 'crispEdges' });

  const id = `rd-clip-${(drawSvg.n = (drawSvg.n || 0) + 1)}`;
  const clip = el(el(svg, 'defs', {}), 'clipPath', { id });
  el(clip, 'rect', { x: mg.l, y: mg.t, width: w, height: h });
  const marks = el(svg, 'g', { 'clip-path': `url(#${id})` });
  for (const t of spec.data || []) {
    if (t.type && t.type !== 'scatter') continue;
    if (t.visible === false || t.opacity === 0) continue;
    const g = el(marks, 'g', t.opacity != null ? { opacity: t.opacity } : {});
    const m = t.marker || {};
    const xs = t.x || [];
    const ys = t.y || [];
    const mode = t.mode || 'markers';
    const font = t.textfont || {};
    for (let i = 0; i < xs.length; i++) {
      const cx = sx(xs[i]);
      const cy = sy(ys[i]);
      if (mode.includes('markers')) mark(g, each(m.symbol, i) || 'circle', cx, cy, m, i);
      const text = mode.includes('text') ? each(t.text, i) : null;
      if (text != null && text !== '') {
        const node = el(g, 'text', { x: cx, y: cy, 'text-anchor': 'middle',
          'dominant-baseline': 'central', 'font-size': each(font.size, i) || 11,
          'font-family': font.family || 'sans-serif', fill: each(font.color, i) || '#000' });
        node.textContent = String(text);
      }
    }
  }
  host.replaceChildren(svg);
}

// The /debug/graph page: one self-contained HTML document (no build step, no network beyond this server).
// It polls /debug/graph.json, draws collections in columns by rank with their counters, and shows a
// collection's dump and last errors when clicked.

/** The page, served as is. */
export const GRAPH_PAGE = `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<title>rxkrt graph</title>
<style>
  body { margin: 0; font: 13px system-ui, sans-serif; color: #1d2330; background: #f6f7f9; display: flex; height: 100vh; }
  main { flex: 1; overflow: auto; }
  header { padding: 10px 16px; background: #1d2330; color: #fff; display: flex; gap: 16px; align-items: baseline; }
  header h1 { font-size: 15px; margin: 0; }
  #status { opacity: .8; }
  svg { display: block; }
  .node rect { fill: #fff; stroke: #9aa4b5; rx: 6; }
  .node.syncing rect { stroke: #d49a00; stroke-dasharray: 4 3; }
  .node.failing rect { stroke: #c62828; stroke-width: 2; }
  .node.selected rect { fill: #e8f0fe; stroke: #1a73e8; stroke-width: 2; }
  .node { cursor: pointer; }
  .node .name { font-weight: 600; }
  .node .meta { fill: #56607a; }
  .node .errors { fill: #c62828; }
  .edge { fill: none; stroke: #b7bfcc; stroke-width: 1.5; }
  aside { width: 30%; min-width: 300px; border-left: 1px solid #d5d9e0; background: #fff; overflow: auto; padding: 12px 16px; }
  aside h2 { font-size: 14px; margin: 4px 0 8px; }
  pre { background: #f3f4f6; padding: 8px; overflow: auto; max-height: 60vh; font-size: 12px; }
  #detail-errors li { color: #c62828; margin-bottom: 4px; }
  .hint { color: #56607a; }
</style>
</head>
<body>
<main>
  <header><h1>rxkrt collections</h1><span id="status">loading…</span></header>
  <svg id="graph" xmlns="http://www.w3.org/2000/svg"></svg>
</main>
<aside id="detail">
  <h2 id="detail-name">Click a collection</h2>
  <p class="hint" id="detail-counters">Its dump and its last errors appear here.</p>
  <ul id="detail-errors"></ul>
  <pre id="detail-dump"></pre>
</aside>
<script>
'use strict';
const W = 190, H = 66, GAP_X = 44, GAP_Y = 18, PAD = 20;
const svg = document.getElementById('graph');
let selected = null;
let previous = new Map();
let previousAt = 0;

function el(name, attrs, text) {
  const e = document.createElementNS('http://www.w3.org/2000/svg', name);
  for (const [k, v] of Object.entries(attrs)) e.setAttribute(k, String(v));
  if (text !== undefined) e.textContent = text;
  return e;
}

function clip(s, n) { return s.length > n ? s.slice(0, n - 1) + '…' : s; }

function layout(nodes) {
  const ranks = [...new Set(nodes.map((n) => n.rank))].sort((a, b) => a - b);
  const column = new Map(ranks.map((r, i) => [r, i]));
  const rows = new Map();
  const at = new Map();
  for (const n of nodes) {
    const c = column.get(n.rank);
    const r = rows.get(c) || 0;
    rows.set(c, r + 1);
    at.set(n.uid, { x: PAD + c * (W + GAP_X), y: PAD + r * (H + GAP_Y) });
  }
  const width = PAD * 2 + ranks.length * (W + GAP_X);
  const height = PAD * 2 + Math.max(1, ...rows.values()) * (H + GAP_Y);
  return { at, width, height };
}

function draw(model) {
  const now = performance.now();
  const seconds = previousAt === 0 ? 0 : (now - previousAt) / 1000;
  const { at, width, height } = layout(model.nodes);
  svg.setAttribute('width', width);
  svg.setAttribute('height', height);
  svg.replaceChildren();
  for (const e of model.edges) {
    const a = at.get(e.from), b = at.get(e.to);
    if (!a || !b) continue;
    const x1 = a.x + W, y1 = a.y + H / 2, x2 = b.x, y2 = b.y + H / 2, mx = (x1 + x2) / 2;
    svg.appendChild(el('path', { class: 'edge', 'data-from': e.from, 'data-to': e.to, d: 'M' + x1 + ',' + y1 + ' C' + mx + ',' + y1 + ' ' + mx + ',' + y2 + ' ' + x2 + ',' + y2 }));
  }
  for (const n of model.nodes) {
    const p = at.get(n.uid);
    const before = previous.get(n.uid);
    const rate = before && seconds > 0 ? Math.max(0, (n.events - before.events) / seconds) : 0;
    const classes = ['node', n.synced ? 'synced' : 'syncing', n.errors > 0 ? 'failing' : '', selected === n.uid ? 'selected' : ''];
    const g = el('g', { class: classes.join(' ').trim(), 'data-uid': n.uid, 'data-name': n.name, transform: 'translate(' + p.x + ',' + p.y + ')' });
    g.appendChild(el('title', {}, n.name));
    g.appendChild(el('rect', { width: W, height: H }));
    g.appendChild(el('text', { class: 'name', x: 10, y: 19 }, clip(n.name, 26)));
    g.appendChild(el('text', { class: 'meta objects', x: 10, y: 37, 'data-objects': n.objects }, n.objects + ' objects · ' + rate.toFixed(1) + ' events/s'));
    g.appendChild(el('text', { class: 'meta state', x: 10, y: 55 }, (n.synced ? 'synced' : 'syncing') + ' · ' + n.recomputations + ' runs'));
    if (n.errors > 0) g.appendChild(el('text', { class: 'errors', x: W - 10, y: 55, 'text-anchor': 'end' }, n.errors + ' errors'));
    g.addEventListener('click', () => select(n.uid));
    svg.appendChild(g);
  }
  previous = new Map(model.nodes.map((n) => [n.uid, n]));
  previousAt = now;
  const waiting = model.nodes.filter((n) => !n.synced).length;
  document.getElementById('status').textContent = model.nodes.length + ' collections · ' + (waiting === 0 ? 'all synced' : waiting + ' not synced') + ' · ' + new Date().toLocaleTimeString();
}

async function select(uid) {
  selected = uid;
  for (const g of svg.querySelectorAll('.node')) g.classList.toggle('selected', Number(g.dataset.uid) === uid);
  const res = await fetch('/debug/collections/' + uid);
  if (!res.ok) { document.getElementById('detail-name').textContent = 'collection ' + uid + ' is gone'; return; }
  const d = await res.json();
  document.getElementById('detail-name').textContent = d.node.name;
  document.getElementById('detail-counters').textContent = d.node.objects + ' objects, ' + d.node.events + ' events, ' + d.node.recomputations + ' runs, ' + d.node.errors + ' errors, ' + (d.node.synced ? 'synced' : 'not synced');
  const list = document.getElementById('detail-errors');
  list.replaceChildren(...d.errors.map((m) => { const li = document.createElement('li'); li.textContent = m; return li; }));
  const text = JSON.stringify(d.dump, null, 2);
  document.getElementById('detail-dump').textContent = text.length > 100000 ? text.slice(0, 100000) + '\\n…' : text;
}

async function poll() {
  try {
    const res = await fetch('/debug/graph.json');
    draw(await res.json());
    if (selected !== null) await select(selected);
  } catch (e) {
    document.getElementById('status').textContent = 'server unreachable: ' + e.message;
  }
  setTimeout(poll, 1000);
}
poll();
</script>
</body>
</html>
`;

// `npm run bench:chart`: draws bench:scale's JSON as an SVG of three panels (initial sync per pod, retained
// overhead per pod, cost of one update), pods on a log axis. Lines and text written by hand: no dependency.
//
//   npm run bench:chart -- --in docs/images/scaling.json --out docs/images/scaling.svg
import { readFileSync, writeFileSync } from 'node:fs';
import type { ScalePoint, ScaleReport } from './scale.js';
import { defineCli, text } from './cli.js';

interface Panel {
  title: string;
  unit: string;
  value(p: ScalePoint): number;
}

const PANELS: Panel[] = [
  { title: 'Initial sync, per pod', unit: 'µs', value: (p) => p.sync_us_per_pod },
  { title: 'Retained overhead, per pod', unit: 'bytes', value: (p) => p.overhead_bytes_per_pod },
  { title: 'One pod update (one transaction / drain)', unit: 'µs', value: (p) => p.per_event_us },
];

const COLOURS: Record<string, string> = { 'hand-written': '#1f77b4', rxkrt: '#d62728' };
const W = 300;
const H = 220;
const PAD = { left: 52, right: 14, top: 34, bottom: 40 };

function esc(s: string): string {
  return s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
}

function fmt(x: number): string {
  return x >= 100 ? x.toFixed(0) : x >= 10 ? x.toFixed(1) : x.toFixed(2);
}

/** The smallest round number (1, 1.2, 1.6, 2, 2.4, 3, 4, 5, 6 or 8 × 10^k) at or above `x`, whose quarters stay short. */
function niceCeil(x: number): number {
  if (!(x > 0)) return 1;
  const e = 10 ** Math.floor(Math.log10(x));
  for (const m of [1, 1.2, 1.6, 2, 2.4, 3, 4, 5, 6, 8, 10]) if (m * e >= x) return m * e;
  return 10 * e;
}

function podsLabel(n: number): string {
  return n >= 1e6 ? `${n / 1e6}M` : n >= 1e3 ? `${n / 1e3}k` : String(n);
}

function panel(p: Panel, points: readonly ScalePoint[], x0: number): string {
  const sizes = [...new Set(points.map((q) => q.pods))].sort((a, b) => a - b);
  const lo = Math.log10(sizes[0]!);
  const hi = Math.log10(sizes.at(-1)!);
  const yMax = niceCeil(Math.max(...points.map(p.value)) * 1.1);
  const px = (n: number): number => x0 + PAD.left + (hi === lo ? 0.5 : (Math.log10(n) - lo) / (hi - lo)) * (W - PAD.left - PAD.right);
  const py = (v: number): number => PAD.top + (1 - Math.max(0, v) / yMax) * (H - PAD.top - PAD.bottom);
  const out: string[] = [];
  out.push(`<text x="${x0 + W / 2}" y="16" text-anchor="middle" font-weight="bold">${esc(p.title)}</text>`);
  out.push(`<text x="${x0 + 12}" y="${PAD.top - 8}" font-size="10">${esc(p.unit)}</text>`);
  for (let k = 0; k <= 4; k++) {
    const v = (yMax * k) / 4;
    out.push(`<line x1="${x0 + PAD.left}" x2="${x0 + W - PAD.right}" y1="${py(v)}" y2="${py(v)}" stroke="#ddd"/>`);
    out.push(`<text x="${x0 + PAD.left - 4}" y="${py(v) + 3}" text-anchor="end" font-size="10">${fmt(v)}</text>`);
  }
  for (const n of sizes) {
    out.push(`<text x="${px(n)}" y="${H - PAD.bottom + 14}" text-anchor="middle" font-size="10">${podsLabel(n)}</text>`);
  }
  out.push(`<text x="${x0 + PAD.left + (W - PAD.left - PAD.right) / 2}" y="${H - 8}" text-anchor="middle" font-size="10">pods</text>`);
  for (const [index, name] of Object.keys(COLOURS).entries()) {
    const line = points.filter((q) => q.contender === name).sort((a, b) => a.pods - b.pods);
    if (line.length === 0) continue;
    const colour = COLOURS[name]!;
    out.push(
      `<polyline fill="none" stroke="${colour}" stroke-width="2" points="${line.map((q) => `${px(q.pods).toFixed(1)},${py(p.value(q)).toFixed(1)}`).join(' ')}"/>`,
    );
    for (const q of line) {
      out.push(`<circle cx="${px(q.pods).toFixed(1)}" cy="${py(p.value(q)).toFixed(1)}" r="3" fill="${colour}"/>`);
      out.push(
        // The first contender's values below its points, the second's above, so that close values stay legible.
        `<text x="${px(q.pods).toFixed(1)}" y="${(py(p.value(q)) + (index === 0 ? 14 : -6)).toFixed(1)}" text-anchor="middle" font-size="9" fill="${colour}">${fmt(p.value(q))}</text>`,
      );
    }
  }
  return out.join('\n');
}

function chart(r: ScaleReport): string {
  const width = W * PANELS.length;
  const height = H + 36;
  const legend = Object.entries(COLOURS)
    .map(
      ([name, colour], i) =>
        `<rect x="${10 + i * 130}" y="${H + 14}" width="12" height="3" fill="${colour}"/><text x="${26 + i * 130}" y="${H + 19}" font-size="11">${esc(name)}</text>`,
    )
    .join('\n');
  const note = `<text x="${width - 8}" y="${H + 19}" text-anchor="end" font-size="9" fill="#555">${esc(`${r.machine}, node ${r.node}, ${r.date.slice(0, 16)} UTC`)}</text>`;
  return [
    `<svg xmlns="http://www.w3.org/2000/svg" width="${width}" height="${height}" viewBox="0 0 ${width} ${height}" font-family="sans-serif" font-size="12">`,
    `<rect width="${width}" height="${height}" fill="white"/>`,
    ...PANELS.map((p, i) => panel(p, r.points, i * W)),
    legend,
    note,
    '</svg>',
    '',
  ].join('\n');
}

const CLI = defineCli({
  tool: 'bench:chart',
  usage: 'bench:chart -- [--in FILE] [--out FILE]',
  options: { in: text('docs/images/scaling.json'), out: text('docs/images/scaling.svg') },
});

function main(): void {
  const { in: input, out } = CLI.parseOrExit();
  const report = JSON.parse(readFileSync(input, 'utf8')) as ScaleReport;
  writeFileSync(out, chart(report));
  process.stderr.write(`wrote ${out} from ${input}\n`);
}

main();

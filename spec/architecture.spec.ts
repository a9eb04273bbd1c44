import { describe, it, expect } from '@jest/globals';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

// Guards the floors the project promises (core ← engine ← engine/derived ← fetch ← collections ← kube/testing), no cycles,
// and small files (one concept each).
const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const src = join(root, 'src');

function files(dir: string, extensions: readonly string[] = ['.ts']): string[] {
  return readdirSync(dir).flatMap((f) => {
    const p = join(dir, f);
    return statSync(p).isDirectory() ? files(p, extensions) : extensions.some((e) => p.endsWith(e)) ? [p] : [];
  });
}

/** The lines of a file, as `wc -l` counts them (a last line without its newline still counts). */
function lineCount(file: string): number {
  const text = readFileSync(file, 'utf8');
  return text.split('\n').length - (text.endsWith('\n') ? 1 : 0);
}

/** The most lines a file under src/, spec/, bench/ or examples/ may have: small files, one concept each. */
const MAX_LINES = 400;

/**
 * The files allowed past MAX_LINES, root-relative, each with the one-line reason it should stay long. Empty is
 * best: split a long file by concern instead (a spec into `<subject>.<concern>.spec.ts` beside the original).
 */
const LONG_FILES: Readonly<Record<string, string>> = {};

/** Relative imports (value and type) of one file, resolved to src-relative paths. */
function importsOf(file: string): string[] {
  const text = readFileSync(file, 'utf8');
  const out: string[] = [];
  for (const m of text.matchAll(/(?:import|export)\s[^'"]*?from\s+'(\.[^']+)'|import\('(\.[^']+)'\)/g)) {
    const spec = (m.at(1) ?? m.at(2))!.replace(/\.js$/, '.ts');
    out.push(relative(src, resolve(dirname(file), spec)));
  }
  return out;
}

/**
 * The floors, lowest first: each may import itself and the floors it lists. A file belongs to the floor of
 * the longest folder prefix that names one (so `engine/derived/x.ts` is on `engine/derived`, above `engine`).
 */
const floors: Record<string, readonly string[]> = {
  core: [],
  engine: ['core'],
  'engine/derived': ['core', 'engine'],
  fetch: ['core', 'engine', 'engine/derived'],
  collections: ['core', 'engine', 'engine/derived', 'fetch'],
  observe: ['core', 'engine'],
  operators: ['core', 'engine', 'fetch', 'collections'],
  kube: ['core', 'engine', 'fetch', 'collections', 'observe'],
  files: ['core', 'engine', 'collections'],
  ...apiserverFloors(),
  testing: ['core', 'engine', 'fetch', 'collections', 'observe', 'kube', 'apiserver'],
  root: ['core', 'engine', 'fetch', 'collections', 'observe', 'operators'],
};

/**
 * The embedded API server stands apart from the engine, with floors of its own, lowest first: each may import
 * the ones below it. `apiserver` itself (`startApiServer`, the CLI, the `rxkrt/apiserver` entry) is the top.
 * Below them all lies `core`, the vocabulary that imports nothing of rxkrt: the label selector grammar is
 * one parser for both (rxkrt's `parseLabelSelector` and the server's `labelSelector` query parameter).
 */
function apiserverFloors(): Record<string, readonly string[]> {
  const order = ['apimachinery', 'storage', 'kinds', 'selectors', 'patch', 'state', 'hooks', 'objects', 'watch', 'http'].map(
    (f) => `apiserver/${f}`,
  );
  const out: Record<string, readonly string[]> = { apiserver: ['core', ...order] };
  order.forEach((f, i) => (out[f] = ['core', ...order.slice(0, i)]));
  return out;
}

function layerOf(p: string): string {
  const parts = p.split('/');
  for (let n = parts.length - 1; n > 0; n--) {
    const prefix = parts.slice(0, n).join('/');
    if (prefix in floors) return prefix;
  }
  return 'root';
}

describe('architecture', () => {
  const graph = new Map(files(src).map((f) => [relative(src, f), importsOf(f)]));

  it('should keep imports flowing one way between layers', () => {
    expect(graph.size).toBeGreaterThan(60);
    const bad: string[] = [];
    for (const [file, deps] of graph) {
      const layer = layerOf(file);
      for (const d of deps) {
        const target = layerOf(d);
        if (target !== layer && !floors[layer]!.includes(target)) bad.push(`${file} imports ${d}`);
      }
    }
    expect(bad).toEqual([]);
  });

  it('should keep the embedded API server independent of the engine (it may read the core vocabulary only)', () => {
    const bad = [...graph]
      .filter(([f]) => f.startsWith('apiserver/'))
      .flatMap(([f, deps]) => deps.filter((d) => !d.startsWith('apiserver/') && !d.startsWith('core/')).map((d) => `${f} imports ${d}`));
    expect(bad).toEqual([]);
  });

  it('should keep the core free of imports from the rest of rxkrt (so the API server can read it)', () => {
    const bad = [...graph]
      .filter(([f]) => f.startsWith('core/'))
      .flatMap(([f, deps]) => deps.filter((d) => !d.startsWith('core/')).map((d) => `${f} imports ${d}`));
    expect(bad).toEqual([]);
  });

  it('should have no import cycles', () => {
    const state = new Map<string, 'visiting' | 'done'>();
    const cycles: string[] = [];
    const visit = (f: string, path: string[]): void => {
      if (state.get(f) === 'done') return;
      if (state.get(f) === 'visiting') {
        cycles.push([...path.slice(path.indexOf(f)), f].join(' → '));
        return;
      }
      state.set(f, 'visiting');
      for (const d of graph.get(f) ?? []) visit(d, [...path, f]);
      state.set(f, 'done');
    };
    for (const f of graph.keys()) visit(f, []);
    expect(cycles).toEqual([]);
  });

  it('should resolve every relative import to a file that exists', () => {
    const missing = [...graph].flatMap(([f, deps]) => deps.filter((d) => !graph.has(d)).map((d) => `${f} imports missing ${d}`));
    expect(missing).toEqual([]);
  });

  it(`should keep every file under src/, spec/, bench/ and examples/ to ${MAX_LINES} lines, unless allowed with a reason`, () => {
    const lengths = new Map(
      ['src', 'spec', 'bench', 'examples'].flatMap((d) =>
        files(join(root, d), ['.ts', '.mts', '.mjs']).map((f): [string, number] => [relative(root, f), lineCount(f)]),
      ),
    );
    expect(lengths.size).toBeGreaterThan(300);
    const tooLong = [...lengths].filter(([f, n]) => n > MAX_LINES && !(f in LONG_FILES)).map(([f, n]) => `${f}: ${n} lines`);
    expect(tooLong).toEqual([]);
    // An allowance goes once its file is short again (or gone).
    const stale = Object.keys(LONG_FILES).filter((f) => (lengths.get(f) ?? 0) <= MAX_LINES);
    expect(stale).toEqual([]);
  });
});

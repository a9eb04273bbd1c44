import { describe, it, expect } from '@jest/globals';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

// Guards the layering the project promises: core ← fetch ← collections ← kube/testing, and no cycles.
const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const src = join(root, 'src');

function files(dir: string): string[] {
  return readdirSync(dir).flatMap((f) => {
    const p = join(dir, f);
    return statSync(p).isDirectory() ? files(p) : p.endsWith('.ts') ? [p] : [];
  });
}

/** Relative imports (value and type) of one file, resolved to src-relative paths. */
function importsOf(file: string): string[] {
  const text = readFileSync(file, 'utf8');
  const out: string[] = [];
  for (const m of text.matchAll(/(?:import|export)\s[^'"]*?from\s+'(\.[^']+)'|import\('(\.[^']+)'\)/g)) {
    const spec = (m[1] ?? m[2])!.replace(/\.js$/, '.ts');
    out.push(relative(src, resolve(dirname(file), spec)));
  }
  return out;
}

const layerOf = (p: string): string => (p.includes('/') ? p.split('/')[0]! : 'root');
const allowed: Record<string, string[]> = {
  core: ['core'],
  fetch: ['core', 'fetch'],
  collections: ['core', 'fetch', 'collections'],
  debug: ['core', 'debug'],
  kube: ['core', 'fetch', 'collections', 'debug', 'kube'],
  testing: ['core', 'fetch', 'collections', 'debug', 'kube', 'testing', 'apiserver'],
  apiserver: ['apiserver'],
  root: ['core', 'fetch', 'collections', 'debug'],
};

describe('architecture', () => {
  const graph = new Map(files(src).map((f) => [relative(src, f), importsOf(f)]));

  it('should keep imports flowing one way between layers', () => {
    expect(graph.size).toBeGreaterThan(60);
    const bad: string[] = [];
    for (const [file, deps] of graph) {
      const layer = layerOf(file);
      for (const d of deps) if (!allowed[layer]!.includes(layerOf(d))) bad.push(`${file} imports ${d}`);
    }
    expect(bad).toEqual([]);
  });

  it('should keep the embedded API server independent of the engine', () => {
    const bad = [...graph].filter(([f]) => f.startsWith('apiserver/')).flatMap(([f, deps]) => deps.filter((d) => !d.startsWith('apiserver/')).map((d) => `${f} imports ${d}`));
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
});

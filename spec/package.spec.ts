import { describe, it, expect, beforeAll } from '@jest/globals';
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

// Builds the package and imports it by name through package.json `exports`, as a user's program would.
const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');

const CORE = [
  'keyOf',
  'equals',
  'latest',
  'items',
  'KeyError',
  'TransformError',
  'batch',
  'newStaticCollection',
  'newStatic',
  'newCollection',
  'newManyCollection',
  'newSingleton',
  'newManyFromNothing',
  'joinCollection',
  'joinWithMergeCollection',
  'mapCollection',
  'collectionFromEvents',
  'singletonFromValues',
  'fetch',
  'fetchOne',
  'fetchOrList',
  'partialFetch',
  'filterKey',
  'filterKeys',
  'filterObjectName',
  'filterIndex',
  'filterLabel',
  'filterSelects',
  'filterSelectsNonEmpty',
  'filterGeneric',
  'newIndex',
  'newNamespaceIndex',
  'newRecomputeTrigger',
  'DebugHandler',
];
const KUBE = ['newInformer'];
const TESTING = ['startApiServer'];
const APISERVER = ['startApiServer'];

describe('the built package', () => {
  let out: string;
  beforeAll(() => {
    out = mkdtempSync(join(tmpdir(), 'rxkrt-build-'));
    execFileSync(
      process.execPath,
      [join(root, 'node_modules/typescript/bin/tsc'), '-p', join(root, 'tsconfig.lib.json'), '--outDir', join(out, 'dist')],
      { cwd: root, stdio: 'pipe' },
    );
  }, 120_000);

  it('should export every API.md name from rxkrt, rxkrt/kube, rxkrt/testing and rxkrt/apiserver', () => {
    // A copy of package.json beside the build lets `import 'rxkrt'` resolve through `exports`.
    const pkg = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as Record<string, unknown>;
    execFileSync('bash', ['-c', `cat > '${join(out, 'package.json')}'`], { input: JSON.stringify(pkg) });
    execFileSync('ln', ['-s', join(root, 'node_modules'), join(out, 'node_modules')]);
    const script = `
      const core = await import('rxkrt'); const kube = await import('rxkrt/kube'); const testing = await import('rxkrt/testing');
      const apiserver = await import('rxkrt/apiserver');
      const missing = [
        ...${JSON.stringify(CORE)}.filter((n) => typeof core[n] !== 'function'),
        ...${JSON.stringify(KUBE)}.filter((n) => typeof kube[n] !== 'function'),
        ...${JSON.stringify(TESTING)}.filter((n) => typeof testing[n] !== 'function'),
        ...${JSON.stringify(APISERVER)}.filter((n) => typeof apiserver[n] !== 'function'),
      ];
      const s = core.newStaticCollection([{ metadata: { name: 'a', namespace: 'ns' } }]);
      const c = core.newCollection(s, (ctx, o) => ({ metadata: o.metadata, n: core.fetch(ctx, s).length }));
      console.log(JSON.stringify({ missing, key: core.keyOf(c.list()[0]), n: c.list()[0].n, synced: c.hasSynced() }));`;
    const result = JSON.parse(
      execFileSync(process.execPath, ['--input-type=module', '-e', script], { cwd: out, encoding: 'utf8' }),
    ) as Record<string, unknown>;
    expect(result).toEqual({ missing: [], key: 'ns/a', n: 1, synced: true });
    rmSync(out, { recursive: true, force: true });
  }, 60_000);
});

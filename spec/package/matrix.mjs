// npm run test:package: what a user gets from `npm install rxkrt`, on each supported Node version.
//
// Packs the repository, then for each row makes a fresh project under the OS's temp folder (outside the repository,
// so nothing resolves through its node_modules), installs the tarball and its peers from the registry, and runs
// (a) an ESM program over the embedded API server, an informer and a derived collection, (b) a type-check of a
// TypeScript consumer of every entry point under moduleResolution node16, nodenext and bundler, and (c) on
// Node 22 and 24, a CommonJS require('rxkrt'). A first row does (a) and (b) for the core alone, without
// client-node. Prints a table; exits non-zero if anything failed. RXKRT_PACKAGE_KEEP=1 keeps the projects.
import { copyFileSync, existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { ensureNode, NODE_CACHE } from './nodeCache.mjs';
import { packAndCheck } from './pack.mjs';
import { cleanEnv, run, tail } from './run.mjs';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '../..');
const FIXTURE = join(ROOT, 'spec', 'package', 'fixture');
// The npm that runs this script (npm run sets npm_execpath); else the one installed beside this node.
const NPM_CLI = process.env.npm_execpath ?? join(dirname(process.execPath), '..', 'lib', 'node_modules', 'npm', 'bin', 'npm-cli.js');
// Pinned so a run is repeatable (bump by hand); Node 20 is the machine's own when it is this version.
const NODE_20 = '20.20.2';
// The first row is the README's `npm install rxkrt rxjs`: the core without client-node.
const CORE = { app: 'core.mjs', consumer: 'core.ts', expected: { outputs: ['prod/web=10.0.0.1'] } };
const KUBE = {
  app: 'app.mjs',
  consumer: 'consumer.ts',
  expected: { missing: [], outputs: ['default/a=1', 'default/b=2'], synced: true, debug: { '/readyz': 200, '/metrics': 501 } },
};
const ROWS = [
  { node: NODE_20, clientNode: undefined, ...CORE, requireEsm: false },
  { node: NODE_20, clientNode: '~1.4.0', ...KUBE, requireEsm: false },
  { node: '22.23.5', clientNode: '^2.0.1', ...KUBE, requireEsm: true },
  { node: '24.22.3', clientNode: '^2.0.1', ...KUBE, requireEsm: true },
];
const TYPESCRIPT = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')).devDependencies.typescript;
const RESOLUTIONS = { node16: 'node16', nodenext: 'nodenext', bundler: 'esnext' }; // moduleResolution → module
const REQUIRE_EXPECTED = { missing: [], key: 'ns/a', n: 1, synced: true };
const CHECKS = ['install', 'ESM app', ...Object.keys(RESOLUTIONS).map((m) => `tsc ${m}`), 'require(esm)'];

const seconds = (ms) => `${(ms / 1000).toFixed(1)}s`;

/** The output's last line, parsed and compared with `expected`; undefined when they match, else why not. */
function mismatch(result, expected) {
  const last = result.stdout.trim().split('\n').at(-1) ?? '';
  try {
    if (JSON.stringify(JSON.parse(last)) === JSON.stringify(expected)) return undefined;
  } catch {
    // Not JSON: reported below with the rest of the output.
  }
  return `expected ${JSON.stringify(expected)}, got:\n${tail(result.stdout)}\n${tail(result.stderr)}`;
}

/** A fresh consumer project for `row`: package.json, the fixture files and one tsconfig per moduleResolution. */
function makeProject(row) {
  const dir = mkdtempSync(join(tmpdir(), `rxkrt-package-node${row.node.split('.')[0]}-`));
  writeFileSync(join(dir, 'package.json'), JSON.stringify({ name: 'rxkrt-consumer', private: true, type: 'module' }, null, 2));
  for (const f of [row.app, row.consumer, 'require.cjs']) copyFileSync(join(FIXTURE, f), join(dir, f));
  for (const [moduleResolution, module] of Object.entries(RESOLUTIONS)) {
    // A Node program's settings: no DOM library (rxkrt's types must not need it; checking it triples the time).
    const compilerOptions = {
      module,
      moduleResolution,
      target: 'es2022',
      lib: ['es2022'],
      strict: true,
      noEmit: true,
      skipLibCheck: false,
      types: ['node'],
    };
    writeFileSync(join(dir, `tsconfig.${moduleResolution}.json`), JSON.stringify({ compilerOptions, files: [row.consumer] }, null, 2));
  }
  return dir;
}

/** Runs every check of one row; resolves to { row, versions, cells: { check: { ok, ms, detail } }, dir }. */
async function runRow(row, tarball) {
  const started = performance.now();
  const cells = {};
  const node =
    process.version === `v${row.node}` ? { bin: process.execPath, cached: true, machine: true } : await ensureNode(row.node, NPM_CLI);
  const dir = makeProject(row);
  const record = (check, result, detail) =>
    (cells[check] = { ok: result.ok && !detail, ms: result.ms, detail: detail ?? (result.ok ? undefined : tail(result.stderr, 30)) });
  const env = cleanEnv();
  const major = row.node.split('.')[0];
  // npm itself runs on the row's Node, so engines (rxkrt's, undici's) are checked against it, strictly. @types/ws:
  // client-node's declarations import 'ws' (through isomorphic-ws), and skipLibCheck is off to check rxkrt's own.
  const kube = row.clientNode === undefined ? [] : [`@kubernetes/client-node@${row.clientNode}`, '@types/ws@^8'];
  const install = await run(
    node.bin,
    [
      NPM_CLI,
      'install',
      '--no-audit',
      '--no-fund',
      '--engine-strict',
      tarball,
      'rxjs@^7.8.0',
      ...kube,
      `typescript@${TYPESCRIPT}`,
      `@types/node@${major}`,
    ],
    { cwd: dir, env },
  );
  const versions = {};
  for (const name of ['@kubernetes/client-node', 'rxjs', 'typescript', 'rxkrt']) {
    const file = join(dir, 'node_modules', name, 'package.json');
    if (existsSync(file)) versions[name] = JSON.parse(readFileSync(file, 'utf8')).version;
  }
  // An optional peer is never installed for the user: the core row proves nothing if it was.
  const unwanted = row.clientNode === undefined && versions['@kubernetes/client-node'] !== undefined;
  record('install', install, unwanted ? 'npm installed @kubernetes/client-node, an optional peer, unasked' : undefined);
  if (install.ok) {
    const app = await run(node.bin, [row.app], { cwd: dir, env, timeoutMs: 60_000 });
    record('ESM app', app, app.ok ? mismatch(app, row.expected) : undefined);
    // The three type-checks at once: each is mostly client-node's 1300 declaration files, read and checked alone.
    const modes = Object.keys(RESOLUTIONS);
    const tscs = await Promise.all(
      modes.map((m) => run(node.bin, [join('node_modules', 'typescript', 'bin', 'tsc'), '-p', `tsconfig.${m}.json`], { cwd: dir, env })),
    );
    modes.forEach((m, i) => record(`tsc ${m}`, tscs[i], tscs[i].ok ? undefined : tail(tscs[i].stdout, 30)));
    if (row.requireEsm) {
      const req = await run(node.bin, ['require.cjs'], { cwd: dir, env, timeoutMs: 60_000 });
      record('require(esm)', req, req.ok ? mismatch(req, REQUIRE_EXPECTED) : undefined);
    }
  }
  return { row, node, versions, cells, dir, ms: performance.now() - started };
}

/** The results as a Markdown table: one row per Node version, one column per check. */
function table(results) {
  const head = ['Node', 'client-node', ...CHECKS, 'row total'];
  const lines = results.map(({ row, node, versions, cells, ms }) => [
    `${row.node}${node.machine ? ' (machine)' : node.cached ? '' : ' (downloaded)'}`,
    row.clientNode === undefined ? 'none (core only)' : (versions['@kubernetes/client-node'] ?? row.clientNode),
    ...CHECKS.map((c) => (cells[c] ? `${cells[c].ok ? 'ok' : 'FAIL'} ${seconds(cells[c].ms)}` : '—')),
    seconds(ms),
  ]);
  const widths = head.map((h, i) => Math.max(h.length, ...lines.map((l) => l[i].length)));
  const fmt = (cols) => `| ${cols.map((c, i) => c.padEnd(widths[i])).join(' | ')} |`;
  return [fmt(head), fmt(widths.map((w) => '-'.repeat(w))), ...lines.map(fmt)].join('\n');
}

async function main() {
  const started = performance.now();
  const work = mkdtempSync(join(tmpdir(), 'rxkrt-pack-'));
  const packed = await packAndCheck(ROOT, work, NPM_CLI);
  console.log(
    `tarball: ${packed.files} files, ${(packed.size / 1024).toFixed(1)} kB packed, ${(packed.unpackedSize / 1024).toFixed(1)} kB unpacked (npm pack ${seconds(packed.ms)})`,
  );
  for (const p of packed.problems) console.log(`  tarball: ${p}`);
  console.log(`Node binaries cached in ${NODE_CACHE}; TypeScript ${TYPESCRIPT}`);
  // One row at a time: each install and type-check already keeps a core busy on a small machine.
  const results = [];
  for (const row of ROWS) results.push(await runRow(row, packed.tarball));
  console.log(`\n${table(results)}\n`);
  let failed = packed.problems.length;
  for (const { row, cells, dir } of results) {
    const bad = Object.entries(cells).filter(([, c]) => !c.ok);
    failed += bad.length;
    for (const [check, c] of bad) console.log(`Node ${row.node}, ${check} failed (project kept in ${dir}):\n${c.detail}\n`);
    if (bad.length === 0 && !process.env.RXKRT_PACKAGE_KEEP) rmSync(dir, { recursive: true, force: true });
  }
  rmSync(work, { recursive: true, force: true });
  const checks = packed.problems.length + results.reduce((n, r) => n + Object.keys(r.cells).length, 1);
  console.log(`${checks - failed} passed, ${failed} failed (${seconds(performance.now() - started)})`);
  process.exitCode = failed === 0 ? 0 : 1;
}

await main();

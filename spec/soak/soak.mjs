// `npm run soak -- --minutes N`: the randomized differential tests (core, informer, status loop), with their
// random faults, on fresh seeds for N minutes, in strict mode. Prints what each did and exits non-zero on any
// mismatch. Each suite runs in its own jest worker; see spec/helpers/soak.ts for what a suite counts.
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, existsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const usage = 'usage: npm run soak -- [--minutes N]   (default 30)';
const args = process.argv.slice(2);
let minutes = 30;
for (let i = 0; i < args.length; i++) {
  if (args[i] === '--minutes') minutes = Number(args[++i]);
  else if (args[i] === '--help') {
    console.log(usage);
    process.exit(0);
  } else {
    console.error(`unknown argument ${JSON.stringify(args[i])}\n${usage}`);
    process.exit(2);
  }
}
if (!(minutes > 0)) {
  console.error(`--minutes needs a positive number\n${usage}`);
  process.exit(2);
}

const dir = mkdtempSync(join(tmpdir(), 'rxkrt-soak-'));
const until = Date.now() + minutes * 60_000;
console.log(`soak: ${minutes} min of the randomized differential tests, strict mode, reports in ${dir}`);
const jest = spawnSync('npx', ['jest', 'spec/differential', '--maxWorkers=3', '--testTimeout', String(minutes * 60_000 + 300_000)], {
  stdio: 'inherit',
  env: {
    ...process.env,
    RXKRT_STRICT: '1',
    RXKRT_SOAK_UNTIL: String(until),
    RXKRT_SOAK_DIR: dir,
    NODE_OPTIONS: `${process.env.NODE_OPTIONS ?? ''} --experimental-vm-modules --expose-gc`.trim(),
  },
});

const rows = [];
for (const suite of ['core', 'informer', 'status-loop']) {
  const file = join(dir, `${suite}.json`);
  if (!existsSync(file)) {
    rows.push(`| ${suite} | no report (the suite did not reach its soak test) | | | | |`);
    continue;
  }
  const r = JSON.parse(readFileSync(file, 'utf8'));
  rows.push(`| ${suite} | ${r.minutes} | ${r.seeds} | ${r.ops} | ${r.faults} | ${r.mismatches} | ${r.heapStartMB} → ${r.heapEndMB} |`);
  for (const f of r.failed) console.log(`  ${suite} seed ${f.seed}: ${f.message.split('\n')[0]}`);
}
console.log(
  [
    '',
    '| suite | minutes | seeds | operations | faults injected | mismatches | heap MB, start → end |',
    '| --- | --- | --- | --- | --- | --- | --- |',
    ...rows,
  ].join('\n'),
);
process.exit(jest.status ?? 1);

// `npm pack` of the repository, and the check that the tarball holds what a user needs and nothing else.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { run, tail } from './run.mjs';

const TOP_LEVEL = new Set(['LICENSE', 'NOTICE', 'README.md', 'package.json']);

/** Every file package.json promises: the `exports` targets and the `bin` entries. */
function promisedFiles(pkg) {
  const targets = Object.values(pkg.exports).flatMap((conditions) => Object.values(conditions));
  return [...targets, ...Object.values(pkg.bin ?? {})].map((p) => p.replace(/^\.\//, ''));
}

/**
 * Packs `root` into `dest` (prepack builds dist/ first). Resolves to { tarball, files, size, unpackedSize, problems, ms };
 * `problems` lists files that should not be there and promised files that are missing.
 */
export async function packAndCheck(root, dest, npmCli) {
  const pack = await run(process.execPath, [npmCli, 'pack', '--json', '--pack-destination', dest], { cwd: root });
  if (!pack.ok) throw new Error(`npm pack failed:\n${tail(pack.stderr, 30)}`);
  const [info] = JSON.parse(pack.stdout);
  const paths = info.files.map((f) => f.path);
  const present = new Set(paths);
  const pkg = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8'));
  const problems = [
    ...paths.filter((p) => !TOP_LEVEL.has(p) && !p.startsWith('dist/')).map((p) => `unexpected file ${p}`),
    ...paths.filter((p) => /\.spec\.|\.tsbuildinfo$|\.map$/.test(p)).map((p) => `unexpected file ${p}`),
    ...[...TOP_LEVEL, ...promisedFiles(pkg)].filter((p) => !present.has(p)).map((p) => `missing file ${p}`),
  ];
  return {
    tarball: join(dest, info.filename),
    files: info.entryCount,
    size: info.size,
    unpackedSize: info.unpackedSize,
    problems,
    ms: pack.ms,
  };
}

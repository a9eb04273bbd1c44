// Another revision's build beside this checkout's, for the scripts that compare two builds (bench:ab, bench:counts).
import { execFileSync, execSync } from 'node:child_process';
import { existsSync, mkdirSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

/** The checkout these scripts were compiled from (dist/bench/*.js → the repository root). */
export const repo = resolve(dirname(fileURLToPath(import.meta.url)), '..', '..');

/**
 * Exports and builds `rev` once (kept in the system's temporary folder by commit, with this checkout's
 * node_modules); returns its short sha and its dist folder. Its `bench/rxkrtWorkloads.ts` builds its graph.
 */
export function buildRevision(rev: string): { sha: string; dist: string } {
  const sha = execFileSync('git', ['rev-parse', '--short', `${rev}^{commit}`], { cwd: repo, encoding: 'utf8' }).trim();
  const dir = join(tmpdir(), `rxkrt-ab-${sha}`);
  const dist = join(dir, 'dist');
  if (!existsSync(join(dist, 'bench', 'rxkrtWorkloads.js'))) {
    mkdirSync(dir, { recursive: true });
    execSync(`git archive ${sha} | tar -x -C ${JSON.stringify(dir)}`, { cwd: repo, stdio: ['ignore', 'ignore', 'inherit'] });
    if (!existsSync(join(dir, 'node_modules'))) symlinkSync(join(repo, 'node_modules'), join(dir, 'node_modules'), 'dir');
    if (!existsSync(join(dir, 'bench', 'rxkrtWorkloads.ts')))
      throw new Error(`revision ${sha} has no bench/rxkrtWorkloads.ts to build its graph with`);
    process.stderr.write(`  · building ${sha} in ${dir}\n`);
    execFileSync(process.execPath, [join(repo, 'node_modules', 'typescript', 'bin', 'tsc'), '-p', 'tsconfig.build.json'], {
      cwd: dir,
      stdio: 'inherit',
    });
  }
  return { sha, dist };
}

/**
 * This checkout's name: its commit, with "+changes" when what a build is made of (src, bench, the package
 * and compiler files) differs from it.
 */
export function checkoutName(): string {
  const here = execFileSync('git', ['rev-parse', '--short', 'HEAD'], { cwd: repo, encoding: 'utf8' }).trim();
  const dirty =
    execFileSync(
      'git',
      [
        'status',
        '--porcelain',
        '--untracked-files=no',
        '--',
        'src',
        'bench',
        'package.json',
        'package-lock.json',
        'tsconfig.json',
        'tsconfig.build.json',
      ],
      {
        cwd: repo,
        encoding: 'utf8',
      },
    ).trim() !== '';
  return `${here}${dirty ? '+changes' : ''}`;
}

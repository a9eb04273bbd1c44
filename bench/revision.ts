// Another revision's build beside this checkout's, for the scripts that compare two builds (bench:ab, bench:counts).
import { execFileSync, execSync } from 'node:child_process';
import { existsSync, mkdirSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

/** The checkout these scripts were compiled from (build/bench/*.js → the repository root). */
export const repo = resolve(dirname(fileURLToPath(import.meta.url)), '..', '..');

/**
 * Exports and builds `rev` once (kept in the system's temporary folder by commit, with this checkout's
 * node_modules); returns its short sha and the folder its build wrote (`build`, or `dist` for revisions from
 * before the package got a dist of its own). Its `bench/rxkrtWorkloads.ts` builds its graph.
 */
export function buildRevision(rev: string): { sha: string; dist: string } {
  const sha = execFileSync('git', ['rev-parse', '--short', `${rev}^{commit}`], { cwd: repo, encoding: 'utf8' }).trim();
  const dir = join(tmpdir(), `rxkrt-ab-${sha}`);
  const built = (): string | undefined =>
    ['build', 'dist'].map((d) => join(dir, d)).find((d) => existsSync(join(d, 'bench', 'rxkrtWorkloads.js')));
  if (built() === undefined) {
    mkdirSync(dir, { recursive: true });
    execSync(`git archive ${sha} | tar -x -C ${JSON.stringify(dir)}`, { cwd: repo, stdio: ['ignore', 'ignore', 'inherit'] });
    if (!existsSync(join(dir, 'node_modules'))) symlinkSync(join(repo, 'node_modules'), join(dir, 'node_modules'), 'dir');
    if (!existsSync(join(dir, 'bench', 'rxkrtWorkloads.ts')))
      throw new Error(`revision ${sha} has no bench/rxkrtWorkloads.ts to build its graph with`);
    process.stderr.write(`  · building ${sha} in ${dir}\n`);
    const tsc = join(repo, 'node_modules', 'typescript', 'bin', 'tsc');
    // A revision whose examples import rxkrt by name needs its package built first (they resolve it there).
    if (existsSync(join(dir, 'tsconfig.lib.json')))
      execFileSync(process.execPath, [tsc, '-p', 'tsconfig.lib.json'], { cwd: dir, stdio: 'inherit' });
    execFileSync(process.execPath, [tsc, '-p', 'tsconfig.build.json'], { cwd: dir, stdio: 'inherit' });
  }
  const dist = built();
  if (dist === undefined) throw new Error(`revision ${sha} built no bench/rxkrtWorkloads.js`);
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
        'tsconfig.lib.json',
      ],
      {
        cwd: repo,
        encoding: 'utf8',
      },
    ).trim() !== '';
  return `${here}${dirty ? '+changes' : ''}`;
}

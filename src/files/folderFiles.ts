// Which files of a folder a file source reads, and reading them.
import { readdirSync, readFileSync } from 'node:fs';
import { extname, join } from 'node:path';

/** @internal The extensions a file source reads unless told otherwise. */
export const DEFAULT_EXTENSIONS: readonly string[] = ['.yaml', '.yml', '.json'];

/**
 * @internal Every regular file under `dir`, at any depth, whose extension is one of `extensions`, sorted by
 * path so that a later file's object wins a shared key the same way on every scan. Entries that vanish
 * while the folder is walked (an editor's swap file, a rename in flight) are skipped: the next scan sees them.
 */
export function listFiles(dir: string, extensions: readonly string[]): string[] {
  const out: string[] = [];
  const walk = (d: string): void => {
    let entries;
    try {
      entries = readdirSync(d, { withFileTypes: true });
    } catch (e) {
      if (d !== dir && isGone(e)) return;
      throw e;
    }
    for (const entry of entries) {
      const path = join(d, entry.name);
      if (entry.isDirectory()) walk(path);
      else if (entry.isFile() && extensions.includes(extname(entry.name).toLowerCase())) out.push(path);
    }
  };
  walk(dir);
  return out.sort();
}

/** @internal The text of a file, or undefined when it is gone by the time it is read. */
export function readText(path: string): string | undefined {
  try {
    return readFileSync(path, 'utf8');
  } catch (e) {
    if (isGone(e)) return undefined;
    throw e;
  }
}

function isGone(e: unknown): boolean {
  const code = (e as { code?: unknown } | null)?.code;
  return code === 'ENOENT' || code === 'ENOTDIR';
}

// Helpers of the file source specs: temp folders, and waiting on a collection's events (never on a clock).
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Collection, TransformError } from '../../src/index.js';

/** A fresh temp folder, and the function that removes it. */
export function tempFolder(): { dir: string; remove(): void } {
  const dir = mkdtempSync(join(tmpdir(), 'rxkrt-files-'));
  return { dir, remove: () => rmSync(dir, { recursive: true, force: true }) };
}

/**
 * Resolves once `check()` holds, tested now and after each batch `c` emits; rejects after 10 s with the last
 * state (a hang guard, not a timing assertion: every wait ends on an event).
 */
export function until<T>(c: Collection<T>, check: () => boolean): Promise<void> {
  return new Promise((resolve, reject) => {
    let done = false;
    const timer = setTimeout(() => {
      done = true;
      reg.unregister();
      reject(new Error(`timed out waiting; last state ${JSON.stringify(c.list())}`));
    }, 10_000);
    const reg = c.registerBatch(() => {
      if (done || !check()) return;
      done = true;
      clearTimeout(timer);
      queueMicrotask(() => reg.unregister());
      resolve();
    });
  });
}

/** Resolves with the next error `c` reports that `match` accepts; rejects after 10 s. */
export function nextError<T>(c: Collection<T>, match: (e: TransformError) => boolean): Promise<TransformError> {
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      sub.unsubscribe();
      reject(new Error('timed out waiting for an error'));
    }, 10_000);
    const sub = c.errors$.subscribe((e) => {
      if (!match(e)) return;
      clearTimeout(timer);
      sub.unsubscribe();
      resolve(e);
    });
  });
}

/** Resolves once `check()` holds, polled on each macrotask; for waiting on a watcher's first event. */
export async function eventually(check: () => boolean, what: string): Promise<void> {
  const deadline = Date.now() + 10_000;
  while (!check()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 5));
  }
}

// Watching a folder for changes, coalescing a burst of them into one call.
import { watch, type FSWatcher } from 'node:fs';
import { asyncScheduler, type SchedulerLike, type Subscription } from 'rxjs';

/** Options of the file sources beyond `CollectionOptions`. */
export interface FileWatchOptions {
  /** Runs the debounced rescans (default `asyncScheduler`); tests inject a virtual one. */
  readonly scheduler?: SchedulerLike;
  /** How long the folder must stay quiet after a change before it is read again, in ms (default 100). */
  readonly debounceMs?: number;
  /**
   * Reads the folder again this often even without a change event, in ms, in case the platform dropped one
   * (default 30 000; 0 turns it off).
   */
  readonly resyncMs?: number;
}

/**
 * @internal Calls `changed` once the watched path has been quiet for `debounceMs` after a change, and every
 * `resyncMs`; `onError` gets what the watcher reports. Returns the function that stops it all.
 */
export function watchPath(
  path: string,
  recursive: boolean,
  opts: FileWatchOptions,
  changed: () => void,
  onError: (e: unknown) => void,
): () => void {
  const scheduler = opts.scheduler ?? asyncScheduler;
  const debounceMs = opts.debounceMs ?? 100;
  const resyncMs = opts.resyncMs ?? 30_000;
  let pending: Subscription | undefined;
  let resync: Subscription | undefined;
  let stopped = false;
  const run = (): void => {
    pending = undefined;
    if (!stopped) changed();
  };
  const poke = (): void => {
    if (stopped) return;
    // Each event postpones the read: a burst (a `kubectl cp` of twenty files, an editor's save dance) is one read.
    pending?.unsubscribe();
    pending = scheduler.schedule(run, debounceMs);
  };
  let watcher: FSWatcher | undefined;
  try {
    watcher = watch(path, { recursive, persistent: true }, poke);
    watcher.on('error', (e) => {
      onError(e);
      poke();
    });
  } catch (e) {
    onError(e);
  }
  if (resyncMs > 0) {
    const tick = (): void => {
      if (stopped) return;
      poke();
      resync = scheduler.schedule(tick, resyncMs);
    };
    resync = scheduler.schedule(tick, resyncMs);
  }
  return () => {
    stopped = true;
    pending?.unsubscribe();
    resync?.unsubscribe();
    watcher?.close();
  };
}

// newFileSingleton: a singleton holding what one watched file parses to.
import { dirname } from 'node:path';
import type { CollectionOptions } from '../core/types.js';
import { TransformError, UsageError, describeValue } from '../core/errors.js';
import { internal, requireFunction } from '../engine/internalCollection.js';
import { onAbort } from '../engine/onAbort.js';
import { newStatic, type StaticSingleton } from '../collections/newStatic.js';
import type { Singleton } from '../core/types.js';
import { readText } from './folderFiles.js';
import { watchPath, type FileWatchOptions } from './watchPath.js';

/** Options of `newFileSingleton`. */
export type FileSingletonOptions<T> = CollectionOptions<T> & FileWatchOptions;

/**
 * A singleton holding what the file at `path` parses to: `parse` gets its text and path and returns the
 * value (undefined for none). An empty or missing file holds no value. A file that fails to read or parse is
 * reported on `asCollection().errors$` (the key is its path) and the last good value stays. The file's
 * folder is watched (editors save by writing a new file and renaming it over the old one, which a watch of
 * the file itself would lose) and the file is read again once quiet for `debounceMs`, and every `resyncMs`.
 * The value's key is `path` unless the `key` option says otherwise. The first read happens in the constructor; `stop` closes the watch.
 * @throws UsageError when `path` does not exist, or cannot be read or parsed, at first.
 * @example const settings = newFileSingleton('/etc/app/settings.yaml', (text) => parseYamlDocuments(text)[0] as Settings);
 */
export function newFileSingleton<T>(
  path: string,
  parse: (text: string, path: string) => T | undefined,
  opts?: FileSingletonOptions<NoInfer<T>>,
): Singleton<T> {
  requireFunction(parse, 'newFileSingleton', 'a parse function');
  let first: string | undefined;
  try {
    first = typeof path === 'string' ? readText(path) : undefined;
  } catch (e) {
    throw new UsageError(`newFileSingleton: cannot read ${describeValue(path)}: ${e instanceof Error ? e.message : String(e)}`);
  }
  if (first === undefined) throw new UsageError(`newFileSingleton: ${describeValue(path)} does not exist`);
  // Keyed by the path unless told otherwise: a file's content (settings, say) often has no key of its own.
  const singleton: StaticSingleton<T> = newStatic<T>(undefined, { name: `File[${path}]`, key: () => path, ...opts });
  const node = internal(singleton.asCollection());
  let lastText: string | undefined;

  const read = (): void => {
    if (node.disposed) return;
    let text: string | undefined;
    try {
      text = readText(path);
    } catch (e) {
      node.reportError(new TransformError(node.name, path, e, 'cannot read the file'));
      return;
    }
    if (text === lastText) return;
    try {
      const value = text === undefined || text.trim() === '' ? undefined : parse(text, path);
      singleton.set(value ?? undefined);
      lastText = text;
    } catch (e) {
      node.reportError(new TransformError(node.name, path, e, 'cannot parse the file'));
    }
  };

  try {
    const value = first.trim() === '' ? undefined : parse(first, path);
    singleton.set(value ?? undefined);
    lastText = first;
  } catch (e) {
    throw new UsageError(`newFileSingleton: cannot parse ${describeValue(path)}: ${e instanceof Error ? e.message : String(e)}`);
  }
  // The folder's every change is a cue to read the file again: comparing its text costs less than telling
  // which of the platform's rename events concern it.
  const stopWatching = watchPath(
    dirname(path),
    false,
    opts ?? {},
    () => read(),
    (e) => node.reportError(new TransformError(node.name, path, e, 'the file watch failed')),
  );
  if (opts?.stop !== undefined) onAbort(opts.stop, stopWatching);
  return singleton;
}

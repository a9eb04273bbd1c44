// newFileCollection: a collection of the objects parsed from the files of a watched folder.
import { statSync } from 'node:fs';
import type { Collection, CollectionOptions } from '../core/types.js';
import { TransformError, UsageError, describeValue } from '../core/errors.js';
import { internal, requireFunction } from '../engine/internalCollection.js';
import { onAbort } from '../engine/onAbort.js';
import { newStaticCollection } from '../collections/newStaticCollection.js';
import { DEFAULT_EXTENSIONS, listFiles, readText } from './folderFiles.js';
import { watchPath, type FileWatchOptions } from './watchPath.js';

/** Options of `newFileCollection`. */
export interface FileCollectionOptions<T> extends CollectionOptions<T>, FileWatchOptions {
  /** File name extensions read, lower case with the dot (default `.yaml`, `.yml`, `.json`). */
  readonly extensions?: readonly string[];
}

/** What one file last gave: its text, and the objects parsed from it (kept when a later text fails to parse). */
interface FileContent<T> {
  text: string;
  objects: readonly T[];
}

/**
 * A collection of the objects parsed from every file under `dir` (any depth) whose extension is `.yaml`,
 * `.yml` or `.json`. `parse` gets each file's text and path and returns one object, several, or undefined
 * for none (`parseYamlDocuments` is the usual start); empty files are skipped. A file that fails to read or
 * parse is reported on `errors$` (the key is its path) and keeps its last good objects. The folder is
 * watched (Node's `fs.watch`, recursive) and read again in full once it has been quiet for `debounceMs`, so
 * a burst of writes, renames and deletes is one transaction; it is also read every `resyncMs` in case the
 * platform dropped an event. Two files giving one key: the later path wins. Synced after the first read,
 * which happens in the constructor; `stop` closes the watch.
 * @throws UsageError when `dir` is not a readable folder.
 * @example
 * const configs = newFileCollection<ConfigMap>('/etc/app/config', (text) => parseYamlDocuments(text) as ConfigMap[]);
 */
export function newFileCollection<T>(
  dir: string,
  parse: (text: string, path: string) => T | readonly T[] | undefined,
  opts?: FileCollectionOptions<NoInfer<T>>,
): Collection<T> {
  requireFunction(parse, 'newFileCollection', 'a parse function');
  if (!isDirectory(dir)) throw new UsageError(`newFileCollection: ${describeValue(dir)} is not a readable folder`);
  const collection = newStaticCollection<T>([], { name: `Files[${dir}]`, ...opts, synced: false });
  const node = internal(collection);
  const extensions = (opts?.extensions ?? DEFAULT_EXTENSIONS).map((e) => e.toLowerCase());
  const files = new Map<string, FileContent<T>>();

  const report = (path: string | undefined, error: unknown, what: string): void =>
    node.reportError(new TransformError(node.name, path, error, what));

  const scan = (): void => {
    if (node.disposed) return;
    let paths: string[];
    try {
      paths = listFiles(dir, extensions);
    } catch (e) {
      // The folder itself is gone or unreadable: keep what was read, and say so.
      report(dir, e, 'cannot read the folder');
      return;
    }
    const seen = new Set<string>();
    for (const path of paths) {
      let text: string | undefined;
      try {
        text = readText(path);
      } catch (e) {
        report(path, e, 'cannot read the file');
        if (files.has(path)) seen.add(path);
        continue;
      }
      if (text === undefined) continue;
      seen.add(path);
      const last = files.get(path);
      if (last !== undefined && last.text === text) continue;
      try {
        files.set(path, { text, objects: text.trim() === '' ? [] : toList(parse(text, path)) });
      } catch (e) {
        report(path, e, 'cannot parse the file');
      }
    }
    for (const path of [...files.keys()]) if (!seen.has(path)) files.delete(path);
    const objects: T[] = [];
    for (const path of [...files.keys()].sort()) objects.push(...files.get(path)!.objects);
    collection.reset(objects);
  };

  scan();
  collection.markSynced();
  const stopWatching = watchPath(dir, true, opts ?? {}, scan, (e) => report(dir, e, 'the folder watch failed'));
  if (opts?.stop !== undefined) onAbort(opts.stop, stopWatching);
  return collection;
}

function toList<T>(parsed: T | readonly T[] | undefined): readonly T[] {
  if (parsed === undefined || parsed === null) return [];
  return Array.isArray(parsed) ? (parsed as readonly T[]) : [parsed as T];
}

function isDirectory(dir: unknown): dir is string {
  try {
    return typeof dir === 'string' && statSync(dir).isDirectory();
  } catch {
    return false;
  }
}

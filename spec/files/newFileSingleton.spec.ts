import { describe, it, expect, beforeEach, afterEach } from '@jest/globals';
import { renameSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { newFileSingleton, parseYamlDocuments } from '../../src/files/index.js';
import { setLogger, UsageError, type Singleton } from '../../src/index.js';
import { ManualScheduler } from '../helpers/manualScheduler.js';
import { nextError, tempFolder, until } from './fileTestKit.js';

interface Settings {
  mode: string;
}
const parse = (text: string): Settings | undefined => parseYamlDocuments(text)[0] as Settings | undefined;
const changed = (s: Singleton<Settings>, check: (v: Settings | undefined) => boolean): Promise<void> =>
  until(s.asCollection(), () => check(s.get()));

describe('newFileSingleton', () => {
  let folder: ReturnType<typeof tempFolder>;
  let path: string;
  let stop: AbortController;
  beforeEach(() => {
    folder = tempFolder();
    path = join(folder.dir, 'settings.yaml');
    stop = new AbortController();
    setLogger({ warn() {}, error() {} });
  });
  afterEach(() => {
    stop.abort();
    folder.remove();
    setLogger();
  });
  const options = () => ({ stop: stop.signal, debounceMs: 5, resyncMs: 0 });

  it('should hold what the file parses to, keyed by its path, and follow writes, editor saves and deletes', async () => {
    writeFileSync(path, 'mode: strict\n');
    const s = newFileSingleton(path, parse, options());
    expect(s.get()).toEqual({ mode: 'strict' });
    expect(s.asCollection().getKey(path)).toEqual({ mode: 'strict' });
    expect(s.hasSynced()).toBe(true);

    writeFileSync(path, 'mode: lenient\n');
    await changed(s, (v) => v?.mode === 'lenient');
    // An editor's save: a new file renamed over the old one.
    writeFileSync(join(folder.dir, '.settings.yaml.swp'), 'mode: saved\n');
    renameSync(join(folder.dir, '.settings.yaml.swp'), path);
    await changed(s, (v) => v?.mode === 'saved');
    rmSync(path);
    await changed(s, (v) => v === undefined);
    writeFileSync(path, '');
    writeFileSync(path, 'mode: back\n');
    await changed(s, (v) => v?.mode === 'back');
  });

  it('should report a parse error with the path and keep the last good value', async () => {
    writeFileSync(path, 'mode: strict\n');
    const s = newFileSingleton(path, parse, { ...options(), name: 'Settings' });
    const error = nextError(s.asCollection(), (e) => e.key === path);
    writeFileSync(path, 'mode: [unclosed\n');
    expect((await error).message).toContain('collection "Settings"');
    expect(s.get()).toEqual({ mode: 'strict' });
  });

  it('should hold no value for an empty file', () => {
    writeFileSync(path, '\n');
    expect(newFileSingleton(path, parse, options()).get()).toBeUndefined();
  });

  it('should read the file again on the injected scheduler, and stop with the stop signal', () => {
    writeFileSync(path, 'mode: a\n');
    const scheduler = new ManualScheduler();
    const s = newFileSingleton(path, parse, { ...options(), scheduler, resyncMs: 500 });
    writeFileSync(path, 'mode: b\n');
    scheduler.advance(500 + 5);
    expect(s.get()).toEqual({ mode: 'b' });
    stop.abort();
    expect(scheduler.pending()).toEqual([]);
  });

  it('should refuse a file that is missing or does not parse at first', () => {
    expect(() => newFileSingleton(join(folder.dir, 'missing.yaml'), parse)).toThrow(UsageError);
    writeFileSync(path, 'mode: [unclosed\n');
    expect(() => newFileSingleton(path, parse)).toThrow(/cannot parse .*settings\.yaml/);
  });
});

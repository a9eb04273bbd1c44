import { describe, it, expect, beforeEach, afterEach } from '@jest/globals';
import { mkdirSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { newFileCollection, parseYamlDocuments } from '../../src/files/index.js';
import { setLogger, UsageError, type Collection, type Event } from '../../src/index.js';
import { internal } from '../../src/engine/internalCollection.js';
import { ManualScheduler } from '../helpers/manualScheduler.js';
import { eventually, nextError, tempFolder, until } from './fileTestKit.js';

interface Cm {
  metadata: { name: string; namespace?: string };
  data?: Record<string, string>;
}
const parse = (text: string): Cm[] => parseYamlDocuments(text) as Cm[];
const names = (c: Collection<Cm>): string[] =>
  c
    .list()
    .map((o) => o.metadata.name)
    .sort();
const cm = (name: string, v = '1'): string => `metadata:\n  name: ${name}\ndata:\n  v: "${v}"\n`;

describe('newFileCollection', () => {
  let folder: ReturnType<typeof tempFolder>;
  let stops: AbortController[] = [];
  const options = () => {
    const s = new AbortController();
    stops.push(s);
    return { stop: s.signal, debounceMs: 5, resyncMs: 0 };
  };
  beforeEach(() => {
    folder = tempFolder();
    stops = [];
    setLogger({ warn() {}, error() {} });
  });
  afterEach(() => {
    for (const s of stops) s.abort();
    folder.remove();
    setLogger();
  });

  it('should read every YAML and JSON file at any depth, skip empty files and other extensions, and be synced', () => {
    writeFileSync(join(folder.dir, 'a.yaml'), `${cm('a')}---\n${cm('b')}`);
    mkdirSync(join(folder.dir, 'nested', 'deeper'), { recursive: true });
    writeFileSync(join(folder.dir, 'nested', 'deeper', 'c.json'), JSON.stringify({ metadata: { name: 'c' } }));
    writeFileSync(join(folder.dir, 'nested', 'd.yml'), cm('d'));
    writeFileSync(join(folder.dir, 'empty.yaml'), '  \n');
    writeFileSync(join(folder.dir, 'notes.txt'), cm('ignored'));
    const c = newFileCollection(folder.dir, parse, options());
    expect(names(c)).toEqual(['a', 'b', 'c', 'd']);
    expect(c.hasSynced()).toBe(true);
  });

  it('should follow real writes, renames and deletes', async () => {
    writeFileSync(join(folder.dir, 'a.yaml'), cm('a'));
    const c = newFileCollection(folder.dir, parse, options());
    const seen: string[] = [];
    c.register((e: Event<Cm>) => void seen.push(`${e.type}/${(e.new ?? e.old)!.metadata.name}`));
    seen.length = 0;

    writeFileSync(join(folder.dir, 'b.yaml'), cm('b'));
    await until(c, () => names(c).includes('b'));
    writeFileSync(join(folder.dir, 'a.yaml'), cm('a', '2'));
    await until(c, () => c.getKey('a')?.data?.['v'] === '2');
    renameSync(join(folder.dir, 'b.yaml'), join(folder.dir, 'b.txt'));
    await until(c, () => !names(c).includes('b'));
    mkdirSync(join(folder.dir, 'sub'));
    renameSync(join(folder.dir, 'b.txt'), join(folder.dir, 'sub', 'b.yml'));
    await until(c, () => names(c).includes('b'));
    rmSync(join(folder.dir, 'a.yaml'));
    await until(c, () => !names(c).includes('a'));
    expect(names(c)).toEqual(['b']);
    expect(seen).toEqual(['add/b', 'update/a', 'delete/b', 'add/b', 'delete/a']);
  });

  it('should report a parse error with the path and keep the last good content of that file', async () => {
    const path = join(folder.dir, 'a.yaml');
    writeFileSync(path, cm('a'));
    const c = newFileCollection(folder.dir, parse, { ...options(), name: 'Configs' });
    const error = nextError(c, (e) => e.key === path);
    writeFileSync(path, 'metadata: [unclosed\n');
    const e = await error;
    expect(e.message).toContain('collection "Configs"');
    expect(e.message).toContain('cannot parse the file');
    expect(names(c)).toEqual(['a']);
    writeFileSync(path, cm('a2'));
    await until(c, () => names(c).includes('a2'));
    expect(names(c)).toEqual(['a2']);
  });

  it('should coalesce a burst of writes into one transaction, on the injected scheduler', async () => {
    const scheduler = new ManualScheduler();
    const c = newFileCollection(folder.dir, parse, { ...options(), scheduler, debounceMs: 100 });
    const batches: number[] = [];
    c.registerBatch((b) => void batches.push(b.length), false);
    for (let i = 0; i < 5; i++) writeFileSync(join(folder.dir, `f${i}.yaml`), cm(`f${i}`));
    await eventually(() => scheduler.pending().length > 0, 'the watcher to report the writes');
    expect(names(c)).toEqual([]);
    scheduler.advance(100);
    expect(batches).toEqual([5]);
    expect(names(c)).toEqual(['f0', 'f1', 'f2', 'f3', 'f4']);
  });

  it('should read the folder again every resyncMs, whatever the watcher reports', () => {
    const scheduler = new ManualScheduler();
    const c = newFileCollection(folder.dir, parse, { ...options(), scheduler, debounceMs: 10, resyncMs: 1000 });
    writeFileSync(join(folder.dir, 'late.yaml'), cm('late'));
    scheduler.advance(1000 + 10);
    expect(names(c)).toEqual(['late']);
  });

  it('should stop watching when stopped', () => {
    const scheduler = new ManualScheduler();
    const s = new AbortController();
    const c = newFileCollection(folder.dir, parse, { stop: s.signal, scheduler, debounceMs: 10, resyncMs: 1000 });
    expect(scheduler.pending()).toEqual([1000]);
    s.abort();
    expect(scheduler.pending()).toEqual([]);
    expect(internal(c).disposed).toBe(true);
  });

  it('should refuse a folder that does not exist and a parse that is not a function', () => {
    expect(() => newFileCollection(join(folder.dir, 'missing'), parse)).toThrow(UsageError);
    expect(() => newFileCollection(folder.dir, 'yaml' as never)).toThrow(/parse function/);
  });
});

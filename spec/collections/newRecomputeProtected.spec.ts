import { describe, it, expect } from '@jest/globals';
import { batch, newCollection, newRecomputeProtected, newStaticCollection } from '../../src/index.js';

interface Ns {
  metadata: { name: string };
}
const ns = (name: string): Ns => ({ metadata: { name } });

describe('newRecomputeProtected', () => {
  it('should rerun exactly the transforms that read it through get(ctx) when modified', () => {
    const allowed = newRecomputeProtected(new Set(['prod']));
    const namespaces = newStaticCollection<Ns>([ns('prod'), ns('staging')]);
    let readerRuns = 0;
    let otherRuns = 0;
    const visible = newCollection(namespaces, (ctx, n) => {
      readerRuns++;
      return allowed.get(ctx).has(n.metadata.name) ? n : undefined;
    });
    newCollection(namespaces, (_ctx, n) => {
      otherRuns++;
      return n;
    });
    expect(visible.list()).toEqual([ns('prod')]);
    allowed.modify((set) => void set.add('staging'));
    expect(visible.list()).toEqual([ns('prod'), ns('staging')]);
    expect(readerRuns).toBe(4);
    expect(otherRuns).toBe(2);
  });

  it('should replace the data with what modify returns, and read it unprotected', () => {
    const limit = newRecomputeProtected(1);
    const rows = newStaticCollection<Ns>([ns('a'), ns('b')]);
    const under = newCollection(rows, (ctx, r) => (r.metadata.name.charCodeAt(0) - 96 <= limit.get(ctx) ? r : undefined));
    expect(under.list()).toEqual([ns('a')]);
    limit.modify((n) => n + 1);
    expect(limit.accessUnprotected()).toBe(2);
    expect(under.list()).toEqual([ns('a'), ns('b')]);
  });

  it('should keep readers unsynced until marked synced, when built unsynced', () => {
    const data = newRecomputeProtected({ on: true }, { startSynced: false });
    const reader = newCollection(newStaticCollection<Ns>([ns('a')]), (ctx, r) => (data.get(ctx).on ? r : undefined));
    expect(reader.hasSynced()).toBe(false);
    data.markSynced();
    expect(reader.hasSynced()).toBe(true);
  });

  it('should rerun readers on triggerRecomputation, once per batch', () => {
    const data = newRecomputeProtected({ v: 1 });
    let runs = 0;
    newCollection(newStaticCollection<Ns>([ns('a')]), (ctx, r) => {
      runs++;
      data.get(ctx);
      return r;
    });
    batch(() => {
      data.triggerRecomputation();
      data.modify((d) => ({ v: d.v + 1 }));
    });
    expect(runs).toBe(2);
  });
});

import { describe, it, expect } from '@jest/globals';
import { newStaticCollection, newCollection, fetch, filterLabel, batch } from '../../src/index.js';
import { trackEvents } from '../../src/testing/tracker.js';

interface Pod { metadata: { name: string; namespace: string; labels?: Record<string, string> }; ip?: string }
const pod = (name: string, ip?: string, labels?: Record<string, string>): Pod => ({ metadata: { name, namespace: 'ns', labels }, ip });

describe('newCollection', () => {
  it('should derive outputs and follow changes', () => {
    const pods = newStaticCollection<Pod>([]);
    const ips = newCollection(pods, (_ctx, p) => (p.ip ? { metadata: p.metadata, ip: p.ip } : undefined));
    const t = trackEvents(ips);
    expect(ips.hasSynced()).toBe(true);
    pods.updateObject(pod('a'));
    t.expectEmpty();
    pods.updateObject(pod('a', '1.1.1.1'));
    t.expectOrdered('add/ns/a');
    pods.updateObject(pod('a', '1.1.1.2'));
    t.expectOrdered('update/ns/a');
    pods.updateObject(pod('a', '1.1.1.2'));
    t.expectEmpty();
    pods.deleteObject('ns/a');
    t.expectOrdered('delete/ns/a');
  });

  it('should recompute on fetched changes', () => {
    const pods = newStaticCollection<Pod>([]);
    const svcs = newStaticCollection<{ metadata: { name: string; namespace: string }; sel: Record<string, string> }>([]);
    const eps = newCollection(svcs, (ctx, s) => ({ metadata: s.metadata, pods: fetch(ctx, pods, filterLabel(s.sel)).map((p) => p.metadata.name).sort() }));
    const t = trackEvents(eps);
    svcs.updateObject({ metadata: { name: 's', namespace: 'ns' }, sel: { app: 'x' } });
    t.expectOrdered('add/ns/s');
    expect(eps.getKey('ns/s')?.pods).toEqual([]);
    batch(() => {
      pods.updateObject(pod('a', '1', { app: 'x' }));
      pods.updateObject(pod('b', '1', { app: 'x' }));
      pods.updateObject(pod('c', '1', { app: 'y' }));
    });
    t.expectOrdered('update/ns/s');
    expect(eps.getKey('ns/s')?.pods).toEqual(['a', 'b']);
    pods.updateObject(pod('c', '2', { app: 'y' }));
    t.expectEmpty();
    pods.updateObject(pod('a', '1', { app: 'z' }));
    t.expectOrdered('update/ns/s');
    expect(eps.getKey('ns/s')?.pods).toEqual(['b']);
  });
});

import { describe, it, expect } from '@jest/globals';
import {
  DebugHandler,
  batch,
  fetch,
  filterLabel,
  keyOf,
  newStaticCollection,
  newStatusCollection,
  newStatusManyCollection,
  setLogger,
  type ObjectWithStatus,
} from '../../src/index.js';
import { trackEvents } from '../../src/testing/tracker.js';
import { NS, messageOf, pod, service, type Pod, type Service } from '../helpers/fixtures.js';

interface Endpoint {
  readonly metadata: { readonly name: string; readonly namespace: string };
  readonly ip: string;
}
interface SvcStatus {
  readonly validName: boolean;
  readonly totalEndpoints: number;
}

const statusKey = (o: ObjectWithStatus<Service, unknown>): string => keyOf(o.obj);

/** krt status_test: endpoints per service as outputs, `{ validName, totalEndpoints }` as status. */
function build(pods = newStaticCollection<Pod>([]), services = newStaticCollection<Service>([])) {
  const [status, endpoints] = newStatusManyCollection<Service, SvcStatus, Endpoint>(
    services,
    (ctx, svc) => {
      const selected = fetch(ctx, pods, filterLabel(svc.spec?.selector ?? {}));
      const outputs = selected
        .filter((p) => p.status?.podIP)
        .map((p) => ({
          metadata: { name: `${svc.metadata.name}/${p.metadata.name}`, namespace: svc.metadata.namespace },
          ip: p.status!.podIP!,
        }));
      // A pod asking for it removes the status altogether (the transform returns no status).
      if (selected.some((p) => p.metadata.labels?.['delete-status'] === 'true')) return { outputs };
      return { status: { validName: svc.metadata.name.length > 2, totalEndpoints: outputs.length }, outputs };
    },
    { name: 'Services' },
  );
  return { pods, services, status, endpoints };
}

describe('newStatusManyCollection', () => {
  it('should follow krt TestCollectionStatus step by step', () => {
    const { pods, services, status, endpoints } = build();
    const st = trackEvents(status, { key: statusKey });
    const ep = trackEvents(endpoints);

    // A pod without a service: nothing at all.
    pods.updateObject(pod('name', undefined, { app: 'foo' }));
    st.expectEmpty();
    ep.expectEmpty();

    // The service appears: a status with no endpoints (the pod has no IP yet).
    services.updateObject(service('svc', { app: 'foo' }));
    st.expectOrdered(`add/${NS}/svc`);
    expect(status.getKey(`${NS}/svc`)?.status).toEqual({ validName: true, totalEndpoints: 0 });
    ep.expectEmpty();

    // The pod gets an IP: an endpoint, and the status counts it.
    pods.updateObject(pod('name', '1.2.3.4', { app: 'foo' }));
    ep.expectOrdered(`add/${NS}/svc/name`);
    st.expectOrdered(`update/${NS}/svc`);
    expect(status.getKey(`${NS}/svc`)?.status.totalEndpoints).toBe(1);

    // The IP changes: the endpoint changes, the status does not.
    pods.updateObject(pod('name', '1.2.3.5', { app: 'foo' }));
    ep.expectOrdered(`update/${NS}/svc/name`);
    st.expectEmpty();

    // No status from the transform: the status goes away; the endpoint stays.
    pods.updateObject(pod('name', '1.2.3.5', { app: 'foo', 'delete-status': 'true' }));
    st.expectOrdered(`delete/${NS}/svc`);
    expect(status.getKey(`${NS}/svc`)).toBeUndefined();
    expect(endpoints.list()).toHaveLength(1);

    // And it comes back.
    pods.updateObject(pod('name', '1.2.3.5', { app: 'foo', 'delete-status': 'false' }));
    st.expectOrdered(`add/${NS}/svc`);

    // The pod goes: no endpoints, the status says so.
    pods.deleteObject(`${NS}/name`);
    ep.expectOrdered(`delete/${NS}/svc/name`);
    st.expectOrdered(`update/${NS}/svc`);
    expect(status.getKey(`${NS}/svc`)?.status).toEqual({ validName: true, totalEndpoints: 0 });

    // The service goes: so does its status.
    services.deleteObject(`${NS}/svc`);
    st.expectOrdered(`delete/${NS}/svc`);
    expect(status.list()).toEqual([]);
  });

  it('should pair each status with the input it was computed from, so an input change alone re-emits it', () => {
    const { services, status } = build();
    services.updateObject(service('svc', { app: 'foo' }));
    const st = trackEvents(status, { key: statusKey });
    st.expectOrdered(`add/${NS}/svc`);
    const relabelled: Service = { ...service('svc', { app: 'foo' }), metadata: { name: 'svc', namespace: NS, labels: { team: 'a' } } };
    services.updateObject(relabelled);
    st.expectOrdered(`update/${NS}/svc`);
    expect(status.getKey(`${NS}/svc`)?.obj).toEqual(relabelled);
    // Re-writing an equal input changes nothing downstream.
    services.updateObject({ ...relabelled });
    st.expectEmpty();
  });

  it('should change a status and its outputs in the same transaction (no handler sees one without the other)', () => {
    const { pods, services, status, endpoints } = build();
    services.updateObject(service('svc', { app: 'foo' }));
    const seen: string[] = [];
    status.register(() => {
      seen.push(`status sees ${endpoints.list().length} endpoint(s)`);
    });
    endpoints.register(() => {
      seen.push(`endpoints see total ${status.getKey(`${NS}/svc`)?.status.totalEndpoints}`);
    });
    seen.length = 0;
    batch(() => {
      pods.updateObject(pod('a', '1.1.1.1', { app: 'foo' }));
      pods.updateObject(pod('b', '1.1.1.2', { app: 'foo' }));
    });
    // Handlers of different collections may run in any order; each sees both changes committed.
    expect(seen.sort()).toEqual(['endpoints see total 2', 'endpoints see total 2', 'status sees 2 endpoint(s)']);
  });

  it('should sync once its input has synced, and name the status collection after the option', async () => {
    const services = newStaticCollection<Service>([service('svc', { app: 'x' })], { synced: false });
    const { status, endpoints } = build(newStaticCollection<Pod>([]), services);
    expect(status.name).toBe('Services/status');
    expect(status.hasSynced()).toBe(false);
    expect(endpoints.hasSynced()).toBe(false);
    services.markSynced();
    expect(await status.waitUntilSynced()).toBe(true);
    expect(await endpoints.waitUntilSynced()).toBe(true);
    expect(status.list()).toHaveLength(1);
  });

  it('should keep the last status and outputs of an input whose transform throws, and report the error', () => {
    const services = newStaticCollection<Service>([]);
    const [status, outputs] = newStatusCollection<Service, { n: number }, string>(
      services,
      (_ctx, svc) => {
        if (svc.metadata.labels?.['bad'] === 'true') throw new Error('bad service');
        return { status: { n: Object.keys(svc.spec?.selector ?? {}).length }, output: `out-${svc.metadata.name}` };
      },
      { name: 'Single' },
    );
    const errors: string[] = [];
    const logged: string[] = [];
    setLogger({ warn: () => {}, error: (a, b?: string) => logged.push(messageOf(a, b)) });
    status.errors$.subscribe((e) => errors.push(e.message));
    outputs.errors$.subscribe((e) => errors.push(e.message));
    services.updateObject(service('svc', { a: '1' }));
    expect(status.getKey(`${NS}/svc`)?.status).toEqual({ n: 1 });
    expect(outputs.list()).toEqual(['out-svc']);
    services.updateObject({ ...service('svc', { a: '1', b: '2' }), metadata: { name: 'svc', namespace: NS, labels: { bad: 'true' } } });
    expect(status.getKey(`${NS}/svc`)?.status).toEqual({ n: 1 });
    expect(outputs.list()).toEqual(['out-svc']);
    // Reported on both collections the user holds (the engine node that runs the transform is hidden).
    expect(errors).toHaveLength(2);
    for (const e of errors) expect(e).toMatch(new RegExp(`key "${NS}/svc".*bad service`));
    // ... and logged once.
    setLogger();
    expect(logged).toHaveLength(1);
  });

  it('should treat a null status and a null output as none (single-output form)', () => {
    const services = newStaticCollection<Service>([service('svc', {})]);
    const [status, outputs] = newStatusCollection<Service, { ok: true }, string>(services, () => ({ status: null, output: null }));
    expect(status.list()).toEqual([]);
    expect(outputs.list()).toEqual([]);
  });

  it('should appear in a debug dump under its status name', () => {
    const debug = new DebugHandler();
    const services = newStaticCollection<Service>([service('svc', { a: '1' })]);
    newStatusCollection<Service, { n: number }, never>(services, () => ({ status: { n: 1 } }), { name: 'Dbg', debugger: debug });
    const entry = debug.dump().find((d) => d.name === 'Dbg/status');
    expect(entry?.state.outputs).toEqual({ [`${NS}/svc`]: { obj: service('svc', { a: '1' }), status: { n: 1 } } });
  });
});

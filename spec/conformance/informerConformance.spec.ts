// krt's conformance suite (reference §10) for the informer (krt rig 1: ConfigMaps). Changes go through the
// embedded API server and arrive by watch, so the rig's `settle()` waits until the collection shows them; the
// steps are the shared ones (steps.ts), with a race step of concurrent creations.
import { describe, it, expect, afterEach } from '@jest/globals';
import { CoreV1Api, makeInformer, type KubeConfig, type V1ConfigMap } from '@kubernetes/client-node';
import { keyOf, latest, type Collection, type Event } from '../../src/index.js';
import { fromInformer, newInformer } from '../../src/kube/index.js';
import { Harness, until } from '../helpers/kube.js';
import { RIG_METADATA, type Named, type Rig } from './rig.js';
import { runConformance, runReplaceConformance, type RaceStep } from './steps.js';

/** ConfigMaps of every namespace as a collection, stopped by `stop`. */
type InformerOf = (kc: KubeConfig, stop: AbortSignal) => Collection<V1ConfigMap>;

const rxkrtInformer: InformerOf = (kc, stop) =>
  newInformer<V1ConfigMap>(
    kc,
    { apiVersion: 'v1', kind: 'ConfigMap' },
    { stop, metadata: { ...RIG_METADATA }, name: 'conformance/informer' },
  );

/** krt's WrapClient: client-node's own informer, started and stopped by the application, wrapped. */
const wrappedClientNodeInformer: InformerOf = (kc, stop) => {
  const core = kc.makeApiClient(CoreV1Api);
  const informer = makeInformer<V1ConfigMap>(kc, '/api/v1/configmaps', () => core.listConfigMapForAllNamespaces());
  stop.addEventListener('abort', () => void informer.stop(), { once: true });
  return fromInformer(informer, { stop, metadata: { ...RIG_METADATA }, name: 'conformance/fromInformer', synced: informer.start() });
};

/** krt rig 1: an informer of ConfigMaps; keys `a/b` are namespace `a`, name `b`. */
class InformerRig implements Rig<Named> {
  /** ConfigMaps, seen as the rigs' `Named` objects (every ConfigMap here has a namespace and a name). */
  readonly collection: Collection<Named>;
  private readonly core: CoreV1Api;
  private readonly pending = new Set<Promise<unknown>>();
  private readonly expected = new Set<string>();

  constructor(kc: KubeConfig, stop: AbortSignal, informerOf: InformerOf) {
    this.core = kc.makeApiClient(CoreV1Api);
    this.collection = informerOf(kc, stop) as unknown as Collection<Named>;
  }

  /** Namespaces the keys will use (a namespaced object needs its namespace to exist). */
  static async make(h: Harness, informerOf: InformerOf = rxkrtInformer): Promise<InformerRig> {
    const server = await h.server();
    const kc = server.kubeConfig();
    await kc.makeApiClient(CoreV1Api).createNamespace({ body: { metadata: { name: 'a' } } });
    return new InformerRig(kc, h.stop(), informerOf);
  }

  createObject(key: string): Promise<unknown> {
    const [namespace, name] = key.split('/') as [string, string];
    this.expected.add(key);
    return this.track(this.core.createNamespacedConfigMap({ namespace, body: { metadata: { name, namespace } } }));
  }

  replaceKey(oldKey: string, newKey: string): Promise<unknown> {
    const [namespace, name] = oldKey.split('/') as [string, string];
    this.expected.delete(oldKey);
    return Promise.all([this.track(this.core.deleteNamespacedConfigMap({ name, namespace })), this.createObject(newKey)]);
  }

  /** Resolves once every change made so far went through and the collection shows exactly the expected keys. */
  async settle(): Promise<void> {
    await until(
      async () => {
        await Promise.all([...this.pending]);
        const keys = this.collection.list().map((o) => keyOf(o));
        return this.pending.size === 0 && keys.length === this.expected.size && keys.every((k) => this.expected.has(k));
      },
      () =>
        `the informer to show ${[...this.expected].sort().join(', ')}; it shows ${this.collection
          .list()
          .map((o) => keyOf(o))
          .sort()
          .join(', ')}`,
    );
  }

  private track<T>(p: Promise<T>): Promise<T> {
    this.pending.add(p);
    void p.finally(() => this.pending.delete(p)).catch(() => {});
    return p;
  }
}

/**
 * Step 11 against the API server: a/0 … a/19 created concurrently, at jittered moments, with handlers
 * registered before, between creations, on a timer, and from inside a delivery.
 */
const raceOverWatch: RaceStep = async (rig, register) => {
  const c = rig.collection;
  let registered = 0;
  const registerRace = (): void => {
    registered++;
    register();
  };
  registerRace();
  let fromDelivery = false;
  const spy = c.register((e: Event<Named>) => {
    if (!fromDelivery && e.type === 'add' && keyOf(latest(e)) === 'a/9') {
      fromDelivery = true;
      registerRace();
    }
  });
  const creations: Array<Promise<unknown>> = [];
  for (let i = 0; i < 20; i++) {
    creations.push(
      new Promise((r) => setTimeout(r, Math.floor(Math.random() * 20))).then(() => {
        if (i === 5 || i === 13) registerRace();
        return rig.createObject(`a/${i}`);
      }),
    );
    if (i === 10) setTimeout(registerRace, Math.floor(Math.random() * 20));
  }
  await Promise.all(creations);
  await rig.settle!();
  spy.unregister();
  expect(fromDelivery).toBe(true);
  expect(registered).toBe(5);
};

describe('conformance: informer (krt rig 1)', () => {
  const h = new Harness();
  afterEach(() => h.release());

  it('should pass the conformance suite', async () => {
    await runConformance(await InformerRig.make(h), raceOverWatch);
  });

  it('should pass the replace sub-suite', async () => {
    await runReplaceConformance(await InformerRig.make(h));
  });
});

describe('conformance: fromInformer over client-node makeInformer (krt WrapClient)', () => {
  const h = new Harness();
  afterEach(() => h.release());

  it('should pass the conformance suite', async () => {
    await runConformance(await InformerRig.make(h, wrappedClientNodeInformer), raceOverWatch);
  });

  it('should pass the replace sub-suite', async () => {
    await runReplaceConformance(await InformerRig.make(h, wrappedClientNodeInformer));
  });
});

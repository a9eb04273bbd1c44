// B5: what freezing costs. Sources deep-freeze what they take in; this measures that on realistic pods.
import { freeze, produce } from 'immer';
import { newStaticCollection, setStrictMode } from '../src/index.js';
import { compare, type BenchOptions, type Row, type Scenario, type Variant } from './harness.js';

/** A pod shaped like what an informer delivers: nested metadata, a container spec, status with conditions. */
function realisticPod(i: number): Record<string, unknown> {
  return {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: {
      name: `pod-${i}`,
      namespace: `ns-${i % 100}`,
      uid: `0000-${i}`,
      resourceVersion: String(1000 + i),
      labels: { app: `app-${i % 50}`, tier: 'web', 'pod-template-hash': 'abc123' },
      annotations: { 'example.com/owner': 'team-a' },
      ownerReferences: [{ apiVersion: 'apps/v1', kind: 'ReplicaSet', name: 'rs', uid: 'rs-uid', controller: true }],
    },
    spec: {
      nodeName: `node-${i % 20}`,
      serviceAccountName: 'default',
      containers: [{ name: 'app', image: 'example/app:1.2.3', ports: [{ containerPort: 8080, protocol: 'TCP' }], env: [{ name: 'MODE', value: 'prod' }] }],
    },
    status: {
      phase: 'Running',
      podIP: `10.${(i >> 16) & 255}.${(i >> 8) & 255}.${i & 255}`,
      conditions: [
        { type: 'Ready', status: 'True' },
        { type: 'ContainersReady', status: 'True' },
      ],
    },
  };
}

type Ctx = { pods: Array<Record<string, unknown>> };

function freezeVariant(name: string, n: number, work: (pods: Array<Record<string, unknown>>) => void, opts: { baseline?: boolean; frozenInput?: boolean } = {}): Variant<Ctx> {
  return {
    name,
    ...(opts.baseline === true ? { baseline: true } : {}),
    ops: n,
    setup: () => ({ pods: [] }),
    // Fresh, unfrozen objects every run (or, for the immer case, objects immer already froze).
    prepare: (c) => {
      c.pods = Array.from({ length: n }, (_, i) => realisticPod(i));
      if (opts.frozenInput === true) c.pods = c.pods.map((p) => produce(freeze(p, true), (d) => { (d.status as { podIP: string }).podIP = '10.9.9.9'; }));
    },
    run: (c) => work(c.pods),
  };
}

export const b5: Scenario = {
  id: 'B5',
  title: 'freezing cost: N realistic pods, and ingesting them into a static collection (default shallow, strict deep)',
  async run(opts: BenchOptions): Promise<Row[]> {
    const n = opts.quick ? 5_000 : 100_000;
    const ingest = (strict: boolean) => (pods: Array<Record<string, unknown>>): void => {
      setStrictMode(strict);
      try {
        newStaticCollection(pods, { key: (p: { metadata: { namespace: string; name: string } }) => `${p.metadata.namespace}/${p.metadata.name}` });
      } finally {
        setStrictMode(false);
      }
    };
    return compare(
      'B5',
      [
        freezeVariant('touch only (no freeze)', n, (pods) => { for (const p of pods) void (p.metadata as object); }, { baseline: true }),
        freezeVariant('immer freeze, shallow', n, (pods) => { for (const p of pods) freeze(p, false); }),
        freezeVariant('immer freeze, deep', n, (pods) => { for (const p of pods) freeze(p, true); }),
        freezeVariant('immer freeze, deep, immer-produced input', n, (pods) => { for (const p of pods) freeze(p, true); }, { frozenInput: true }),
        freezeVariant('static collection ingest (default: shallow freeze)', n, ingest(false)),
        freezeVariant('static collection ingest (strict mode: deep freeze)', n, ingest(true)),
      ],
      opts,
    );
  },
};

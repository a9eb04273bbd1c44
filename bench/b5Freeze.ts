// B5: what freezing costs. Sources deep-freeze what they take in; this measures that on realistic pods.
import { freeze, produce } from 'immer';
import { newStaticCollection, setStrictMode } from '../src/index.js';
import { compare, type BenchOptions, type Row, type Scenario, type Variant } from './harness.js';
import { informerShapedPod } from './fixtures.js';

/** B5's pods: informer-shaped, built in code (so no strings are shared between them). */
function realisticPod(i: number): Record<string, unknown> {
  return informerShapedPod(i, {
    name: `pod-${i}`,
    namespace: `ns-${i % 100}`,
    labels: { app: `app-${i % 50}`, tier: 'web', 'pod-template-hash': 'abc123' },
    podIP: `10.${(i >> 16) & 255}.${(i >> 8) & 255}.${i & 255}`,
  });
}

type Ctx = { pods: Array<Record<string, unknown>> };

function freezeVariant(
  name: string,
  n: number,
  work: (pods: Array<Record<string, unknown>>) => void,
  opts: { baseline?: boolean; frozenInput?: boolean } = {},
): Variant<Ctx> {
  return {
    name,
    ...(opts.baseline === true ? { baseline: true } : {}),
    ops: n,
    setup: () => ({ pods: [] }),
    // Fresh, unfrozen objects every run (or, for the immer case, objects immer already froze).
    prepare: (c) => {
      c.pods = Array.from({ length: n }, (_, i) => realisticPod(i));
      if (opts.frozenInput === true)
        c.pods = c.pods.map((p) =>
          produce(freeze(p, true), (d) => {
            (d.status as { podIP: string }).podIP = '10.9.9.9';
          }),
        );
    },
    run: (c) => work(c.pods),
  };
}

export const b5: Scenario = {
  id: 'B5',
  title: 'freezing cost: N realistic pods, and ingesting them into a static collection (default shallow, strict deep)',
  async run(opts: BenchOptions): Promise<Row[]> {
    const n = opts.quick ? 5_000 : 100_000;
    const ingest =
      (strict: boolean) =>
      (pods: Array<Record<string, unknown>>): void => {
        setStrictMode(strict);
        try {
          newStaticCollection(pods, {
            key: (p) => {
              const m = p['metadata'] as { namespace: string; name: string };
              return `${m.namespace}/${m.name}`;
            },
          });
        } finally {
          setStrictMode(false);
        }
      };
    return compare(
      'B5',
      [
        freezeVariant(
          'touch only (no freeze)',
          n,
          (pods) => {
            for (const p of pods) void (p.metadata as object);
          },
          { baseline: true },
        ),
        freezeVariant('immer freeze, shallow', n, (pods) => {
          for (const p of pods) freeze(p, false);
        }),
        freezeVariant('immer freeze, deep', n, (pods) => {
          for (const p of pods) freeze(p, true);
        }),
        freezeVariant(
          'immer freeze, deep, immer-produced input',
          n,
          (pods) => {
            for (const p of pods) freeze(p, true);
          },
          { frozenInput: true },
        ),
        freezeVariant('static collection ingest (default: shallow freeze)', n, ingest(false)),
        freezeVariant('static collection ingest (strict mode: deep freeze)', n, ingest(true)),
      ],
      opts,
    );
  },
};

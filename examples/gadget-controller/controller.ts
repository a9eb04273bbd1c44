// The gadget controller: for every Gadget, own a ConfigMap, report a Ready condition, record events, and clean
// up through a finalizer. Derived state is declarative (collections); side effects go through rxkrt's sinks.
import { CoreV1Api, type KubeConfig, type V1ConfigMap } from '@kubernetes/client-node';
import { fetchOne, filterKey, newCollection, newStatusCollection, type HandlerContext } from 'rxkrt';
import {
  newEventRecorder,
  newFinalizer,
  newInformer,
  newReconciler,
  newStatusWriter,
  setCondition,
  type Reconciler,
  type ReconcileError,
  type StatusWriter,
  type EventRecorder,
} from 'rxkrt/kube';
import { API_VERSION, FINALIZER, MANAGED_BY, MANAGER, configMapName, desiredData, ownerOf, type Gadget } from './types.js';

/** A running controller. */
export interface GadgetController {
  readonly reconciler: Reconciler;
  readonly collector: Reconciler;
  readonly finalizer: Reconciler;
  readonly statusWriter: StatusWriter;
  readonly recorder: EventRecorder;
  /** Failures seen by the reconcilers (retried with backoff). */
  readonly errors: ReconcileError[];
  /** Resolves once every sink is idle. */
  idle(): Promise<void>;
}

/** One gadget with the ConfigMap it owns now (if any): the reconciler's input, so a change to either reruns it. */
interface GadgetWork {
  metadata: { name: string; namespace: string };
  gadget: Gadget;
  configMap: V1ConfigMap | undefined;
}

const statusCode = (e: unknown): number | undefined => (e as { code?: number }).code;

/** Starts the controller against `kc`; everything stops with `stop`. */
export async function startGadgetController(
  kc: KubeConfig,
  stop: AbortSignal,
  opts: { backoffMs?: number } = {},
): Promise<GadgetController> {
  const core = kc.makeApiClient(CoreV1Api);
  const backoff = { initialMs: opts.backoffMs ?? 100, maxMs: (opts.backoffMs ?? 100) * 20 };
  const gadgets = newInformer<Gadget>(kc, { apiVersion: API_VERSION, kind: 'Gadget' }, { name: 'Gadgets', stop });
  const configMaps = newInformer<V1ConfigMap>(
    kc,
    { apiVersion: 'v1', kind: 'ConfigMap', labelSelector: `app.kubernetes.io/managed-by=${MANAGER}` },
    { name: 'GadgetConfigMaps', stop },
  );
  // Acting on a partial view would recreate what exists or collect what is still owned: start when both are complete.
  await Promise.all([gadgets.waitUntilSynced(), configMaps.waitUntilSynced()]);

  const ownedConfigMap = (ctx: HandlerContext, g: Gadget): V1ConfigMap | undefined => {
    const cm = fetchOne(ctx, configMaps, filterKey(`${g.metadata!.namespace}/${configMapName(g.metadata!.name!)}`));
    return cm !== undefined && ownerOf(cm)?.uid === g.metadata!.uid ? cm : undefined;
  };

  const work = newCollection<Gadget, GadgetWork>(
    gadgets,
    (ctx, g) => ({
      metadata: { name: g.metadata!.name!, namespace: g.metadata!.namespace! },
      gadget: g,
      configMap: ownedConfigMap(ctx, g),
    }),
    { name: 'GadgetWork', stop },
  );

  // Ready: the owned ConfigMap holds what the spec asks for. Conditions keep their time while they hold.
  const [statuses] = newStatusCollection(
    gadgets,
    (ctx, g) => {
      if (g.metadata?.deletionTimestamp !== undefined) return undefined;
      const cm = ownedConfigMap(ctx, g);
      const ready = cm !== undefined && JSON.stringify(cm.data) === JSON.stringify(desiredData(g));
      const conditions = setCondition(g.status?.conditions, {
        type: 'Ready',
        status: ready ? 'True' : 'False',
        reason: ready ? 'ConfigMapReady' : cm === undefined ? 'ConfigMapMissing' : 'ConfigMapOutdated',
        message: ready ? `ConfigMap ${cm.metadata!.name} is up to date` : 'waiting for the ConfigMap',
        observedGeneration: g.metadata?.generation,
      });
      return { status: { configMap: configMapName(g.metadata!.name!), conditions } };
    },
    { name: 'GadgetStatus', stop },
  );

  const recorder = newEventRecorder(kc, { component: MANAGER, stop, backoff });
  const errors: ReconcileError[] = [];

  const reconciler = newReconciler<GadgetWork>(
    work,
    async ({ gadget: g, configMap: cm }) => {
      const md = g.metadata!;
      // Being deleted: the finalizer's business. Not yet finalizable: wait until it carries the finalizer.
      if (md.deletionTimestamp !== undefined || !(md.finalizers ?? []).includes(FINALIZER)) return;
      const body: V1ConfigMap = {
        metadata: {
          name: configMapName(md.name!),
          namespace: md.namespace,
          labels: MANAGED_BY,
          ownerReferences: [
            { apiVersion: API_VERSION, kind: 'Gadget', name: md.name!, uid: md.uid!, controller: true, blockOwnerDeletion: true },
          ],
          resourceVersion: cm?.metadata?.resourceVersion,
        },
        data: desiredData(g),
      };
      if (cm === undefined) {
        await core.createNamespacedConfigMap({ namespace: md.namespace!, body });
        recorder.event(g, 'Normal', 'ConfigMapCreated', `created ConfigMap ${body.metadata!.name}`);
      } else if (JSON.stringify(cm.data) !== JSON.stringify(body.data)) {
        // The resourceVersion makes the write conditional: a ConfigMap changed since we looked gets a 409 and a retry.
        await core.replaceNamespacedConfigMap({ namespace: md.namespace!, name: body.metadata!.name!, body });
        recorder.event(g, 'Normal', 'ConfigMapUpdated', `updated ConfigMap ${body.metadata!.name}`);
      }
    },
    { name: 'GadgetReconciler', stop, backoff, concurrency: 4 },
  );

  // ConfigMaps whose owning gadget is gone (or was replaced): a garbage collector of our own.
  const orphans = newCollection<V1ConfigMap, V1ConfigMap>(
    configMaps,
    (ctx, cm) => {
      const owner = ownerOf(cm);
      const g = owner && fetchOne(ctx, gadgets, filterKey(`${cm.metadata!.namespace}/${owner.name}`));
      return g !== undefined && g.metadata?.uid === owner?.uid ? undefined : cm;
    },
    { name: 'OrphanConfigMaps', stop },
  );
  const collector = newReconciler<V1ConfigMap>(
    orphans,
    async (cm) => {
      await deleteConfigMap(core, cm.metadata!.namespace!, cm.metadata!.name!, cm.metadata!.uid);
    },
    { name: 'OrphanCollector', stop, backoff },
  );

  const finalizer = newFinalizer<Gadget>(kc, gadgets, {
    name: FINALIZER,
    finalize: async (g) => {
      await deleteConfigMap(core, g.metadata!.namespace!, configMapName(g.metadata!.name!));
      recorder.event(g, 'Normal', 'CleanedUp', `deleted ConfigMap ${configMapName(g.metadata!.name!)}`);
    },
    stop,
    backoff,
  });

  const statusWriter = newStatusWriter(kc, statuses, { fieldManager: MANAGER, stop, backoff, maxAttempts: 1000 });

  for (const r of [reconciler, collector, finalizer]) r.errors$.subscribe((e) => errors.push(e));
  return {
    reconciler,
    collector,
    finalizer,
    statusWriter,
    recorder,
    errors,
    idle: async () => {
      await Promise.all([reconciler.idle(), collector.idle(), finalizer.idle(), statusWriter.idle(), recorder.idle()]);
    },
  };
}

/** Deletes a ConfigMap (only the one with `uid`, when given); one already gone is fine. */
async function deleteConfigMap(core: CoreV1Api, namespace: string, name: string, uid?: string): Promise<void> {
  try {
    await core.deleteNamespacedConfigMap({ namespace, name, body: uid === undefined ? undefined : { preconditions: { uid } } });
  } catch (e) {
    if (statusCode(e) !== 404) throw e;
  }
}

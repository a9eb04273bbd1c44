// The event recorder: events.k8s.io/v1 Events about objects, repeats folded into a series, never blocking.
import { hostname } from 'node:os';
import { asyncScheduler, type SchedulerLike } from 'rxjs';
import type { KubeConfig, KubernetesObject } from '@kubernetes/client-node';
import { UsageError } from '../core/errors.js';
import { log } from '../core/logger.js';
import type { BackoffPolicy } from './backoff.js';
import { ApiError, requestJson } from './request.js';
import { retryAfterOf } from './retryAfter.js';
import { KeyedWorkQueue } from './keyedWorkQueue.js';

/** Who records, and how hard it may push. */
export interface EventRecorderOptions {
  /** The controller, as `reportingController` (`example.com/gadget-controller`). */
  component: string;
  /** This replica, as `reportingInstance`. Default `<component>-<hostname>`. */
  instance?: string;
  /** Event writes started per second at most. Default 5. */
  qps?: number;
  /** Event writes that may start at once. Default 25. */
  burst?: number;
  /** Distinct events waiting to be written at most; beyond it new ones are dropped and counted. Default 1000. */
  maxPending?: number;
  /** How long after its last occurrence a repeat still joins an Event's series. Default 6 minutes. */
  seriesWindowMs?: number;
  /** Attempts per write before the event is dropped (5xx, 429 and network failures are retried). Default 3. */
  maxAttempts?: number;
  /** Waits between attempts. */
  backoff?: BackoffPolicy;
  /** Where waits are scheduled and event times read. Default `asyncScheduler`. */
  timerScheduler?: SchedulerLike;
  /** Stops the recorder: events recorded later are ignored; writes in flight finish. */
  stop?: AbortSignal;
}

/** Counters of an event recorder. */
export interface EventRecorderStats {
  /** Calls to `event`. */
  recorded: number;
  /** Events created on the server. */
  created: number;
  /** Series updates written (a repeat, or several folded together). */
  seriesUpdates: number;
  /** Calls folded into an existing Event's series. */
  aggregated: number;
  /** Calls dropped: the pending buffer was full, or the recorder stopped. */
  dropped: number;
  /** Writes given up on. */
  failed: number;
  /** Distinct events waiting to be written now. */
  pending: number;
}

/** Records Kubernetes Events about objects. */
export interface EventRecorder {
  /** Records that `reason` happened to `obj`; returns at once (the write happens later, or is dropped and counted). */
  event(obj: KubernetesObject, type: 'Normal' | 'Warning', reason: string, message: string): void;
  /** Counters, a snapshot. */
  stats(): EventRecorderStats;
  /** Resolves once every recorded event is written (or given up on). */
  idle(): Promise<void>;
  /** Stops recording: later calls are dropped; pending writes are abandoned. */
  stop(): void;
}

/** One Event on the server and the occurrences it stands for. */
interface Series {
  readonly namespace: string;
  readonly body: Record<string, unknown>;
  /** Server name once created. */
  created: boolean;
  count: number;
  sentCount: number;
  lastObserved: number;
}

const MAX_NOTE = 1024;
const EVENT_TYPES: ReadonlySet<string> = new Set(['Normal', 'Warning']);
const MAX_SERIES = 4096;

/** MicroTime, as Kubernetes writes it. */
function microTime(ms: number): string {
  return new Date(ms).toISOString().replace(/Z$/, '000Z');
}

/**
 * Records Events (`events.k8s.io/v1`) about objects, as client-go's event recorder does: each Event names the
 * object (`regarding`, with its uid and resourceVersion), the reporting controller and instance, and
 * `reason`/`note`/`type`. A repeat (same object, type, reason and message) within `seriesWindowMs` does not
 * make a new Event: it bumps the first one's `series` (`count`, `lastObservedTime`), and repeats that arrive
 * before the update is written fold into one write. Writes are rate-limited (`qps`, `burst`) and retried a few
 * times; `event` never waits for any of it and never throws for a server's failure. At most `maxPending`
 * distinct events wait; beyond that they are dropped and counted (`stats().dropped`).
 * @throws UsageError from `event` when `obj` has no name or `type` is not `Normal` or `Warning`.
 * @example
 * const recorder = newEventRecorder(kc, { component: 'example.com/gadget-controller' });
 * recorder.event(gadget, 'Normal', 'ConfigMapCreated', `created ConfigMap gadget-${gadget.metadata.name}`);
 */
export function newEventRecorder(kc: KubeConfig, opts: EventRecorderOptions): EventRecorder {
  if (typeof opts.component !== 'string' || opts.component === '') {
    throw new UsageError(`newEventRecorder: component must be a non-empty string, got ${JSON.stringify(opts.component)}`);
  }
  const component = opts.component;
  const instance = opts.instance ?? `${component}-${hostname()}`;
  const scheduler = opts.timerScheduler ?? asyncScheduler;
  const windowMs = opts.seriesWindowMs ?? 6 * 60_000;
  const maxPending = opts.maxPending ?? 1000;
  const counts = { recorded: 0, created: 0, seriesUpdates: 0, aggregated: 0, dropped: 0, failed: 0 };
  // Insertion order is recency order (a touched series is moved to the end): the oldest go first when full.
  const series = new Map<string, Series>();
  let nameSeq = 0;
  let stopped = false;

  const pendingOf = (s: Series | undefined): boolean => s !== undefined && (!s.created || s.sentCount < s.count);

  const write = async (key: string, signal: AbortSignal): Promise<void> => {
    const s = series.get(key);
    if (s === undefined || !pendingOf(s)) return;
    const count = s.count;
    const seriesField = count > 1 ? { series: { count, lastObservedTime: microTime(s.lastObserved) } } : {};
    const base = `/apis/events.k8s.io/v1/namespaces/${encodeURIComponent(s.namespace)}/events`;
    const bounds = { signal, timeoutMs: 30_000, scheduler };
    if (s.created) {
      try {
        const name = (s.body.metadata as { name: string }).name;
        await requestJson(
          kc,
          'PATCH',
          `${base}/${encodeURIComponent(name)}`,
          {},
          { contentType: 'application/merge-patch+json', value: seriesField },
          bounds,
        );
        counts.seriesUpdates++;
        s.sentCount = Math.max(s.sentCount, count);
        return;
      } catch (e) {
        // The Event expired or was deleted: start it again.
        if (!(e instanceof ApiError && e.statusCode === 404)) throw e;
        s.created = false;
      }
    }
    await requestJson(kc, 'POST', base, {}, { contentType: 'application/json', value: { ...s.body, ...seriesField } }, bounds);
    counts.created++;
    s.created = true;
    s.sentCount = Math.max(s.sentCount, count);
  };

  const queue = new KeyedWorkQueue('newEventRecorder', (key, ctx) => write(key, ctx.signal), {
    qps: opts.qps ?? 5,
    burst: opts.burst ?? 25,
    concurrency: 4,
    backoff: opts.backoff,
    maxAttempts: opts.maxAttempts ?? 3,
    timerScheduler: scheduler,
    needsWork: (key) => pendingOf(series.get(key)),
    retryable: (e) => !(e instanceof ApiError) || e.statusCode === 429 || e.statusCode >= 500,
    minRetryDelayMs: retryAfterOf,
    onFailure: (f) => {
      if (f.retryInMs !== undefined) return;
      counts.failed++;
      // What was not written is lost; a later repeat starts afresh rather than patching what never existed.
      const s = series.get(f.key);
      if (s !== undefined && !s.created) series.delete(f.key);
      else if (s !== undefined) s.count = s.sentCount;
      log().warn({ eventRecorder: component, key: f.key, err: f.error }, `${component}: dropping an event after ${f.attempt} attempt(s)`);
    },
  });

  const pendingCount = (): number => {
    let n = 0;
    for (const s of series.values()) if (pendingOf(s)) n++;
    return n;
  };

  const stop = (): void => {
    stopped = true;
    queue.stop();
  };
  if (opts.stop?.aborted) stop();
  else opts.stop?.addEventListener('abort', stop, { once: true });

  return {
    event(obj, type, reason, message) {
      counts.recorded++;
      const md = obj.metadata;
      if (typeof md?.name !== 'string' || md.name === '') {
        throw new UsageError(`${component}: event ${JSON.stringify(reason)} needs an object with metadata.name, got ${JSON.stringify(md)}`);
      }
      // Callers from plain JavaScript or untyped data can pass anything.
      if (!EVENT_TYPES.has(type)) {
        throw new UsageError(`${component}: event type must be Normal or Warning, got ${JSON.stringify(type)}`);
      }
      if (stopped) {
        counts.dropped++;
        return;
      }
      const now = scheduler.now();
      const note = message.length > MAX_NOTE ? `${message.slice(0, MAX_NOTE - 3)}...` : message;
      const namespace = md.namespace ?? 'default';
      const key = JSON.stringify([obj.apiVersion, obj.kind, md.namespace, md.name, md.uid, type, reason, note]);
      const s = series.get(key);
      if (s !== undefined && now - s.lastObserved <= windowMs) {
        counts.aggregated++;
        s.count++;
        s.lastObserved = now;
        series.delete(key);
        series.set(key, s);
        queue.add(key);
        return;
      }
      if (pendingCount() >= maxPending) {
        counts.dropped++;
        return;
      }
      const regarding = {
        apiVersion: obj.apiVersion,
        kind: obj.kind,
        namespace: md.namespace,
        name: md.name,
        uid: md.uid,
        resourceVersion: md.resourceVersion,
      };
      const body = {
        apiVersion: 'events.k8s.io/v1',
        kind: 'Event',
        metadata: { name: `${md.name}.${(now * 1000 + (nameSeq++ % 1000)).toString(16)}`, namespace },
        eventTime: microTime(now),
        reportingController: component,
        reportingInstance: instance,
        action: reason,
        reason,
        note,
        type,
        regarding,
      };
      series.delete(key);
      series.set(key, { namespace, body, created: false, count: 1, sentCount: 0, lastObserved: now });
      // Forget the oldest settled series beyond the cap (a repeat of one of them just starts a new Event).
      for (const [k, old] of series) {
        if (series.size <= MAX_SERIES) break;
        if (!pendingOf(old)) series.delete(k);
      }
      queue.add(key);
    },
    stats: () => ({ ...counts, pending: pendingCount() }),
    idle: () => queue.idle(),
    stop,
  };
}

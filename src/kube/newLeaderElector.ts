// Leader election on a coordination.k8s.io/v1 Lease, with client-go's rules and an injectable clock.
import {
  asyncScheduler,
  BehaviorSubject,
  distinctUntilChanged,
  map,
  skip,
  type Observable,
  type SchedulerLike,
  type Subscription,
} from 'rxjs';
import type { KubeConfig } from '@kubernetes/client-node';
import { UsageError } from '../core/errors.js';
import { log } from '../core/logger.js';
import { onAbort } from '../engine/onAbort.js';
import { ApiError } from './apiError.js';
import type { Gate } from './gate.js';
import { createLease, getLease, updateLease } from './leaseApi.js';
import { LeaseLoop, leaseRequestOptions } from './leaseLoop.js';
import type { RequestOptions } from './request.js';
import { heldSpec, leaseTiming, releasedSpec, sameRecord, type Lease, type LeaseSpec, type LeaseTiming } from './leaseRecord.js';

/** Options of {@link newLeaderElector}. */
export interface LeaderElectorOptions {
  /** Namespace of the Lease. */
  namespace: string;
  /** Name of the Lease. */
  name: string;
  /** This replica's identity, written as `holderIdentity` (e.g. the pod name). Unique per replica. */
  identity: string;
  /** How long a non-leader waits, after it last saw the Lease change, before taking it over. Default 15. */
  leaseDurationSeconds?: number;
  /** How long the leader keeps leading without a successful renewal. Must be less than the duration. Default 10. */
  renewDeadlineSeconds?: number;
  /** Time between attempts to acquire or renew. Must be less than the renew deadline. Default 2. */
  retryPeriodSeconds?: number;
  /** On stop, a leader writes the Lease free so another replica takes over at once. Default true. */
  releaseOnStop?: boolean;
  /** Stops the elector (a leader steps down first, then releases the Lease). */
  stop?: AbortSignal;
  /** Where time is read and waits are scheduled. Default `asyncScheduler`. */
  timerScheduler?: SchedulerLike;
  /** How long one request may take before it is abandoned. Default: the renew deadline. */
  requestTimeoutMs?: number;
}

/** A running leader elector. */
export interface LeaderElector {
  /** Whether this replica leads now: it holds the Lease and renewed it within the renew deadline. */
  isLeader(): boolean;
  /** Whether this replica leads; starts with `false`, emits only changes. Completes when the elector stops. */
  readonly leader$: Observable<boolean>;
  /** The holder of the Lease as last seen (this replica's identity while it leads); undefined when nobody holds it. */
  leaderIdentity(): string | undefined;
  /** Owns every key while this replica leads, none otherwise. */
  readonly gate: Gate;
  /** Resolves when no request of the elector is in flight (tests use it between steps of virtual time). */
  idle(): Promise<void>;
}

/**
 * Elects one leader among the replicas that share a Lease, as client-go's leader election does: a replica
 * takes the Lease when nobody holds it or the holder let it expire, renews it every retry period while it leads,
 * and steps down as soon as the renew deadline passes without a successful renewal. Every write is guarded by
 * the Lease's resourceVersion, so two candidates never both win; each change of holder counts a transition.
 *
 * Expiry is judged by each observer's own clock, from the moment it last saw the record change (remote
 * timestamps are never compared with the local clock). Since the leader measures its deadline from before it
 * sent the renewal, and the deadline is shorter than the duration, it stops acting before anyone may take over.
 *
 * @throws UsageError for an empty namespace, name or identity, or timing that breaks 0 < retry < deadline < duration.
 * @example
 * const elector = newLeaderElector(kc, { namespace: 'default', name: 'my-controller', identity: podName, stop });
 * newStatusWriter(kc, statuses, { gate: elector.gate, stop });
 */
export function newLeaderElector(kc: KubeConfig, opts: LeaderElectorOptions): LeaderElector {
  const who = `newLeaderElector(${opts.namespace}/${opts.name})`;
  for (const field of ['namespace', 'name', 'identity'] as const) {
    if (typeof opts[field] !== 'string' || opts[field] === '')
      throw new UsageError(`${who}: ${field} must be a non-empty string, got ${JSON.stringify(opts[field])}`);
  }
  return new Elector(kc, opts, leaseTiming(who, opts));
}

class Elector implements LeaderElector {
  private readonly timers: SchedulerLike;
  private readonly leading = new BehaviorSubject(false);
  readonly leader$: Observable<boolean>;
  readonly gate: Gate;
  /** The record as last seen, and when (local clock) it was first seen in this form. */
  private observed: Lease | undefined;
  private observedAt = 0;
  /** When the last successful acquire or renewal was sent: the renew deadline counts from here. */
  private renewedAt = Number.NEGATIVE_INFINITY;
  private deadline: Subscription | undefined;
  private readonly loop: LeaseLoop;
  private stopped = false;

  constructor(
    private readonly kc: KubeConfig,
    private readonly opts: LeaderElectorOptions,
    private readonly timing: LeaseTiming,
  ) {
    this.timers = opts.timerScheduler ?? asyncScheduler;
    this.loop = new LeaseLoop(this.timers, timing.retryPeriodMs, () => this.tryAcquireOrRenew());
    this.leader$ = this.leading.pipe(distinctUntilChanged());
    this.gate = {
      owns: () => this.isLeader(),
      changes$: this.leader$.pipe(
        skip(1),
        map(() => undefined),
      ),
    };
    if (opts.stop?.aborted) {
      this.leading.complete();
      return;
    }
    if (opts.stop !== undefined) onAbort(opts.stop, () => void this.stop());
    this.loop.start();
  }

  isLeader(): boolean {
    return this.leading.value && this.timers.now() < this.renewedAt + this.timing.renewDeadlineMs;
  }

  leaderIdentity(): string | undefined {
    if (this.isLeader()) return this.opts.identity;
    const holder = this.observed?.spec?.holderIdentity;
    return holder === undefined || holder === '' ? undefined : holder;
  }

  idle(): Promise<void> {
    return this.loop.idle();
  }

  private get requestOptions(): RequestOptions {
    return leaseRequestOptions(this.opts.requestTimeoutMs, this.timing, this.timers);
  }

  private async tryAcquireOrRenew(): Promise<void> {
    const sentAt = this.timers.now();
    const { namespace, name, identity } = this.opts;
    try {
      const current = await getLease(this.kc, namespace, name, this.requestOptions);
      if (this.stopped) return;
      if (current === undefined) {
        const lease: Lease = { metadata: { name }, spec: heldSpec(undefined, identity, this.timers.now(), this.timing) };
        this.holding(sentAt, await createLease(this.kc, namespace, lease, this.requestOptions));
        return;
      }
      this.observe(current);
      const spec = current.spec ?? {};
      if (this.heldByAnother(spec)) {
        this.stepDown(`the Lease is held by ${spec.holderIdentity}`);
        return;
      }
      const next: Lease = { metadata: { ...current.metadata }, spec: heldSpec(spec, identity, this.timers.now(), this.timing) };
      this.holding(sentAt, await updateLease(this.kc, namespace, next, this.requestOptions));
    } catch (e) {
      // A conflict means another replica wrote first: it will be seen on the next attempt.
      if (!(e instanceof ApiError && (e.statusCode === 409 || e.statusCode === 404))) {
        log().debug({ lease: `${namespace}/${name}`, identity, err: e }, `leader election ${namespace}/${name}: attempt failed`);
      }
      // Past the deadline the timer has already stepped down; before it, the leader keeps leading and retries.
    }
  }

  /** Restarts the expiry clock when the record changed since last seen. */
  private observe(lease: Lease): void {
    if (this.observed === undefined || !sameRecord(this.observed.spec, lease.spec)) this.observedAt = this.timers.now();
    this.observed = lease;
  }

  /** Someone else holds the Lease and, by this replica's clock, it has not expired. */
  private heldByAnother(spec: LeaseSpec): boolean {
    const holder = spec.holderIdentity ?? '';
    if (holder === '' || holder === this.opts.identity) return false;
    return this.timers.now() < this.observedAt + (spec.leaseDurationSeconds ?? 0) * 1000;
  }

  private holding(sentAt: number, written: Lease): void {
    this.observed = written;
    this.observedAt = this.timers.now();
    // Stopped meanwhile: the record is kept (the release needs its resourceVersion), the lead is not taken.
    if (this.stopped) return;
    this.renewedAt = sentAt;
    // A renewal that took longer than the deadline (a slow answer) leaves this replica stepped down.
    const left = sentAt + this.timing.renewDeadlineMs - this.timers.now();
    if (left <= 0) return;
    this.deadline?.unsubscribe();
    this.deadline = this.timers.schedule(() => this.stepDown('the renew deadline passed'), left);
    if (!this.leading.value) {
      log().info(
        { lease: `${this.opts.namespace}/${this.opts.name}`, identity: this.opts.identity },
        `${this.opts.identity} leads ${this.opts.name}`,
      );
      this.leading.next(true);
    }
  }

  private stepDown(why: string): void {
    this.deadline?.unsubscribe();
    this.deadline = undefined;
    if (!this.leading.value) return;
    log().info(
      { lease: `${this.opts.namespace}/${this.opts.name}`, identity: this.opts.identity },
      `${this.opts.identity} stops leading: ${why}`,
    );
    this.leading.next(false);
  }

  private async stop(): Promise<void> {
    if (this.stopped) return;
    const wasHolder = this.leading.value;
    // Stepping down comes first: the Lease is freed only once nothing here acts any more.
    this.stepDown('stopped');
    this.stopped = true;
    this.loop.halt();
    await this.loop.idle();
    if (
      (wasHolder || this.observed?.spec?.holderIdentity === this.opts.identity) &&
      this.opts.releaseOnStop !== false &&
      this.observed !== undefined
    ) {
      const lease: Lease = { metadata: { ...this.observed.metadata }, spec: releasedSpec(this.observed.spec, this.timers.now()) };
      try {
        await updateLease(this.kc, this.opts.namespace, lease, this.requestOptions);
      } catch (e) {
        // Not released: the others take over once it expires.
        log().debug({ lease: `${this.opts.namespace}/${this.opts.name}`, err: e }, `leader election: releasing ${this.opts.name} failed`);
      }
    }
    this.leading.complete();
  }
}

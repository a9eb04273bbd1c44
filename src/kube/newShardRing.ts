// Sharding over Leases: each replica holds a member Lease; the live members form a consistent-hash ring.
import {
  asyncScheduler,
  BehaviorSubject,
  distinctUntilChanged,
  Subject,
  type Observable,
  type SchedulerLike,
  type Subscription,
} from 'rxjs';
import type { KubeConfig } from '@kubernetes/client-node';
import { UsageError } from '../core/errors.js';
import { log } from '../core/logger.js';
import { onAbort } from '../engine/onAbort.js';
import type { Gate } from './gate.js';
import { HashRing } from './hashRing.js';
import { createLease, listLeases, updateLease } from './leaseApi.js';
import { LeaseLoop, leaseRequestOptions } from './leaseLoop.js';
import type { RequestOptions } from './request.js';
import { heldSpec, leaseTiming, releasedSpec, sameRecord, type Lease, type LeaseTiming } from './leaseRecord.js';
import { ShardOwnership } from './shardOwnership.js';

/** The label every member Lease of a group carries, with the group as its value. */
export const SHARD_GROUP_LABEL = 'rxkrt.io/shard-group';
/** The annotation in which a member publishes the members it sees (comma-separated, sorted). */
export const SHARD_VIEW_ANNOTATION = 'rxkrt.io/shard-view';

/** Options of {@link newShardRing}. */
export interface ShardRingOptions {
  /** Namespace of the member Leases. */
  namespace: string;
  /** The group: replicas of one controller share it. A label value (63 characters at most). */
  group: string;
  /** This replica's identity (e.g. the pod name). Unique in the group. */
  identity: string;
  /** How long a member stays in the ring after it was last seen renewing. Default 15. */
  leaseDurationSeconds?: number;
  /** How long a member acts without a successful renewal of its own Lease. Less than the duration. Default 10. */
  renewDeadlineSeconds?: number;
  /** Time between renewals and listings. Less than the renew deadline. Default 2. */
  retryPeriodSeconds?: number;
  /** Points per member on the ring; more points, better balance. Default 256 (see docs/ha.md for the figures). */
  virtualNodes?: number;
  /** Stops acting, then releases the member Lease so the others take over its keys at once. */
  stop?: AbortSignal;
  /** Where time is read and waits are scheduled. Default `asyncScheduler`. */
  timerScheduler?: SchedulerLike;
  /** How long one request may take before it is abandoned. Default: the renew deadline. */
  requestTimeoutMs?: number;
}

/** A running shard member. */
export interface ShardRing {
  /** Whether this replica may act on `key` now. */
  owns(key: string): boolean;
  /** The live members as this replica sees them, sorted (itself included once its Lease is written). */
  members(): readonly string[];
  /** The members, on every change. Completes when the ring stops. */
  readonly members$: Observable<readonly string[]>;
  /** `owns` with a `changes$` that emits whenever ownership may have moved. */
  readonly gate: Gate;
  /** Resolves when no request of the ring is in flight (tests use it between steps of virtual time). */
  idle(): Promise<void>;
}

/**
 * Joins a shard group: this replica renews its own member Lease (labelled with the group) and lists the
 * group's Leases every retry period; the members whose Leases it saw renewed within their duration form a
 * consistent-hash ring, and a key belongs to the member the ring puts it on. About 1/N of the keys move when
 * one of N members joins or leaves; nothing moves otherwise.
 *
 * Never two owners at one instant: a member acts on nothing once its own renewal is past the renew deadline,
 * and acts on a key that moved to it only once the previous owner released or let expire its Lease, or
 * published (in its Lease) a view of the members in which the key is no longer its own. docs/ha.md has the
 * argument.
 *
 * @throws UsageError for an empty namespace or identity, a group that is not a label value, bad timing, or
 * `virtualNodes` that is not a positive integer.
 * @example
 * const ring = newShardRing(kc, { namespace: 'default', group: 'my-controller', identity: podName, stop });
 * newStatusWriter(kc, statuses, { gate: ring.gate, stop });
 */
export function newShardRing(kc: KubeConfig, opts: ShardRingOptions): ShardRing {
  const who = `newShardRing(${opts.namespace}/${opts.group})`;
  for (const field of ['namespace', 'identity'] as const) {
    if (typeof opts[field] !== 'string' || opts[field] === '')
      throw new UsageError(`${who}: ${field} must be a non-empty string, got ${JSON.stringify(opts[field])}`);
  }
  if (!/^[A-Za-z0-9]([-A-Za-z0-9_.]{0,61}[A-Za-z0-9])?$/.test(opts.group)) {
    throw new UsageError(
      `${who}: group must be a label value (63 characters at most, alphanumeric at both ends), got ${JSON.stringify(opts.group)}`,
    );
  }
  if (opts.identity.includes(',')) throw new UsageError(`${who}: identity must not contain a comma, got ${JSON.stringify(opts.identity)}`);
  const virtualNodes = opts.virtualNodes ?? 256;
  if (!Number.isInteger(virtualNodes) || virtualNodes <= 0)
    throw new UsageError(`${who}: virtualNodes must be a positive integer, got ${JSON.stringify(virtualNodes)}`);
  return new Member(kc, opts, leaseTiming(who, opts), virtualNodes);
}

/** A Lease name for a member: the group and identity, lower-cased, anything else a DNS name refuses as '-'. */
function leaseNameOf(group: string, identity: string): string {
  return `${group}-${identity}`
    .toLowerCase()
    .replace(/[^a-z0-9.-]/g, '-')
    .slice(0, 253)
    .replace(/^[^a-z0-9]+|[^a-z0-9]+$/g, '');
}

/** Another member as last listed: its Lease, and when (local clock) the record was first seen in this form. */
interface Observed {
  readonly lease: Lease;
  readonly observedAt: number;
}

class Member implements ShardRing {
  private readonly timers: SchedulerLike;
  private readonly leaseName: string;
  private readonly membersSubject = new BehaviorSubject<readonly string[]>([]);
  private readonly changes = new Subject<void>();
  readonly members$: Observable<readonly string[]>;
  readonly gate: Gate;
  private readonly rings = new Map<string, HashRing>();
  /** Every other member's Lease as last listed, expired ones included (they stay expired until renewed). */
  private seen = new Map<string, Observed>();
  /** The other members whose Leases are live. */
  private others = new Map<string, Observed>();
  /** This member's Lease as last written or listed (its resourceVersion guards the next write). */
  private own: Lease | undefined;
  /** When the last successful renewal's round started: the renew deadline counts from here. */
  private renewedAt = Number.NEGATIVE_INFINITY;
  /** The view in this member's Lease, and whether a listing started after it was written. */
  private published = '';
  /** The view seen last, and since when (it is published once it has been seen for a retry period). */
  private pending = '';
  private pendingSince = 0;
  private acksFresh = false;
  private ownership: ShardOwnership | undefined;
  private signature = '';
  private deadline: Subscription | undefined;
  private readonly loop: LeaseLoop;
  private stopped = false;

  constructor(
    private readonly kc: KubeConfig,
    private readonly opts: ShardRingOptions,
    private readonly timing: LeaseTiming,
    private readonly virtualNodes: number,
  ) {
    this.timers = opts.timerScheduler ?? asyncScheduler;
    this.loop = new LeaseLoop(this.timers, timing.retryPeriodMs, () => this.round());
    this.leaseName = leaseNameOf(opts.group, opts.identity);
    this.members$ = this.membersSubject.pipe(distinctUntilChanged((a, b) => a.join(',') === b.join(',')));
    this.gate = { owns: (key) => this.owns(key), changes$: this.changes.asObservable() };
    if (opts.stop?.aborted) {
      this.stopped = true;
      this.membersSubject.complete();
      this.changes.complete();
      return;
    }
    if (opts.stop !== undefined) onAbort(opts.stop, () => void this.stop());
    this.loop.start();
  }

  owns(key: string): boolean {
    return this.valid() && this.ownership !== undefined && this.ownership.owns(key);
  }

  members(): readonly string[] {
    return this.membersSubject.value;
  }

  idle(): Promise<void> {
    return this.loop.idle();
  }

  /** Within the renew deadline of this member's own Lease. */
  private valid(): boolean {
    return !this.stopped && this.timers.now() < this.renewedAt + this.timing.renewDeadlineMs;
  }

  private get requestOptions(): RequestOptions {
    return leaseRequestOptions(this.opts.requestTimeoutMs, this.timing, this.timers);
  }

  /** List, renew with the view just seen; when that view was new, list again so the others' views are fresh. */
  private async round(): Promise<void> {
    try {
      const startedAt = this.timers.now();
      await this.list();
      // Stops acting at once on whatever the view just seen takes away.
      this.update();
      if (this.stopped) return;
      await this.renew(startedAt, this.liveView());
      if (!this.acksFresh) {
        // Started after the view was published: what the others published is fresh against it.
        await this.list();
        this.acksFresh = true;
      }
    } catch (e) {
      log().debug({ shardGroup: this.opts.group, identity: this.opts.identity, err: e }, `shard ring ${this.opts.group}: round failed`);
    }
    this.update();
  }

  private async list(): Promise<void> {
    const startedAt = this.timers.now();
    const leases = await listLeases(this.kc, this.opts.namespace, `${SHARD_GROUP_LABEL}=${this.opts.group}`, this.requestOptions);
    const seen = new Map<string, Observed>();
    const live = new Map<string, Observed>();
    let own: Lease | undefined;
    for (const lease of leases) {
      if (lease.metadata.name === this.leaseName) {
        own = lease;
        continue;
      }
      const holder = lease.spec?.holderIdentity ?? '';
      // Released: gone at once.
      if (holder === '' || holder === this.opts.identity) continue;
      const before = this.seen.get(holder);
      const unchanged = before !== undefined && sameRecord(before.lease.spec, lease.spec) && viewOf(before.lease) === viewOf(lease);
      const observed = unchanged ? { lease, observedAt: before.observedAt } : { lease, observedAt: this.timers.now() };
      seen.set(holder, observed);
      // Expired: this listing, started a whole duration after the record was first seen, still shows it unchanged.
      if (startedAt < observed.observedAt + (lease.spec?.leaseDurationSeconds ?? 0) * 1000) live.set(holder, observed);
    }
    this.seen = seen;
    this.others = live;
    // Deleted by someone: written afresh on renewal.
    this.own = own;
  }

  private liveView(): string[] {
    return [...this.others.keys(), this.opts.identity].sort();
  }

  private async renew(startedAt: number, view: readonly string[]): Promise<void> {
    const joined = view.join(',');
    const now = this.timers.now();
    if (joined !== this.pending) {
      this.pending = joined;
      this.pendingSince = now;
    }
    // A new view is published (letting others take what it moves away) only a retry period after this member
    // stopped acting on those keys, so writes it had in flight land first. The first one has nothing to wait for.
    const publish = this.published === '' || now - this.pendingSince >= this.timing.retryPeriodMs ? joined : this.published;
    const metadata = {
      ...(this.own?.metadata ?? {}),
      name: this.leaseName,
      labels: { ...(this.own?.metadata.labels ?? {}), [SHARD_GROUP_LABEL]: this.opts.group },
      annotations: { ...(this.own?.metadata.annotations ?? {}), [SHARD_VIEW_ANNOTATION]: publish },
    };
    const lease: Lease = { metadata, spec: heldSpec(this.own?.spec, this.opts.identity, now, this.timing) };
    this.own =
      this.own === undefined
        ? await createLease(this.kc, this.opts.namespace, lease, this.requestOptions)
        : await updateLease(this.kc, this.opts.namespace, lease, this.requestOptions);
    this.renewedAt = startedAt;
    if (publish !== this.published) {
      this.published = publish;
      this.acksFresh = false;
    }
    // Stopped while the write was in flight: the record is kept for the release, but a deadline scheduled now
    // would outlive the ring and hold the process open for a whole renew deadline.
    if (this.stopped) return;
    this.deadline?.unsubscribe();
    const left = startedAt + this.timing.renewDeadlineMs - this.timers.now();
    if (left > 0) this.deadline = this.timers.schedule(() => this.update(), left);
  }

  /** Rebuilds the ownership from what is known now, and tells the gate's listeners when it changed. */
  private update(): void {
    const valid = this.valid();
    const view = this.liveView();
    const current = this.published !== '' && this.acksFresh;
    const published = this.published.split(',');
    const acks = new Map([...this.others].map(([member, o]) => [member, viewOf(o.lease)?.split(',') ?? [member]] as const));
    const signature = JSON.stringify([valid, current, view, published, [...acks]]);
    if (signature === this.signature) return;
    this.signature = signature;
    this.ownership =
      valid && current ? new ShardOwnership({ identity: this.opts.identity, view, published, acks }, (m) => this.ringOf(m)) : undefined;
    this.membersSubject.next(valid ? view : []);
    this.changes.next();
  }

  private ringOf(members: readonly string[]): HashRing {
    const key = members.join(',');
    let ring = this.rings.get(key);
    if (ring === undefined) {
      // Views come and go with membership: keep the few recent ones, not every one ever seen.
      if (this.rings.size > 16) this.rings.clear();
      this.rings.set(key, (ring = new HashRing(members, this.virtualNodes)));
    }
    return ring;
  }

  private async stop(): Promise<void> {
    if (this.stopped) return;
    this.stopped = true;
    this.loop.halt();
    this.deadline?.unsubscribe();
    // Acting stops first; the Lease is released only after.
    this.update();
    await this.loop.idle().catch(() => undefined);
    if (this.own !== undefined && this.own.spec?.holderIdentity === this.opts.identity) {
      const lease: Lease = { metadata: { ...this.own.metadata }, spec: releasedSpec(this.own.spec, this.timers.now()) };
      try {
        await updateLease(this.kc, this.opts.namespace, lease, this.requestOptions);
      } catch (e) {
        log().debug({ shardGroup: this.opts.group, err: e }, `shard ring ${this.opts.group}: releasing ${this.leaseName} failed`);
      }
    }
    this.membersSubject.complete();
    this.changes.complete();
  }
}

function viewOf(lease: Lease): string | undefined {
  return lease.metadata.annotations?.[SHARD_VIEW_ANNOTATION];
}

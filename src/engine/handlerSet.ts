// Handler registrations of one collection: ordered delivery, per-handler FIFO for Promise handlers, sync tracking.
import type { Event } from '../core/event.js';
import type { BatchHandler, Registration } from '../core/types.js';
import { SyncState } from './syncState.js';
import { isThenable } from './thenable.js';

/** @internal What a registration needs from its collection. */
export interface HandlerOwner {
  hasSynced(): boolean;
  reportHandlerError(error: unknown): void;
  /** A handler was added (after its replay): batches the owner did not build for anyone may now have a reader. */
  batchReadersAdded(): void;
}

/** @internal One registered handler. */
export class HandlerRegistration<T> implements Registration {
  active = true;
  /** Batches counted towards sync (replay, and batches committed before the collection synced) not yet finished. */
  private pendingInitial = 0;
  private readonly sync = new SyncState();
  /** Batches waiting for this handler's Promise to settle; null while none has ever waited. */
  private backlog: Array<{ batch: readonly Event<T>[]; initial: boolean }> | null = null;
  private busy = false;
  /** True while the handler is executing synchronously. */
  private running = false;

  constructor(
    private readonly owner: HandlerOwner,
    private readonly handler: BatchHandler<T>,
    private readonly set: HandlerSet<T>,
    /** The handler sees the batch array itself (false: rxkrt's own per-event adapter, which only reads it). */
    readonly seesBatch: boolean,
  ) {}

  hasSynced(): boolean {
    return this.sync.hasSynced();
  }

  waitUntilSynced(signal?: AbortSignal): Promise<boolean> {
    return this.sync.waitUntilSynced(signal);
  }

  /** Batches waiting for this handler (behind a Promise it returned, or a call still running). */
  get queued(): number {
    return this.backlog?.length ?? 0;
  }

  unregister(): void {
    if (!this.active) return;
    this.active = false;
    this.backlog = null;
    this.set.remove(this);
  }

  /** Hands a batch to the handler now, or queues it behind a pending Promise or a call still running. */
  deliver(batch: readonly Event<T>[], initial: boolean): void {
    if (!this.active) return;
    if (initial) this.pendingInitial++;
    if (this.busy || this.running) {
      (this.backlog ??= []).push({ batch, initial });
      return;
    }
    this.run(batch, initial);
    this.drain();
  }

  /** Re-evaluates the sync flag (the collection may just have synced). */
  checkSynced(): void {
    if (this.pendingInitial === 0 && this.owner.hasSynced()) this.sync.markSynced();
  }

  private run(batch: readonly Event<T>[], initial: boolean): void {
    let result: void | Promise<void>;
    // A handler that mutates a source outside any transaction (in its replay, or in the synchronous part
    // of a Promise handler resumed from its backlog) commits at once, and that commit delivers to this
    // very handler: `running` makes such a batch wait in the backlog instead of re-entering the handler.
    this.running = true;
    try {
      result = this.handler(batch);
    } catch (e) {
      this.running = false;
      this.owner.reportHandlerError(e);
      this.finished(initial);
      return;
    }
    this.running = false;
    if (!isThenable(result)) {
      this.finished(initial);
      return;
    }
    this.busy = true;
    result.then(
      () => this.settled(initial),
      (e: unknown) => {
        this.owner.reportHandlerError(e);
        this.settled(initial);
      },
    );
  }

  private settled(initial: boolean): void {
    this.busy = false;
    this.finished(initial);
    this.drain();
  }

  /** Runs queued batches while the handler is free (a Promise handler stops the loop until it settles). */
  private drain(): void {
    while (this.active && !this.busy && !this.running) {
      const next = this.backlog?.shift();
      if (next === undefined) return;
      this.run(next.batch, next.initial);
    }
  }

  /**
   * Only a batch that counts towards sync can change the flag: the collection's own sync reaches every
   * registration through `collectionSynced`, so a later batch's finish has nothing to re-check.
   */
  private finished(initial: boolean): void {
    if (!initial) return;
    this.pendingInitial--;
    this.checkSynced();
  }
}

/** @internal The registrations of one collection, in registration order. */
export class HandlerSet<T> {
  private regs: HandlerRegistration<T>[] = [];

  constructor(private readonly owner: HandlerOwner) {}

  get size(): number {
    return this.regs.length;
  }

  /**
   * Some registration hands the batch array itself to user code, which then must get it frozen (handlers
   * share one array). Per-event handlers never see it: a collection whose handlers are all per-event skips
   * the freeze, a call into V8's runtime for every batch.
   */
  exposesBatches = false;

  /** Adds a handler; `replay` (when non-empty) is delivered synchronously as its first batch. */
  add(handler: BatchHandler<T>, replay: readonly Event<T>[] | undefined, seesBatch = true): HandlerRegistration<T> {
    const reg = new HandlerRegistration(this.owner, handler, this, seesBatch);
    this.regs = [...this.regs, reg];
    if (seesBatch) this.exposesBatches = true;
    if (replay !== undefined && replay.length > 0) reg.deliver(replay, true);
    else reg.checkSynced();
    this.owner.batchReadersAdded();
    return reg;
  }

  remove(reg: HandlerRegistration<T>): void {
    this.regs = this.regs.filter((r) => r !== reg);
    this.exposesBatches = this.regs.some((r) => r.seesBatch);
  }

  /** The registrations at this moment: a batch goes to those registered when it was committed. */
  snapshot(): readonly HandlerRegistration<T>[] {
    return this.regs;
  }

  /** Batches waiting in all handlers' queues. */
  queuedBatches(): number {
    let n = 0;
    for (const r of this.regs) n += r.queued;
    return n;
  }

  /** Called after the collection synced. */
  collectionSynced(): void {
    for (const r of this.regs) r.checkSynced();
  }
}

// One open watch response, paced by the socket: at most a fixed number of bytes wait for a client that reads slowly.
import type { ServerResponse } from 'node:http';
import type { StatusError } from '../apimachinery/statusError.js';
import type { TimerHandle } from '../apimachinery/clock.js';
import type { ServerState } from '../state/serverState.js';
import type { StoreEvent } from '../storage/eventHistory.js';
import { bookmarkEvent, watchEventFor, type WatchEvent, type WatchFilter } from './watchEvents.js';

/** What a stream reports to its hub. */
export interface StreamOwner {
  /** The stream is over (any way): forget it. */
  closed(stream: WatchStream): void;
  /** The client fell more than the budget behind and the stream was cut. */
  tooSlow(stream: WatchStream): void;
}

/**
 * One open watch response.
 *
 * Initial events wait unserialized and are written as the socket drains, so a long initial list costs the
 * client's reading pace, not memory. Live events are serialized at commit time (the object may change after)
 * and queued behind them. Whenever the queued bytes plus those node still holds for the socket would exceed
 * `budgetBytes`, the client has fallen too far behind: like kube-apiserver, the server cuts the watch and the
 * client relists or rewatches from its last resourceVersion. One event larger than the budget still goes out
 * when nothing else is waiting, or it could never be delivered.
 */
export class WatchStream {
  private readonly timers: TimerHandle[] = [];
  private readonly queue: Array<WatchEvent | string> = [];
  private queuedBytes = 0;
  private blocked = false;
  private ending = false;
  private closed = false;
  /** The most bytes this stream ever held back for its client. */
  peakBufferedBytes = 0;

  constructor(
    private readonly res: ServerResponse,
    private readonly filter: WatchFilter,
    /** Events at or below this resourceVersion were already covered by the initial events. */
    private readonly since: number,
    private readonly state: ServerState,
    private readonly budgetBytes: number,
    private readonly owner: StreamOwner,
  ) {
    res.on('close', () => this.dispose());
    res.on('drain', () => {
      this.blocked = false;
      this.pump();
    });
  }

  get storageKey(): string {
    return this.filter.rt.storageKey;
  }

  /** Bytes waiting for the client: queued here plus buffered by node for the socket. */
  get bufferedBytes(): number {
    return this.closed ? 0 : this.queuedBytes + this.res.writableLength;
  }

  open(first: WatchEvent[]): void {
    writeHeaders(this.res);
    this.queue.push(...first);
    this.pump();
  }

  deliverCommitted(e: StoreEvent): void {
    if (e.rv <= this.since) return;
    const event = watchEventFor(this.filter, e);
    if (event) this.send(event);
  }

  bookmark(annotations?: Record<string, string>): void {
    this.send(bookmarkEvent(this.filter.rt, this.state.store.resourceVersion(), annotations));
  }

  every(ms: number, fn: () => void): void {
    // Already over (the first bookmark can cut a client that reads nothing): no dispose is left to cancel it.
    if (this.closed) return;
    this.timers.push(this.state.clock.setInterval(fn, ms));
  }

  once(ms: number, fn: () => void): void {
    if (this.closed) return;
    this.timers.push(this.state.clock.setTimeout(fn, ms));
  }

  /** Ends the stream cleanly once what is queued has gone out; nothing new is queued after this. */
  end(): void {
    this.ending = true;
    this.dispose();
    this.pump();
  }

  /** Writes an `ERROR` event with the failure's `Status`, then ends the stream. */
  fail(error: StatusError): void {
    this.send({ type: 'ERROR', object: error.toStatus() });
    this.end();
  }

  private send(e: WatchEvent): void {
    if (this.closed || this.ending) return;
    const text = line(e);
    const size = Buffer.byteLength(text);
    const buffered = this.bufferedBytes;
    if (buffered > 0 && buffered + size > this.budgetBytes) return this.cut();
    this.queue.push(text);
    this.queuedBytes += size;
    this.peakBufferedBytes = Math.max(this.peakBufferedBytes, this.bufferedBytes);
    this.pump();
  }

  private pump(): void {
    while (!this.blocked && this.queue.length > 0 && writable(this.res)) {
      const item = this.queue.shift()!;
      let text: string;
      if (typeof item === 'string') {
        text = item;
        this.queuedBytes -= Buffer.byteLength(text);
      } else {
        text = line(item);
      }
      this.blocked = !this.res.write(text);
      this.peakBufferedBytes = Math.max(this.peakBufferedBytes, this.queuedBytes + this.res.writableLength);
    }
    if (this.ending && this.queue.length === 0 && writable(this.res)) this.res.end();
  }

  // Destroyed, not ended: an end would wait behind the very bytes the client does not read.
  private cut(): void {
    this.queue.length = 0;
    this.queuedBytes = 0;
    this.owner.tooSlow(this);
    this.dispose();
    this.res.destroy();
  }

  private dispose(): void {
    if (this.closed) return;
    this.closed = true;
    for (const t of this.timers) t.cancel();
    this.owner.closed(this);
  }
}

/** Writes a watch response's headers at once. */
export function writeHeaders(res: ServerResponse): void {
  res.writeHead(200, { 'Content-Type': 'application/json', 'Cache-Control': 'no-cache, private', 'Transfer-Encoding': 'chunked' });
  // client-node's informer waits for the response headers before `start()` resolves: send them now.
  res.flushHeaders();
}

/** One event as a line of the stream. */
export function line(e: WatchEvent): string {
  return `${JSON.stringify(e)}\n`;
}

function writable(res: ServerResponse): boolean {
  return !res.writableEnded && !res.destroyed;
}

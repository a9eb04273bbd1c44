// Network partitions by client: cut one client (a replica) off while every other client is served as usual.
import type { ServerResponse } from 'node:http';

/**
 * How a cut-off client's requests end: `fail` answers 503 at once, `reset` drops the connection without an
 * answer, `hang` never answers (the request waits until the client gives up, or the partition heals and the
 * connection is dropped).
 */
export type PartitionMode = 'fail' | 'hang' | 'reset';

// Callers in plain JavaScript (the CLI, tests) may pass anything.
const MODES: ReadonlySet<string> = new Set(['fail', 'hang', 'reset']);

/**
 * The clients cut off now, and the open requests of every named client, so cutting one off also ends what
 * it has in flight (watches included), as a real partition would.
 */
export class Partitions {
  private readonly cut = new Map<string, PartitionMode>();
  private readonly open = new Map<string, Set<ServerResponse>>();

  /**
   * Cuts `client` off: its requests in flight are dropped and new ones end as `mode` says.
   * @throws RangeError for an empty client name or an unknown mode.
   */
  cutOff(client: string, mode: PartitionMode): void {
    if (client === '') throw new RangeError('partition: the client name must not be empty');
    if (!MODES.has(mode)) throw new RangeError(`partition: unknown mode ${JSON.stringify(mode)}`);
    this.cut.set(client, mode);
    for (const res of this.open.get(client) ?? []) res.destroy();
  }

  /** Serves `client` again; requests left hanging are dropped, so the client retries on a fresh connection. */
  heal(client: string): void {
    if (this.cut.get(client) === 'hang') for (const res of this.open.get(client) ?? []) res.destroy();
    this.cut.delete(client);
  }

  /** Forgets every partition. */
  clear(): void {
    for (const client of [...this.cut.keys()]) this.heal(client);
  }

  /** How a request of `client` must end now, or undefined when it is served. */
  modeOf(client: string | undefined): PartitionMode | undefined {
    return client === undefined ? undefined : this.cut.get(client);
  }

  /** Remembers an open request of `client` until its response closes. */
  track(client: string | undefined, res: ServerResponse): void {
    if (client === undefined) return;
    let set = this.open.get(client);
    if (set === undefined) this.open.set(client, (set = new Set()));
    set.add(res);
    res.once('close', () => set.delete(res));
  }
}

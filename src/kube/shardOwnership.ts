// Which keys a shard member may act on, given its view of the members and what each other member last
// published as its own view. Pure: the shard ring rebuilds it whenever either changes.
import { HashRing } from './hashRing.js';

/** What one member knows at one moment. */
export interface ShardSnapshot {
  /** This member. */
  readonly identity: string;
  /** The live members (this one included), sorted; empty when this member may not act at all. */
  readonly view: readonly string[];
  /** The view this member last published in its Lease (what the others go by). */
  readonly published: readonly string[];
  /** For every other live member, the view it last published in its Lease (as of a listing made after ours). */
  readonly acks: ReadonlyMap<string, readonly string[]>;
}

/**
 * A member owns a key when the rings over both its current view and the view it published put the key on it,
 * and no other live member could still be acting on the key: for each other member, the ring over the view
 * that member last published puts the key elsewhere. A member publishes a view only after it stopped acting on
 * what that view takes away, so a key that moved here (a join elsewhere, a view that lagged) waits until the
 * previous owner said it let go; a key whose previous owner left needs no such word, since a member leaves a
 * view only once its Lease was released or expired, and it stops acting at its renew deadline, before the
 * expiry. Requiring the published view too means the others, who go by it, never take a key this member acts on.
 */
export class ShardOwnership {
  private readonly ring: HashRing;
  private readonly publishedRing: HashRing;
  /** Other members whose published view differs from ours, with the ring of that view. */
  private readonly lagging: Array<[string, HashRing]> = [];

  constructor(
    private readonly snapshot: ShardSnapshot,
    ringOf: (members: readonly string[]) => HashRing,
  ) {
    this.ring = ringOf(snapshot.view);
    this.publishedRing = ringOf(snapshot.published);
    const ours = snapshot.view.join(',');
    for (const [member, view] of snapshot.acks) if (view.join(',') !== ours) this.lagging.push([member, ringOf(view)]);
  }

  /** Whether this member may act on `key`. */
  owns(key: string): boolean {
    if (this.ring.ownerOf(key) !== this.snapshot.identity || this.publishedRing.ownerOf(key) !== this.snapshot.identity) return false;
    for (const [member, ring] of this.lagging) if (ring.ownerOf(key) === member) return false;
    return true;
  }

  /** The member the ring over this view puts `key` on. */
  ownerOf(key: string): string | undefined {
    return this.ring.ownerOf(key);
  }
}

// The collection graph as the debug page draws it: collections with their counters, and who reads whom.
import { liveCollections, type LiveCollection } from '../../engine/liveCollections.js';
import type { Dependent } from '../../engine/internalCollection.js';

/** One collection on the graph page. */
export interface GraphNode {
  readonly uid: number;
  readonly name: string;
  /** Column on the page: above everything it reads. */
  readonly rank: number;
  readonly objects: number;
  readonly events: number;
  readonly recomputations: number;
  readonly errors: number;
  readonly synced: boolean;
}

/** `from` feeds `to` (a fetch dependency, or the input of a derived collection). */
export interface GraphEdge {
  readonly from: number;
  readonly to: number;
}

export interface GraphModel {
  readonly nodes: GraphNode[];
  readonly edges: GraphEdge[];
}

/** The graph of live collections now. */
export function graphModel(): GraphModel {
  const collections = liveCollections();
  const live = new Set<Dependent>(collections);
  const nodes = collections.map(nodeOf);
  const edges: GraphEdge[] = [];
  for (const c of collections) for (const to of readersOf(c, live)) edges.push({ from: c.uid, to: to.uid });
  return { nodes, edges };
}

/** The collections that read `c`, looking through the engine's own nodes in between (join inputs, indexes). */
function readersOf(c: Dependent, collections: ReadonlySet<Dependent>): Set<Dependent> {
  const found = new Set<Dependent>();
  const seen = new Set<Dependent>();
  const stack = [...c.dependentsForRank()];
  for (let d = stack.pop(); d !== undefined; d = stack.pop()) {
    if (seen.has(d)) continue;
    seen.add(d);
    if (collections.has(d)) found.add(d);
    else stack.push(...d.dependentsForRank());
  }
  return found;
}

function nodeOf(c: LiveCollection): GraphNode {
  const { events, recomputations, errors } = c.counters;
  return { uid: c.uid, name: c.name, rank: c.rank, objects: c.size, events, recomputations, errors, synced: c.hasSynced() };
}

/** One collection's dump and last errors, for the page's detail panel; undefined when no live collection has `uid`. */
export function collectionDetail(uid: number): { node: GraphNode; dump: unknown; errors: string[] } | undefined {
  const c = liveCollections().find((x) => x.uid === uid);
  if (c === undefined) return undefined;
  return { node: nodeOf(c), dump: c.dump(), errors: c.recentErrors().map((e) => e.message) };
}

// `npm run bench:ring`: the shard ring's balance and the keys moved per join, for 10 and 50 members.
//
// Pure ring math, no server: the ring a member builds from a view is exactly this one. Balance is the
// largest member's share of the keys over the mean share; moved is the fraction of keys whose owner changes
// when one member joins (the ideal is 1/(N+1)). Three naming schemes for members, since the hash sees names.
import { HashRing } from '../src/kube/hashRing.js';

/** Balance and churn of one ring configuration. */
export interface RingFigures {
  readonly members: number;
  readonly virtualNodes: number;
  readonly scheme: string;
  /** Largest share over mean share. */
  readonly balance: number;
  /** Fraction of keys that changed owner when one member joined. */
  readonly movedOnJoin: number;
  /** Fraction of keys that changed owner when one member left. */
  readonly movedOnLeave: number;
}

const SCHEMES: Record<string, (i: number) => string> = {
  ordinal: (i) => `replica-${i}`,
  statefulSet: (i) => `controller-${i}`,
  pod: (i) => `ctl-7f9c6d${(i * 7919).toString(36)}-${((i * 104_729) % 46_656).toString(36).padStart(3, '0')}x`,
};

/** Measures one configuration over `keys`. */
export function measureRing(n: number, virtualNodes: number, scheme: string, keys: readonly string[]): RingFigures {
  const name = SCHEMES[scheme]!;
  const members = Array.from({ length: n }, (_, i) => name(i));
  const ring = new HashRing(members, virtualNodes);
  const counts = new Map<string, number>();
  const owners = keys.map((k) => ring.ownerOf(k)!);
  for (const o of owners) counts.set(o, (counts.get(o) ?? 0) + 1);
  const balance = Math.max(...counts.values()) / (keys.length / n);
  const joined = new HashRing([...members, name(n)], virtualNodes);
  const left = new HashRing(members.slice(1), virtualNodes);
  let movedJoin = 0;
  let movedLeave = 0;
  keys.forEach((k, i) => {
    if (joined.ownerOf(k) !== owners[i]) movedJoin++;
    if (left.ownerOf(k) !== owners[i]) movedLeave++;
  });
  return { members: n, virtualNodes, scheme, balance, movedOnJoin: movedJoin / keys.length, movedOnLeave: movedLeave / keys.length };
}

function main(): void {
  const keys = Array.from({ length: 100_000 }, (_, i) => `default/object-${i}`);
  const rows: string[] = [];
  rows.push('| members | virtualNodes | names | balance (max/mean) | moved on join | ideal 1/(N+1) | moved on leave | ideal 1/N |');
  rows.push('|---|---|---|---|---|---|---|---|');
  for (const virtualNodes of [100, 256]) {
    for (const n of [10, 50]) {
      for (const scheme of Object.keys(SCHEMES)) {
        const f = measureRing(n, virtualNodes, scheme, keys);
        rows.push(
          `| ${n} | ${virtualNodes} | ${scheme} | ${f.balance.toFixed(3)} | ${(f.movedOnJoin * 100).toFixed(2)} % | ${(100 / (n + 1)).toFixed(2)} % | ${(f.movedOnLeave * 100).toFixed(2)} % | ${(100 / n).toFixed(2)} % |`,
        );
      }
    }
  }
  console.log(`Shard ring over ${keys.length} keys (default/object-0 …)\n`);
  console.log(rows.join('\n'));
}

if (process.argv[1]?.endsWith('ring.js')) main();

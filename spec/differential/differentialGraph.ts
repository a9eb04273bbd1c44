// The graph under test in the differential spec: four sources feeding every filter kind and every derived
// constructor, four levels deep with diamonds and a dependency that appears mid-transaction.
import { newStatic, newStaticCollection, type Collection } from '../../src/index.js';
import { addLowerLevels } from './differentialLowerLevels.js';
import type { Checked, Cm, Pod, Snapshot, Svc } from './differentialModel.js';
import { addUpperLevels } from './differentialUpperLevels.js';

export function buildGraph() {
  const pods = newStaticCollection<Pod>([], { name: 'pods' });
  const svcs = newStaticCollection<Svc>([], { name: 'svcs' });
  const cms = newStaticCollection<Cm>([], { name: 'cms' });
  const mode = newStatic<number>(0, { name: 'mode' });
  const checked: Checked[] = [];
  const expectedOf = (s: Snapshot, name: string): unknown[] => {
    let v = s.memo.get(name);
    if (v === undefined) {
      v = checked.find((c) => c.name === name)!.expected(s);
      s.memo.set(name, v);
    }
    return v;
  };
  const add = <T>(name: string, collection: Collection<T>, expected: (s: Snapshot) => T[]): Collection<T> => {
    checked.push({ name, collection: collection as Collection<unknown>, expected });
    return collection;
  };

  const builder = { pods, svcs, cms, mode, checked, expectedOf, add };
  addUpperLevels(builder, addLowerLevels(builder));

  return { pods, svcs, cms, mode, checked };
}

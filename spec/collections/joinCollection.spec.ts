import { describe, it, expect } from '@jest/globals';
import { joinCollection, newStatic, type Event } from '../../src/index.js';

interface Named { metadata: { name: string; namespace: string }; v: string }
const obj = (ns: string, name: string, v: string): Named => ({ metadata: { name, namespace: ns }, v });

describe('joinCollection', () => {
  it('should resolve conflicts exactly as krt join_test (first collection wins)', () => {
    const c1 = newStatic<Named>(undefined);
    const c2 = newStatic<Named>(undefined);
    const c3 = newStatic<Named>(undefined);
    const j = joinCollection([c1.asCollection(), c2.asCollection(), c3.asCollection()]);
    const seen: Event<Named>[] = [];
    j.register((e) => { seen.push(e); });
    const take = () => seen.splice(0).map((e) => `${e.type}:${e.old?.v ?? ''}>${e.new?.v ?? ''}`);

    c2.set(obj('ns', 'a', 'c2'));
    expect(take()).toEqual(['add:>c2']);
    c1.set(obj('ns', 'a', 'c1'));
    expect(take()).toEqual(['update:c2>c1']);
    c3.set(obj('ns', 'a', 'c3'));
    expect(take()).toEqual([]);
    expect(j.getKey('ns/a')?.v).toBe('c1');
    c2.set(obj('ns', 'a', 'c2u'));
    expect(take()).toEqual([]);
    c1.set(undefined);
    expect(take()).toEqual(['update:c1>c2u']);
    c2.set(undefined);
    expect(take()).toEqual(['update:c2u>c3']);
    c3.set(undefined);
    expect(take()).toEqual(['delete:c3>']);
    c1.set(obj('ns', 'b', 'c1b'));
    expect(take()).toEqual(['add:>c1b']);
    c2.set(obj('ns', 'b', 'c2b'));
    expect(take()).toEqual([]);
    c2.set(undefined);
    expect(take()).toEqual([]);
    expect(j.getKey('ns/b')?.v).toBe('c1b');
  });
});

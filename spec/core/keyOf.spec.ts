import { describe, it, expect } from '@jest/globals';
import { keyOf, KeyError, newStaticCollection, newCollection } from '../../src/index.js';
import { storedKey } from '../../src/core/keyOf.js';

describe('keyOf', () => {
  it('should key a string by itself', () => {
    expect(keyOf('a/b')).toBe('a/b');
    expect(keyOf('')).toBe('');
  });

  it('should key an object with metadata.name as namespace/name, or name without a namespace', () => {
    expect(keyOf({ metadata: { name: 'n', namespace: 'ns' } })).toBe('ns/n');
    expect(keyOf({ metadata: { name: 'n' } })).toBe('n');
    expect(keyOf({ metadata: { name: 'n', namespace: '' } })).toBe('n');
  });

  it('should give namespace/name exactly at every length, blanks included (long keys are flattened, not changed)', () => {
    for (const name of ['p', 'pod-12345', 'coredns-5d78c9869d-abcde', ' padded ', 'trailing\t']) {
      for (const namespace of ['ns-0', 'kube-system', ' ns ']) {
        expect(keyOf({ metadata: { name, namespace } })).toBe(namespace + '/' + name);
      }
    }
    const c = newStaticCollection<{ metadata: { name: string; namespace: string } }>([]);
    c.updateObject({ metadata: { name: ' padded-name-long ', namespace: 'kube-system' } });
    expect(c.getKey('kube-system/ padded-name-long ')).toBeDefined();
  });

  it('should prefer metadata.name over resourceName()', () => {
    expect(keyOf({ metadata: { name: 'n', namespace: 'ns' }, resourceName: () => 'other' })).toBe('ns/n');
  });

  it('should key an object by resourceName(), including class instances', () => {
    class Thing {
      constructor(readonly id: string) {}
      resourceName(): string {
        return `thing/${this.id}`;
      }
    }
    expect(keyOf(new Thing('x'))).toBe('thing/x');
    expect(keyOf({ resourceName: () => 'r' })).toBe('r');
  });

  it('should key a collection by its uid', () => {
    const c = newStaticCollection<string>([]);
    expect(keyOf(c)).toBe(String(c.uid));
    const d = newCollection(c, (_ctx, s) => s);
    expect(keyOf(d)).toBe(String(d.uid));
  });

  it('should throw a KeyError showing the value for anything else', () => {
    for (const bad of [42, null, undefined, { name: 'x' }, { metadata: {} }, { metadata: { name: '' } }, [1], true]) {
      expect(() => keyOf(bad)).toThrow(KeyError);
    }
    try {
      keyOf({ spec: { weird: 'value' } });
      throw new Error('unreachable');
    } catch (e) {
      expect(e).toBeInstanceOf(KeyError);
      expect((e as KeyError).message).toContain('"weird":"value"');
      expect((e as KeyError).value).toEqual({ spec: { weird: 'value' } });
    }
  });

  it('should name the collection in a KeyError raised for it', () => {
    const c = newStaticCollection<unknown>([], { name: 'Widgets' });
    try {
      c.updateObject({ id: 7 });
      throw new Error('unreachable');
    } catch (e) {
      expect(e).toBeInstanceOf(KeyError);
      expect((e as KeyError).collection).toBe('Widgets');
      expect((e as KeyError).message).toContain('Widgets');
      expect((e as KeyError).message).toContain('{"id":7}');
    }
  });

  it('should let the key option override keyOf, and name the collection when it fails', () => {
    const c = newStaticCollection<{ id: number }>([], { name: 'ById', key: (o: { id: number }) => `#${o.id}` });
    c.updateObject({ id: 1 });
    expect(c.getKey('#1')).toEqual({ id: 1 });
    const bad = newStaticCollection<{ id: number }>([], { name: 'BadKey', key: (() => 5) as unknown as (o: { id: number }) => string });
    expect(() => bad.updateObject({ id: 1 })).toThrow(/BadKey/);
  });
});

describe('hasKey', () => {
  // The engine asks hasKey(output, inputKey) before building an output's key: it must agree with keyOf exactly.
  const objects: unknown[] = [
    'a/b',
    '',
    { metadata: { name: 'n', namespace: 'ns' } },
    { metadata: { name: 'n' } },
    { metadata: { name: 'n', namespace: '' } },
    { metadata: { name: 'b/c', namespace: 'a' } },
    { metadata: { name: 'c', namespace: 'a/b' } },
    { metadata: { name: 'nn', namespace: 'n' } },
    { resourceName: () => 'custom' },
    { metadata: { name: '' } },
    42,
    null,
  ];
  const keys = ['a/b', '', 'ns/n', 'n', 'a/b/c', 'n/nn', 'nn/n', 'ns/nx', 'xs/n', 'ns//n', 'custom', '42'];

  it('should say true exactly when keyOf gives that key', async () => {
    const { hasKey, tryKeyOf } = await import('../../src/core/keyOf.js');
    for (const o of objects) {
      for (const k of keys) expect([o, k, hasKey(o, k)]).toEqual([o, k, tryKeyOf(o) === k]);
    }
  });

  it('should say two objects share a key only when keyOf gives both the same key (sameObjectName)', async () => {
    const { sameObjectName, tryKeyOf } = await import('../../src/core/keyOf.js');
    for (const a of objects) {
      for (const b of objects) {
        // true implies equal keys; false means unknown
        if (sameObjectName(a, b)) expect([a, b, tryKeyOf(a)]).toEqual([a, b, tryKeyOf(b)]);
      }
    }
    expect(sameObjectName({ metadata: { name: 'n', namespace: 'ns' }, x: 1 }, { metadata: { name: 'n', namespace: 'ns' } })).toBe(true);
    expect(sameObjectName({ metadata: { name: 'n' } }, { metadata: { name: 'n', namespace: 'ns' } })).toBe(false);
    expect(sameObjectName({ metadata: { name: '' } }, { metadata: { name: '' } })).toBe(false);
  });
});

describe('storedKey', () => {
  it('should keep a key’s text exactly, blanks included', () => {
    const ns = ['ns', String(7)].join('-');
    const rope = `${ns}/pod-${'x'.repeat(20)}`;
    expect(storedKey(rope)).toBe(rope);
    for (const k of [' padded ', '\tns/a', 'ns/a\n', '', 'plain']) expect(storedKey(k)).toBe(k);
  });

  it('should leave keys with blanks working in a collection, as stored and as looked up', () => {
    const c = newStaticCollection<{ id: string }>([{ id: ' a ' }], { key: (o: { id: string }) => o.id });
    c.updateObject({ id: ' b' });
    expect(c.getKey(' a ')).toEqual({ id: ' a ' });
    expect(c.getKey(' b')).toEqual({ id: ' b' });
    expect(c.getKey('b')).toBeUndefined();
    const d = newCollection(c, (_ctx, o) => ({ id: `${o.id}!` }), { key: (o: { id: string }) => o.id });
    expect(
      d
        .list()
        .map((o) => o.id)
        .sort(),
    ).toEqual([' a !', ' b!']);
    expect(d.getKey(' b!')).toEqual({ id: ' b!' });
  });
});

import { describe, it, expect } from '@jest/globals';
import { batchArray } from '../../../src/engine/buffers/batchArray.js';

describe('batchArray', () => {
  it('should have room for the bound, and read like a plain array once filled and trimmed', () => {
    const a = batchArray<string>(5);
    expect(a).toHaveLength(5);
    let m = 0;
    for (const s of ['x', 'y', 'z']) a[m++] = s;
    a.length = m;
    expect(a).toEqual(['x', 'y', 'z']);
    expect(Object.keys(a)).toEqual(['0', '1', '2']);
    expect(a.map((s) => s.toUpperCase())).toEqual(['X', 'Y', 'Z']);
  });

  it('should start empty, and grow as it is written, above the largest bound it presizes', () => {
    const a = batchArray<number>(2 ** 20 + 1);
    expect(a).toHaveLength(0);
    a[0] = 1;
    a[1] = 2;
    expect(a).toEqual([1, 2]);
  });
});

// White-box: the adapter that delivers a batch to a per-event handler one event at a time.
import { describe, it, expect } from '@jest/globals';
import { perEvent } from '../../src/engine/perEvent.js';
import type { Event } from '../../src/index.js';

const batch: Event<string>[] = [
  { type: 'add', new: 'a' },
  { type: 'add', new: 'b' },
  { type: 'add', new: 'c' },
];

describe('perEvent', () => {
  it('should call the handler once per event, in order, and return nothing for a synchronous handler', () => {
    const seen: string[] = [];
    const r = perEvent<string>((e) => void seen.push(e.new!))(batch);
    expect(r).toBeUndefined();
    expect(seen).toEqual(['a', 'b', 'c']);
  });

  it('should keep going after an event whose call throws, and rethrow the failure once the batch is done', () => {
    const seen: string[] = [];
    const one = perEvent<string>((e) => {
      seen.push(e.new!);
      if (e.new === 'b') throw new Error('b failed');
    });
    expect(() => one(batch)).toThrow('b failed');
    expect(seen).toEqual(['a', 'b', 'c']);
    const all = perEvent<string>((e) => {
      throw new Error(`${e.new!} failed`);
    });
    let caught: unknown;
    try {
      void all(batch);
    } catch (e) {
      caught = e;
    }
    expect(caught).toBeInstanceOf(AggregateError);
    expect((caught as AggregateError).errors.map((e: Error) => e.message)).toEqual(['a failed', 'b failed', 'c failed']);
  });

  it('should wait for a returned Promise before the next event, and reject with every failure at the end', async () => {
    const seen: string[] = [];
    let release!: () => void;
    const first = new Promise<void>((r) => (release = r));
    const handler = perEvent<string>((e) => {
      seen.push(e.new!);
      if (e.new === 'a') return first;
      if (e.new === 'b') return Promise.reject(new Error('b rejected'));
      return undefined;
    });
    const r = handler(batch) as Promise<void>;
    expect(seen).toEqual(['a']);
    release();
    await expect(r).rejects.toThrow('b rejected');
    expect(seen).toEqual(['a', 'b', 'c']);
  });
});

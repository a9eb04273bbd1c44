import { describe, it, expect } from '@jest/globals';
import { DebugHandler, newOptionsBuilder, newStaticCollection, newCollection } from '../../src/index.js';

describe('newOptionsBuilder', () => {
  it('should prefix names and share the stop signal and debugger', () => {
    const stop = new AbortController();
    const debug = new DebugHandler();
    const opts = newOptionsBuilder({ namePrefix: 'ambient', stop: stop.signal, debugger: debug });
    const src = newStaticCollection<string>(['a'], opts.with('Source'));
    const derived = newCollection(src, (_ctx, s) => s.toUpperCase(), opts.with<string>('Upper', { metadata: { team: 'x' } }));
    expect(src.name).toBe('ambient/Source');
    expect(derived.name).toBe('ambient/Upper');
    expect(derived.metadata()).toEqual({ team: 'x' });
    expect(debug.dump().map((d) => d.name)).toEqual(['ambient/Source', 'ambient/Upper']);
    expect(opts.stop).toBe(stop.signal);
    expect(opts.debugger).toBe(debug);
    stop.abort();
    expect(debug.dump()).toEqual([]);
  });

  it('should leave names alone without a prefix, and in withOptions', () => {
    expect(newOptionsBuilder().with('Plain')).toEqual({ name: 'Plain' });
    expect(newOptionsBuilder({ namePrefix: '' }).with('Plain').name).toBe('Plain');
    expect(newOptionsBuilder({ namePrefix: 'p' }).withOptions({ name: 'Own' })).toEqual({ name: 'Own' });
    expect(newOptionsBuilder({ namePrefix: 'p' }).with('N', { name: 'ignored' }).name).toBe('p/N');
  });
});

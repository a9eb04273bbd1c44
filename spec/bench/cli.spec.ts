import { describe, it, expect } from '@jest/globals';
import { UsageError, choice, defineCli, flag, idList, integer, required, rest, text } from '../../bench/cli.js';

const SCENARIOS = ['b1', 'b1tx', 'b1same', 'b2'];

/** A tool shaped like bench:ab: a required revision, a scenario list, integers with a minimum. */
const ab = defineCli({
  tool: 'bench:ab',
  usage: 'bench:ab -- <revision> [--only b1,b1tx,b1same,b2] [--rounds N] [--pairs N] [--quick]',
  options: {
    only: idList('scenario', SCENARIOS, ['b1', 'b1tx', 'b2']),
    rounds: integer({ min: 3 }),
    pairs: integer({ min: 1 }, 1),
    order: integer({ min: 0, max: 5 }),
    quick: flag(),
    child: choice(['forward', 'reverse']),
    out: text(),
  },
  positionals: { revision: required(text(), 'needs the revision to compare with') },
});

/** The UsageError `parse` throws for `argv`. */
function usageErrorOf(parse: () => unknown): UsageError {
  try {
    parse();
  } catch (e) {
    if (e instanceof UsageError) return e;
    throw e;
  }
  throw new Error('parsed without an error');
}

describe('bench command lines (bench/cli.ts)', () => {
  it('should give the declared defaults for what is not given', () => {
    expect(ab.parse(['HEAD~1'])).toEqual({
      revision: 'HEAD~1',
      only: ['b1', 'b1tx', 'b2'],
      rounds: undefined,
      pairs: 1,
      order: undefined,
      quick: false,
      child: undefined,
      out: undefined,
    });
  });

  it('should read the commands the docs quote', () => {
    const a = ab.parse(['1e80547', '--only', 'b1tx', '--pairs', '2', '--rounds', '150']);
    expect(a).toMatchObject({ revision: '1e80547', only: ['b1tx'], pairs: 2, rounds: 150, quick: false });
    expect(ab.parse(['--quick', '--pairs=4', 'main', '--order', '5'])).toMatchObject({ revision: 'main', pairs: 4, order: 5, quick: true });
  });

  it('should read a comma list whatever its case, dropping spaces and empty items', () => {
    expect(ab.parse(['x', '--only', 'B1, b2,,B1SAME']).only).toEqual(['b1', 'b2', 'b1same']);
  });

  it('should reject an unknown id, naming it and the tool', () => {
    const e = usageErrorOf(() => ab.parse(['x', '--only', 'b1,nosuch']));
    expect(e.message).toContain('bench:ab');
    expect(e.message).toContain('unknown scenario "nosuch"');
    expect(e.message).toContain(ab.usage);
  });

  it('should enforce an integer’s minimum and maximum', () => {
    expect(usageErrorOf(() => ab.parse(['x', '--pairs', '0'])).problem).toBe('--pairs needs an integer of 1 or more, got "0"');
    expect(usageErrorOf(() => ab.parse(['x', '--rounds', '2'])).problem).toBe('--rounds needs an integer of 3 or more, got "2"');
    expect(usageErrorOf(() => ab.parse(['x', '--rounds', '3.5'])).problem).toContain('--rounds');
    expect(usageErrorOf(() => ab.parse(['x', '--rounds', 'many'])).problem).toContain('--rounds');
    expect(usageErrorOf(() => ab.parse(['x', '--order', '6'])).problem).toBe('--order needs an integer from 0 to 5, got "6"');
  });

  it('should reject an unknown flag with the usage line', () => {
    const e = usageErrorOf(() => ab.parse(['x', '--bogus']));
    expect(e.problem).toBe('unknown argument "--bogus"');
    expect(e.message).toBe(`bench:ab: unknown argument "--bogus"\nusage: ${ab.usage}`);
  });

  it('should reject malformed options: a missing value, a value on a flag, a value out of a choice', () => {
    expect(usageErrorOf(() => ab.parse(['x', '--pairs'])).problem).toBe('--pairs needs a value');
    expect(usageErrorOf(() => ab.parse(['x', '--only', '--quick'])).problem).toBe('--only needs a value');
    expect(usageErrorOf(() => ab.parse(['x', '--quick=yes'])).problem).toBe('--quick takes no value');
    expect(usageErrorOf(() => ab.parse(['x', '--child', 'sideways'])).problem).toContain('forward, reverse');
  });

  it('should read positionals in order, and reject a missing or an extra one', () => {
    expect(usageErrorOf(() => ab.parse(['--quick'])).problem).toBe('needs the revision to compare with');
    expect(usageErrorOf(() => ab.parse(['a', 'b'])).problem).toBe('unexpected argument "b"');
    const loop = defineCli({
      tool: 'bench:loop',
      usage: 'node build/bench/loop.js [rounds] [only]',
      positionals: { rounds: integer({ min: 1 }, 1000), only: text() },
    });
    expect(loop.parse([])).toEqual({ rounds: 1000, only: undefined });
    expect(loop.parse(['2000', 'selector lookup'])).toEqual({ rounds: 2000, only: 'selector lookup' });
    expect(usageErrorOf(() => loop.parse(['many'])).problem).toBe('rounds needs an integer of 1 or more, got "many"');
  });

  it('should give every remaining positional to a rest positional, or its fallback', () => {
    const cold = defineCli({
      tool: 'bench:cold',
      usage: 'cold.js [pods...] [--rounds N]',
      options: { rounds: integer({ min: 1 }) },
      positionals: { pods: rest(integer({ min: 1 }), [100, 1000]) },
    });
    expect(cold.parse([])).toEqual({ pods: [100, 1000], rounds: undefined });
    expect(cold.parse(['500', '--rounds', '7', '2000'])).toEqual({ pods: [500, 2000], rounds: 7 });
    expect(usageErrorOf(() => cold.parse(['500', '0'])).problem).toBe('pods needs an integer of 1 or more, got "0"');
  });

  it('should run the tool’s check across values', () => {
    const counts = defineCli({
      tool: 'bench:counts',
      usage: 'bench:counts -- [--pods N]',
      options: { pods: integer({ min: 1000 }, 5000) },
      check: (a) => (a.pods % 1000 === 0 ? undefined : '--pods needs a multiple of 1000'),
    });
    expect(counts.parse(['--pods', '7000']).pods).toBe(7000);
    expect(usageErrorOf(() => counts.parse(['--pods', '7500'])).problem).toBe('--pods needs a multiple of 1000');
  });
});

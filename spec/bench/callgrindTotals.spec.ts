import { describe, it, expect } from '@jest/globals';
import {
  estimatedCycles,
  jitWorkInstructions,
  medianPerUpdate,
  parseCallgrindTotals,
  perfMapResolver,
  perUpdate,
  selfCostsByFunction,
} from '../../bench/callgrindTotals.js';

/** The head of a callgrind output file as callgrind 3.19 writes it with --cache-sim=yes (from a B2 burst run). */
const OUTPUT = `# callgrind format
version: 1
creator: callgrind-3.19.0
pid: 6360
part: 1

desc: I1 cache: 32768 B, 64 B, 8-way associative
desc: D1 cache: 32768 B, 64 B, 8-way associative
desc: LL cache: 2097152 B, 64 B, 16-way associative

positions: line
events: Ir Dr Dw I1mr D1mr D1mw ILmr DLmr DLmw
summary: 34153687 11006028 3891179 598560 276767 47480 5827 70608 41705

ob=(1) /usr/bin/node
fl=(1) ???
fn=(1) Builtins_ArrayPrototypeFindLastIndex
0 12 3 1
totals: 34153687 11006028 3891179 598560 276767 47480 5827 70608 41705
`;

describe('callgrind totals (bench:counts)', () => {
  it('should name every column of the summary line by the events line', () => {
    const t = parseCallgrindTotals(OUTPUT);
    expect(t).toEqual({
      Ir: 34153687,
      Dr: 11006028,
      Dw: 3891179,
      I1mr: 598560,
      D1mr: 276767,
      D1mw: 47480,
      ILmr: 5827,
      DLmr: 70608,
      DLmw: 41705,
    });
  });

  it('should refuse output without its events or summary line, naming the file', () => {
    expect(() => parseCallgrindTotals(OUTPUT.replace(/^summary:.*$/m, ''), 'burst-1.out')).toThrow(
      'burst-1.out: no events or summary line',
    );
    expect(() => parseCallgrindTotals(OUTPUT.replace(/^events:.*$/m, ''))).toThrow('no events or summary line');
  });

  it('should refuse a summary that does not match its events', () => {
    expect(() => parseCallgrindTotals(OUTPUT.replace('summary: 34153687 ', 'summary: '))).toThrow('does not match the events line');
  });

  it('should refuse a run that counted nothing (the measured calls never ran)', () => {
    expect(() => parseCallgrindTotals(OUTPUT.replace('summary: 34153687', 'summary: 0'))).toThrow('nothing was counted');
  });

  it('should give the figures per update, last-level misses of code and data together', () => {
    const p = perUpdate(parseCallgrindTotals(OUTPUT), 4000);
    expect(p.instructions).toBeCloseTo(8538.42, 2);
    expect(p.l1dMisses).toBeCloseTo((276767 + 47480) / 4000, 6);
    expect(p.l1iMisses).toBeCloseTo(598560 / 4000, 6);
    expect(p.llMisses).toBeCloseTo((5827 + 70608 + 41705) / 4000, 6);
    expect(p.estCycles).toBeCloseTo(estimatedCycles(p.instructions, p.l1dMisses, p.llMisses), 6);
    // Run without --branch-sim: no branch figures.
    expect(p.mispredicts).toBe(0);
  });

  it('should count mispredicted branches, conditional and indirect together, when branches were simulated', () => {
    const t = parseCallgrindTotals(['events: Ir Bc Bcm Bi Bim', 'summary: 8000 1600 240 40 16'].join('\n'));
    expect(perUpdate(t, 8).mispredicts).toBe((240 + 16) / 8);
    expect(perUpdate(t, 8).estCycles).toBe(1000);
  });

  it('should weigh a first-level data miss as 10 instructions and a last-level miss as 100, and code misses not at all', () => {
    expect(estimatedCycles(1000, 3, 2)).toBe(1000 + 30 + 200);
    const withCodeMisses = perUpdate({ Ir: 1000, I1mr: 500, D1mr: 3, DLmr: 2 }, 1);
    expect(withCodeMisses.estCycles).toBe(1230);
    expect(withCodeMisses.l1iMisses).toBe(500);
  });

  it('should take the median of each figure over processes, and the spread of their instruction counts', () => {
    const at = (instructions: number, llMisses: number) => ({
      instructions,
      l1dMisses: 1,
      l1iMisses: 0,
      llMisses,
      estCycles: instructions + 100 * llMisses,
      mispredicts: llMisses * 10,
    });
    const { median, spread } = medianPerUpdate([at(1000, 3), at(1010, 1), at(1002, 2)]);
    expect(median.instructions).toBe(1002);
    expect(median.llMisses).toBe(2);
    expect(median.mispredicts).toBe(20);
    expect(spread).toBeCloseTo(0.01, 10);
    expect(medianPerUpdate([at(1000, 1), at(1004, 3)]).median.instructions).toBe(1002);
    expect(() => medianPerUpdate([])).toThrow('no processes');
  });

  it('should give each function its own costs, leaving out the inclusive cost of the calls it makes', () => {
    const text = [
      'events: Ir DLmr',
      'summary: 1000 9',
      'fn=(1) Builtins_ArrayPrototypeFindLastIndex',
      '0 10 1',
      'cfn=(2) 0x000000000d0df5c0',
      'calls=1 0',
      '0 900 8',
      'fn=(2)',
      '0 600 5',
      '+2 100',
      'cfn=(3) Builtins_StringEqual',
      'calls=4 0',
      '* 200 2',
      'fn=(3)',
      '0 200 2',
      'fn=(1)',
      '-1 90 0',
    ].join('\n');
    const { events, costs } = selfCostsByFunction(text);
    expect(events).toEqual(['Ir', 'DLmr']);
    // A cost line may leave out trailing events (0); `fn=(2)` reuses the name a `cfn=` line gave id 2.
    expect(costs.get('Builtins_ArrayPrototypeFindLastIndex')).toEqual([100, 1]);
    expect(costs.get('0x000000000d0df5c0')).toEqual([700, 5]);
    expect(costs.get('Builtins_StringEqual')).toEqual([200, 2]);
    const sum = [...costs.values()].reduce((n, c) => n + c[0]!, 0);
    expect(sum).toBe(1000);
  });

  it('should name JIT code by the last perf map entry that holds its address, and leave other names alone', () => {
    const resolve = perfMapResolver(
      [
        'd0df000 1000 JS:~recompute old.js:1:1',
        'd0df500 200 JS:*recompute derivedCollection.js:304:14',
        'not a map line',
        'd0e3000 100 JS:*updateObject newStaticCollection.js:12:17',
      ].join('\n'),
    );
    expect(resolve('0x000000000d0df5c0')).toBe('JS:*recompute derivedCollection.js:304:14');
    expect(resolve('0x000000000d0dff00')).toBe('JS:~recompute old.js:1:1');
    expect(resolve('0x000000000d0e3000')).toBe('JS:*updateObject newStaticCollection.js:12:17');
    expect(resolve('0x000000000d0e3100')).toBe('0x000000000d0e3100');
    expect(resolve('Builtins_StringEqual')).toBe('Builtins_StringEqual');
  });
  it('should count as V8 making code its compilers, lazy compiles and deoptimizer, and nothing that runs code', () => {
    const costs = new Map<string, number[]>([
      ['v8::internal::compiler::GraphReducer::ReduceTop()', [40, 1]],
      [
        'void v8::internal::compiler::RepresentationSelector::VisitInputs<(v8::internal::compiler::Phase)0>(v8::internal::compiler::Node*)',
        [5, 0],
      ],
      ['v8::internal::Deoptimizer::DoComputeOutputFrames()', [30, 0]],
      ['v8::internal::Compiler::Compile(v8::internal::Isolate*, v8::internal::Handle<v8::internal::JSFunction>)', [7, 0]],
      ['v8::internal::Runtime_CompileOptimized_Concurrent(int, unsigned long*, v8::internal::Isolate*)', [3, 0]],
      ['v8::internal::Runtime_NotifyDeoptimized(int, unsigned long*, v8::internal::Isolate*)', [2, 0]],
      // Running code: builtins, the runtime, JIT code, the garbage collector.
      ['Builtins_StringEqual', [1000, 3]],
      ['v8::internal::Runtime_JSReceiverGetPrototypeOf(int, unsigned long*, v8::internal::Isolate*)', [100, 0]],
      ['v8::internal::JSObject::MigrateToMap(v8::internal::Isolate*, v8::internal::Handle<v8::internal::JSObject>)', [90, 0]],
      ['v8::internal::Sweeper::RawSweep()', [60, 0]],
      ['0x000000000d0df5c0', [700, 9]],
    ]);
    expect(jitWorkInstructions(['Ir', 'DLmr'], costs)).toBe(87);
    // Costs are read by the Ir column wherever it is; a file without it has nothing to count.
    expect(jitWorkInstructions(['DLmr', 'Ir'], new Map([['v8::internal::Deoptimizer::New()', [4, 11]]]))).toBe(11);
    expect(jitWorkInstructions(['DLmr'], costs)).toBe(0);
  });
});

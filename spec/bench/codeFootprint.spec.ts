import { describe, it, expect } from '@jest/globals';
import { codeFootprint } from '../../bench/codeFootprint.js';
import { selfCostsByFunction } from '../../bench/callgrindTotals.js';

/**
 * A callgrind file as `--dump-instr=yes` writes it: positions are an instruction address and a source line,
 * each absolute, relative to the last (`+n`, `-n`) or the same (`*`). `hot` runs 100 times per instruction in
 * two code lines (0x1000 and 0x1040), with a call in between whose inclusive cost must not count as its own;
 * `cold` runs 3 times in one line; `shared` runs 100 times in hot's second line.
 */
const OUTPUT = `# callgrind format
version: 1
pid: 7
positions: instr line
events: Ir Dr I1mr
summary: 1000 10 5

fn=(1) hot
0x1000 0 100 1 1
+8 * 100
cfn=(2) cold
calls=1 0x9000 0
+4 * 900 9 4
+52 0 100
fn=(2)
0x9000 0 3
+16 * 3
fn=(3) shared
0x1050 0 100
totals: 1000 10 5
`;

describe('codeFootprint (bench:counts --footprint)', () => {
  it('should count the lines of code holding an instruction run often enough, by function', () => {
    const f = codeFootprint(OUTPUT, 50);
    // hot: 0x1000 and 0x1008 (line 0x40), 0x1040 (line 0x41); shared's 0x1050 is in line 0x41 too.
    expect(f.lines).toBe(2);
    expect(f.byFunction.get('hot')).toBe(1);
    expect(f.byFunction.get('shared')).toBe(1);
    expect(f.byFunction.has('cold')).toBe(false);
  });

  it('should take every run instruction with a threshold of one, and a call cost line for its address only', () => {
    const f = codeFootprint(OUTPUT, 1);
    // Line 0x240 for cold (0x9000, 0x9010); the call site 0x100c is in line 0x40 (its 900 is the callee's).
    expect(f.lines).toBe(3);
    expect(f.byFunction.get('cold')).toBe(1);
  });

  it('should refuse a file written without instruction addresses', () => {
    expect(() => codeFootprint(OUTPUT.replace('positions: instr line', 'positions: line'), 1)).toThrow('--dump-instr=yes');
  });

  it('should let selfCostsByFunction read the costs after both position fields', () => {
    const { events, costs } = selfCostsByFunction(OUTPUT);
    expect(events).toEqual(['Ir', 'Dr', 'I1mr']);
    expect(costs.get('hot')).toEqual([300, 1, 1]);
    expect(costs.get('cold')).toEqual([6, 0, 0]);
  });
});

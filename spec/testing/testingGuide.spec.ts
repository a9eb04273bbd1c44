import { describe, it, expect } from '@jest/globals';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

// Guard test for docs/testing.md: every code sample must be copied verbatim from the spec it names, so that
// the guide only ever shows code that runs. A sample may be several fragments separated by blank lines;
// each fragment must appear in the named file as consecutive lines (indentation aside).
const root = (p: string): string => fileURLToPath(new URL(`../../${p}`, import.meta.url));
const guide = readFileSync(root('docs/testing.md'), 'utf8');

interface Sample {
  source: string;
  code: string;
  line: number;
}

function samples(): Sample[] {
  const out: Sample[] = [];
  const fence = /```ts\n([\s\S]*?)```/g;
  let last = 0;
  for (let m = fence.exec(guide); m !== null; m = fence.exec(guide)) {
    const prose = guide.slice(last, m.index);
    const named = [...prose.matchAll(/[Ff]rom\s+`(spec\/[^`]+\.ts)`/g)].pop();
    out.push({ source: named?.[1] ?? '', code: m[1]!, line: guide.slice(0, m.index).split('\n').length });
    last = m.index + m[0].length;
  }
  return out;
}

const trimmed = (text: string): string[] => text.split('\n').map((l) => l.trim());

function containsConsecutively(haystack: string[], needle: string[]): boolean {
  for (let i = 0; i + needle.length <= haystack.length; i++) {
    if (needle.every((l, j) => haystack[i + j] === l)) return true;
  }
  return false;
}

describe('docs/testing.md', () => {
  const all = samples();

  it('should have code samples, each naming the spec it comes from', () => {
    expect(all.length).toBeGreaterThanOrEqual(10);
    for (const s of all)
      expect({ line: s.line, source: s.source }).toEqual({ line: s.line, source: expect.stringMatching(/^spec\/.+\.ts$/) });
  });

  it('should show only code copied verbatim from the named spec', () => {
    const drifted: string[] = [];
    for (const s of all) {
      const source = trimmed(readFileSync(root(s.source), 'utf8'));
      const fragments = s.code
        .split(/\n\s*\n/)
        .map((f) => trimmed(f).filter((l) => l !== ''))
        .filter((f) => f.length > 0);
      for (const f of fragments) if (!containsConsecutively(source, f)) drifted.push(`docs/testing.md:${s.line} (${s.source}): ${f[0]}`);
    }
    expect(drifted).toEqual([]);
  });
});

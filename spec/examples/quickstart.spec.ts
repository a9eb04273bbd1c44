import { describe, it, expect, jest } from '@jest/globals';
import { readFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..', '..');

describe('quickstart (README example)', () => {
  it('should print exactly the events its comments promise', async () => {
    const printed: unknown[][] = [];
    const spy = jest.spyOn(console, 'log').mockImplementation((...args: unknown[]) => void printed.push(args));
    await import('../../examples/quickstart/main.js');
    spy.mockRestore();
    expect(printed).toEqual([
      ['add', []],
      ['update', ['10.0.0.1']],
      ['update', []],
    ]);
  });

  it('should be the README’s first code block, verbatim', () => {
    const readme = readFileSync(join(root, 'README.md'), 'utf8');
    const first = /```ts\n([\s\S]*?)```/.exec(readme)?.[1];
    expect(first).toBe(readFileSync(join(root, 'examples/quickstart/main.ts'), 'utf8'));
  });
});

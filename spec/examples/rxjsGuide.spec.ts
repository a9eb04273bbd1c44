import { describe, it, expect, jest } from '@jest/globals';
import { readFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

// docs/rxjs.md shows these files verbatim; each prints what the guide says it prints.
const root = resolve(dirname(fileURLToPath(import.meta.url)), '..', '..');
const guide = readFileSync(join(root, 'docs/rxjs.md'), 'utf8');

async function printedBy(module: string): Promise<string[]> {
  const printed: string[] = [];
  const spy = jest.spyOn(console, 'log').mockImplementation((...args: unknown[]) => void printed.push(args.map(String).join(' ')));
  try {
    await import(module);
  } finally {
    spy.mockRestore();
  }
  return printed;
}

/** The ```text block that follows the file's code block in the guide. */
function promisedOutput(file: string): string[] {
  const code = readFileSync(join(root, file), 'utf8');
  const at = guide.indexOf(`\`\`\`ts\n${code}\`\`\``);
  expect(at).toBeGreaterThanOrEqual(0);
  const text = /```text\n([\s\S]*?)```/.exec(guide.slice(at + code.length))?.[1];
  return (text ?? '').trimEnd().split('\n');
}

describe('docs/rxjs.md', () => {
  it('should show examples/rxjs-guide/liveQueries.ts verbatim, and it prints what the guide says', async () => {
    expect(await printedBy('../../examples/rxjs-guide/liveQueries.js')).toEqual(promisedOutput('examples/rxjs-guide/liveQueries.ts'));
  });

  it('should show examples/rxjs-guide/operators.ts verbatim, and it prints what the guide says', async () => {
    expect(await printedBy('../../examples/rxjs-guide/operators.js')).toEqual(promisedOutput('examples/rxjs-guide/operators.ts'));
  });

  it('should show examples/rxjs-guide/virtualTime.ts verbatim, and it prints what the guide says', async () => {
    expect(await printedBy('../../examples/rxjs-guide/virtualTime.js')).toEqual(promisedOutput('examples/rxjs-guide/virtualTime.ts'));
  });

  it('should show examples/rxjs-guide/marbles.ts verbatim, and its marble test passes', async () => {
    const code = readFileSync(join(root, 'examples/rxjs-guide/marbles.ts'), 'utf8');
    expect(guide).toContain(`\`\`\`ts\n${code}\`\`\``);
    const { checkOrderTotals } = await import('../../examples/rxjs-guide/marbles.js');
    expect(() => checkOrderTotals()).not.toThrow();
  });
});

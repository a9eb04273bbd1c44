import { describe, it, expect } from '@jest/globals';
import { parseYamlDocuments } from '../../src/files/index.js';

describe('parseYamlDocuments', () => {
  it('should give every document of a YAML stream in order, without empty ones', () => {
    expect(parseYamlDocuments('a: 1\n---\n---\nb: [x, y]\n')).toEqual([{ a: 1 }, { b: ['x', 'y'] }]);
  });

  it('should read JSON, and nothing from blank text', () => {
    expect(parseYamlDocuments('{"metadata": {"name": "x"}}')).toEqual([{ metadata: { name: 'x' } }]);
    expect(parseYamlDocuments('  \n')).toEqual([]);
  });

  it('should throw the first syntax error', () => {
    expect(() => parseYamlDocuments('a: [1, 2\n')).toThrow(/line/i);
  });
});

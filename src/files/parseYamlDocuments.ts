// The parse most file sources want: every YAML document of a file (JSON is YAML) as a plain value.
import { parseAllDocuments } from 'yaml';

/**
 * The documents of a YAML (or JSON) text, in order, as plain values; empty documents (a stray `---`) are
 * left out. Meant as the `parse` of `newFileCollection` and `newFileSingleton`, or the start of one.
 * @throws Error naming the line and column of the first syntax error.
 * @example newFileCollection<ConfigMap>('/etc/app', (text) => parseYamlDocuments(text) as ConfigMap[])
 */
export function parseYamlDocuments(text: string): unknown[] {
  const out: unknown[] = [];
  for (const doc of parseAllDocuments(text)) {
    const error = doc.errors.at(0);
    if (error !== undefined) throw new Error(error.message);
    const value: unknown = doc.toJS();
    if (value !== null && value !== undefined) out.push(value);
  }
  return out;
}

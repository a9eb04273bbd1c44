// The protobuf bodies kubectl 1.32 sent, captured by spec/apiserver/apimachinery/protobuf/captureKubectlBodies.mjs, for the specs that replay them.
import { readFileSync } from 'node:fs';

/** One captured command. */
export interface CapturedCase {
  name: string;
  /** kubectl's arguments; `$TMP` stands for the capture's temp dir. */
  args: string[];
  contentType: string;
  /** The request path, query included. */
  path: string;
  /** The body, base64. */
  body: string;
  /** What `--dry-run=client -o json` printed; null for a command without a dry run. */
  json: Record<string, unknown> | null;
}

/** Every captured command, and the kubectl version that sent them. */
export const kubectlFixture = JSON.parse(readFileSync(new URL('./kubectlBodies.json', import.meta.url), 'utf8')) as {
  kubectl: string;
  cases: CapturedCase[];
};

/** A dry run's JSON as a pattern for a stored object: the server fills in what kubectl left null. */
export function withoutNullTimestamps(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(withoutNullTimestamps);
  if (typeof value !== 'object' || value === null) return value;
  return Object.fromEntries(
    Object.entries(value)
      .filter(([k, v]) => v !== null || k !== 'creationTimestamp')
      .map(([k, v]) => [k, withoutNullTimestamps(v)]),
  );
}

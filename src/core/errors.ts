// The error classes rxkrt raises or reports; every message names the collection, the key and the value.

/** Renders a value for an error message: short, never throws, never huge. */
export function describeValue(value: unknown): string {
  if (value === undefined) return 'undefined';
  if (typeof value === 'string') return JSON.stringify(value);
  if (typeof value === 'function') return `function ${value.name || '(anonymous)'}`;
  try {
    const text = JSON.stringify(value, (_k, v: unknown) => (typeof v === 'bigint' ? `${v}n` : v)) as string | undefined; // undefined for a symbol, say
    if (text === undefined) return String(value);
    return text.length > 300 ? `${text.slice(0, 297)}...` : text;
  } catch {
    return Object.prototype.toString.call(value);
  }
}

/** Thrown when an object has no key: it has neither a string value, `metadata.name`, nor `resourceName()`. */
export class KeyError extends Error {
  /** Always `'KeyError'`. */
  override readonly name = 'KeyError';
  constructor(
    /** Name of the collection that needed the key (`''` when the key was asked for outside any collection). */
    readonly collection: string,
    /** The object that has no key. */
    readonly value: unknown,
    detail?: string,
  ) {
    super(
      `${collection ? `collection ${JSON.stringify(collection)}: ` : ''}cannot derive a key from ${describeValue(value)}` +
        ` (${detail ?? 'expected a string, an object with metadata.name, an object with resourceName(), or a collection'})`,
    );
  }
}

/**
 * A failure inside a collection that did not stop it: a transform that threw, a handler that threw,
 * an output key claimed by two inputs, an upstream Observable that errored. Emitted on `errors$`.
 */
export class TransformError extends Error {
  /** Always `'TransformError'`. */
  override readonly name = 'TransformError';
  constructor(
    /** The collection's name. */
    readonly collection: string,
    /** The input key being processed (absent for sources and singletons). */
    readonly key: string | undefined,
    /** What was thrown. */
    readonly error: unknown,
    context?: string,
  ) {
    super(
      `collection ${JSON.stringify(collection)}${key !== undefined ? ` key ${JSON.stringify(key)}` : ''}: ` +
        `${context ? `${context}: ` : ''}${error instanceof Error ? error.message : describeValue(error)}`,
    );
  }
}

/** Thrown at once when rxkrt is used against its contract (a bad argument, a cycle, use after stop). */
export class UsageError extends Error {
  /** Always `'UsageError'`. */
  override readonly name = 'UsageError';
}

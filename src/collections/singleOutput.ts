// The outputs of a transform run that produced exactly one object, without a Map.
//
// Most transforms (every newCollection) produce one output per input, and the engine keeps each input's
// outputs for as long as the input lives. A Map for one entry costs a hash table (~200 bytes) per input and
// an allocation per recompute; this read-only stand-in holds the pair in two fields.

/** @internal A ReadonlyMap of exactly one entry. */
export class SingleOutput<V> implements ReadonlyMap<string, V> {
  constructor(
    private readonly key: string,
    private readonly value: V,
  ) {}

  get size(): number {
    return 1;
  }

  has(key: string): boolean {
    return key === this.key;
  }

  get(key: string): V | undefined {
    return key === this.key ? this.value : undefined;
  }

  forEach(fn: (value: V, key: string, map: ReadonlyMap<string, V>) => void): void {
    fn(this.value, this.key, this);
  }

  *entries(): MapIterator<[string, V]> {
    yield [this.key, this.value];
  }

  *keys(): MapIterator<string> {
    yield this.key;
  }

  *values(): MapIterator<V> {
    yield this.value;
  }

  [Symbol.iterator](): MapIterator<[string, V]> {
    return this.entries();
  }

  /** The one key (lets hot paths skip the iterator protocol). */
  onlyKey(): string {
    return this.key;
  }

  onlyValue(): V {
    return this.value;
  }
}

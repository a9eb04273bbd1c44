// What one transform run produced, held between the run and the ledger's apply: no object per run.

/** The outputs of one run: one (key and value) or several (a Map), or none. */
export class StagedOutputs<O> {
  key = '';
  value: O | undefined = undefined;
  many: ReadonlyMap<string, O> | undefined = undefined;
  /** `value` is known to differ from the visible value under `key`, which its input owns (compared already). */
  differs = false;

  one(key: string, value: O): void {
    this.key = key;
    this.value = value;
  }

  isEmpty(): boolean {
    return this.value === undefined && this.many === undefined;
  }

  clear(): void {
    this.key = '';
    this.value = undefined;
    this.many = undefined;
    this.differs = false;
  }
}

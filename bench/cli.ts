// The bench tools' command lines: each tool declares its options and positionals once, and gets typed values
// back, or one kind of error (`UsageError`: the tool, the argument at fault, the tool's usage line).
//
// Node's `util.parseArgs` splits the command line (`--pairs 4`, `--pairs=4`, `--`); it runs non-strict and
// hands back tokens, so that every problem is reported here, in the tools' words, rather than in Node's.
import { parseArgs } from 'node:util';

/** A problem with one argument, as an `Arg` finds it; the tool's `parse` turns it into a UsageError. */
export class ArgProblem extends Error {}

/** An argument the tool cannot take: the message names it and ends with the tool's usage line. */
export class UsageError extends Error {
  constructor(
    readonly tool: string,
    readonly problem: string,
    readonly usage: string,
  ) {
    super(`${tool}: ${problem}\nusage: ${usage}`);
    this.name = 'UsageError';
  }
}

/** How one option or positional is read. */
export interface Arg<T> {
  /** `flag`: takes no value (`--quick`); `value`: one (`--pairs 4`, a positional); `rest`: every remaining positional. */
  readonly takes: 'flag' | 'value' | 'rest';
  /** What was given (nothing if absent; for a flag, one empty string) to the value; throws ArgProblem. */
  read(given: readonly string[], name: string): T;
}

export type Declared = Record<string, Arg<unknown>>;
export type ValuesOf<D extends Declared> = { [K in keyof D]: D[K] extends Arg<infer T> ? T : never };

export interface CliDeclaration<O extends Declared, P extends Declared> {
  /** The name in messages, e.g. `bench:ab`. */
  tool: string;
  /** The usage line printed with every error, e.g. `bench:ab -- <revision> [--pairs N]`. */
  usage: string;
  /** By flag name, without the dashes. */
  options?: O;
  /** In the order they come; a `rest` one last. */
  positionals?: P;
  /** A check across the values once each is read (a multiple of 1000, a power of two): the problem, if any. */
  check?(values: ValuesOf<O> & ValuesOf<P>): string | undefined;
}

export interface Cli<V> {
  readonly usage: string;
  /** The values, or a UsageError. */
  parse(argv: readonly string[]): V;
  /** The values of this process's arguments; on a UsageError, its message on stderr and exit code 2. */
  parseOrExit(argv?: readonly string[]): V;
}

/** The values a tool's Cli gives, for its functions' signatures. */
export type ArgsOf<C> = C extends Cli<infer V> ? V : never;

type NoArgs = Record<never, never>;

export function defineCli<O extends Declared = NoArgs, P extends Declared = NoArgs>(
  d: CliDeclaration<O, P>,
): Cli<ValuesOf<O> & ValuesOf<P>> {
  type V = ValuesOf<O> & ValuesOf<P>;
  const options: Declared = d.options ?? {};
  const positionals: Declared = d.positionals ?? {};
  // Mistakes in a declaration, not in a command line: caught the first time the tool runs at all.
  const clash = Object.keys(positionals).find((name) => Object.hasOwn(options, name));
  if (clash !== undefined) throw new Error(`${d.tool}: "${clash}" is declared as an option and as a positional`);
  if (Object.values(positionals).some((a, i, all) => a.takes === 'rest' && i < all.length - 1))
    throw new Error(`${d.tool}: only the last positional can take the rest`);
  const fail = (problem: string): UsageError => new UsageError(d.tool, problem, d.usage);
  const parse = (argv: readonly string[]): V => {
    const given = new Map<string, string[]>();
    const loose: string[] = [];
    const { tokens } = parseArgs({
      args: [...argv],
      options: Object.fromEntries(
        Object.entries(options).map(([k, a]) => [k, { type: a.takes === 'flag' ? 'boolean' : 'string' } as const]),
      ),
      strict: false,
      allowPositionals: true,
      tokens: true,
    });
    for (const t of tokens) {
      if (t.kind === 'positional') loose.push(t.value);
      if (t.kind !== 'option') continue;
      const arg = Object.hasOwn(options, t.name) ? options[t.name]! : undefined;
      if (arg === undefined) throw fail(`unknown argument ${JSON.stringify(argv[t.index])}`);
      if (arg.takes === 'flag' && t.value !== undefined) throw fail(`${t.rawName} takes no value`);
      // A value option right before another option would take that option as its value.
      if (arg.takes !== 'flag' && (t.value === undefined || (t.inlineValue === false && t.value.startsWith('--'))))
        throw fail(`${t.rawName} needs a value`);
      // The last of repeated options counts, as with most command lines.
      given.set(t.name, [t.value ?? '']);
    }
    const values: Record<string, unknown> = {};
    try {
      for (const [name, arg] of Object.entries(options)) values[name] = arg.read(given.get(name) ?? [], `--${name}`);
      for (const [name, arg] of Object.entries(positionals))
        values[name] = arg.read(arg.takes === 'rest' ? loose.splice(0) : loose.splice(0, 1), name);
    } catch (e) {
      throw e instanceof ArgProblem ? fail(e.message) : e;
    }
    if (loose.length > 0) throw fail(`unexpected argument ${JSON.stringify(loose[0])}`);
    const problem = d.check?.(values as V);
    if (problem !== undefined) throw fail(problem);
    return values as V;
  };
  return {
    usage: d.usage,
    parse,
    parseOrExit: (argv = process.argv.slice(2)) => {
      try {
        return parse(argv);
      } catch (e) {
        if (!(e instanceof UsageError)) throw e;
        process.stderr.write(`${e.message}\n`);
        process.exit(2);
      }
    },
  };
}

/** `--quick`: true when given. */
export function flag(): Arg<boolean> {
  return { takes: 'flag', read: (given) => given.length > 0 };
}

/** Any text; `fallback` when absent. */
export function text(): Arg<string | undefined>;
export function text(fallback: string): Arg<string>;
export function text(fallback?: string): Arg<string | undefined> {
  return { takes: 'value', read: (given) => given.at(0) ?? fallback };
}

/** One of `values`; `fallback` when absent. */
export function choice<C extends string>(values: readonly C[]): Arg<C | undefined>;
export function choice<C extends string>(values: readonly C[], fallback: C): Arg<C>;
export function choice<C extends string>(values: readonly C[], fallback?: C): Arg<C | undefined> {
  return {
    takes: 'value',
    read: (given, name) => {
      const raw = given.at(0);
      if (raw === undefined) return fallback;
      const found = values.find((v) => v === raw);
      if (found === undefined) throw new ArgProblem(`${name} needs one of ${values.join(', ')}, got ${JSON.stringify(raw)}`);
      return found;
    },
  };
}

/** An integer of at least `min` (and at most `max`); `fallback` when absent, which need not be in range (`0`: off). */
export function integer(range: { min: number; max?: number }): Arg<number | undefined>;
export function integer(range: { min: number; max?: number }, fallback: number): Arg<number>;
export function integer({ min, max }: { min: number; max?: number }, fallback?: number): Arg<number | undefined> {
  return {
    takes: 'value',
    read: (given, name) => {
      const raw = given.at(0);
      if (raw === undefined) return fallback;
      const n = raw.trim() === '' ? NaN : Number(raw);
      if (!Number.isInteger(n) || n < min || (max !== undefined && n > max)) {
        const range = max === undefined ? `of ${min} or more` : `from ${min} to ${max}`;
        throw new ArgProblem(`${name} needs an integer ${range}, got ${JSON.stringify(raw)}`);
      }
      return n;
    },
  };
}

/**
 * A comma-separated list of `known` ids (`--only b1,b2`): matched whatever the case, spaces and empty items
 * dropped, each given as `known` spells it; `fallback` when absent. `what` names an id in messages ("scenario").
 */
export function idList(what: string, known: readonly string[]): Arg<string[] | undefined>;
export function idList(what: string, known: readonly string[], fallback: readonly string[]): Arg<string[]>;
export function idList(what: string, known: readonly string[], fallback?: readonly string[]): Arg<string[] | undefined> {
  return {
    takes: 'value',
    read: (given, name) => {
      const raw = given.at(0);
      if (raw === undefined) return fallback === undefined ? undefined : [...fallback];
      const ids = raw
        .split(',')
        .map((s) => s.trim())
        .filter((s) => s !== '');
      if (ids.length === 0) throw new ArgProblem(`${name} needs at least one ${what} (known: ${known.join(', ')})`);
      return ids.map((id) => {
        const found = known.find((k) => k.toLowerCase() === id.toLowerCase());
        if (found === undefined) throw new ArgProblem(`unknown ${what} ${JSON.stringify(id)} (known: ${known.join(', ')})`);
        return found;
      });
    },
  };
}

/** A positional that must be given; `hint` says what it is when it is not. */
export function required<T>(arg: Arg<T | undefined>, hint?: string): Arg<T> {
  return {
    takes: arg.takes,
    read: (given, name) => {
      const v = arg.read(given, name);
      if (v === undefined) throw new ArgProblem(hint ?? `missing <${name}>`);
      return v;
    },
  };
}

/** Every remaining positional, each read by `each`; `fallback` when there are none. */
export function rest<T>(each: Arg<T | undefined>, fallback: readonly T[] = []): Arg<T[]> {
  const one = required(each);
  return {
    takes: 'rest',
    read: (given, name) => (given.length === 0 ? [...fallback] : given.map((g) => one.read([g], name))),
  };
}

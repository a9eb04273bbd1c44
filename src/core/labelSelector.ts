// Full label selectors (matchLabels and matchExpressions): parsing kubectl text, validating, matching.
import { UsageError, describeValue } from './errors.js';
import { asLabelMap, rawSelectorOf, type Labels } from './labels.js';
import {
  SelectorSyntaxError,
  labelKeyProblem,
  labelValueProblem,
  meetsRequirement,
  parseRequirements,
  type SelectorRequirement,
} from './selectorSyntax.js';

/** The operator of one `matchExpressions` entry, as Kubernetes spells it. */
export type LabelSelectorOperator = 'In' | 'NotIn' | 'Exists' | 'DoesNotExist';

/** One `matchExpressions` entry: `In`/`NotIn` need at least one value, `Exists`/`DoesNotExist` take none. */
export interface LabelSelectorRequirement {
  /** The label key the requirement reads. */
  readonly key: string;
  /** How the label is tested. */
  readonly operator: LabelSelectorOperator;
  /** The values `In` and `NotIn` compare with; absent (or empty) for `Exists` and `DoesNotExist`. */
  readonly values?: readonly string[];
}

/**
 * A Kubernetes `metav1.LabelSelector`: every `matchLabels` pair and every expression must hold (the AND of
 * all); a selector with neither selects everything.
 */
export interface LabelSelector {
  /** Labels that must be present with exactly these values. */
  readonly matchLabels?: Labels;
  /** Further requirements on the labels. */
  readonly matchExpressions?: readonly LabelSelectorRequirement[];
}

/**
 * @internal A selector with expressions, validated and compiled once per selector object. Selectors that are
 * plain label maps never become one: the engine's selector paths keep testing those maps as they are.
 */
export class CompiledSelector {
  constructor(
    /** The `matchLabels` part (what a selector lookup files the selector under). */
    readonly matchLabels: Labels,
    readonly requirements: readonly SelectorRequirement[],
  ) {}

  /** Whether `labels` meet every pair and every requirement. */
  matches(labels: Labels): boolean {
    const m = this.matchLabels;
    for (const k in m) if (labels[k] !== m[k]) return false;
    const rs = this.requirements;
    for (let i = 0; i < rs.length; i++) if (!meetsRequirement(rs[i]!, labels)) return false;
    return true;
  }
}

/** Compiled selectors by the selector object they came from (objects are immutable, so the object is the version). */
const compiled = new WeakMap<object, CompiledSelector | Error>();

const OPERATORS: Record<LabelSelectorOperator, SelectorRequirement['operator']> = {
  In: 'in',
  NotIn: 'notin',
  Exists: 'exists',
  DoesNotExist: 'doesnotexist',
};
const OPERATOR_NAMES: Record<string, LabelSelectorOperator> = { in: 'In', notin: 'NotIn', exists: 'Exists', doesnotexist: 'DoesNotExist' };

/**
 * @internal The compiled form of a `{ matchLabels?, matchExpressions? }` selector, from a cache.
 * @throws UsageError naming the selector and what is wrong with it (each later call throws the same).
 */
export function compileLabelSelector(selector: LabelSelector): CompiledSelector {
  // `as`: plain JavaScript callers can pass anything.
  if ((selector as unknown) === null || typeof selector !== 'object') {
    throw new UsageError(`invalid label selector ${describeValue(selector)}: expected an object with matchLabels and/or matchExpressions`);
  }
  let c = compiled.get(selector);
  if (c === undefined) {
    try {
      c = compile(selector);
    } catch (e) {
      c = e as Error;
    }
    compiled.set(selector, c);
  }
  if (c instanceof Error) throw c;
  return c;
}

function compile(selector: LabelSelector): CompiledSelector {
  const invalid = (why: string): never => {
    throw new UsageError(`invalid label selector ${describeValue(selector)}: ${why}`);
  };
  const matchLabels: unknown = selector.matchLabels ?? {};
  if (matchLabels === null || typeof matchLabels !== 'object' || Array.isArray(matchLabels))
    invalid('matchLabels must be a map of strings');
  for (const [k, v] of Object.entries(matchLabels as Record<string, unknown>)) {
    if (typeof v !== 'string') invalid(`matchLabels[${JSON.stringify(k)}] must be a string, got ${describeValue(v)}`);
    const problem = labelKeyProblem(k) ?? labelValueProblem(v as string);
    if (problem !== undefined) invalid(problem);
  }
  const expressions: unknown = selector.matchExpressions ?? [];
  if (!Array.isArray(expressions)) invalid('matchExpressions must be an array');
  const requirements = (expressions as unknown[]).map((e, i): SelectorRequirement => {
    const where = `matchExpressions[${i}]`;
    if (e === null || typeof e !== 'object') return invalid(`${where} must be an object`);
    const { key, operator, values } = e as { key?: unknown; operator?: unknown; values?: unknown };
    if (typeof key !== 'string') return invalid(`${where}.key must be a string`);
    const keyProblem = labelKeyProblem(key);
    if (keyProblem !== undefined) return invalid(`${where}: ${keyProblem}`);
    if (typeof operator !== 'string' || !Object.hasOwn(OPERATORS, operator)) {
      return invalid(`${where}.operator ${describeValue(operator)} is not one of In, NotIn, Exists, DoesNotExist`);
    }
    const list: unknown = values ?? [];
    if (!Array.isArray(list) || list.some((v) => typeof v !== 'string')) return invalid(`${where}.values must be an array of strings`);
    const strings = list as string[];
    if ((operator === 'In' || operator === 'NotIn') && strings.length === 0) {
      return invalid(`${where}: values must be non-empty when operator is ${operator}`);
    }
    if ((operator === 'Exists' || operator === 'DoesNotExist') && strings.length > 0) {
      return invalid(`${where}: values must be empty when operator is ${operator}`);
    }
    for (const v of strings) {
      const problem = labelValueProblem(v);
      if (problem !== undefined) return invalid(`${where}: ${problem}`);
    }
    return { key, operator: OPERATORS[operator as LabelSelectorOperator], values: strings };
  });
  return new CompiledSelector(Object.freeze({ ...(matchLabels as Labels) }), requirements);
}

/**
 * Parses a selector written as kubectl takes it (`-l`): comma-separated requirements, all of which must hold.
 * `k=v` and `k==v` become `matchLabels` (a second one for the same key an `In` expression), `k!=v` a `NotIn`
 * of one value, `k in (a,b)` `In`, `k notin (a,b)` `NotIn`, `k` `Exists`, `!k` `DoesNotExist`. Keys and
 * values follow Kubernetes' rules (a qualified name; a value of at most 63 name characters, or empty).
 * Blank text is the empty selector, which selects everything.
 *
 * @throws UsageError naming the text and what is wrong with it (`>` and `<` too: a `LabelSelector` cannot hold them).
 * @example parseLabelSelector('app=web,tier in (front,edge),!legacy')
 * // { matchLabels: { app: 'web' }, matchExpressions: [{ key: 'tier', operator: 'In', values: ['front', 'edge'] },
 * //   { key: 'legacy', operator: 'DoesNotExist' }] }
 */
export function parseLabelSelector(text: string): LabelSelector {
  if (typeof text !== 'string') throw new UsageError(`parseLabelSelector needs a string, got ${describeValue(text)}`);
  let requirements: SelectorRequirement[];
  try {
    requirements = parseRequirements(text);
  } catch (e) {
    if (e instanceof SelectorSyntaxError) throw new UsageError(`invalid label selector ${JSON.stringify(text)}: ${e.message}`);
    throw e;
  }
  const matchLabels: Record<string, string> = {};
  const matchExpressions: LabelSelectorRequirement[] = [];
  for (const r of requirements) {
    if (r.operator === 'gt' || r.operator === 'lt') {
      throw new UsageError(
        `invalid label selector ${JSON.stringify(text)}: '${r.operator === 'gt' ? '>' : '<'}' has no LabelSelector operator (only In, NotIn, Exists, DoesNotExist)`,
      );
    }
    if (r.equality === true && !Object.hasOwn(matchLabels, r.key)) matchLabels[r.key] = r.values[0]!;
    else {
      const operator = OPERATOR_NAMES[r.operator]!;
      matchExpressions.push(r.values.length > 0 ? { key: r.key, operator, values: [...r.values] } : { key: r.key, operator });
    }
  }
  const out: { matchLabels?: Labels; matchExpressions?: LabelSelectorRequirement[] } = {};
  if (Object.keys(matchLabels).length > 0) out.matchLabels = matchLabels;
  if (matchExpressions.length > 0) out.matchExpressions = matchExpressions;
  return out;
}

/**
 * Whether `labels` meet `selector`: every `matchLabels` pair and every expression (`In`: the label has one
 * of the values; `NotIn`: it is absent or has none of them; `Exists`; `DoesNotExist`). An empty selector
 * matches everything.
 * @throws UsageError for an invalid selector, naming it.
 */
export function matchesLabelSelector(selector: LabelSelector, labels: Labels): boolean {
  return compileLabelSelector(selector).matches((labels as Labels | undefined) ?? EMPTY);
}

const EMPTY: Labels = Object.freeze({});

/** Whether a selector is a `{ matchLabels, matchExpressions }` object rather than a plain label map. */
function isLabelSelectorShape(s: object): s is LabelSelector {
  return 'matchLabels' in s || 'matchExpressions' in s;
}

/**
 * The whole selector of an object, read where `selectorOf` reads it (`getLabelSelector()`, `spec.selector`,
 * `selector`): a plain label map comes back as its `matchLabels`, a `LabelSelector` as it is, none as `{}`.
 * @throws UsageError for a selector that breaks Kubernetes' rules (`In`/`NotIn` without values,
 * `Exists`/`DoesNotExist` with values, an unknown operator, an invalid key or value), naming it.
 */
export function labelSelectorOf(o: unknown): LabelSelector {
  const s = rawSelectorOf(o);
  if (s === null || typeof s !== 'object') return {};
  if (!isLabelSelectorShape(s)) return { matchLabels: s as Labels };
  compileLabelSelector(s);
  return s;
}

/**
 * @internal What the engine's selector paths test an object's selector as: its label map when the selector
 * has no expressions (the common case, read without allocating), else its compiled form.
 */
export type FiledSelector = Labels | CompiledSelector;

/**
 * @internal The selector of `o` as the selector filters test it (see `FiledSelector`).
 * @throws UsageError for an invalid selector with expressions.
 */
export function readSelector(o: unknown): FiledSelector {
  const s = rawSelectorOf(o);
  if (s === null || typeof s !== 'object') return EMPTY;
  const expressions = (s as { matchExpressions?: unknown }).matchExpressions;
  if (expressions !== undefined && expressions !== null && !(Array.isArray(expressions) && expressions.length === 0)) {
    return compileLabelSelector(s as LabelSelector);
  }
  return asLabelMap(s);
}

/** @internal Whether a filed selector selects `labels` (`nonEmpty`: an empty selector selects nothing). */
export function filedSelects(selector: FiledSelector, labels: Labels, nonEmpty: boolean): boolean {
  if (selector instanceof CompiledSelector) return selector.matches(labels);
  let empty = true;
  for (const k in selector) {
    if (labels[k] !== selector[k]) return false;
    empty = false;
  }
  return !nonEmpty || !empty;
}

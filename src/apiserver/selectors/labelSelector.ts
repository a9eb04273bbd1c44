// Label selectors of list and watch requests: rxkrt's own selector grammar, with a real server's 400 for bad text.
import { badRequest } from '../apimachinery/statusError.js';
import {
  SelectorSyntaxError,
  meetsRequirement,
  parseRequirements,
  type RequirementOperator,
  type SelectorRequirement,
} from '../../core/selectorSyntax.js';

/** Operators of one requirement, after `=`/`==` are folded into `in` and `!=` into `notin`. */
export type LabelOperator = RequirementOperator;

/** One comma-separated clause of a selector. */
export interface LabelRequirement {
  readonly key: string;
  readonly operator: LabelOperator;
  readonly values: readonly string[];
}

/** A parsed label selector: the AND of its requirements (none = matches everything). */
export interface LabelSelector {
  readonly requirements: readonly LabelRequirement[];
  /** Whether an object with these labels is selected. */
  matches(labels: Readonly<Record<string, string>> | undefined): boolean;
}

/**
 * Parses a `labelSelector` query value (the full apimachinery grammar: `k=v`, `k==v`, `k!=v`, `in`, `notin`,
 * `k`, `!k`, `>`, `<`), with the parser rxkrt's `parseLabelSelector` uses.
 *
 * @throws StatusError `400 BadRequest` (what a real server answers) for a malformed selector.
 * @example parseLabelSelector('app=web,tier in (a,b),!legacy').matches({ app: 'web', tier: 'a' }) // true
 */
export function parseLabelSelector(text: string): LabelSelector {
  let parsed: SelectorRequirement[];
  try {
    parsed = parseRequirements(text);
  } catch (e) {
    if (e instanceof SelectorSyntaxError) throw badRequest(`unable to parse requirement: ${e.message}`);
    throw e;
  }
  const requirements = parsed.map(({ key, operator, values }): LabelRequirement => ({ key, operator, values }));
  return {
    requirements,
    matches: (labels) => requirements.every((r) => meetsRequirement(r, labels ?? {})),
  };
}

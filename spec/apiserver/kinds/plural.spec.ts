import { describe, expect, it } from '@jest/globals';
import { defaultPlural } from '../../../src/apiserver/kinds/plural.js';

describe('defaultPlural', () => {
  it.each([
    ['Pod', 'pods'],
    ['Widget', 'widgets'],
    ['Policy', 'policies'],
    // The contract's rule has no vowel exception, like apimachinery's guess: CRDs spell such plurals out.
    ['Gateway', 'gatewaies'],
    ['Status', 'statuses'],
    ['Box', 'boxes'],
    ['Match', 'matches'],
    ['Mesh', 'meshes'],
    ['Endpoints', 'endpoints'],
    ['Ingress', 'ingresses'],
    ['ConfigMap', 'configmaps'],
  ])('should pluralize %s as %s', (kind, plural) => {
    expect(defaultPlural(kind)).toBe(plural);
  });
});

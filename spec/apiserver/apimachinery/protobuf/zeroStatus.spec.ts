import { describe, it, expect } from '@jest/globals';
import { zeroStatusOf } from '../../../../src/apiserver/apimachinery/protobuf/zeroStatus.js';

describe('zeroStatusOf', () => {
  it('should write the non-omitempty fields of the status struct at their zero value, as Go does', () => {
    expect(zeroStatusOf('v1', 'Service')).toEqual({ loadBalancer: {} });
    expect(zeroStatusOf('networking.k8s.io/v1', 'Ingress')).toEqual({ loadBalancer: {} });
    expect(zeroStatusOf('policy/v1', 'PodDisruptionBudget')).toEqual({
      disruptionsAllowed: 0,
      currentHealthy: 0,
      desiredHealthy: 0,
      expectedPods: 0,
    });
  });

  it('should be empty for a status whose fields are all omitempty, and for a kind without a schema', () => {
    expect(zeroStatusOf('apps/v1', 'Deployment')).toEqual({});
    expect(zeroStatusOf('example.com/v1', 'Gadget')).toEqual({});
  });

  it('should hand out a fresh object each time, so a hook that fills one in cannot change the next', () => {
    const a = zeroStatusOf('v1', 'Service');
    (a.loadBalancer as Record<string, unknown>).ingress = [];
    expect(zeroStatusOf('v1', 'Service')).toEqual({ loadBalancer: {} });
  });
});

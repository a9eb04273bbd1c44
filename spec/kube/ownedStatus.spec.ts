import { describe, it, expect } from '@jest/globals';
import { appliedStatus, appliedStatusFields, applyChanges, fieldsSet, ownedStatusPatch } from '../../src/kube/ownedStatus.js';

describe('ownedStatusPatch', () => {
  it('should set the fields desired computes and leave every other field alone', () => {
    expect(ownedStatusPatch({ a: 1, other: 'x' }, { a: 2 }, new Set())).toEqual({ a: 2 });
    expect(ownedStatusPatch({ a: 1, other: 'x' }, { a: 1 }, new Set())).toBeUndefined();
    expect(ownedStatusPatch(undefined, { a: 1 }, new Set())).toEqual({ a: 1 });
  });

  it('should diff nested objects of an owned field and null nested keys it dropped', () => {
    expect(ownedStatusPatch({ a: { x: 1, y: 2 } }, { a: { x: 1 } }, new Set())).toEqual({ a: { y: null } });
  });

  it('should remove a field computed as null, and a field it owned and no longer computes', () => {
    expect(ownedStatusPatch({ a: 1, gone: 2, other: 3 }, { a: 1, gone: null }, new Set())).toEqual({ gone: null });
    expect(ownedStatusPatch({ a: 1, dropped: 2, other: 3 }, { a: 1 }, new Set(['a', 'dropped']))).toEqual({ dropped: null });
    expect(ownedStatusPatch({ a: 1, other: 3 }, { a: 1 }, new Set(['a', 'dropped']))).toBeUndefined();
  });

  it('should replace a status that is not a plain object whole', () => {
    expect(ownedStatusPatch({ a: 1 }, 'text', new Set())).toBe('text');
  });
});

describe('fieldsSet / appliedStatus / applyChanges / appliedStatusFields', () => {
  it('should count only fields set to a value', () => {
    expect([...fieldsSet({ a: 1, b: null, c: undefined, d: false })]).toEqual(['a', 'd']);
    expect(appliedStatus({ a: 1, b: null })).toEqual({ a: 1 });
  });

  it('should see a change when a set field differs or a released field is still there', () => {
    expect(applyChanges({ a: 1, b: 2 }, { a: 1 }, new Set(['a']))).toBe(false);
    expect(applyChanges({ a: 1, b: 2 }, { a: 1 }, new Set(['a', 'b']))).toBe(true);
    expect(applyChanges({ a: 1 }, { a: 2 }, new Set())).toBe(true);
  });

  it("should read a manager's applied status fields from managedFields", () => {
    const live = {
      metadata: {
        managedFields: [
          { manager: 'me', operation: 'Apply', subresource: 'status', fieldsV1: { 'f:status': { 'f:a': {}, 'f:b': { 'f:x': {} } } } },
          { manager: 'me', operation: 'Apply', fieldsV1: { 'f:spec': { 'f:c': {} } } },
          { manager: 'other', operation: 'Apply', subresource: 'status', fieldsV1: { 'f:status': { 'f:d': {} } } },
        ],
      },
    };
    expect([...appliedStatusFields(live, 'me')]).toEqual(['a', 'b']);
  });
});

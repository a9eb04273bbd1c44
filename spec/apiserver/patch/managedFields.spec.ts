import { describe, expect, it } from '@jest/globals';
import { resourceType } from '../../../src/apiserver/kinds/resourceType.js';
import { FieldSet, formatPath } from '../../../src/apiserver/patch/fieldSet.js';
import { encodeOwners, fieldScope, readOwners, recordApply, recordUpdate } from '../../../src/apiserver/patch/managedFields.js';

const pods = resourceType({ group: '', version: 'v1', kind: 'Pod', namespaced: true, statusSubresource: true });
const stamp = { subresource: '', apiVersion: 'v1', time: 'T' };

describe('fieldScope', () => {
  it('should keep server metadata out and split status from the main resource', () => {
    const main = fieldScope(pods, '');
    expect(main(['spec', 'x'])).toBe(true);
    expect(main(['metadata', 'labels', 'a'])).toBe(true);
    expect(main(['metadata', 'resourceVersion'])).toBe(false);
    expect(main(['status', 'phase'])).toBe(false);
    expect(fieldScope(pods, 'status')(['status', 'phase'])).toBe(true);
    expect(fieldScope(pods, 'status')(['spec', 'x'])).toBe(false);
  });
});

describe('recordUpdate', () => {
  it('should give the writer the fields it changed, taking them from others', () => {
    const before = { metadata: { name: 'p' }, spec: { a: 1, b: 1 } };
    const after = { metadata: { name: 'p', labels: { l: 'x' } }, spec: { a: 2, b: 1 } };
    const owners = recordUpdate(
      [
        {
          manager: 'old',
          operation: 'Apply',
          ...stamp,
          fields: new FieldSet([
            ['spec', 'a'],
            ['spec', 'b'],
          ]),
        },
      ],
      before,
      after,
      { manager: 'new', ...stamp, scope: fieldScope(pods, '') },
    );
    expect(owners.map((o) => `${o.manager}:${o.fields.paths().map(formatPath).sort().join(',')}`)).toEqual([
      'old:.spec.b',
      'new:.metadata.labels.l,.spec.a',
    ]);
  });

  it('should drop fields that no longer exist, and owners left with nothing', () => {
    const owners = recordUpdate(
      [
        { manager: 'm', operation: 'Update', ...stamp, fields: new FieldSet([['spec', 'gone']]) },
        {
          manager: 'k',
          operation: 'Update',
          ...stamp,
          fields: new FieldSet([
            ['spec', 'gone'],
            ['spec', 'kept'],
          ]),
        },
      ],
      { spec: { gone: 1, kept: 1 } },
      { spec: { kept: 1 } },
      { manager: 'w', ...stamp, scope: fieldScope(pods, '') },
    );
    expect(owners.map((o) => `${o.manager}:${o.fields.paths().map(formatPath).join(',')}`)).toEqual(['k:.spec.kept']);
  });
});

describe('recordApply', () => {
  it('should replace the applier entry and strip taken fields from others', () => {
    const owners = recordApply(
      [
        { manager: 'a', operation: 'Apply', ...stamp, fields: new FieldSet([['spec', 'old']]) },
        {
          manager: 'b',
          operation: 'Update',
          ...stamp,
          fields: new FieldSet([
            ['spec', 'x'],
            ['spec', 'y'],
          ]),
        },
      ],
      { spec: { x: 1, y: 1, n: 1 } },
      new FieldSet([
        ['spec', 'x'],
        ['spec', 'n'],
      ]),
      new FieldSet([['spec', 'x']]),
      { manager: 'a', ...stamp },
    );
    const encoded = encodeOwners(owners);
    expect(encoded).toEqual([
      { manager: 'b', operation: 'Update', apiVersion: 'v1', time: 'T', fieldsType: 'FieldsV1', fieldsV1: { 'f:spec': { 'f:y': {} } } },
      {
        manager: 'a',
        operation: 'Apply',
        apiVersion: 'v1',
        time: 'T',
        fieldsType: 'FieldsV1',
        fieldsV1: { 'f:spec': { 'f:x': {}, 'f:n': {} } },
      },
    ]);
    expect(readOwners({ metadata: { managedFields: encoded } }).map((o) => o.manager)).toEqual(['b', 'a']);
  });
});

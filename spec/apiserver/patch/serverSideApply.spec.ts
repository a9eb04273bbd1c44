import { describe, expect, it } from '@jest/globals';
import type { JsonObject } from '../../../src/apiserver/apimachinery/json.js';
import { StatusError } from '../../../src/apiserver/apimachinery/statusError.js';
import { resourceType } from '../../../src/apiserver/kinds/resourceType.js';
import { FieldSet, formatPath } from '../../../src/apiserver/patch/fieldSet.js';
import { fieldScope, type Owner } from '../../../src/apiserver/patch/managedFields.js';
import { serverSideApply } from '../../../src/apiserver/patch/serverSideApply.js';

const widgets = resourceType({
  group: 'example.com',
  version: 'v1',
  kind: 'Widget',
  namespaced: true,
  statusSubresource: true,
  custom: true,
});
const main = fieldScope(widgets, '');

function owner(manager: string, paths: string[][], operation: Owner['operation'] = 'Apply'): Owner {
  return { manager, operation, subresource: '', apiVersion: 'example.com/v1', time: 't', fields: new FieldSet(paths) };
}

function live(spec: JsonObject, extra: JsonObject = {}): JsonObject {
  return { apiVersion: 'example.com/v1', kind: 'Widget', metadata: { name: 'w', namespace: 'd', resourceVersion: '7' }, spec, ...extra };
}

describe('serverSideApply', () => {
  it('should merge the applied fields and own exactly them', () => {
    const r = serverSideApply({
      live: live({ a: 1, keep: true }),
      applied: { apiVersion: 'example.com/v1', kind: 'Widget', metadata: { name: 'w', labels: { x: 'y' } }, spec: { a: 2, list: [1, 2] } },
      manager: 'm',
      subresource: '',
      force: false,
      scope: main,
      owners: [],
    });
    expect(r.object.spec).toEqual({ a: 2, keep: true, list: [1, 2] });
    expect((r.object.metadata as JsonObject).labels).toEqual({ x: 'y' });
    expect(r.applied.paths().map(formatPath).sort()).toEqual(['.metadata.labels.x', '.spec.a', '.spec.list']);
  });

  it('should ignore .status through the main resource and everything else through /status', () => {
    const body = { apiVersion: 'example.com/v1', kind: 'Widget', metadata: { name: 'w' }, spec: { a: 9 }, status: { ready: true } };
    const viaMain = serverSideApply({
      live: live({ a: 1 }),
      applied: body,
      manager: 'm',
      subresource: '',
      force: false,
      scope: main,
      owners: [],
    });
    expect(viaMain.object.status).toBeUndefined();
    const viaStatus = serverSideApply({
      live: live({ a: 1 }),
      applied: body,
      manager: 'm',
      subresource: 'status',
      force: false,
      scope: fieldScope(widgets, 'status'),
      owners: [],
    });
    expect(viaStatus.object.spec).toEqual({ a: 1 });
    expect(viaStatus.object.status).toEqual({ ready: true });
  });

  it('should report a conflict with another manager owning a field it changes', () => {
    let error: unknown;
    try {
      serverSideApply({
        live: live({ a: 1, b: 1 }),
        applied: { apiVersion: 'example.com/v1', kind: 'Widget', spec: { a: 2, b: 1 } },
        manager: 'm',
        subresource: '',
        force: false,
        scope: main,
        owners: [
          owner(
            'other',
            [
              ['spec', 'a'],
              ['spec', 'b'],
            ],
            'Update',
          ),
        ],
      });
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(StatusError);
    expect((error as StatusError).code).toBe(409);
    // .spec.b has the same value: shared ownership, not a conflict.
    expect((error as StatusError).message).toBe('Apply failed with 1 conflict: conflict with "other": .spec.a');
  });

  it('should take conflicting fields with force', () => {
    const r = serverSideApply({
      live: live({ a: 1 }),
      applied: { apiVersion: 'example.com/v1', kind: 'Widget', spec: { a: 2 } },
      manager: 'm',
      subresource: '',
      force: true,
      scope: main,
      owners: [owner('other', [['spec', 'a']])],
    });
    expect(r.object.spec).toEqual({ a: 2 });
    expect(r.taken.paths()).toEqual([['spec', 'a']]);
  });

  it('should remove fields the manager stopped applying unless someone else owns them', () => {
    const r = serverSideApply({
      live: live({ a: 1, b: 2, c: { d: 3 } }),
      applied: { apiVersion: 'example.com/v1', kind: 'Widget', spec: { a: 1 } },
      manager: 'm',
      subresource: '',
      force: false,
      scope: main,
      owners: [
        owner('m', [
          ['spec', 'a'],
          ['spec', 'b'],
          ['spec', 'c', 'd'],
        ]),
        owner('other', [['spec', 'b']], 'Update'),
      ],
    });
    expect(r.object.spec).toEqual({ a: 1, b: 2 });
  });

  it('should unset fields applied as null', () => {
    const r = serverSideApply({
      live: live({ a: 1, b: 2 }),
      applied: { apiVersion: 'example.com/v1', kind: 'Widget', spec: { b: null } },
      manager: 'm',
      subresource: '',
      force: false,
      scope: main,
      owners: [],
    });
    expect(r.object.spec).toEqual({ a: 1 });
  });
});

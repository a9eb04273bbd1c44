import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { waitFor } from '../helpers.js';
import { startKubectlSession, type KubectlSession } from './kubectl.js';

interface ConfigMap {
  metadata: { name: string; labels?: Record<string, string>; annotations?: Record<string, string>; resourceVersion: string };
  data?: Record<string, string>;
}

describe('kubectl get, label, annotate, apply, delete and watch', () => {
  let s: KubectlSession;

  beforeAll(async () => {
    s = await startKubectlSession();
    await s.ok(['create', 'namespace', 'work']);
    await s.ok(['-n', 'work', 'create', 'configmap', 'settings', '--from-literal=mode=fast']);
  });
  afterAll(() => s.close());

  const getJson = async (name: string): Promise<ConfigMap> =>
    JSON.parse(await s.ok(['-n', 'work', 'get', 'configmap', name, '-o', 'json'])) as ConfigMap;

  it('should list objects as a table, and one as JSON and as YAML', async () => {
    const table = await s.ok(['-n', 'work', 'get', 'configmaps']);
    // The server serves no Table, so kubectl prints its own columns: a real server adds DATA.
    expect(table).toMatch(/^NAME\s+AGE\nsettings\s+\d+s\n$/);
    expect(await getJson('settings')).toMatchObject({
      kind: 'ConfigMap',
      metadata: { name: 'settings', namespace: 'work' },
      data: { mode: 'fast' },
    });
    const yaml = await s.ok(['-n', 'work', 'get', 'cm', 'settings', '-o', 'yaml']);
    expect(yaml).toContain('\ndata:\n  mode: fast\n');
    expect(yaml).toContain('\n  name: settings\n  namespace: work\n');
  });

  it('should label and annotate, and remove a label', async () => {
    await s.ok(['-n', 'work', 'label', 'configmap', 'settings', 'tier=backend', 'team=core']);
    await s.ok(['-n', 'work', 'annotate', 'configmap', 'settings', 'owner=alice']);
    expect((await getJson('settings')).metadata).toMatchObject({
      labels: { tier: 'backend', team: 'core' },
      annotations: { owner: 'alice' },
    });
    await s.ok(['-n', 'work', 'label', 'configmap', 'settings', 'team-']);
    expect((await getJson('settings')).metadata.labels).toEqual({ tier: 'backend' });
    // Without --overwrite, kubectl refuses to change a label that is there.
    const refused = await s.kubectl(['-n', 'work', 'label', 'configmap', 'settings', 'tier=frontend']);
    expect(refused.code).toBe(1);
    expect(refused.stderr).toContain("'tier' already has a value (backend)");
  });

  it('should select by label', async () => {
    await s.ok(['-n', 'work', 'create', 'configmap', 'other']);
    expect(await s.ok(['-n', 'work', 'get', 'cm', '-l', 'tier=backend', '-o', 'name'])).toBe('configmap/settings\n');
  });

  it('should create with apply -f, then apply a change to the same object', async () => {
    const file = join(s.dir, 'applied.yaml');
    const manifest = (value: string) =>
      ['apiVersion: v1', 'kind: ConfigMap', 'metadata:', '  name: applied', '  namespace: work', 'data:', `  value: "${value}"`, ''].join(
        '\n',
      );
    writeFileSync(file, manifest('1'));
    expect(await s.ok(['apply', '-f', file])).toBe('configmap/applied created\n');
    const first = await getJson('applied');
    expect(first.data).toEqual({ value: '1' });
    expect(first.metadata.annotations?.['kubectl.kubernetes.io/last-applied-configuration']).toContain('"value":"1"');
    writeFileSync(file, manifest('2'));
    expect(await s.ok(['apply', '-f', file])).toBe('configmap/applied configured\n');
    expect((await getJson('applied')).data).toEqual({ value: '2' });
    expect(await s.ok(['apply', '-f', file])).toBe('configmap/applied unchanged\n');
    expect(await s.ok(['apply', '--server-side', '-f', file])).toBe('configmap/applied serverside-applied\n');
  });

  it('should delete, and report what is gone', async () => {
    expect(await s.ok(['-n', 'work', 'delete', 'configmap', 'other'])).toBe('configmap "other" deleted\n');
    const gone = await s.kubectl(['-n', 'work', 'get', 'configmap', 'other']);
    expect(gone.code).toBe(1);
    expect(gone.stderr).toContain('Error from server (NotFound): configmaps "other" not found');
  });

  it('should see a change through get --watch, then stop', async () => {
    const watch = s.watch(['-n', 'work', 'get', 'configmaps', '--watch', '-o', 'name']);
    // The initial list comes first; then a create made after it shows up on the stream.
    await watch.waitFor('configmap/settings\n');
    await s.ok(['-n', 'work', 'create', 'configmap', 'watched', '--from-literal=a=b']);
    const output = await watch.waitFor('configmap/watched\n');
    expect(output.indexOf('configmap/settings')).toBeLessThan(output.indexOf('configmap/watched'));
    expect(s.server.openWatches()).toBe(1);
    await watch.stop();
    await waitFor(() => s.server.openWatches() === 0, 'the server to see the watch end');
  });
});

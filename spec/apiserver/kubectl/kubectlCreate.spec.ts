import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { selfSignedCert } from '../../../src/apiserver/http/selfSignedCert.js';
import { kubectlFixture, withoutNullTimestamps } from '../apimachinery/protobuf/kubectlFixture.js';
import { startKubectlSession, type KubectlSession } from './kubectl.js';

const fixture = kubectlFixture;

describe('kubectl create (protobuf bodies)', () => {
  let s: KubectlSession;
  const cert = selfSignedCert(['demo.example.com']);
  const made: string[] = [];

  beforeAll(async () => {
    s = await startKubectlSession();
    writeFileSync(join(s.dir, 'tls.crt'), cert.certPem);
    writeFileSync(join(s.dir, 'tls.key'), cert.keyPem);
    await s.ok(['create', 'namespace', 'demo']);
  });
  afterAll(() => s.close());

  it('should create a namespace from kubectl create namespace', async () => {
    const ns = JSON.parse(await s.ok(['get', 'namespace', 'demo', '-o', 'json'])) as { metadata: { name: string; uid: string } };
    expect(ns).toMatchObject({ kind: 'Namespace', apiVersion: 'v1', metadata: { name: 'demo' } });
    expect(ns.metadata.uid).not.toBe('');
  });

  const creates = fixture.cases.filter((c) => c.args[0] === 'create' && c.name !== 'namespace');
  it.each(creates.map((c) => [c.args.join(' ').replaceAll('$TMP', '…'), c] as const))('should run kubectl %s', async (_, c) => {
    const args = c.args.map((a) => a.replace('$TMP', s.dir));
    // Flags go before `--`, after which come the container's command.
    const end = args.includes('--') ? args.indexOf('--') : args.length;
    const command = [...args.slice(0, end), '-o', 'json', ...args.slice(end)];
    const created = JSON.parse(await s.ok(['-n', 'demo', ...command])) as { kind: string; metadata: { name: string } };
    const expected =
      c.name === 'secret tls'
        ? {
            kind: 'Secret',
            type: 'kubernetes.io/tls',
            data: { 'tls.crt': Buffer.from(cert.certPem).toString('base64'), 'tls.key': Buffer.from(cert.keyPem).toString('base64') },
          }
        : withoutNullTimestamps(c.json);
    expect(created).toMatchObject(expected as Record<string, unknown>);
    // What get answers is what create answered: the object was stored as decoded.
    const kind = created.kind.toLowerCase();
    const got = JSON.parse(await s.ok(['-n', 'demo', 'get', kind, created.metadata.name, '-o', 'json'])) as unknown;
    expect(got).toEqual(created);
    made.push(`${kind}/${created.metadata.name}`);
  });

  it('should delete everything it created in one kubectl delete', async () => {
    expect(made.length).toBe(creates.length);
    const out = await s.ok(['-n', 'demo', 'delete', ...made]);
    expect(out.trim().split('\n')).toHaveLength(made.length);
    const left = await s.kubectl(['-n', 'demo', 'get', ...made, '-o', 'name']);
    expect(left.stdout).toBe('');
    expect(left.stderr.match(/\(NotFound\)/g)).toHaveLength(made.length);
  });

  it('should create a Pod with kubectl run (a JSON body)', async () => {
    const pod = JSON.parse(
      await s.ok(['-n', 'demo', 'run', 'p1', '--image=nginx', '--labels=app=web', '--port=80', '-o', 'json']),
    ) as unknown;
    expect(pod).toMatchObject({ kind: 'Pod', metadata: { name: 'p1', namespace: 'demo', labels: { app: 'web' } } });
    expect(pod).toMatchObject({ spec: { containers: [{ name: 'p1', image: 'nginx', ports: [{ containerPort: 80 }] }] } });
  });
});

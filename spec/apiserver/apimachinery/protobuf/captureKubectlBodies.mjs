// Captures the protobuf bodies kubectl sends for imperative creates, with the JSON kubectl prints for the same
// command under --dry-run=client -o json, into the fixture the protobuf decoding spec replays.
//
//   node spec/apiserver/apimachinery/protobuf/captureKubectlBodies.mjs && npx prettier --write spec/apiserver/apimachinery/protobuf/kubectlBodies.json
//
// It needs kubectl and openssl on PATH. The TLS key pair and the debug Pod's name are fresh on each run.
import { Buffer } from 'node:buffer';
import { execFile, execFileSync, spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:http';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const fixture = join(dirname(fileURLToPath(import.meta.url)), 'kubectlBodies.json');
const dir = mkdtempSync(join(tmpdir(), 'rxkrt-capture-'));
const cert = join(dir, 'tls.crt');
const key = join(dir, 'tls.key');
execFileSync(
  'openssl',
  [
    'req',
    '-x509',
    '-newkey',
    'ec',
    '-pkeyopt',
    'ec_paramgen_curve:prime256v1',
    '-nodes',
    '-days',
    '3650',
    '-subj',
    '/CN=demo.example.com',
    '-keyout',
    key,
    '-out',
    cert,
  ],
  { stdio: 'ignore' },
);

/** Each case: a name and kubectl's arguments (namespace `demo`). */
const CASES = [
  ['namespace', ['create', 'namespace', 'demo']],
  ['configmap', ['create', 'configmap', 'cm1', '--from-literal=a=b', '--from-literal=empty=']],
  ['secret generic', ['create', 'secret', 'generic', 's1', '--from-literal=user=admin', '--from-literal=blank=', '--type=Opaque']],
  ['secret tls', ['create', 'secret', 'tls', 'tls1', `--cert=${cert}`, `--key=${key}`]],
  [
    'secret docker-registry',
    [
      'create',
      'secret',
      'docker-registry',
      'reg',
      '--docker-server=r.example.com',
      '--docker-username=u',
      '--docker-password=p',
      '--docker-email=u@example.com',
    ],
  ],
  ['serviceaccount', ['create', 'serviceaccount', 'sa1']],
  ['service clusterip', ['create', 'service', 'clusterip', 'web', '--tcp=80:8080', '--tcp=443:https']],
  ['service clusterip headless', ['create', 'service', 'clusterip', 'headless', '--clusterip=None']],
  ['service nodeport', ['create', 'service', 'nodeport', 'np', '--tcp=80:8080', '--node-port=30080']],
  ['service loadbalancer', ['create', 'service', 'loadbalancer', 'lb', '--tcp=443:8443']],
  ['service externalname', ['create', 'service', 'externalname', 'ext', '--external-name=db.example.com', '--tcp=5432']],
  ['deployment', ['create', 'deployment', 'web', '--image=nginx:1.27', '--replicas=3', '--port=80']],
  ['deployment zero replicas', ['create', 'deployment', 'idle', '--image=busybox', '--replicas=0', '--', 'sleep', '3600']],
  ['job', ['create', 'job', 'j1', '--image=busybox', '--', 'echo', 'hi']],
  ['cronjob', ['create', 'cronjob', 'cj', '--image=busybox', '--schedule=*/5 * * * *', '--restart=OnFailure', '--', 'date']],
  ['role', ['create', 'role', 'r1', '--verb=get,list', '--resource=pods,configmaps', '--resource-name=x']],
  ['rolebinding', ['create', 'rolebinding', 'rb', '--role=r1', '--user=alice', '--group=devs', '--serviceaccount=demo:sa1']],
  ['clusterrole', ['create', 'clusterrole', 'cr', '--verb=get', '--non-resource-url=/healthz']],
  ['clusterrole aggregated', ['create', 'clusterrole', 'agg', '--aggregation-rule=rbac.example.com/aggregate=true']],
  ['clusterrolebinding', ['create', 'clusterrolebinding', 'crb', '--clusterrole=cr', '--user=bob']],
  ['quota', ['create', 'quota', 'q', '--hard=cpu=1500m,memory=1Gi,pods=10', '--scopes=BestEffort']],
  ['priorityclass', ['create', 'priorityclass', 'high', '--value=1000', '--description=important', '--preemption-policy=Never']],
  ['poddisruptionbudget min-available', ['create', 'poddisruptionbudget', 'pdb1', '--selector=app=web', '--min-available=50%']],
  ['poddisruptionbudget max-unavailable', ['create', 'poddisruptionbudget', 'pdb2', '--selector=app=web', '--max-unavailable=1']],
  [
    'ingress',
    [
      'create',
      'ingress',
      'ing',
      '--class=nginx',
      '--rule=foo.example.com/bar*=svc1:8080,tls=my-cert',
      '--default-backend=defsvc:http',
      '--annotation=a=b',
    ],
  ],
];
// `kubectl run` sends JSON; `kubectl debug node/…` creates its Pod through the typed client, so as protobuf. It has
// no --dry-run, so its case carries no printed JSON: the spec checks what the command is documented to build.
const NO_DRY_RUN = [['pod (kubectl debug node)', ['debug', 'node/n1', '--image=busybox', '--profile=general']]];

// Just enough discovery for `kubectl create role` to resolve the resources it names, and a node to debug.
const verbs = ['create', 'delete', 'get', 'list', 'patch', 'update', 'watch'];
const DISCOVERY = {
  '/api': { kind: 'APIVersions', versions: ['v1'], serverAddressByClientCIDRs: [] },
  '/apis': { kind: 'APIGroupList', apiVersion: 'v1', groups: [] },
  '/api/v1': {
    kind: 'APIResourceList',
    groupVersion: 'v1',
    resources: [
      { name: 'pods', singularName: 'pod', namespaced: true, kind: 'Pod', verbs },
      { name: 'configmaps', singularName: 'configmap', namespaced: true, kind: 'ConfigMap', verbs },
      { name: 'nodes', singularName: 'node', namespaced: false, kind: 'Node', verbs },
    ],
  },
  '/api/v1/nodes/n1': { kind: 'Node', apiVersion: 'v1', metadata: { name: 'n1', uid: '5d3c2a4e-0000-4000-8000-000000000001' } },
};

let captured;
/** The POST kubectl sent since the last call; fails when it sent none. */
const takeCaptured = (name) => {
  const body = captured;
  captured = undefined;
  if (body === undefined) throw new Error(`${name}: kubectl sent no POST`);
  return body;
};
const server = createServer((req, res) => {
  const chunks = [];
  req.on('data', (c) => chunks.push(c));
  req.on('end', () => {
    if (req.method === 'POST')
      captured = { contentType: req.headers['content-type'], path: req.url, body: Buffer.concat(chunks).toString('base64') };
    const doc = req.method === 'GET' ? DISCOVERY[req.url.split('?')[0]] : undefined;
    res.writeHead(doc ? 200 : 404, { 'Content-Type': 'application/json' });
    res.end(
      JSON.stringify(doc ?? { kind: 'Status', apiVersion: 'v1', status: 'Failure', reason: 'NotFound', code: 404, message: 'captured' }),
    );
  });
});
await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
const kubeconfig = join(dir, 'kubeconfig');
const url = `http://127.0.0.1:${server.address().port}`;
writeFileSync(
  kubeconfig,
  `apiVersion: v1\nkind: Config\nclusters:\n- name: c\n  cluster:\n    server: ${url}\nusers:\n- name: u\n  user: {}\ncontexts:\n- name: c\n  context: {cluster: c, user: u, namespace: demo}\ncurrent-context: c\n`,
);

// Asynchronous, so this process's server answers while kubectl waits for it.
const kubectl = (args) =>
  new Promise((resolve) =>
    execFile('kubectl', ['--kubeconfig', kubeconfig, ...args], { timeout: 20_000 }, (error, stdout, stderr) =>
      resolve({ error, stdout, stderr }),
    ),
  );

const out = [];
for (const [name, args] of CASES) {
  await kubectl(args);
  const body = takeCaptured(name);
  const dashDash = args.indexOf('--');
  const flags = ['--dry-run=client', '-o', 'json'];
  const dryArgs = dashDash < 0 ? [...args, ...flags] : [...args.slice(0, dashDash), ...flags, ...args.slice(dashDash)];
  const dry = await kubectl(dryArgs);
  if (dry.error) throw new Error(`${name}: dry run failed: ${dry.stderr}`);
  out.push({ name, args: args.map((a) => a.replace(dir, '$TMP')), ...body, json: JSON.parse(dry.stdout) });
}
for (const [name, args] of NO_DRY_RUN) {
  await kubectl(args);
  out.push({ name, args, ...takeCaptured(name), json: null });
}
server.close();
rmSync(dir, { recursive: true, force: true });
const version = spawnSync('kubectl', ['version', '--client', '-o', 'json'], { encoding: 'utf8' }).stdout;
writeFileSync(fixture, JSON.stringify({ kubectl: JSON.parse(version).clientVersion.gitVersion, cases: out }, null, 2) + '\n');
console.log(`${out.length} cases written to ${fixture}`);

// Writes src/apiserver/apimachinery/protobuf/generated/: the protobufjs descriptors of the built-in kinds the
// embedded API server decodes from Kubernetes protobuf bodies, and of every message they reach.
//
//   node src/apiserver/apimachinery/protobuf/generateSchema.mjs <kubernetes/api git dir> <kubernetes/apimachinery git dir> [tag]
//
// Both repositories are read at one tag (the release kubectl 1.32 was built from by default). Types and field
// numbers come from their generated.proto files; the Go structs' json tags add what protobuf cannot say: the
// JSON name, omitempty, whether the Go field is a pointer, and embedded structs inlined into their parent.
import { execFileSync } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import protobuf from 'protobufjs';

const [apiRepo, machineryRepo, tag = 'v0.32.4'] = process.argv.slice(2);
if (!apiRepo || !machineryRepo)
  throw new Error('usage: generateSchema.mjs <kubernetes/api git dir> <kubernetes/apimachinery git dir> [tag]');

const outDir = join(dirname(fileURLToPath(import.meta.url)), 'generated');

/** Proto package → [repository, folder]. */
const PACKAGES = {
  'k8s.io.apimachinery.pkg.apis.meta.v1': [machineryRepo, 'pkg/apis/meta/v1'],
  'k8s.io.apimachinery.pkg.api.resource': [machineryRepo, 'pkg/api/resource'],
  'k8s.io.apimachinery.pkg.util.intstr': [machineryRepo, 'pkg/util/intstr'],
  'k8s.io.apimachinery.pkg.runtime': [machineryRepo, 'pkg/runtime'],
  'k8s.io.apimachinery.pkg.runtime.schema': [machineryRepo, 'pkg/runtime/schema'],
  'k8s.io.api.core.v1': [apiRepo, 'core/v1'],
  'k8s.io.api.apps.v1': [apiRepo, 'apps/v1'],
  'k8s.io.api.batch.v1': [apiRepo, 'batch/v1'],
  'k8s.io.api.networking.v1': [apiRepo, 'networking/v1'],
  'k8s.io.api.rbac.v1': [apiRepo, 'rbac/v1'],
  'k8s.io.api.policy.v1': [apiRepo, 'policy/v1'],
  'k8s.io.api.scheduling.v1': [apiRepo, 'scheduling/v1'],
  'k8s.io.api.coordination.v1': [apiRepo, 'coordination/v1'],
  'k8s.io.api.discovery.v1': [apiRepo, 'discovery/v1'],
  'k8s.io.api.events.v1': [apiRepo, 'events/v1'],
  'k8s.io.api.autoscaling.v2': [apiRepo, 'autoscaling/v2'],
};

/** The kinds a protobuf body may carry: apiVersion → proto package and kinds. */
const KINDS = {
  v1: [
    'k8s.io.api.core.v1',
    [
      'Namespace',
      'Pod',
      'Service',
      'ConfigMap',
      'Secret',
      'ServiceAccount',
      'ResourceQuota',
      'Node',
      'Endpoints',
      'LimitRange',
      'PersistentVolumeClaim',
      'Event',
    ],
  ],
  'apps/v1': ['k8s.io.api.apps.v1', ['Deployment', 'ReplicaSet', 'StatefulSet', 'DaemonSet', 'ControllerRevision']],
  'batch/v1': ['k8s.io.api.batch.v1', ['Job', 'CronJob']],
  'networking.k8s.io/v1': ['k8s.io.api.networking.v1', ['Ingress', 'IngressClass', 'NetworkPolicy']],
  'rbac.authorization.k8s.io/v1': ['k8s.io.api.rbac.v1', ['Role', 'RoleBinding', 'ClusterRole', 'ClusterRoleBinding']],
  'policy/v1': ['k8s.io.api.policy.v1', ['PodDisruptionBudget']],
  'scheduling.k8s.io/v1': ['k8s.io.api.scheduling.v1', ['PriorityClass']],
  'coordination.k8s.io/v1': ['k8s.io.api.coordination.v1', ['Lease']],
  'discovery.k8s.io/v1': ['k8s.io.api.discovery.v1', ['EndpointSlice']],
  'events.k8s.io/v1': ['k8s.io.api.events.v1', ['Event']],
  'autoscaling/v2': ['k8s.io.api.autoscaling.v2', ['HorizontalPodAutoscaler']],
  // The body of a DELETE; clients label it with their own group version too, which the decoder allows.
  'meta.k8s.io/v1': ['k8s.io.apimachinery.pkg.apis.meta.v1', ['DeleteOptions']],
};

/** Messages with JSON forms of their own (MarshalJSON in Go): decoded by hand-written rules, not walked. */
const SPECIAL = new Set(
  ['meta.v1.Time', 'meta.v1.MicroTime', 'meta.v1.FieldsV1', 'resource.Quantity', 'intstr.IntOrString', 'runtime.RawExtension'].map(
    (n) =>
      `k8s.io.apimachinery.pkg.${n.startsWith('meta') ? 'apis.' : n.startsWith('resource') ? 'api.' : n.startsWith('intstr') ? 'util.' : ''}${n}`,
  ),
);

const git = (repo, ...args) => execFileSync('git', ['-C', repo, ...args], { encoding: 'utf8', maxBuffer: 64 << 20 });

const root = new protobuf.Root();
const goStructs = new Map(); // package → struct name → proto field name → go facts
for (const [pkg, [repo, dir]] of Object.entries(PACKAGES)) {
  protobuf.parse(git(repo, 'show', `${tag}:${dir}/generated.proto`), root, { keepCase: true });
  const files = git(repo, 'ls-tree', '--name-only', `${tag}:${dir}`)
    .split('\n')
    .filter((f) => f.endsWith('.go') && !f.endsWith('_test.go') && !f.startsWith('zz_') && f !== 'generated.pb.go');
  goStructs.set(pkg, parseGoStructs(files.map((f) => git(repo, 'show', `${tag}:${dir}/${f}`)).join('\n')));
}
root.resolveAll();

/** Go struct fields with a protobuf tag, by struct and proto name. */
function parseGoStructs(source) {
  const structs = new Map();
  for (const m of source.matchAll(/^type (\w+) struct \{\n([\s\S]*?)^\}/gm)) {
    const fields = new Map();
    let order = 0;
    for (const line of m[2].split('\n')) {
      const f = /^\t(?:(\w+)\s+)?(\S+)\s+`([^`]*)`/.exec(line);
      if (!f) continue;
      const [, goNameOrNothing, goType, tag] = f;
      const goName = goNameOrNothing || ''; // empty: an embedded struct
      const proto = /protobuf:"([^"]*)"/.exec(tag)?.[1];
      const json = /json:"([^"]*)"/.exec(tag)?.[1];
      if (!proto || json === undefined) continue;
      // An embedded struct's tag may leave the name out: it is then the type's name, lower camel case.
      const goFieldName = goName || goType.replace(/^\*?(\w+\.)?/, '');
      const protoName = /name=(\w+)/.exec(proto)?.[1] || goFieldName.replace(/^\w/, (c) => c.toLowerCase());
      const [jsonName, ...jsonOpts] = json.split(',');
      fields.set(protoName, {
        order: order++,
        json: jsonName || goFieldName,
        omitempty: jsonOpts.includes('omitempty'),
        pointer: goType.startsWith('*'),
        inline: goName === '' && jsonName === '',
        skip: jsonName === '-',
      });
    }
    structs.set(m[1], fields);
  }
  return structs;
}

// Walk from the kinds, collecting every message reached.
const reached = new Map();
const visit = (type) => {
  if (reached.has(type.fullName)) return;
  reached.set(type.fullName, type);
  if (SPECIAL.has(type.fullName.slice(1))) return;
  for (const field of type.fieldsArray) if (field.resolvedType instanceof protobuf.Type) visit(field.resolvedType);
};
const kinds = {};
for (const [apiVersion, [pkg, names]] of Object.entries(KINDS)) {
  for (const kind of names) {
    visit(root.lookupType(`${pkg}.${kind}`));
    kinds[`${apiVersion}/${kind}`] = `${pkg}.${kind}`;
  }
}
visit(root.lookupType('k8s.io.apimachinery.pkg.runtime.Unknown'));

/** One message as a protobufjs descriptor, fields in Go declaration order, Go JSON facts as field options. */
function describe(type) {
  const pkg = type.parent.fullName.slice(1);
  const special = SPECIAL.has(type.fullName.slice(1)) || pkg === 'k8s.io.apimachinery.pkg.runtime';
  const go = goStructs.get(pkg).get(type.name);
  if (!go && !special) throw new Error(`no Go struct for ${type.fullName}`);
  const fields = type.fieldsArray.map((field) => {
    const facts = go?.get(field.name);
    if (!facts && !special) throw new Error(`no Go field for ${type.fullName}.${field.name}`);
    const out = {};
    if (field.map) out.keyType = field.keyType;
    if (field.repeated && !field.map) out.rule = 'repeated';
    out.type = field.resolvedType ? relativeName(field.resolvedType, pkg) : field.type;
    out.id = field.id;
    const options = {};
    if (facts && !special) {
      if (facts.skip) throw new Error(`${type.fullName}.${field.name} has json:"-"`);
      if (facts.json !== field.name && !facts.inline) options.json = facts.json;
      if (facts.omitempty) options.omitempty = true;
      if (facts.pointer) options.pointer = true;
      if (facts.inline) options.inline = true;
    }
    if (Object.keys(options).length > 0) out.options = options;
    return [field.name, out, facts?.order ?? field.id];
  });
  fields.sort((a, b) => a[2] - b[2]);
  return { fields: Object.fromEntries(fields.map(([n, d]) => [n, d])) };
}

function relativeName(type, fromPkg) {
  const full = type.fullName.slice(1);
  return full.startsWith(`${fromPkg}.`) && !full.slice(fromPkg.length + 1).includes('.') ? full.slice(fromPkg.length + 1) : full;
}

const byPackage = new Map();
for (const type of reached.values()) {
  const pkg = type.parent.fullName.slice(1);
  if (!byPackage.has(pkg)) byPackage.set(pkg, []);
  byPackage.get(pkg).push(type);
}

const header = (what) =>
  `// Generated by src/apiserver/apimachinery/protobuf/generateSchema.mjs from kubernetes/api and kubernetes/apimachinery ${tag}: ${what}. Do not edit.\n`;
const constName = (pkg) =>
  pkg.replace(/^k8s\.io\.(api\.|apimachinery\.pkg\.(apis\.|api\.|util\.)?)/, '').replace(/\.(\w)/g, (_, c) => c.toUpperCase());

mkdirSync(outDir, { recursive: true });
const written = [];
for (const [pkg, types] of [...byPackage].sort(([a], [b]) => a.localeCompare(b))) {
  const name = constName(pkg);
  types.sort((a, b) => a.name.localeCompare(b.name));
  const lines = types.map((t) => `  ${t.name}: ${JSON.stringify(describe(t))},`);
  writeFileSync(
    join(outDir, `${name}.ts`),
    header(`the messages of ${pkg} the built-in kinds reach (names, numbers, types, Go JSON tags)`) +
      `import type { ProtoMessages } from '../protoSchema.js';\n\n` +
      `/** The messages of \`${pkg}\` that the decodable kinds reach. */\n` +
      `// prettier-ignore\nexport const ${name}: ProtoMessages = {\n${lines.join('\n')}\n};\n`,
  );
  written.push([pkg, name]);
}
writeFileSync(
  join(outDir, 'index.ts'),
  header('the packages and the kinds a protobuf body may carry') +
    written.map(([, n]) => `import { ${n} } from './${n}.js';\n`).join('') +
    `import type { ProtoMessages } from '../protoSchema.js';\n\n` +
    `/** Every generated package, by its protobuf package name. */\n` +
    `export const K8S_PROTO_PACKAGES: Readonly<Record<string, ProtoMessages>> = {\n` +
    written.map(([p, n]) => `  '${p}': ${n},\n`).join('') +
    `};\n\n/** The message of each decodable kind, by \`apiVersion/kind\`. */\n` +
    `// prettier-ignore\nexport const K8S_PROTO_KINDS: Readonly<Record<string, string>> = {\n` +
    Object.entries(kinds)
      .map(([k, v]) => `  '${k}': '${v}',\n`)
      .join('') +
    `};\n`,
);
console.log(`${reached.size} messages in ${written.length} packages, ${Object.keys(kinds).length} kinds`);

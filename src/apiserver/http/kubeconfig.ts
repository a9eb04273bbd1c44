// Client configuration pointing at the server: a client-node KubeConfig and a kubeconfig file's text.
import { KubeConfig } from '@kubernetes/client-node';

/** Names used for the cluster, user and context entries. */
export const KUBECONFIG_NAME = 'rxkrt';

/**
 * A client-node `KubeConfig` for `url` with `default` as the context's namespace.
 * `skipTLSVerify` must be set: client-node refuses plain `http:` servers without it.
 */
export function kubeConfigFor(url: string): KubeConfig {
  const kc = new KubeConfig();
  kc.loadFromOptions({
    clusters: [{ name: KUBECONFIG_NAME, server: url, skipTLSVerify: true }],
    users: [{ name: KUBECONFIG_NAME }],
    contexts: [{ name: KUBECONFIG_NAME, cluster: KUBECONFIG_NAME, user: KUBECONFIG_NAME, namespace: 'default' }],
    currentContext: KUBECONFIG_NAME,
  });
  return kc;
}

/**
 * A kubeconfig file for `url`, usable by kubectl (`--kubeconfig`) and by client-node's
 * `loadFromFile`/`loadFromString` (which need `insecure-skip-tls-verify` to accept `http:`).
 */
export function kubeconfigYaml(url: string): string {
  const n = KUBECONFIG_NAME;
  return [
    'apiVersion: v1',
    'kind: Config',
    'clusters:',
    `- name: ${n}`,
    '  cluster:',
    `    server: ${url}`,
    '    insecure-skip-tls-verify: true',
    'users:',
    `- name: ${n}`,
    '  user: {}',
    'contexts:',
    `- name: ${n}`,
    '  context:',
    `    cluster: ${n}`,
    `    user: ${n}`,
    '    namespace: default',
    `current-context: ${n}`,
    'preferences: {}',
    '',
  ].join('\n');
}

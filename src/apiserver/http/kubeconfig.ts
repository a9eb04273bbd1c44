// Client configuration pointing at the server: a client-node KubeConfig and a kubeconfig file's text.
import { KubeConfig } from '@kubernetes/client-node';

/** Names used for the cluster, user and context entries. */
export const KUBECONFIG_NAME = 'rxkrt';

/** What a client needs beyond the URL: the certificate to trust (HTTPS) and the bearer token, when there are. */
export interface ClientCredentials {
  /** PEM of the server's self-signed certificate; without it the server is plain HTTP. */
  caPem?: string;
  token?: string;
  /** Sent as `Impersonate-User`, naming the client in the server's request log. */
  as?: string;
}

/**
 * A client-node `KubeConfig` for `url` with `default` as the context's namespace. Over plain HTTP
 * `skipTLSVerify` must be set (client-node refuses `http:` servers without it); over HTTPS the server's own
 * certificate is the one CA trusted.
 */
export function kubeConfigFor(url: string, credentials: ClientCredentials = {}): KubeConfig {
  const kc = new KubeConfig();
  const { caPem, token, as } = credentials;
  kc.loadFromOptions({
    clusters: [
      caPem
        ? { name: KUBECONFIG_NAME, server: url, caData: Buffer.from(caPem).toString('base64') }
        : { name: KUBECONFIG_NAME, server: url, skipTLSVerify: true },
    ],
    users: [{ name: KUBECONFIG_NAME, ...(token ? { token } : {}), ...(as ? { impersonateUser: as } : {}) }],
    contexts: [{ name: KUBECONFIG_NAME, cluster: KUBECONFIG_NAME, user: KUBECONFIG_NAME, namespace: 'default' }],
    currentContext: KUBECONFIG_NAME,
  });
  return kc;
}

/**
 * A kubeconfig file for `url`, usable by kubectl (`--kubeconfig`) and by client-node's
 * `loadFromFile`/`loadFromString` (which need `insecure-skip-tls-verify` to accept `http:`). It holds the token
 * when there is one: write it with mode 0600.
 */
export function kubeconfigYaml(url: string, credentials: ClientCredentials = {}): string {
  const n = KUBECONFIG_NAME;
  const { caPem, token } = credentials;
  return [
    'apiVersion: v1',
    'kind: Config',
    'clusters:',
    `- name: ${n}`,
    '  cluster:',
    `    server: ${url}`,
    caPem ? `    certificate-authority-data: ${Buffer.from(caPem).toString('base64')}` : '    insecure-skip-tls-verify: true',
    'users:',
    `- name: ${n}`,
    // A token is base64url or hex in practice; quoted anyway so no character of it can change the YAML.
    token ? `  user:\n    token: ${JSON.stringify(token)}` : '  user: {}',
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

// `node build/examples/configmap-count/main.js`: counts ConfigMaps on the embedded API server while it changes.
import { CoreV1Api } from '@kubernetes/client-node';
import { distinctUntilChanged, filter } from 'rxjs';
import { startApiServer } from 'rxkrt/apiserver';
import { configMapCount } from './count.js';

/** Creates three ConfigMaps, deletes one, and returns every count the singleton reported. */
export async function runConfigMapCountDemo(print: (line: string) => void = console.log): Promise<number[]> {
  const server = await startApiServer();
  const stop = new AbortController();
  const seen: number[] = [];
  try {
    const kc = server.kubeConfig();
    const core = kc.makeApiClient(CoreV1Api);
    const sub = configMapCount(kc, stop.signal)
      .pipe(
        filter((n): n is number => n !== undefined),
        distinctUntilChanged(),
      )
      .subscribe((n) => {
        seen.push(n);
        print(`configmaps: ${n}`);
      });
    const waitFor = async (n: number): Promise<void> => {
      while (seen.at(-1) !== n) await new Promise((r) => setTimeout(r, 5));
    };
    await waitFor(0);
    for (const name of ['a', 'b', 'c']) {
      await core.createNamespacedConfigMap({ namespace: 'default', body: { metadata: { name }, data: { k: name } } });
    }
    await waitFor(3);
    await core.deleteNamespacedConfigMap({ name: 'b', namespace: 'default' });
    await waitFor(2);
    sub.unsubscribe();
    return seen;
  } finally {
    stop.abort();
    await server.close();
  }
}

if (import.meta.url === `file://${process.argv[1]}`) {
  runConfigMapCountDemo().then(
    () => process.exit(0),
    (e: unknown) => {
      console.error(e);
      process.exit(1);
    },
  );
}

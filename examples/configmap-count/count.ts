// A singleton over an informer: how many ConfigMaps the cluster holds, as an RxJS stream.
import type { KubeConfig, V1ConfigMap } from '@kubernetes/client-node';
import { Observable } from 'rxjs';
import { fetch, newSingleton } from 'rxkrt';
import { newInformer } from 'rxkrt/kube';

/** The number of ConfigMaps (all namespaces), kept current by an informer; stops with `stop`. */
export function configMapCount(kc: KubeConfig, stop: AbortSignal): Observable<number | undefined> {
  const configMaps = newInformer<V1ConfigMap>(kc, { apiVersion: 'v1', kind: 'ConfigMap' }, { name: 'ConfigMaps', stop });
  const count = newSingleton((ctx) => fetch(ctx, configMaps).length, { name: 'ConfigMapCount', stop });
  return count.value$;
}

// Metadata-only answers of the embedded API server, asked for by the Accept header as metadata informers do.
import { describe, it, expect, afterEach } from '@jest/globals';
import { CoreV1Api } from '@kubernetes/client-node';
import { requestJson } from '../../../src/kube/index.js';
import { wantsPartialObjectMetadata } from '../../../src/apiserver/http/partialObjectMetadata.js';
import { Harness } from '../../helpers/kube.js';

const LIST = 'application/json;as=PartialObjectMetadataList;g=meta.k8s.io;v=v1';

describe('PartialObjectMetadata answers', () => {
  const h = new Harness();
  afterEach(() => h.release());

  it('should read the media type parameters, in a list of types, and nothing else', () => {
    expect(wantsPartialObjectMetadata(LIST)).toBe(true);
    expect(wantsPartialObjectMetadata('application/json;as=PartialObjectMetadata;g=meta.k8s.io;v=v1, application/json')).toBe(true);
    expect(wantsPartialObjectMetadata('application/json')).toBe(false);
    expect(wantsPartialObjectMetadata('application/json;as=Table;g=meta.k8s.io;v=v1')).toBe(false);
    expect(wantsPartialObjectMetadata('application/json;as=PartialObjectMetadataList;g=example.com;v=v1')).toBe(false);
    expect(wantsPartialObjectMetadata(undefined)).toBe(false);
  });

  it('should answer a LIST with a PartialObjectMetadataList: the list metadata and each item as metadata alone', async () => {
    const server = await h.server();
    const kc = server.kubeConfig();
    await kc
      .makeApiClient(CoreV1Api)
      .createNamespacedConfigMap({ namespace: 'default', body: { metadata: { name: 'a', labels: { x: 'y' } }, data: { k: 'v' } } });
    const list = (await requestJson(kc, 'GET', '/api/v1/namespaces/default/configmaps', {}, undefined, { accept: LIST })) as {
      kind: string;
      apiVersion: string;
      metadata: { resourceVersion: string };
      items: Array<Record<string, unknown>>;
    };
    expect(list.kind).toBe('PartialObjectMetadataList');
    expect(list.apiVersion).toBe('meta.k8s.io/v1');
    expect(list.metadata.resourceVersion).toMatch(/^\d+$/);
    expect(list.items).toEqual([
      {
        kind: 'PartialObjectMetadata',
        apiVersion: 'meta.k8s.io/v1',
        metadata: expect.objectContaining({ name: 'a', namespace: 'default', labels: { x: 'y' } }),
      },
    ]);
    // Without the header: the full list, as before.
    const full = (await requestJson(kc, 'GET', '/api/v1/namespaces/default/configmaps')) as {
      kind: string;
      items: Array<{ data: unknown }>;
    };
    expect(full.kind).toBe('ConfigMapList');
    expect(full.items[0]!.data).toEqual({ k: 'v' });
  });
});

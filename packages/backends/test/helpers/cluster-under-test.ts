/**
 * The cluster a search-cluster test runs against: a real one when `IRSERVE_TEST_OPENSEARCH_URL`
 * / `IRSERVE_TEST_ELASTICSEARCH_URL` is set (credentials in the URL), else the local stand-in.
 * The test index is created with the mappings a real cluster needs and deleted at the end.
 */
import { randomUUID } from 'node:crypto';
import { startFakeCluster, type FakeCluster, type Flavor } from './fake-cluster.js';

export interface ClusterUnderTest {
  url: string;
  index: string;
  /** The stand-in, when no real cluster is configured (fault tests need it). */
  fake: FakeCluster | undefined;
  /** A `_search` sent straight to the cluster: the reference the engine must match. */
  search(body: Record<string, unknown>): Promise<{ _id: string; _score: number }[]>;
  close(): Promise<void>;
}

const ENV = {
  opensearch: 'IRSERVE_TEST_OPENSEARCH_URL',
  elasticsearch: 'IRSERVE_TEST_ELASTICSEARCH_URL',
} as const;

function mappings(flavor: Flavor, dim: number): Record<string, unknown> {
  const vector =
    flavor === 'opensearch'
      ? {
          type: 'knn_vector',
          dimension: dim,
          method: { name: 'hnsw', space_type: 'cosinesimil', engine: 'lucene' },
        }
      : { type: 'dense_vector', dims: dim, index: true, similarity: 'cosine' };
  return {
    ...(flavor === 'opensearch' ? { settings: { index: { knn: true } } } : {}),
    mappings: {
      properties: {
        title: { type: 'text' },
        text: { type: 'text' },
        subset: { type: 'keyword' },
        docid: { type: 'keyword' },
        embedding: vector,
      },
    },
  };
}

export async function clusterUnderTest(
  flavor: Flavor,
  docs: { id: string; source: Record<string, unknown> }[],
  dim: number,
): Promise<ClusterUnderTest> {
  const real = process.env[ENV[flavor]];
  const fake = real ? undefined : await startFakeCluster(flavor);
  const base = new URL(real ?? fake!.url);
  const authorization =
    base.username !== ''
      ? `Basic ${Buffer.from(`${decodeURIComponent(base.username)}:${decodeURIComponent(base.password)}`).toString('base64')}`
      : undefined;
  base.username = '';
  base.password = '';
  const url = base.toString().replace(/\/$/, '');
  const index = `irserve-test-${randomUUID().slice(0, 8)}`;
  const call = async (method: string, path: string, body?: unknown) => {
    const response = await fetch(`${url}${path}`, {
      method,
      headers: { 'content-type': 'application/json', ...(authorization ? { authorization } : {}) },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });
    if (!response.ok)
      throw new Error(`${method} ${path}: ${response.status} ${await response.text()}`);
    return response.json() as Promise<{ hits: { hits: unknown[] } }>;
  };
  await call('PUT', `/${index}`, mappings(flavor, dim));
  for (const doc of docs)
    await call('PUT', `/${index}/_doc/${encodeURIComponent(doc.id)}`, doc.source);
  await call('POST', `/${index}/_refresh`);
  return {
    url: real ?? url,
    index,
    fake,
    async search(body) {
      const answer = await call('POST', `/${index}/_search`, body);
      return answer.hits.hits as { _id: string; _score: number }[];
    },
    async close() {
      await call('DELETE', `/${index}`).catch(() => undefined);
      await fake?.close();
    },
  };
}

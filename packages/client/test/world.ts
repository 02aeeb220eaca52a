/**
 * A real irserve app for the client tests: the core's test engines, a text collection and a
 * bytes (PNG) collection on disk, served on loopback over HTTP and gRPC with a bearer key.
 */
import type { App } from 'irserve';
import { startTestApp, tempDir } from 'irserve/testing';
import { TEST_ENGINES } from '../../irserve/test/helpers/engines.js';
import { quietLogger } from '../../irserve/test/helpers/logger.js';

export { NUMERIC_RANKING, NUMERIC_SCORES } from '../../irserve/test/helpers/engines.js';

export const KEY = 'client-test-key';
/** The smallest valid PNG (1x1), as the bytes collection serves it. */
export const PNG = Buffer.from(
  'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==',
  'base64',
);

export interface World {
  app: App;
  baseUrl: string;
  grpcTarget: string;
  close(): Promise<void>;
}

/** Starts the app; `close()` stops it and removes its files. */
export async function startWorld(): Promise<World> {
  const dir = await tempDir('irserve-client-');
  await dir.write('img/logo.png', PNG);
  await dir.writeJsonl('docs.jsonl', [
    { id: 'd1', title: 'Wings', text: 'wing flutter at speed' },
    { id: 'd2', text: 'heat transfer' },
  ]);
  const config = {
    services: [
      { name: 'const', engine: 'ConstSearch', max_wait_time: 0.005 },
      { name: 'overlap', engine: 'OverlapScore', max_wait_time: 0.005 },
      { name: 'split', engine: 'SplitDecomposer', max_wait_time: 0.005 },
      { name: 'slow', engine: 'SleepSearch', config: { delay_ms: 500 }, cache: -1 },
      { name: 'numeric', engine: 'NumericSearch', max_wait_time: 0.005 },
    ],
    collections: [
      { name: 'docs', doc_path: 'docs.jsonl', content_field: 'text' },
      {
        name: 'images',
        views: {
          image: {
            source: { source: 'local_path', path_template: 'img/{id}.png', mime: 'image/png' },
          },
        },
      },
    ],
  };
  const { app, url } = await startTestApp(config, {
    engines: TEST_ENGINES,
    dir: dir.path,
    logger: quietLogger(),
    listen: true,
    options: { apiKey: KEY, grpc: { port: 0 } },
  });
  const baseUrl = url!;
  const avail = (
    await app.http.inject({
      method: 'GET',
      url: '/avail',
      headers: { authorization: `Bearer ${KEY}` },
    })
  ).json<{ grpc_port: number }>();
  return {
    app,
    baseUrl,
    grpcTarget: `127.0.0.1:${avail.grpc_port}`,
    close: async () => {
      // Open issue: after the abort tests, one connection sometimes keeps Fastify's close busy
      // until the keep-alive timeout (72 s); not yet diagnosed. The test cuts it after 3 s.
      const grace = setTimeout(() => app.http.server.closeAllConnections(), 3000);
      await app.close();
      clearTimeout(grace);
      await dir.remove();
    },
  };
}

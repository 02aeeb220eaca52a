import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vitest/config';

const src = (path: string) => fileURLToPath(new URL(`./packages/${path}`, import.meta.url));

export default defineConfig({
  // Tests run against the sources, so an extra and the core share one copy of each class.
  resolve: {
    alias: [
      { find: /^irserve$/, replacement: src('irserve/src/index.ts') },
      { find: /^irserve\/plugin$/, replacement: src('irserve/src/plugin.ts') },
      { find: /^irserve\/wasm$/, replacement: src('irserve/src/util/shared-wasm.ts') },
      { find: /^irserve\/experiment$/, replacement: src('irserve/src/experiment/index.ts') },
      { find: /^irserve\/testing$/, replacement: src('irserve/src/testing/index.ts') },
      { find: /^@irserve\/dense$/, replacement: src('dense/src/index.ts') },
      { find: /^@irserve\/onnx$/, replacement: src('onnx/src/index.ts') },
      {
        find: /^@irserve\/onnx\/leased-reranker$/,
        replacement: src('onnx/src/rerank/leased-reranker.ts'),
      },
      { find: /^@irserve\/onnx\/formats$/, replacement: src('onnx/src/formats/index.ts') },
      { find: /^@irserve\/sparse$/, replacement: src('sparse/src/index.ts') },
      { find: /^@irserve\/plaidx$/, replacement: src('plaidx/src/index.ts') },
      { find: /^@irserve\/gpu$/, replacement: src('gpu/src/index.ts') },
      { find: /^@irserve\/gpu\/kmeans$/, replacement: src('gpu/src/kmeans/index.ts') },
      { find: /^@irserve\/backends$/, replacement: src('backends/src/index.ts') },
      { find: /^@irserve\/client$/, replacement: src('client/src/index.ts') },
    ],
  },
  test: {
    include: ['packages/*/test/**/*.test.ts'],
    globalSetup: ['./vitest.tmpdir.ts'],
    testTimeout: 20_000,
    hookTimeout: 30_000,
    pool: 'forks',
    // Two cores in CI: more workers only add contention.
    maxWorkers: 2,
  },
});

import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vitest/config';

const src = (path: string) => fileURLToPath(new URL(`./packages/${path}`, import.meta.url));

export default defineConfig({
  // Tests run against the sources, so an extra and the core share one copy of each class.
  resolve: {
    alias: [
      { find: /^irserve$/, replacement: src('irserve/src/index.ts') },
      { find: /^irserve\/plugin$/, replacement: src('irserve/src/plugin.ts') },
      { find: /^@irserve\/dense$/, replacement: src('dense/src/index.ts') },
    ],
  },
  test: {
    include: ['packages/*/test/**/*.test.ts'],
    testTimeout: 20_000,
    hookTimeout: 30_000,
    pool: 'forks',
    // Two cores in CI: more workers only add contention.
    maxWorkers: 2,
  },
});

import { describe, expect, it } from 'vitest';
import type { AppCore } from '../../src/core/app-core.js';
import { rankedResults } from '../../src/transports/mcp/results.js';

/** Only what rankedResults reads of a core: no collection is asked for. */
const core = { collections: { has: () => false } } as unknown as AppCore;

describe('MCP tool results', () => {
  // The ordering trap: an object with integer-like keys enumerates them in ascending numeric
  // order, so Object.entries({ '643': 4.42, '749': 4.37, '1341': 4.5 }) puts 1341 last.
  it('ranks numeric document ids by score, not by key order', async () => {
    const scores = { '1341': 4.5, '643': 4.42, '749': 4.37, '53': 3.86, '358': 4.02 };
    const results = await rankedResults(core, scores, 3, { chars: 0 });
    expect(results).toEqual([
      { id: '1341', score: 4.5 },
      { id: '643', score: 4.42 },
      { id: '749', score: 4.37 },
    ]);
  });

  it('breaks ties by ascending id, as the server cuts them', async () => {
    const scores = { '9': 1, '10': 1, '2': 2, '100': 1 };
    const results = await rankedResults(core, scores, 10, { chars: 0 });
    expect(results.map((r) => r.id)).toEqual(['2', '10', '100', '9']);
  });
});

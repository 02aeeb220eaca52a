/** The checks before the first query, with a source that records what it was asked. */
import { describe, expect, it } from 'vitest';
import type { RetrievalRequest, RetrievalSource } from '../../src/experiment/app-source.js';
import { runPipelines } from '../../src/experiment/run-pipelines.js';
import { quietLogger } from '../helpers/logger.js';

function recordingSource(bad: Record<string, string> = {}) {
  const calls = { checked: [] as string[], started: 0, retrieved: 0 };
  const source: RetrievalSource = {
    check: async (request: RetrievalRequest) => {
      calls.checked.push(request.pipeline);
      const problem = bad[request.pipeline];
      if (problem) throw Object.assign(new Error(problem), { code: 'ERR_PIPELINE_PLAN' });
      return { plan: request.pipeline, service: request.pipeline };
    },
    retrieve: async () => {
      calls.retrieved++;
      return { d1: 1 };
    },
    aliases: () => ({}),
    start: async () => void calls.started++,
    close: async () => undefined,
  };
  return { source, calls };
}

const queries = [
  { id: 'q1', text: 'a' },
  { id: 'q2', text: 'b' },
];

describe('runPipelines', () => {
  it('checks every pipeline, reports all bad ones, and runs no query', async () => {
    const { source, calls } = recordingSource({
      'bm25 >> nosuch': "stage 'nosuch': no score service is named 'nosuch'",
      'x >> y': "stage 'y' reranks documents and needs the request's `collection` field",
    });
    const run = runPipelines({
      source,
      specs: [
        { name: 'a', pipeline: 'bm25' },
        { name: 'b', pipeline: 'bm25 >> nosuch' },
        { name: 'c', pipeline: 'x >> y' },
      ],
      queries,
      concurrency: 2,
      logger: quietLogger(),
      interactive: false,
      label: 'test',
    });
    await expect(run).rejects.toThrow(
      "pipeline b: stage 'nosuch': no score service is named 'nosuch' (ERR_PIPELINE_PLAN)\npipeline c: stage 'y'",
    );
    expect(calls).toEqual({
      checked: ['bm25', 'bm25 >> nosuch', 'x >> y'],
      started: 0,
      retrieved: 0,
    });
  });

  it('starts the source after the checks, then runs every query of every pipeline', async () => {
    const { source, calls } = recordingSource();
    const result = await runPipelines({
      source,
      specs: [
        { name: 'a', pipeline: 'p1' },
        { name: 'b', pipeline: 'p2' },
      ],
      queries,
      concurrency: 2,
      logger: quietLogger(),
      interactive: false,
      label: 'test',
    });
    expect(calls).toEqual({ checked: ['p1', 'p2'], started: 1, retrieved: 4 });
    expect(result.runs).toHaveLength(2);
    expect(result.failures).toEqual([]);
  });
});

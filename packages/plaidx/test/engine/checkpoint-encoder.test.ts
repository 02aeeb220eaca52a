/**
 * The in-process ColBERT encoder on checkpoint folders (a BERT and an XLM-R encoder with
 * ColBERT's `linear.weight` beside it, as ColBERT and PLAID-X checkpoints store them), whose
 * graph @irserve/onnx builds: query and passage vectors equal those of the same weights
 * exported by torch.onnx.export.
 */
import { rm } from 'node:fs/promises';
import { describe, expect, it } from 'vitest';
import { engineContext } from 'irserve/testing';
import { onnxColbertEncoder } from '../../src/engine/onnx-encoder.js';
import { checkpointCopy, exportedFolder } from '../../../onnx/test/checkpoint-helpers.js';

const context = engineContext();

const open = (checkpoint: string) =>
  onnxColbertEncoder(
    { checkpoint, batchSize: 2, windowSize: 8, windowStride: 4, threads: 1 },
    context,
  );

/** Markers from each tokenizer's vocabulary (the fixtures' tokenizers have no [unused0]). */
const CONVENTIONS: Record<string, Record<string, unknown>> = {
  bert: { query_marker: 'query', document_marker: 'passage', query_maxlen: 12 },
  'xlm-roberta': { query_marker: '▁query', document_marker: '▁passage', query_maxlen: 12 },
};

describe('ColBERT on a checkpoint folder', () => {
  it.each(['bert', 'xlm-roberta'])('%s: the vectors of the exported weights', async (name) => {
    const extra = { 'onnx_config.json': CONVENTIONS[name] };
    const checkpoint = await checkpointCopy(name, extra);
    const exported = await exportedFolder(name, 'colbert', {
      'onnx_config.json': { ...CONVENTIONS[name], output: 'colbert' },
    });
    const [built, reference] = await Promise.all([open(checkpoint), open(exported)]);
    try {
      expect(await built.dimension()).toBe(24);
      const texts = ['what is a cat', 'the quick brown fox jump over the lazy dog and the cat'];
      const pairs = [
        [await built.encodeQueries(texts), await reference.encodeQueries(texts)],
        [
          (await built.encodePassages(texts)).map((w) => w.matrix),
          (await reference.encodePassages(texts)).map((w) => w.matrix),
        ],
      ] as const;
      for (const [ours, theirs] of pairs)
        for (const [i, matrix] of theirs.entries()) {
          expect(ours[i]!.length).toBe(matrix.length);
          for (let j = 0; j < matrix.vectors.length; j++)
            expect(Math.abs(ours[i]!.vectors[j]! - matrix.vectors[j]!)).toBeLessThan(1e-4);
        }
    } finally {
      await Promise.all([built.close(), reference.close()]);
      await Promise.all([checkpoint, exported].map((d) => rm(d, { recursive: true, force: true })));
    }
  });
});

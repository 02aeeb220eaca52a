/**
 * Dense's local encoder on a checkpoint folder in the sentence-transformers layout (BertModel
 * weights, modules.json with CLS pooling and Normalize): @irserve/onnx builds the hidden-state
 * graph, and the vectors equal those of the same weights exported by torch.onnx.export.
 */
import { rm } from 'node:fs/promises';
import { describe, expect, it } from 'vitest';
import { engineContext } from 'irserve/testing';
import { encoderConfigSchema } from '../../src/engine/encoder-config.js';
import { localEmbedder } from '../../src/engine/local-embedder.js';
import { checkpointCopy, exportedFolder } from '../../../onnx/test/checkpoint-helpers.js';

const context = engineContext();

/** What sentence-transformers writes beside a model it saves. */
const SENTENCE_TRANSFORMERS = {
  'modules.json': [
    { idx: 0, name: '0', path: '', type: 'sentence_transformers.models.Transformer' },
    { idx: 1, name: '1', path: '1_Pooling', type: 'sentence_transformers.models.Pooling' },
    { idx: 2, name: '2', path: '2_Normalize', type: 'sentence_transformers.models.Normalize' },
  ],
  'sentence_bert_config.json': { max_seq_length: 48, do_lower_case: false },
};

describe('Dense local encoder on a checkpoint folder', () => {
  it('embeds as the exported weights do, with the folder pooling and normalisation', async () => {
    const checkpoint = await checkpointCopy('bert', SENTENCE_TRANSFORMERS);
    const exported = await exportedFolder('bert', 'hidden', SENTENCE_TRANSFORMERS);
    const texts = ['what is a cat', 'the quick brown fox jump over the lazy dog', 'a'];
    const config = (model_path: string) =>
      encoderConfigSchema.parse({ model_path, pooling: 'cls', batch_size: 2 });
    const [ours, theirs] = await Promise.all([
      localEmbedder(config(checkpoint), context),
      localEmbedder(config(exported), context),
    ]);
    try {
      const [a, b] = [await ours.embed(texts), await theirs.embed(texts)];
      for (const [i, vector] of b.entries()) {
        const norm = Math.hypot(...a[i]!);
        expect(norm).toBeCloseTo(1, 5);
        for (let d = 0; d < vector.length; d++)
          expect(Math.abs(a[i]![d]! - vector[d]!)).toBeLessThan(1e-4);
      }
      expect(ours.dimension).toBe(32);
    } finally {
      await Promise.all([ours.close(), theirs.close()]);
      await Promise.all([checkpoint, exported].map((d) => rm(d, { recursive: true, force: true })));
    }
  });
});

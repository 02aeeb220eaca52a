/**
 * The in-process SPLADE encoder on a masked-LM checkpoint folder (a DistilBertForMaskedLM as
 * naver/splade_v2_distil is, and a BertForMaskedLM as naver/splade-v3), whose graph
 * @irserve/onnx builds: its vectors equal those of the same weights exported by
 * torch.onnx.export.
 */
import { rm } from 'node:fs/promises';
import { describe, expect, it } from 'vitest';
import { engineContext } from 'irserve/testing';
import { OnnxSpladeEncoder } from '../../src/encoders/onnx-splade.js';
import { CHECKPOINTS, exportedFolder } from '../../../onnx/test/checkpoint-helpers.js';

const context = engineContext();

const TEXTS = ['what is neural retrieval', 'the quick brown fox jump over the lazy dog', 'cat'];

const open = (folder: string) =>
  OnnxSpladeEncoder.open({ folder, maxLength: undefined, maxTerms: undefined, context });

describe('SPLADE on a checkpoint folder', () => {
  it.each(['distilbert', 'bert'])('%s: the vectors of the exported weights', async (name) => {
    const exported = await exportedFolder(name, 'masked-lm');
    const [built, reference] = await Promise.all([open(`${CHECKPOINTS}${name}`), open(exported)]);
    try {
      const ours = await built.encode(TEXTS, 'passage');
      const theirs = await reference.encode(TEXTS, 'passage');
      for (const [i, vector] of theirs.entries()) {
        expect(Object.keys(ours[i]!).sort()).toEqual(Object.keys(vector).sort());
        for (const [token, weight] of Object.entries(vector))
          expect(ours[i]![token]).toBeCloseTo(weight, 4);
      }
    } finally {
      await Promise.all([built.close(), reference.close()]);
      await rm(exported, { recursive: true, force: true });
    }
  });
});

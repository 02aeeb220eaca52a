/**
 * The tiny generated models of the repository (onnx and gpu fixtures), published to a hub
 * stand-in in the layouts real repositories use:
 *
 * - `sentence-transformers/tiny-bert`: a sentence-transformers repository with an `onnx/`
 *   folder (model.onnx, model_quantized.onnx), safetensors and PyTorch weights beside it;
 * - `Xenova/tiny-cross-encoder`: transformers.js's layout (`onnx/model.onnx` and variants);
 * - `optimum/tiny-t5`: Optimum's seq2seq export (encoder, decoder, merged decoder);
 * - `ggml-org/tiny-embed-GGUF`: GGUF quantisations side by side (the F16 one is not a model);
 * - `ggml-org/tiny-rerank-GGUF`: one GGUF reranker;
 * - `google/tiny-bert-checkpoint`: safetensors only (for the checkpoint loader).
 */
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { HubStandIn } from './hub-stand-in.js';

const PACKAGES = fileURLToPath(new URL('../../../', import.meta.url));
export const ONNX_MODELS = join(PACKAGES, 'onnx', 'test', 'fixtures', 'models');
export const GGUF_FIXTURES = join(PACKAGES, 'gpu', 'test', 'fixtures');

/** Every file under `dir`, keyed by its path relative to `dir` with `/`. */
export function filesOf(dir: string, under = ''): Record<string, Buffer> {
  const files: Record<string, Buffer> = {};
  const walk = (path: string) => {
    for (const name of readdirSync(path)) {
      const full = join(path, name);
      if (statSync(full).isDirectory()) walk(full);
      else files[join(under, relative(dir, full)).split('\\').join('/')] = readFileSync(full);
    }
  };
  walk(dir);
  return files;
}

/** Moves the `.onnx` graphs of `files` under `onnx/`, as Hub repositories that ship ONNX do. */
function graphsUnderOnnx(files: Record<string, Buffer>): Record<string, Buffer> {
  return Object.fromEntries(
    Object.entries(files).map(([path, bytes]) => [
      path.endsWith('.onnx') ? `onnx/${path}` : path,
      bytes,
    ]),
  );
}

export const TINY_BERT_REPO = 'sentence-transformers/tiny-bert';
export const CROSS_ENCODER_REPO = 'Xenova/tiny-cross-encoder';
export const T5_REPO = 'optimum/tiny-t5';
export const GGUF_REPO = 'ggml-org/tiny-embed-GGUF';
export const GGUF_RERANK_REPO = 'ggml-org/tiny-rerank-GGUF';
export const CHECKPOINT_REPO = 'google/tiny-bert-checkpoint';

/** Publishes the tiny models; returns the commit of each repository. */
export function publishTinyModels(hub: HubStandIn): Record<string, string> {
  const bert = filesOf(join(ONNX_MODELS, 'tiny-bert'));
  const graph = bert['model.onnx']!;
  delete bert['model.onnx'];
  const quantised = Buffer.concat([graph, Buffer.from('quantised variant')]);
  const commits: Record<string, string> = {};
  commits[TINY_BERT_REPO] = hub.publish(TINY_BERT_REPO, {
    ...bert,
    'config_sentence_transformers.json': JSON.stringify({
      prompts: { query: 'query: ', document: 'passage: ' },
      default_prompt_name: null,
    }),
    'onnx/model.onnx': graph,
    'onnx/model_quantized.onnx': quantised,
    'model.safetensors': Buffer.alloc(4096, 7),
    'pytorch_model.bin': Buffer.alloc(4096, 9),
    'README.md': '# tiny-bert\n',
    '.gitattributes': '*.onnx filter=lfs diff=lfs merge=lfs -text\n',
  });
  commits[CROSS_ENCODER_REPO] = hub.publish(CROSS_ENCODER_REPO, {
    ...graphsUnderOnnx(filesOf(join(ONNX_MODELS, 'tiny-cross-encoder'))),
    'onnx/model_fp16.onnx': Buffer.alloc(2048, 1),
    'README.md': '# tiny cross-encoder\n',
  });
  const t5 = filesOf(join(ONNX_MODELS, 'tiny-t5'));
  delete t5['reference.json'];
  commits[T5_REPO] = hub.publish(T5_REPO, { ...graphsUnderOnnx(t5), 'README.md': '# t5\n' });
  const embed = readFileSync(join(GGUF_FIXTURES, 'tiny-embed.gguf'));
  commits[GGUF_REPO] = hub.publish(GGUF_REPO, {
    'tiny-embed-Q8_0.gguf': embed,
    'tiny-embed-F16.gguf': Buffer.concat([embed, Buffer.alloc(16)]),
    'README.md': '# GGUF\n',
  });
  commits[GGUF_RERANK_REPO] = hub.publish(GGUF_RERANK_REPO, {
    'tiny-rerank.gguf': readFileSync(join(GGUF_FIXTURES, 'tiny-rerank.gguf')),
  });
  commits[CHECKPOINT_REPO] = hub.publish(CHECKPOINT_REPO, {
    'config.json': bert['config.json']!,
    'tokenizer.json': bert['tokenizer.json']!,
    'model.safetensors': Buffer.alloc(4096, 3),
    'pytorch_model.bin': Buffer.alloc(4096, 4),
  });
  return commits;
}

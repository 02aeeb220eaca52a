import { describe, expect, it } from 'vitest';
import { chooseFiles, type ChoiceRequest } from '../../src/models/choose-files.js';
import { formatHubReference, parseHubReference } from '../../src/models/model-reference.js';

describe('parseHubReference', () => {
  it.each([
    ['BAAI/bge-small-en-v1.5', { repo: 'BAAI/bge-small-en-v1.5', revision: 'main' }],
    ['hf://naver/splade-v3@v1', { repo: 'naver/splade-v3', revision: 'v1' }],
    [
      'Xenova/all-MiniLM-L6-v2/onnx/model_quantized.onnx',
      { repo: 'Xenova/all-MiniLM-L6-v2', revision: 'main', path: 'onnx/model_quantized.onnx' },
    ],
    [
      'Qwen/Qwen3-Embedding-0.6B-GGUF@main:Q8_0',
      { repo: 'Qwen/Qwen3-Embedding-0.6B-GGUF', revision: 'main', quant: 'Q8_0' },
    ],
    ['org/m@refs%2Fpr%2F1/onnx', { repo: 'org/m', revision: 'refs/pr/1', path: 'onnx' }],
    [
      'org/m@0123456789abcdef0123456789abcdef01234567',
      { repo: 'org/m', revision: '0123456789abcdef0123456789abcdef01234567' },
    ],
  ])('%s', (text, expected) => {
    const parsed = parseHubReference(text);
    expect(parsed).toEqual(expected);
    if (!text.startsWith('hf://') && !('error' in parsed))
      expect(formatHubReference(parsed)).toBe(text.replace('@main', ''));
  });

  it.each([
    ['./models/minilm', /starts like a path/],
    ['/models/minilm', /starts like a path/],
    ['~/models/minilm', /starts like a path/],
    ['minilm', /form org\/name/],
    ['org/bad--name', /not a valid repository name/],
    ['org/-name', /not a valid repository name/],
    ['org/name@', /revision after "@" is empty/],
    ['org/name/../x', /may not contain \. or \.\./],
    ['org/name:Q8 0', /not a quantisation name/],
  ])('%s is not a hub id', (text, reason) => {
    expect(parseHubReference(text)).toEqual({ error: expect.stringMatching(reason) });
  });
});

/** File listings of real repositories, trimmed. */
const BGE_SMALL = [
  '.gitattributes',
  '1_Pooling/config.json',
  'README.md',
  'config.json',
  'config_sentence_transformers.json',
  'model.safetensors',
  'modules.json',
  'onnx/model.onnx',
  'pytorch_model.bin',
  'sentence_bert_config.json',
  'special_tokens_map.json',
  'tokenizer.json',
  'tokenizer_config.json',
  'vocab.txt',
];
const ONNX_COMMUNITY_QWEN3 = [
  'config.json',
  'generation_config.json',
  'onnx/model.onnx',
  'onnx/model.onnx_data',
  'onnx/model_fp16.onnx',
  'onnx/model_fp16.onnx_data',
  'onnx/model_q4f16.onnx',
  'tokenizer.json',
  'tokenizer_config.json',
];
const QWEN3_GGUF = ['Qwen3-Embedding-0.6B-Q8_0.gguf', 'Qwen3-Embedding-0.6B-f16.gguf', 'README.md'];
const SPLIT_GGUF = [
  'model-Q4_K_M-00001-of-00002.gguf',
  'model-Q4_K_M-00002-of-00002.gguf',
  'model-Q8_0-00001-of-00003.gguf',
  'model-Q8_0-00002-of-00003.gguf',
  'model-Q8_0-00003-of-00003.gguf',
  'mmproj-model-f16.gguf',
];
const SHARDED = [
  'config.json',
  'model-00001-of-00002.safetensors',
  'model-00002-of-00002.safetensors',
  'model.safetensors.index.json',
  'tokenizer.json',
];

function choose(files: string[], request: Partial<ChoiceRequest> = {}) {
  return chooseFiles(new Set(files), { kind: 'onnx', ...request }, 'org/m@abc');
}

describe('chooseFiles', () => {
  it('a sentence-transformers repository: the onnx/ graph and the small files, no other weights', () => {
    const choice = choose(BGE_SMALL);
    expect(choice).toEqual({
      kind: 'onnx',
      folder: '',
      files: [
        'onnx/model.onnx',
        '1_Pooling/config.json',
        'config.json',
        'config_sentence_transformers.json',
        'modules.json',
        'sentence_bert_config.json',
        'special_tokens_map.json',
        'tokenizer.json',
        'tokenizer_config.json',
      ],
    });
  });

  it('external weights come with their graph; a variant is chosen by path', () => {
    expect(choose(ONNX_COMMUNITY_QWEN3).files.slice(0, 2)).toEqual([
      'onnx/model.onnx',
      'onnx/model.onnx_data',
    ]);
    const fp16 = choose(ONNX_COMMUNITY_QWEN3, { path: 'onnx/model_fp16.onnx' });
    expect(fp16.modelFile).toBe('onnx/model_fp16.onnx');
    expect(fp16.files.slice(0, 2)).toEqual(['onnx/model_fp16.onnx', 'onnx/model_fp16.onnx_data']);
  });

  it('several graphs and none of the default names: the error lists them', () => {
    expect(() =>
      choose(['tokenizer.json', 'onnx/model_int8.onnx', 'onnx/model_fp16.onnx']),
    ).toThrow(
      /holds 2 ONNX graphs and no model\.onnx or onnx\/model\.onnx: name one, e\.g\. org\/m\/onnx\/model_int8\.onnx/,
    );
  });

  it('GGUF: by quantisation, Q8_0 by default, split files with every part, no projector', () => {
    expect(chooseFiles(new Set(QWEN3_GGUF), { kind: 'gguf' }, 'q')).toMatchObject({
      files: ['Qwen3-Embedding-0.6B-Q8_0.gguf'],
      modelFile: 'Qwen3-Embedding-0.6B-Q8_0.gguf',
    });
    expect(chooseFiles(new Set(QWEN3_GGUF), { kind: 'gguf', quant: 'F16' }, 'q').files).toEqual([
      'Qwen3-Embedding-0.6B-f16.gguf',
    ]);
    expect(chooseFiles(new Set(SPLIT_GGUF), { kind: 'auto', quant: 'q4_k_m' }, 'q')).toMatchObject({
      kind: 'gguf',
      files: ['model-Q4_K_M-00001-of-00002.gguf', 'model-Q4_K_M-00002-of-00002.gguf'],
      modelFile: 'model-Q4_K_M-00001-of-00002.gguf',
    });
    expect(chooseFiles(new Set(SPLIT_GGUF), { kind: 'gguf' }, 'q').files).toHaveLength(3);
  });

  it('safetensors only: the checkpoint (with the shards of its index) for the checkpoint loader', () => {
    expect(choose(SHARDED)).toEqual({
      kind: 'checkpoint',
      folder: '',
      files: [
        'model.safetensors.index.json',
        'model-00001-of-00002.safetensors',
        'model-00002-of-00002.safetensors',
        'config.json',
        'tokenizer.json',
      ],
    });
  });

  it('seq2seq: encoder and decoder graphs under onnx/, not the with-past decoder', () => {
    const files = [
      'config.json',
      'tokenizer.json',
      'onnx/encoder_model.onnx',
      'onnx/decoder_model.onnx',
      'onnx/decoder_with_past_model.onnx',
      'onnx/decoder_model_merged.onnx',
    ];
    expect(chooseFiles(new Set(files), { kind: 'auto' }, 'x')).toMatchObject({
      kind: 'seq2seq',
      files: [
        'onnx/encoder_model.onnx',
        'onnx/decoder_model.onnx',
        'config.json',
        'tokenizer.json',
      ],
    });
    expect(
      chooseFiles(
        new Set(files),
        { kind: 'seq2seq', graphs: { decoder: 'onnx/decoder_model_merged.onnx' } },
        'x',
      ).files.slice(0, 2),
    ).toEqual(['onnx/encoder_model.onnx', 'onnx/decoder_model_merged.onnx']);
  });

  it('a model in a sub-folder of the repository', () => {
    const files = ['bge/model.onnx', 'bge/tokenizer.json', 'e5/model.onnx', 'e5/tokenizer.json'];
    expect(choose(files, { path: 'e5' })).toEqual({
      kind: 'onnx',
      folder: 'e5',
      files: ['e5/model.onnx', 'e5/tokenizer.json'],
    });
  });

  it('PyTorch weights only: the checkpoint; sharded, with every shard of its index', () => {
    expect(choose(['config.json', 'pytorch_model.bin', 'tokenizer.json']).files).toEqual([
      'pytorch_model.bin',
      'config.json',
      'tokenizer.json',
    ]);
    const sharded = [
      'config.json',
      'pytorch_model.bin.index.json',
      'pytorch_model-00001-of-00002.bin',
      'pytorch_model-00002-of-00002.bin',
      'tf_model.h5',
    ];
    expect(choose(sharded).files).toEqual([...sharded.slice(1, 4), 'config.json']);
  });

  it('a T5 repository without tokenizer.json (castorini/monot5-base-msmarco): its spiece.model', () => {
    const monoT5 = [
      'config.json',
      'pytorch_model.bin',
      'special_tokens_map.json',
      'spiece.model',
      'tokenizer_config.json',
      'tf_model.h5',
    ];
    expect(chooseFiles(new Set(monoT5), { kind: 'seq2seq' }, 'x')).toEqual({
      kind: 'checkpoint',
      folder: '',
      files: [
        'pytorch_model.bin',
        'config.json',
        'special_tokens_map.json',
        'spiece.model',
        'tokenizer_config.json',
      ],
    });
    // Beside a tokenizer.json (google/flan-t5-base), the SentencePiece model is not fetched.
    const withJson = ['config.json', 'model.safetensors', 'spiece.model', 'tokenizer.json'];
    expect(choose(withJson).files).toEqual(['model.safetensors', 'config.json', 'tokenizer.json']);
  });

  it('nothing irserve runs: an error listing what the repository holds', () => {
    expect(() => choose(['config.json', 'tf_model.h5', 'vocab.txt'])).toThrow(
      /holds nothing this engine can run: it needs an ONNX graph \(model\.onnx, onnx\/model\.onnx\) or a checkpoint \(model\.safetensors, pytorch_model\.bin\); it holds: config\.json, tf_model\.h5, vocab\.txt/,
    );
    expect(() => choose(QWEN3_GGUF)).toThrow(/its GGUF files are served by the gpu extra/);
  });
});

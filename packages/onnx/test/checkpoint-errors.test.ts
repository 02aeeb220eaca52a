import {
  cp,
  mkdir,
  mkdtemp,
  readFile,
  rm,
  symlink,
  truncate,
  unlink,
  writeFile,
} from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SessionPool } from '@irserve/onnx';
import { CHECKPOINTS } from './checkpoint-helpers.js';

let dir: string;
let count = 0;

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'irserve-checkpoint-errors-'));
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

/** A fresh copy of a fixture folder to damage. */
async function copyOf(name: string): Promise<string> {
  const target = join(dir, `${name}-${++count}`);
  await cp(`${CHECKPOINTS}${name}`, target, { recursive: true });
  return target;
}

/** Rewrites model.safetensors with its JSON header edited (the data left as it is). */
type Header = Record<string, { dtype: string; shape: number[]; data_offsets: number[] }>;

async function editHeader(folder: string, edit: (header: Header) => void) {
  const file = join(folder, 'model.safetensors');
  const bytes = await readFile(file);
  const length = Number(bytes.readBigUInt64LE(0));
  const header = JSON.parse(bytes.subarray(8, 8 + length).toString('utf8')) as Header;
  edit(header);
  let text = Buffer.from(JSON.stringify(header));
  // Keep the data where it was: pad (or refuse to grow) the header to its old length.
  if (text.length > length) throw new Error('edited header grew');
  text = Buffer.concat([text, Buffer.alloc(length - text.length, 0x20)]);
  await writeFile(file, Buffer.concat([bytes.subarray(0, 8), text, bytes.subarray(8 + length)]));
}

async function editConfig(folder: string, edit: (config: Record<string, unknown>) => void) {
  const file = join(folder, 'config.json');
  const config = JSON.parse(await readFile(file, 'utf8'));
  edit(config);
  await writeFile(file, JSON.stringify(config));
}

/** The start-up error of loading `folder` with a head. */
async function failure(folder: string, head: 'hidden' | 'classifier' | 'masked-lm' = 'hidden') {
  const pool = new SessionPool();
  const error = await pool.acquire(folder, { head }).then(
    () => undefined,
    (e: unknown) => e as Error & { code?: string },
  );
  expect(pool.size).toBe(0);
  expect(error?.code).toBe('ERR_CONFIG');
  expect(error?.message).toContain(`model folder ${folder}`);
  return error!.message;
}

describe('checkpoint folders irserve refuses at start-up, naming the file and tensor', () => {
  it('weights without config.json', async () => {
    const folder = await copyOf('bert');
    await unlink(join(folder, 'config.json'));
    expect(await failure(folder)).toMatch(
      /config\.json is missing: irserve builds the graph of model\.safetensors/,
    );
  });

  it('an architecture irserve does not build, naming it and those it builds', async () => {
    const folder = await copyOf('bert');
    await editConfig(folder, (c) => (c.model_type = 'mpnet'));
    expect(await failure(folder)).toMatch(
      /model_type "mpnet" is not an architecture irserve builds \(it builds bert, roberta, xlm-roberta, electra, distilbert/,
    );
  });

  it('a missing tensor', async () => {
    const folder = await copyOf('bert');
    await editHeader(folder, (h) => delete h['bert.encoder.layer.1.output.dense.weight']);
    expect(await failure(folder)).toMatch(
      /tensor bert\.encoder\.layer\.1\.output\.dense\.weight is missing from model\.safetensors/,
    );
  });

  it('a tensor whose shape the config contradicts', async () => {
    const folder = await copyOf('bert');
    await editConfig(folder, (c) => (c.intermediate_size = 36));
    expect(await failure(folder)).toContain(
      'model.safetensors: tensor bert.encoder.layer.0.intermediate.dense.weight has shape [37, 32], but config.json (hidden_size 32, intermediate_size 36) implies [36, 32]',
    );
  });

  it('a head whose tensors the checkpoint lacks', async () => {
    const folder = await copyOf('xlm-roberta');
    await editHeader(folder, (h) => {
      delete h['lm_head.dense.weight'];
    });
    expect(await failure(folder, 'masked-lm')).toMatch(
      /tensor lm_head\.dense\.weight is missing: a masked-LM head/,
    );
  });

  it('a truncated file (its header promises more than the file holds)', async () => {
    const folder = await copyOf('bert');
    const file = join(folder, 'model.safetensors');
    await truncate(file, (await readFile(file)).length - 100);
    expect(await failure(folder)).toMatch(
      /: model\.safetensors: tensor [\w.]+: its data ends at byte \d+ but the file holds \d+ \(truncated\)/,
    );
    await truncate(file, 4000);
    expect(await failure(folder)).toMatch(
      /: model\.safetensors: not a valid safetensors file: the header claims \d+ bytes but the file holds 4000/,
    );
  });

  it('a damaged header', async () => {
    const folder = await copyOf('bert');
    const file = join(folder, 'model.safetensors');
    const bytes = await readFile(file);
    bytes.writeBigUInt64LE(1n << 40n, 0);
    await writeFile(file, bytes);
    expect(await failure(folder)).toMatch(
      /model\.safetensors: not a valid safetensors file: the header claims 1099511627776 bytes/,
    );
    bytes.writeBigUInt64LE(16n, 0);
    await writeFile(file, bytes);
    expect(await failure(folder)).toMatch(/the header is not JSON/);
  });

  it('a tensor whose byte range does not fit its dtype and shape', async () => {
    const folder = await copyOf('bert');
    await editHeader(folder, (h) => (h['bert.pooler.dense.bias']!.shape = [33]));
    expect(await failure(folder)).toMatch(
      /tensor bert\.pooler\.dense\.bias: holds 128 bytes, but F32 \[33\] needs 132/,
    );
  });

  it('weights stored as integers', async () => {
    const folder = await copyOf('bert');
    await editHeader(folder, (h) => (h['bert.embeddings.LayerNorm.bias']!.dtype = 'I32'));
    expect(await failure(folder)).toMatch(
      /tensor bert\.embeddings\.LayerNorm\.bias is stored as int32; irserve reads float32, float16 and bfloat16 weights/,
    );
  });

  it('a shard the index names but the folder lacks', async () => {
    const folder = await copyOf('bert-sharded');
    await unlink(join(folder, 'model-00002-of-00002.safetensors'));
    expect(await failure(folder)).toMatch(
      /model\.safetensors\.index\.json: names the shard model-00002-of-00002\.safetensors, which is missing/,
    );
  });

  it('shards that resolve to different directories', async () => {
    const folder = await copyOf('bert-sharded');
    const elsewhere = join(dir, `elsewhere-${++count}`);
    await mkdir(elsewhere);
    const shard = 'model-00002-of-00002.safetensors';
    await cp(join(folder, shard), join(elsewhere, shard));
    await unlink(join(folder, shard));
    await symlink(join(elsewhere, shard), join(folder, shard));
    expect(await failure(folder)).toMatch(/the weight files resolve to several directories/);
  });

  it('a pytorch_model.bin whose pickle asks for a global outside the allow-list', async () => {
    const folder = await copyOf('bert-bin');
    const file = join(folder, 'pytorch_model.bin');
    const text = (await readFile(file)).toString('latin1').replace('torch._utils', 'os.system.xx');
    await writeFile(file, Buffer.from(text, 'latin1'));
    expect(await failure(folder)).toMatch(
      /pytorch_model\.bin: pickle global os\.system\.xx\._rebuild_tensor_v2 is not allowed/,
    );
  });

  it('a truncated pytorch_model.bin', async () => {
    const folder = await copyOf('bert-bin');
    await truncate(join(folder, 'pytorch_model.bin'), 3000);
    expect(await failure(folder)).toMatch(/pytorch_model\.bin: not a PyTorch zip archive/);
  });

  it('a rotary scaling or a sliding window irserve does not build', async () => {
    const folder = await copyOf('qwen3');
    await editConfig(folder, (c) => (c.rope_scaling = { rope_type: 'yarn', factor: 4 }));
    expect(await failure(folder)).toMatch(/config\.json: rope type "yarn" is not supported/);
    await editConfig(folder, (c) => {
      c.rope_scaling = null;
      c.use_sliding_window = true;
    });
    expect(await failure(folder)).toMatch(/config\.json: use_sliding_window true is not supported/);
  });

  it('grouped-query sizes that do not divide', async () => {
    const folder = await copyOf('qwen2');
    await editConfig(folder, (c) => (c.num_key_value_heads = 3));
    expect(await failure(folder)).toMatch(
      /num_attention_heads 4 must be a multiple of num_key_value_heads 3/,
    );
  });

  it('an activation irserve does not build', async () => {
    const folder = await copyOf('bert');
    await editConfig(folder, (c) => (c.hidden_act = 'mish'));
    expect(await failure(folder)).toMatch(/config\.json: hidden_act "mish" is not supported/);
  });
});

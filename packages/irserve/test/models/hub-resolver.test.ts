import { createHash } from 'node:crypto';
import {
  existsSync,
  lstatSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  readlinkSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { pino } from 'pino';
import { ModelResolver } from '../../src/models/model-resolver.js';
import type { ModelKind, ModelRequest } from '../../src/models/types.js';
import { HubStandIn } from '../helpers/hub-stand-in.js';
import {
  CHECKPOINT_REPO,
  CROSS_ENCODER_REPO,
  GGUF_REPO,
  T5_REPO,
  TINY_BERT_REPO,
  publishTinyModels,
} from '../helpers/hub-models.js';

let hub: HubStandIn;
let commits: Record<string, string>;

beforeAll(async () => {
  hub = await HubStandIn.start();
  commits = publishTinyModels(hub);
});
afterAll(() => hub.close());
beforeEach(() => {
  hub.requests.length = 0;
  for (const key of Object.keys(hub.faults)) delete hub.faults[key as keyof typeof hub.faults];
});

/** A fresh cache folder and a resolver on it (with `env` on top). */
async function resolverWith(env: NodeJS.ProcessEnv = {}, offline = false) {
  const cache = mkdtempSync(join(tmpdir(), 'hf-cache-'));
  const resolver = await ModelResolver.create({
    logger: pino({ level: 'silent' }),
    interactive: false,
    env: { HF_ENDPOINT: hub.endpoint, HF_HUB_CACHE: cache, HOME: cache, ...env },
    ...(offline ? { offline } : {}),
  });
  return { cache, resolver };
}

function request(reference: string, kind: ModelKind = 'onnx'): ModelRequest {
  return { reference, kind, field: 'config.model_path' };
}

const sha256 = (bytes: Buffer) => createHash('sha256').update(bytes).digest('hex');

describe('ModelResolver: downloads into the cache in Python layout', () => {
  it('fetches only the files the engine needs, as relative links into blobs/', async () => {
    const { cache, resolver } = await resolverWith();
    const model = await resolver.resolve(request(TINY_BERT_REPO));
    const commit = commits[TINY_BERT_REPO]!;
    const repoDir = join(cache, 'models--sentence-transformers--tiny-bert');
    expect(model).toMatchObject({
      source: 'hub',
      repo: TINY_BERT_REPO,
      commit,
      format: 'onnx',
      folder: join(repoDir, 'snapshots', commit),
    });
    expect(model.modelFile).toBeUndefined(); // onnx/model.onnx is the loader's default
    const files = readdirSync(model.folder, { recursive: true }).map(String).sort();
    expect(files).toEqual([
      '1_Pooling',
      '1_Pooling/config.json',
      'config.json',
      'config_sentence_transformers.json',
      'modules.json',
      'onnx',
      'onnx/model.onnx',
      'sentence_bert_config.json',
      'tokenizer.json',
      'tokenizer_config.json',
    ]);
    const pointer = join(model.folder, 'onnx', 'model.onnx');
    expect(lstatSync(pointer).isSymbolicLink()).toBe(true);
    const bytes = readFileSync(pointer);
    expect(readlinkSync(pointer)).toBe(`../../../blobs/${sha256(bytes)}`);
    const tokenizer = readFileSync(join(model.folder, 'tokenizer.json'));
    const gitSha1 = createHash('sha1')
      .update(`blob ${tokenizer.length}\0`)
      .update(tokenizer)
      .digest('hex');
    expect(readlinkSync(join(model.folder, 'tokenizer.json'))).toBe(`../../blobs/${gitSha1}`);
    expect(readFileSync(join(repoDir, 'refs', 'main'), 'utf8')).toBe(commit);
    const tree = JSON.parse(readFileSync(join(repoDir, 'trees', `${commit}.json`), 'utf8'));
    expect(tree.format_version).toBe(1);
    expect(tree.files['onnx/model.onnx']).toEqual({
      size: bytes.length,
      blob_id: expect.any(String),
      lfs_sha256: sha256(bytes),
      lfs_size: bytes.length,
    });
    expect(existsSync(join(cache, 'CACHEDIR.TAG'))).toBe(true);
    // No weights of another format, no README.
    const fetched = hub.requests.filter((r) => r.method === 'GET' && r.url.includes('/resolve/'));
    expect(fetched.map((r) => r.url).join(' ')).not.toMatch(/safetensors|pytorch_model|README/);
    // The token never goes to the file host; LFS bytes come from it.
    expect(hub.requests.some((r) => r.host === 'files')).toBe(true);
  });

  it('a second resolve, and a new resolver on the same cache, make no request', async () => {
    const { cache, resolver } = await resolverWith();
    await resolver.resolve(request(TINY_BERT_REPO));
    hub.requests.length = 0;
    await resolver.resolve(request(TINY_BERT_REPO));
    const again = await (
      await ModelResolver.create({
        logger: pino({ level: 'silent' }),
        interactive: false,
        env: { HF_ENDPOINT: hub.endpoint, HF_HUB_CACHE: cache },
      })
    ).resolve(request(TINY_BERT_REPO));
    expect(again.source).toBe('cache');
    expect(hub.requests).toEqual([]);
  });

  it('a named graph, a seq2seq export, a GGUF quantisation and a safetensors-only repository', async () => {
    const { resolver } = await resolverWith();
    const quantised = await resolver.resolve(
      request(`${TINY_BERT_REPO}/onnx/model_quantized.onnx`),
    );
    expect(quantised.modelFile).toBe('onnx/model_quantized.onnx');
    expect(existsSync(join(quantised.folder, 'onnx', 'model.onnx'))).toBe(false);
    const t5 = await resolver.resolve(request(T5_REPO, 'seq2seq'));
    expect(readdirSync(join(t5.folder, 'onnx')).sort()).toEqual([
      'decoder_model.onnx',
      'encoder_model.onnx',
    ]);
    const gguf = await resolver.resolve(request(`${GGUF_REPO}:F16`, 'gguf'));
    expect(gguf.path).toBe(join(gguf.folder, 'tiny-embed-F16.gguf'));
    expect(readdirSync(gguf.folder)).toEqual(['tiny-embed-F16.gguf']);
    const checkpoint = await resolver.resolve(request(CHECKPOINT_REPO));
    expect(checkpoint.format).toBe('checkpoint');
    expect(readdirSync(checkpoint.folder).sort()).toEqual([
      'config.json',
      'model.safetensors',
      'tokenizer.json',
    ]);
  });

  it('a revision is pinned to one commit for the life of the resolver; pull moves to the new one', async () => {
    const repo = 'org/moving';
    const first = hub.publish(repo, {
      'model.onnx': Buffer.from('graph v1'),
      'tokenizer.json': '{}',
    });
    const { resolver, cache } = await resolverWith();
    expect((await resolver.resolve(request(repo))).commit).toBe(first);
    const second = hub.publish(repo, {
      'model.onnx': Buffer.from('graph v2'),
      'tokenizer.json': '{}',
    });
    expect((await resolver.resolve(request(`${repo}/model.onnx`))).commit).toBe(first);
    // A new process (resolver) on the same cache serves what the cache records, with no request.
    hub.requests.length = 0;
    const fresh = await ModelResolver.create({
      logger: pino({ level: 'silent' }),
      interactive: false,
      env: { HF_ENDPOINT: hub.endpoint, HF_HUB_CACHE: cache },
    });
    expect((await fresh.resolve(request(repo))).commit).toBe(first);
    expect(hub.requests).toEqual([]);
    const pulled = await fresh.pull(request(repo));
    expect(pulled.commit).toBe(second);
    expect(readFileSync(join(pulled.folder, 'model.onnx'), 'utf8')).toBe('graph v2');
    expect(readFileSync(join(cache, 'models--org--moving', 'refs', 'main'), 'utf8')).toBe(second);
  });

  it('a branch, a tag and a commit as the revision', async () => {
    const repo = 'org/revisions';
    const tagged = hub.publish(
      repo,
      { 'model.onnx': Buffer.from('tagged'), 'tokenizer.json': '{}' },
      { revision: 'v1.0' },
    );
    const pr = hub.publish(
      repo,
      { 'model.onnx': Buffer.from('pr'), 'tokenizer.json': '{}' },
      { revision: 'refs/pr/1' },
    );
    const { resolver, cache } = await resolverWith();
    expect((await resolver.resolve(request(`${repo}@v1.0`))).commit).toBe(tagged);
    expect((await resolver.resolve(request(`${repo}@refs%2Fpr%2F1`))).commit).toBe(pr);
    expect(
      readFileSync(join(cache, 'models--org--revisions', 'refs', 'refs', 'pr', '1'), 'utf8'),
    ).toBe(pr);
    expect((await resolver.resolve(request(`${repo}@${tagged}`))).commit).toBe(tagged);
  });
});

describe('ModelResolver: a download a user can trust', () => {
  it('resumes after a cut with a Range request, and checks the hash', async () => {
    const repo = 'org/big';
    const weights = Buffer.alloc(3_000_000);
    for (let i = 0; i < weights.length; i++) weights[i] = (i * 31) % 251;
    hub.publish(repo, { 'model.onnx': weights, 'tokenizer.json': '{}' });
    hub.faults.cutAfterBytes = 1_000_000;
    const { resolver } = await resolverWith();
    const model = await resolver.resolve(request(repo));
    expect(sha256(readFileSync(join(model.folder, 'model.onnx')))).toBe(sha256(weights));
    const ranges = hub.requests.filter((r) => r.host === 'files').map((r) => r.range);
    expect(ranges).toEqual([undefined, expect.stringMatching(/^bytes=[1-9]\d*-$/)]);
  });

  it('a cut download left by a stopped process is resumed from its .incomplete file', async () => {
    const repo = 'org/resumed';
    const weights = Buffer.alloc(2_000_000, 5);
    hub.publish(repo, { 'model.onnx': weights, 'tokenizer.json': '{}' });
    const { resolver, cache } = await resolverWith();
    const blobs = join(cache, 'models--org--resumed', 'blobs');
    const { mkdirSync } = await import('node:fs');
    mkdirSync(blobs, { recursive: true });
    writeFileSync(join(blobs, `${sha256(weights)}.incomplete`), weights.subarray(0, 1_500_000));
    await resolver.resolve(request(repo));
    expect(hub.requests.filter((r) => r.host === 'files').map((r) => r.range)).toEqual([
      'bytes=1500000-',
    ]);
  });

  it('wrong bytes are deleted, never linked, and the error says so', async () => {
    const repo = 'org/corrupt';
    hub.publish(repo, { 'model.onnx': Buffer.alloc(5000, 1), 'tokenizer.json': '{}' });
    hub.faults.corrupt = true;
    const { resolver, cache } = await resolverWith();
    await expect(resolver.resolve(request(repo))).rejects.toMatchObject({
      code: 'ERR_CONFIG',
      message: expect.stringMatching(
        /config\.model_path: model org\/corrupt: .*model\.onnx: the downloaded file is wrong \(its hash is [0-9a-f]{64}, the hub's is [0-9a-f]{64}\); it was deleted/,
      ),
    });
    const blobs = join(cache, 'models--org--corrupt', 'blobs');
    expect(
      readdirSync(blobs).filter((name) => name.length === 64 || name.endsWith('.incomplete')),
    ).toEqual([]);
    expect(existsSync(join(cache, 'models--org--corrupt', 'refs', 'main'))).toBe(false);
    hub.faults.corrupt = false;
    await expect(resolver.resolve(request(repo))).resolves.toMatchObject({ source: 'hub' });
  });

  it('a download cut every time fails naming the file and how to resume', async () => {
    const repo = 'org/flaky';
    hub.publish(repo, { 'model.onnx': Buffer.alloc(100_000, 2), 'tokenizer.json': '{}' });
    hub.faults.cutAfterBytes = 10;
    hub.faults.cuts = 100;
    const { resolver } = await resolverWith();
    await expect(resolver.resolve(request(repo))).rejects.toThrow(
      /the download of org\/flaky model\.onnx was cut after \d+ of 100000 bytes, 5 times .* run the command again: it resumes from .*\.incomplete/,
    );
  });

  it('a file larger than the free disk is refused before downloading', async () => {
    const repo = 'org/huge';
    hub.publish(repo, { 'model.onnx': Buffer.alloc(1000, 1), 'tokenizer.json': '{}' });
    hub.faults.claimedSize = 1e15;
    const { resolver } = await resolverWith();
    await expect(resolver.resolve(request(repo))).rejects.toThrow(
      /model\.onnx needs 1000000\.0 GB but .* free: free some space, or set HF_HUB_CACHE to a larger disk/,
    );
  });

  it('a cache folder that cannot be written is a clear error', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'hf-file-'));
    writeFileSync(join(dir, 'not-a-folder'), 'x');
    const { resolver } = await resolverWith({ HF_HUB_CACHE: join(dir, 'not-a-folder', 'hub') });
    await expect(resolver.resolve(request(TINY_BERT_REPO))).rejects.toThrow(
      /the Hugging Face cache .*not-a-folder\/hub cannot be written \(ENOTDIR\): set HF_HUB_CACHE/,
    );
  });
});

describe('ModelResolver: offline, tokens and bad input', () => {
  it('offline: a cached model is served; a missing one names the repo, revision, files and command', async () => {
    const { cache, resolver } = await resolverWith();
    await resolver.resolve(request(TINY_BERT_REPO));
    hub.requests.length = 0;
    const offline = await ModelResolver.create({
      logger: pino({ level: 'silent' }),
      interactive: false,
      env: { HF_ENDPOINT: hub.endpoint, HF_HUB_CACHE: cache, HF_HUB_OFFLINE: '1' },
    });
    expect((await offline.resolve(request(TINY_BERT_REPO))).source).toBe('cache');
    await expect(
      offline.resolve(request(`${TINY_BERT_REPO}/onnx/model_quantized.onnx`)),
    ).rejects.toThrow(
      /model sentence-transformers\/tiny-bert\/onnx\/model_quantized\.onnx is not in the Hugging Face cache and irserve runs offline .*the cached commit [0-9a-f]{40} lacks onnx\/model_quantized\.onnx\. Fetch it on a machine with network: irserve pull sentence-transformers\/tiny-bert\/onnx\/model_quantized\.onnx/,
    );
    await expect(offline.resolve(request(`${CROSS_ENCODER_REPO}@v2`))).rejects.toThrow(
      /Xenova\/tiny-cross-encoder@v2 is not in the Hugging Face cache .*has no revision v2 of Xenova\/tiny-cross-encoder/,
    );
    expect(hub.requests).toEqual([]);
  });

  it('the --offline flag means the same as HF_HUB_OFFLINE', async () => {
    const { resolver } = await resolverWith({}, true);
    await expect(resolver.resolve(request(TINY_BERT_REPO))).rejects.toThrow(/runs offline/);
    expect(hub.requests).toEqual([]);
  });

  it('a private repository needs a token (HF_TOKEN or the token file); the file host never gets it', async () => {
    const repo = 'org/private';
    hub.publish(
      repo,
      { 'model.onnx': Buffer.from('secret graph'), 'tokenizer.json': '{}' },
      { private: true },
    );
    const anonymous = await resolverWith();
    await expect(anonymous.resolver.resolve(request(repo))).rejects.toThrow(
      /has no repository org\/private that no token \(set HF_TOKEN/,
    );
    const withToken = await resolverWith({ HF_TOKEN: 'hf_good' });
    await expect(withToken.resolver.resolve(request(repo))).resolves.toMatchObject({
      source: 'hub',
    });
    const tokenDir = mkdtempSync(join(tmpdir(), 'hf-home-'));
    writeFileSync(join(tokenDir, 'token'), 'hf_good\n');
    hub.requests.length = 0;
    const fromFile = await resolverWith({ HF_TOKEN_PATH: join(tokenDir, 'token') });
    await expect(fromFile.resolver.resolve(request(repo))).resolves.toMatchObject({
      source: 'hub',
    });
    expect(
      hub.requests
        .filter((r) => r.host === 'hub')
        .every((r) => r.authorization === 'Bearer hf_good'),
    ).toBe(true);
    expect(
      hub.requests.filter((r) => r.host === 'files').every((r) => r.authorization === undefined),
    ).toBe(true);
    const bad = await resolverWith({ HF_TOKEN: 'hf_wrong' });
    await expect(bad.resolver.resolve(request(repo))).rejects.toThrow(
      /refused the token from HF_TOKEN: the token is not valid/,
    );
  });

  it('a gated repository: 401 without a token, 403 with one not granted access', async () => {
    const repo = 'org/gated';
    hub.publish(
      repo,
      { 'model.onnx': Buffer.from('gated'), 'tokenizer.json': '{}' },
      { gated: true },
    );
    const anonymous = await resolverWith();
    await expect(anonymous.resolver.resolve(request(repo))).rejects.toThrow(
      /org\/gated is a gated repository: accept its conditions at http:\/\/127\.0\.0\.1:\d+\/org\/gated .*sent: no token/,
    );
    const notGranted = await resolverWith({ HF_TOKEN: 'hf_not_granted' });
    await expect(notGranted.resolver.resolve(request(repo))).rejects.toThrow(
      /gated repository.*sent: the token from HF_TOKEN/,
    );
    const granted = await resolverWith({ HF_TOKEN: 'hf_good' });
    await expect(granted.resolver.resolve(request(repo))).resolves.toMatchObject({ source: 'hub' });
  });

  it.each([
    ['a repository that does not exist', 'org/nope', 'onnx', /has no repository org\/nope/],
    [
      'a revision that does not exist',
      `${TINY_BERT_REPO}@v9`,
      'onnx',
      /sentence-transformers\/tiny-bert has no revision "v9"/,
    ],
    [
      'a file that does not exist',
      `${TINY_BERT_REPO}/onnx/model_int8.onnx`,
      'onnx',
      /has no file or folder onnx\/model_int8\.onnx; it holds: .*onnx\/model\.onnx/,
    ],
    [
      'no usable files',
      `${CHECKPOINT_REPO}`,
      'gguf',
      /holds nothing this engine can run: it needs a GGUF file .*; it holds: config\.json, model\.safetensors, pytorch_model\.bin, tokenizer\.json/,
    ],
    [
      'an unknown quantisation',
      `${GGUF_REPO}:Q2_K`,
      'gguf',
      /holds 2 GGUF files, none of quantisation Q2_K: name one as ggml-org\/tiny-embed-GGUF:QUANT or by file \(tiny-embed-Q8_0\.gguf, tiny-embed-F16\.gguf\)/,
    ],
    [
      'a name that is neither a path nor an id',
      'not-a-model',
      'onnx',
      /config\.model_path: no file or folder at \S*not-a-model, and "not-a-model" is not a Hugging Face Hub id either \(a hub id has the form org\/name\)/,
    ],
  ] as const)('%s is a start-up error naming the model', async (_, reference, kind, message) => {
    const { resolver } = await resolverWith();
    await expect(resolver.resolve(request(reference, kind))).rejects.toMatchObject({
      code: 'ERR_CONFIG',
      message: expect.stringMatching(message),
    });
  });

  it('a missing path beside an existing folder says it was taken for a hub id', async () => {
    const { cache } = await resolverWith({}, true);
    const local = await ModelResolver.create({
      logger: pino({ level: 'silent' }),
      interactive: false,
      configDir: cache,
      env: { HF_HUB_CACHE: cache, HF_HUB_OFFLINE: '1' },
    });
    await expect(local.resolve(request('models--typo/minilm'))).rejects.toThrow(
      /^config\.model_path: no file or folder at \S+\/models--typo\/minilm, and "models--typo\/minilm" is not a Hugging Face Hub id either/,
    );
    const { mkdirSync } = await import('node:fs');
    mkdirSync(join(cache, 'models'));
    await expect(local.resolve(request('models/minilm'))).rejects.toThrow(
      /^config\.model_path: no file or folder at \S+\/models\/minilm, so "models\/minilm" was taken for a Hugging Face Hub id: model models\/minilm is not in the Hugging Face cache/,
    );
  });

  it('an endpoint that is not reachable says what to do', async () => {
    const { resolver } = await resolverWith({ HF_ENDPOINT: 'http://127.0.0.1:9' });
    await expect(resolver.resolve(request(TINY_BERT_REPO))).rejects.toThrow(
      /cannot reach http:\/\/127\.0\.0\.1:9 \(ECONNREFUSED\); set HF_ENDPOINT to a mirror, or run offline from the cache \(HF_HUB_OFFLINE=1\)/,
    );
  });
});

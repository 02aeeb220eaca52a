import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { SessionPool, TextEncoder, type ModelLease } from '@irserve/onnx';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { encodeCorpus } from '../../src/encode/encode-corpus.js';
import { DOCS, TINY_BERT } from '../encoder/local-world.js';

async function* documents() {
  yield* DOCS;
}

/** Counts the releases of the model leases encodeCorpus takes (its session is native memory). */
function watchReleases(): { released: () => number } {
  let released = 0;
  // The original method, called below with the spied pool as `this`.
  // eslint-disable-next-line @typescript-eslint/unbound-method
  const acquire = SessionPool.prototype.acquire;
  vi.spyOn(SessionPool.prototype, 'acquire').mockImplementation(async function (
    this: SessionPool,
    ...args: Parameters<SessionPool['acquire']>
  ): Promise<ModelLease> {
    const lease = await acquire.apply(this, args);
    return {
      ...lease,
      release: async () => {
        released++;
        await lease.release();
      },
    };
  });
  return { released: () => released };
}

describe('encodeCorpus gives its model back on every way out', () => {
  let dir: string;
  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'irserve-encode-corpus-'));
  });
  afterAll(async () => rm(dir, { recursive: true, force: true }));
  afterEach(() => vi.restoreAllMocks());

  const options = (outputDir: string) => ({
    documents,
    total: DOCS.length,
    outputDir,
    modelPath: TINY_BERT,
  });

  it('after encoding', async () => {
    const leases = watchReleases();
    const report = await encodeCorpus(options(join(dir, 'ok')));
    expect(report.count).toBe(DOCS.length);
    expect(leases.released()).toBe(1);
  });

  it('when the output folder cannot be made (a file is in the way)', async () => {
    await writeFile(join(dir, 'a-file'), 'x');
    const leases = watchReleases();
    const close = vi.spyOn(TextEncoder.prototype, 'close');
    await expect(encodeCorpus(options(join(dir, 'a-file', 'shards')))).rejects.toThrow(/ENOTDIR/);
    expect(close).toHaveBeenCalledTimes(1);
    expect(leases.released()).toBe(1);
  });

  it('when the encoder refuses its options (a pooling the model cannot give)', async () => {
    const leases = watchReleases();
    await expect(
      encodeCorpus({ ...options(join(dir, 'refused')), pooling: 'none' }),
    ).rejects.toThrow(/pooling "none" needs a \[batch, dim\] output/);
    expect(leases.released()).toBe(1);
  });
});

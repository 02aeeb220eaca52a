import { cp, readFile, rm, truncate, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FIXTURES } from '../helpers.js';
import { post, startApp } from './app.js';
import { DIM, plaidWorld, type PlaidWorld } from './world.js';

describe('PLAIDX failures', () => {
  let world: PlaidWorld;
  beforeAll(async () => {
    world = await plaidWorld();
  });
  afterAll(async () => {
    await world?.encoder.close();
  });

  /** A copy of a fixture index, damaged by `damage`, as a service's index_path. */
  async function damaged(
    name: string,
    damage: (dir: string) => Promise<void>,
    nbits = 2,
  ): Promise<Record<string, unknown>> {
    const dir = join(world.dir, name);
    await rm(dir, { recursive: true, force: true });
    await cp(`${FIXTURES}index-nbits${nbits}`, dir, { recursive: true });
    await damage(dir);
    return world.config({ index_path: dir, encoder_url: undefined });
  }

  it.each([
    [
      'a truncated .pt',
      (d: string) => truncate(join(d, '1.residuals.pt'), 200),
      /1\.residuals\.pt: not a PyTorch zip archive/,
    ],
    [
      'a foreign .pt',
      (d: string) => writeFile(join(d, 'centroids.pt'), 'hello'),
      /centroids\.pt: not a PyTorch zip archive/,
    ],
    [
      'a missing chunk file',
      (d: string) => rm(join(d, '1.codes.pt')),
      /1\.codes\.pt: missing the codes of chunk 1/,
    ],
    [
      'an unsupported nbits',
      async (d: string) => {
        const meta = JSON.parse(await readFile(join(d, 'metadata.json'), 'utf8')) as {
          config: Record<string, unknown>;
        };
        meta.config.nbits = 3;
        await writeFile(join(d, 'metadata.json'), JSON.stringify(meta));
      },
      /metadata\.json: unsupported nbits 3/,
    ],
    [
      'residuals of another dimension',
      (d: string) => cp(`${FIXTURES}index-nbits1/0.residuals.pt`, join(d, '0.residuals.pt')),
      /0\.residuals\.pt: residuals of chunk 0 \(dim 16, nbits 2\): expected shape/,
    ],
    [
      'a missing doclens file',
      (d: string) => rm(join(d, 'doclens.0.json')),
      /doclens\.0\.json: cannot read/,
    ],
  ])('fails the start on %s, naming the file', async (_what, damage, message) => {
    const config = await damaged(`bad-${Math.random().toString(36).slice(2)}`, damage);
    await expect(startApp(config, world.dir)).rejects.toThrow(message);
  });

  it.each([
    [
      { checkpoint: 'models/colbert-onnx' },
      /config\.checkpoint and config\.encoder_url: set one encoder/,
    ],
    [{ use_gpu: true }, /config\.use_gpu/],
    [{ encoder_url: 'ftp://x' }, /config\.encoder_url/],
    [{ ndocs: 0 }, /config\.ndocs/],
    [{ k_scale: 0.5 }, /config\.k_scale/],
    [{ ncell: 2 }, /config\.ncell: unknown key \(did you mean "ncells"\?\)/],
    [{ sliding_window_stride: 200 }, /sliding_window_stride: must not exceed sliding_window_size/],
    [{ index_path: 'nowhere' }, /nowhere: not a PLAID index directory/],
    [{ passage_mapping: 'nope.tsv' }, /passage_mapping: .*nope\.tsv: cannot read/],
  ])('rejects a bad config %j naming the field', async (plaidx, message) => {
    await expect(startApp(world.config(plaidx), world.dir)).rejects.toThrow(message);
  });

  it('rejects a passage mapping that does not cover the index', async () => {
    await writeFile(join(world.dir, 'short.tsv'), '0\td1_0\n');
    await expect(
      startApp(world.config({ passage_mapping: 'short.tsv' }), world.dir),
    ).rejects.toThrow(/short\.tsv: no line for pid 1/);
  });

  it('maps an encoder outage to 502 without echoing the key, and a dimension mismatch to a clear error', async () => {
    const app = await startApp(world.config({ retries: 0 }), world.dir);
    try {
      world.encoder.failWith(503);
      const outage = await post(app, '/search', { service: 'plaidx', query: 'jet', limit: 2 });
      expect(outage.status).toBe(502);
      expect(outage.body.code).toBe('ERR_UPSTREAM');
      expect(JSON.stringify(outage.body)).not.toContain('sk-test-secret');
      world.encoder.failWith(undefined);
      world.encoder.setDim(DIM * 2);
      const mismatch = await post(app, '/search', { service: 'plaidx', query: 'jet', limit: 2 });
      expect(mismatch.status).toBe(500);
      expect(mismatch.body.error).toMatch(
        /encoder returned 64-dimensional token vectors, but the index .* holds 32-dimensional/,
      );
    } finally {
      world.encoder.failWith(undefined);
      world.encoder.setDim(DIM);
      await app.close();
    }
  });

  it('stops retrying the encoder once the request has timed out', async () => {
    const app = await startApp(world.config({ retries: 3 }), world.dir);
    try {
      world.encoder.failWith(503);
      const before = world.encoder.calls.length;
      const search = { service: 'plaidx', query: 'wing flutter', limit: 2, timeout: 0.03 };
      expect((await post(app, '/search', search)).status).toBe(504);
      // Four attempts would be made with the retries' backoff (0.05-0.1 s, then 0.1-0.2, 0.2-0.4).
      await new Promise((resolve) => setTimeout(resolve, 900));
      expect(world.encoder.calls.length - before).toBeLessThanOrEqual(1);
    } finally {
      world.encoder.failWith(undefined);
      await app.close();
    }
  });

  it('fails the start when the HTTP encoder answers another dimension, naming both and the fields', async () => {
    world.encoder.setDim(DIM * 2);
    try {
      await expect(startApp(world.config(), world.dir)).rejects.toThrow(
        /config\.encoder_url \(http:\/\/127\.0\.0\.1:\d+\) produces 64-dimensional token vectors, but config\.index_path \(index\) holds 32-dimensional ones/,
      );
    } finally {
      world.encoder.setDim(DIM);
    }
  });

  it('starts while the HTTP encoder is down (a warning), and checks each request instead', async () => {
    world.encoder.failWith(503);
    const app = await startApp(world.config({ retries: 0 }), world.dir);
    try {
      const outage = await post(app, '/search', { service: 'plaidx', query: 'jet', limit: 2 });
      expect(outage.status).toBe(502);
      world.encoder.failWith(undefined);
      const ok = await post(app, '/search', { service: 'plaidx', query: 'jet', limit: 2 });
      expect(ok.status).toBe(200);
    } finally {
      world.encoder.failWith(undefined);
      await app.close();
    }
  });

  it('without an encoder, text queries are a 400 asking for query_vectors; without an index, search is a 400', async () => {
    const noEncoder = await startApp(world.config({ encoder_url: undefined }), world.dir);
    try {
      const reply = await post(noEncoder, '/search', { service: 'plaidx', query: 'jet', limit: 2 });
      expect(reply.status).toBe(400);
      expect(reply.body.error).toMatch(/query_vectors: required/);
    } finally {
      await noEncoder.close();
    }
    const scorer = await startApp(world.config({ index_path: undefined }), world.dir);
    try {
      const reply = await post(scorer, '/search', { service: 'plaidx', query: 'jet', limit: 2 });
      expect(reply.status).toBe(400);
      expect(reply.body.error).toMatch(/no index_path/);
      const scored = await post(scorer, '/score', {
        service: 'plaidx',
        query: 'jet engines',
        passages: ['jet engines'],
      });
      expect(scored.status).toBe(200);
      expect(scored.body.scores[0]).toBeCloseTo(2, 4);
    } finally {
      await scorer.close();
    }
  });
});

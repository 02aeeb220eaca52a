import { execFileSync } from 'node:child_process';
import { readFile, readdir, writeFile, utimes } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { defaultIdParser, loadIdParser } from '../../src/collections/readers/gzip-id.js';
import {
  GzipShardReader,
  type GzipShardsOptions,
} from '../../src/collections/readers/gzip-shards.js';
import { context, hasBinary, useTempDirs } from './helpers.js';

const tempDir = useTempDirs();
const haveGzip = hasBinary('gzip');
if (!haveGzip) console.warn('gzip tests skipped: the system binary "gzip" is missing');

/** Writes a shard with the system gzip; returns the ids (MS MARCO segmented form). */
async function makeShard(dir: string, shard: string, count: number): Promise<string[]> {
  const ids: string[] = [];
  let body = '';
  for (let i = 0; i < count; i++) {
    const offset = Buffer.byteLength(body);
    const id = `msmarco_v2.1_doc_${shard}_${i * 100}#${i % 3}_${offset}`;
    ids.push(id);
    body +=
      JSON.stringify({ docid: id, title: `T${i}`, segment: `segment ${shard}/${i} é` }) + '\n';
  }
  const path = join(dir, `msmarco_v2.1_doc_segmented_${shard}.json`);
  await writeFile(path, body);
  execFileSync('gzip', ['-f', path]);
  return ids;
}

function reader(dir: string, extra: Partial<GzipShardsOptions> = {}): GzipShardReader {
  return new GzipShardReader(
    {
      pattern: join(dir, 'msmarco_v2.1_doc_segmented_{shard}.json.gz'),
      idField: 'docid',
      loadParser: async () => defaultIdParser,
      numWorkers: 32,
      forceLoadAll: false,
      cacheDir: undefined,
      ...extra,
    },
    context(join(dir, 'user')),
  );
}

describe('default id parser (RoutIR)', () => {
  it('reads the shard from field 3 and the offset from field 5', () => {
    expect(defaultIdParser('msmarco_v2.1_doc_12_345#6_789')).toEqual({ shard: '12', offset: 789 });
    expect(defaultIdParser('msmarco_v2.1_doc_12_345#6_x')).toBeUndefined();
    expect(defaultIdParser('short_id')).toBeUndefined();
  });
});

describe.skipIf(!haveGzip)('GzipShardReader', () => {
  it('finds documents by shard and offset, decompressing each shard once into a sidecar', async () => {
    const dir = await tempDir();
    const ids = [...(await makeShard(dir, '00', 50)), ...(await makeShard(dir, '01', 50))];
    const r = reader(dir);
    for (const id of [ids[0]!, ids[49]!, ids[50]!, ids[99]!])
      expect(JSON.parse((await r.getLine(id))!).docid).toBe(id);
    expect((await readdir(dir)).filter((n) => n.endsWith('.unzipped'))).toHaveLength(2);
    expect(await r.has('msmarco_v2.1_doc_00_0#0_1')).toBe(false);
    expect(await r.has('msmarco_v2.1_doc_07_0#0_0')).toBe(false);
    expect(await r.has('msmarco_v2.1_doc_..%2f_0#0_0')).toBe(false);
    await r.close();
  });

  it('decompresses again over a damaged sidecar of the same size (checksum)', async () => {
    const dir = await tempDir();
    const ids = await makeShard(dir, '00', 20);
    const r = reader(dir);
    await r.open();
    await r.close();
    const name = (await readdir(dir)).find((n) => n.endsWith('.unzipped'))!;
    const bytes = await readFile(join(dir, name));
    bytes.fill(0x20, 10, 200); // same size, different bytes
    await writeFile(join(dir, name), bytes);
    const again = reader(dir);
    for (const id of ids) expect(JSON.parse((await again.getLine(id))!).docid).toBe(id);
    await again.close();
  });

  it('re-decompresses a shard that changed', async () => {
    const dir = await tempDir();
    await makeShard(dir, '00', 3);
    const r = reader(dir);
    await r.open();
    await r.close();
    const ids = await makeShard(dir, '00', 5);
    const later = new Date(Date.now() + 5000);
    await utimes(join(dir, 'msmarco_v2.1_doc_segmented_00.json.gz'), later, later);
    const r2 = reader(dir);
    expect(JSON.parse((await r2.getLine(ids[4]!))!).docid).toBe(ids[4]);
    await r2.close();
  });

  it('uses a custom id_parser module and force_load_all', async () => {
    const dir = await tempDir();
    const ids = await makeShard(dir, '03', 10);
    const parserPath = join(dir, 'parser.mjs');
    await writeFile(
      parserPath,
      `export function parse(id) { const [shard, offset] = id.split(':'); return { shard, offset: Number(offset) }; }\n`,
    );
    const parse = await loadIdParser('./parser.mjs#parse', dir);
    const custom = reader(dir, { idField: 'nope', loadParser: async () => parse });
    const offset = ids[2]!.split('_')[5]!;
    expect(JSON.parse((await custom.getLine(`03:${offset}`))!).docid).toBe(ids[2]);
    await custom.close();
    await expect(loadIdParser('./parser.mjs', dir)).rejects.toThrow(/no function export "default"/);

    const all = reader(dir, { forceLoadAll: true });
    expect(JSON.parse((await all.getLine(ids[7]!))!).title).toBe('T7');
    expect(await all.getLine('msmarco_v2.1_doc_03_0#0_999')).toBeUndefined();
    await all.close();
  });
});

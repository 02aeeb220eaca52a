import { existsSync, readFileSync } from 'node:fs';
import { chmod, copyFile, cp, mkdir, mkdtemp, open, readFile, rename, rm } from 'node:fs/promises';
import { stat, utimes, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { HnswIndex } from '../../src/vector-index/index.js';
import { openIndex, saveIndex, trainAndAdd } from '../../src/vector-index/index.js';
import { stampFile } from '../../src/vector-index/verification-stamp.js';
import {
  asUnprivileged,
  giveToStepUser,
  requirePermissionChecks,
} from '../../../irserve/test/helpers/unprivileged.js';
import { randomVectors, withoutPageChecksums } from './helpers.js';

const DIM = 128;
const COUNT = 4000;
const queries = randomVectors(20, DIM, 32);
/** Under the graph's bytes: the graph is memory-mapped. */
const MAPPED = { memoryBudget: 4096 };
/** 2020-01-01, in seconds. */
const PAST = 1_577_836_800;
const HASHED = /^hashed at start \(\d+\.\d s\)$/;

// Bytes this process read (Linux's /proc/self/io: read calls, page cache hits included; pages
// of a memory-mapped file are not counted, which is what a mapped start should leave to them).
const readBytes = () => Number(/^rchar: (\d+)/m.exec(readFileSync('/proc/self/io', 'utf8'))![1]);
const hasIo = existsSync('/proc/self/io');

let root: string;
/** Copies of one index, each for one test; all older than the stamp's racy window (2 s). */
const dirs: Record<string, string> = {};
const graph = (name: string) => join(dirs[name]!, 'graph.usearch');
const stamp = (name: string) => stampFile(graph(name));

beforeAll(async () => {
  root = await mkdtemp(join(tmpdir(), 'irserve-stamp-'));
  const built = trainAndAdd('HNSW16', randomVectors(COUNT, DIM, 31), DIM, 'ip', { seed: 3 });
  const ids = Array.from({ length: COUNT }, (_, i) => `${i}`);
  await saveIndex(built, ids, join(root, 'built'));
  for (const name of [
    'first',
    'changed',
    'other',
    'damaged',
    'unwritable',
    'readOnly',
    'foreign',
  ]) {
    dirs[name] = join(root, name);
    await cp(join(root, 'built'), dirs[name], { recursive: true });
  }
  dirs['legacy'] = await legacyPagedIndex(join(root, 'legacy'));
  // Whole seconds, which utimes sets back exactly (nanoseconds included).
  await utimes(graph('changed'), PAST, PAST);
  // The read-only folder as its serving user owns it (nobody's, when the tests run as root);
  // a mkdtemp folder is 0700: nobody must reach the copy through it.
  await giveToStepUser(dirs['readOnly']!);
  await chmod(root, 0o755);
  // A file changed under 2 s before it is hashed is not stamped (its ctime may not move yet).
  await sleep(2100);
}, 30_000);
afterAll(async () => {
  await chmod(dirs['readOnly']!, 0o755).catch(() => undefined);
  await rm(root, { recursive: true, force: true });
});

/** An SQ8 index as written before page checksums: paged, it has its rows hashed whole. */
async function legacyPagedIndex(dir: string): Promise<string> {
  const ids = Array.from({ length: 500 }, (_, i) => `${i}`);
  await saveIndex(trainAndAdd('SQ8', randomVectors(500, DIM, 33), DIM, 'l2'), ids, dir);
  await withoutPageChecksums(dir, 'vectors.sq8');
  return dir;
}

/** Opens `dir` under `options`: the index, how it was verified, and the bytes read to open it. */
async function start(dir: string, options: Parameters<typeof openIndex>[1] = MAPPED) {
  const before = hasIo ? readBytes() : 0;
  const { index, verified } = await openIndex(dir, options);
  return { index: index as HnswIndex, verified, read: hasIo ? readBytes() - before : NaN };
}

describe('a memory-mapped HNSW graph is verified once, then by its stamp', () => {
  it.skipIf(!hasIo)(
    'the second start reads almost none of the graph, and answers as in memory',
    async () => {
      const dir = dirs['first']!;
      const graphBytes = (await stat(graph('first'))).size;
      expect(existsSync(stamp('first'))).toBe(false);
      const first = await start(dir);
      expect(first.index.mapped).toBe(true);
      expect(first.verified).toMatch(HASHED);
      expect(first.read).toBeGreaterThan(graphBytes);
      const written = JSON.parse(await readFile(stamp('first'), 'utf8'));
      const manifest = JSON.parse(await readFile(join(dir, 'manifest.json'), 'utf8'));
      expect(written).toMatchObject({
        file: 'graph.usearch',
        sha256: manifest.files['graph.usearch'].sha256,
        manifestChecksum: manifest.checksum,
        identity: { size: String(graphBytes) },
      });

      const second = await start(dir);
      expect(second.verified).toBe(`stamp of ${written.verifiedAt}`);
      // The manifest and the ids (about 20 KB); the graph is over 2 MB.
      expect(second.read).toBeLessThan(128 * 1024);
      expect(graphBytes).toBeGreaterThan(2_000_000);
      const memory = await start(dir, {});
      expect([memory.index.mapped, memory.verified]).toEqual([false, undefined]);
      for (const k of [1, 10, 100])
        expect(second.index.search(queries, k)).toEqual(memory.index.search(queries, k));
      expect(second.index.search(queries, 10, { efSearch: 64 })).toEqual(
        memory.index.search(queries, 10, { efSearch: 64 }),
      );
      // Without verification nothing is hashed, and the stamp is neither needed nor changed.
      const unverified = await start(dir, { ...MAPPED, verifyChecksums: false });
      expect(unverified.verified).toBe('not verified (verifyChecksums: false)');
      expect(JSON.parse(await readFile(stamp('first'), 'utf8'))).toEqual(written);
    },
  );

  it('refuses a graph changed after its stamp, same size and its times set back', async () => {
    const dir = dirs['changed']!;
    await start(dir);
    expect((await start(dir)).verified).toMatch(/^stamp of /);
    const stamped = await readFile(stamp('changed'), 'utf8');
    const { size, mtimeNs } = await stat(graph('changed'), { bigint: true });
    expect(mtimeNs).toBe(BigInt(PAST) * 1_000_000_000n);
    const handle = await open(graph('changed'), 'r+');
    const byte = new Uint8Array(1);
    await handle.read(byte, 0, 1, Number(size) - 9);
    await handle.write(new Uint8Array([byte[0]! ^ 0xff]), 0, 1, Number(size) - 9);
    await handle.close();
    await utimes(graph('changed'), PAST, PAST);
    const after = await stat(graph('changed'), { bigint: true });
    expect([after.size, after.mtimeNs]).toEqual([size, mtimeNs]);
    await expect(openIndex(dir, MAPPED)).rejects.toThrow(/checksum mismatch in graph\.usearch/);
    expect(await readFile(stamp('changed'), 'utf8')).toBe(stamped);
  });

  it.skipIf(!hasIo)('ignores the stamp of another file: another index, or a copy', async () => {
    const graphBytes = (await stat(graph('other'))).size;
    // The same index built elsewhere: same hashes, but another file.
    await start(dirs['first']!);
    await copyFile(stamp('first'), stamp('other'));
    const other = await start(dirs['other']!);
    expect(other.verified).toMatch(HASHED);
    expect(other.read).toBeGreaterThan(graphBytes);
    const rewritten = JSON.parse(await readFile(stamp('other'), 'utf8'));
    expect(rewritten.identity.ino).toBe(String((await stat(graph('other'))).ino));
    expect((await start(dirs['other']!)).verified).toBe(`stamp of ${rewritten.verifiedAt}`);
    // The graph replaced by a copy of itself (another inode): hashed again.
    await copyFile(graph('other'), `${graph('other')}.copy`);
    await rename(`${graph('other')}.copy`, graph('other'));
    const replaced = await start(dirs['other']!);
    expect(replaced.verified).toMatch(HASHED);
    expect(replaced.read).toBeGreaterThan(graphBytes);
  });

  it('ignores a damaged stamp and writes it again', async () => {
    const dir = dirs['damaged']!;
    for (const damage of ['{ "file": "graph.us', '{"file":"graph.usearch"}', 'null']) {
      await writeFile(stamp('damaged'), damage);
      expect((await start(dir)).verified).toMatch(HASHED);
      const { verifiedAt } = JSON.parse(await readFile(stamp('damaged'), 'utf8'));
      expect((await start(dir)).verified).toBe(`stamp of ${verifiedAt}`);
    }
  });

  it('hashes at every start, telling why once each, when no stamp can be written', async () => {
    const dir = dirs['unwritable']!;
    // A folder where the stamp should be: it can be neither read nor replaced.
    await mkdir(stamp('unwritable'));
    for (let run = 0; run < 2; run++) {
      const warnings: string[] = [];
      const { verified } = await start(dir, { ...MAPPED, warn: (m) => warnings.push(m) });
      expect(verified).toMatch(HASHED);
      expect(warnings).toHaveLength(1);
      expect(warnings[0]).toMatch(/graph\.usearch: no verification stamp could be written/);
      expect(warnings[0]).toMatch(/every start hashes all 0\.\d GB of it/);
    }
  });

  it('hashes at every start of a read-only index folder, saying why', async (context) => {
    // Root writes into a folder of mode 0555 anyway: as root (CI), the starts run as nobody.
    requirePermissionChecks(context);
    const dir = dirs['readOnly']!;
    await chmod(dir, 0o555);
    await asUnprivileged(async () => {
      const probe = await writeFile(join(dir, 'probe'), '').then(
        () => 'written',
        (error: NodeJS.ErrnoException) => error.code,
      );
      if (probe === 'written') {
        await rm(join(dir, 'probe'));
        context.skip('this user writes into a folder of mode 0555 (CAP_DAC_OVERRIDE)');
      }
      expect(probe).toBe('EACCES');
      for (let run = 0; run < 2; run++) {
        const warnings: string[] = [];
        // openIndex, not start(): /proc/self/io is not readable by nobody.
        const { verified } = await openIndex(dir, { ...MAPPED, warn: (m) => warnings.push(m) });
        expect(verified).toMatch(HASHED);
        expect(warnings).toHaveLength(1);
        expect(warnings[0]).toMatch(/its folder is not writable by this process/);
        expect(warnings[0]).toMatch(/make the index folder writable for one start/);
      }
    });
    expect(existsSync(stamp('readOnly'))).toBe(false);
  });

  it('says what to do when the service does not own a graph it must map', async (context) => {
    requirePermissionChecks(context);
    // usearch maps with O_NOATIME, refused (EPERM) to anyone but the file's owner and root.
    if (process.getuid!() !== 0) context.skip('the test needs a graph another user owns (root)');
    const dir = dirs['foreign']!;
    await asUnprivileged(() =>
      expect(openIndex(dir, MAPPED)).rejects.toThrow(
        /graph\.usearch: this process \(uid 65534\) may not memory-map the HNSW graph: usearch opens it with O_NOATIME, which Linux allows only to the file's owner \(uid 0\) or root\. Serve the index as its owner .* memory_budget above the graph's \d+ bytes/,
      ),
    );
    const inMemory = await asUnprivileged(() => openIndex(dir, {}));
    expect((inMemory.index as HnswIndex).mapped).toBe(false);
  });

  it('serves rows paged from an index without page checksums by the same stamp', async () => {
    const dir = dirs['legacy']!;
    const first = await openIndex(dir, MAPPED);
    expect(first.verified).toMatch(HASHED);
    const second = await openIndex(dir, MAPPED);
    expect(second.verified).toMatch(/^stamp of /);
    expect(existsSync(stampFile(join(dir, 'vectors.sq8')))).toBe(true);
    expect(second.index.search(queries, 10)).toEqual(
      (await openIndex(dir)).index.search(queries, 10),
    );
    first.index.rows?.close?.();
    second.index.rows?.close?.();
  });
});

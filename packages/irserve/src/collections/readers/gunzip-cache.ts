/**
 * A gzip shard decompressed once into a sidecar file (`<basename>.<hash16>.unzipped`, next to a
 * `.unzipped.json` stamp with the shard's size and mtime), so lookups are positioned reads at a
 * decompressed offset and never re-inflate from the start of the shard. The stamp holds the
 * SHA-256 of the decompressed bytes, checked on open: a damaged copy is made again, never served.
 */
import { createHash } from 'node:crypto';
import { createReadStream } from 'node:fs';
import { readFile, stat, type FileHandle } from 'node:fs/promises';
import { join } from 'node:path';
import { Transform } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { createGunzip } from 'node:zlib';
import type { ReaderContext } from '../context.js';
import { sidecarPlace, writeSidecar } from '../sidecar.js';

interface Stamp {
  size: number;
  mtimeMs: number;
  /** Decompressed size. */
  bytes: number;
  /** SHA-256 (hex) of the decompressed bytes. */
  sha256: string;
}

async function fileDigest(path: string): Promise<string> {
  const hash = createHash('sha256');
  for await (const chunk of createReadStream(path)) hash.update(chunk as Buffer);
  return hash.digest('hex');
}

async function validStamp(dataPath: string, size: number, mtimeMs: number): Promise<boolean> {
  try {
    const stamp = JSON.parse(await readFile(`${dataPath}.json`, 'utf8')) as Stamp;
    return (
      stamp.size === size &&
      stamp.mtimeMs === mtimeMs &&
      typeof stamp.sha256 === 'string' &&
      (await stat(dataPath)).size === stamp.bytes &&
      (await fileDigest(dataPath)) === stamp.sha256
    );
  } catch {
    return false;
  }
}

/**
 * The path of the decompressed copy of `gzPath`, made when missing or stale. `onBytes` reports
 * compressed bytes consumed (progress).
 */
export async function gunzipCached(
  gzPath: string,
  cacheDir: string | undefined,
  context: ReaderContext,
  onBytes?: (n: number) => void,
): Promise<string> {
  const info = await stat(gzPath);
  const place = await sidecarPlace(gzPath, '.unzipped', 'gunzip', {
    cacheDir,
    userCacheDir: context.userCacheDir,
    isWritable: context.isWritable,
  });
  const fresh = await freshCopy(place, info);
  if (fresh !== undefined) {
    onBytes?.(info.size);
    return fresh;
  }
  let written = { bytes: 0, sha256: '' };
  const dataPath = await writeSidecar(place, context.isWritable, async (handle: FileHandle) => {
    written = await gunzipInto(gzPath, handle, onBytes);
  });
  const stamp: Stamp = { size: info.size, mtimeMs: info.mtimeMs, ...written };
  const dir = dataPath.slice(0, dataPath.length - place.name.length - 1);
  await writeSidecar(
    { name: `${place.name}.json`, dirs: [dir] },
    context.isWritable,
    async (h) => void (await h.write(JSON.stringify(stamp))),
  );
  context.logger.info(
    { shard: gzPath, sidecar: dataPath, bytes: written.bytes },
    'gzip shard decompressed',
  );
  return dataPath;
}

/** A decompressed copy in one of the places, stamped with the source's size and time; if any. */
async function freshCopy(
  place: { name: string; dirs: readonly string[] },
  info: { size: number; mtimeMs: number },
): Promise<string | undefined> {
  for (const dir of place.dirs) {
    const candidate = join(dir, place.name);
    if (await validStamp(candidate, info.size, info.mtimeMs)) return candidate;
  }
  return undefined;
}

/**
 * Decompresses `gzPath` into `handle`; `onBytes` hears of the compressed bytes read. Returns the
 * decompressed size and its SHA-256, for the stamp.
 */
async function gunzipInto(
  gzPath: string,
  handle: FileHandle,
  onBytes: ((n: number) => void) | undefined,
): Promise<{ bytes: number; sha256: string }> {
  let bytes = 0;
  const digest = createHash('sha256');
  const counter = new Transform({
    transform(chunk: Buffer, _encoding, done) {
      onBytes?.(chunk.length);
      done(null, chunk);
    },
  });
  await pipeline(
    createReadStream(gzPath),
    counter,
    createGunzip({ chunkSize: 256 * 1024 }),
    async (source: AsyncIterable<Buffer>) => {
      for await (const chunk of source) {
        await handle.write(chunk);
        digest.update(chunk);
        bytes += chunk.length;
      }
    },
  );
  return { bytes, sha256: digest.digest('hex') };
}

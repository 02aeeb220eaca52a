/**
 * Streamed builds of exhaustive indexes (`Flat`, `SQfp16`, `SQ8`): SQ8's ranges train on a
 * sample, then the vectors are encoded on the worker threads and appended in order.
 */
import type { FactorySpec } from '../vector-index/factory.js';
import { flatCodec, flatTrainingPositions } from '../vector-index/flat-build.js';
import { FILES, flatVectorsFile, storageParams } from '../vector-index/storage.js';
import {
  chunkRowsFor,
  IN_FLIGHT_PER_THREAD,
  type BuildContext,
  type BuiltData,
} from './build-context.js';
import { ChunkEncoder, encoderSetup, type EncodedChunk } from './chunk-encoder.js';
import { OrderedPipeline } from './ordered.js';
import { forEachChunk, gatherPositions } from './shard-passes.js';

/** The most vectors per chunk handed to a thread. */
const FLAT_CHUNK = 16_384;

export async function streamFlat(
  ctx: BuildContext,
  spec: Extract<FactorySpec, { kind: 'flat' }>,
): Promise<BuiltData> {
  const { survey, output, threads } = ctx;
  const { count, dim } = survey;
  const positions = flatTrainingPositions(spec, count, ctx.train);
  const sampling = ctx.bar('sampling', ctx.shards.count, 'shards');
  const sample =
    positions.length > 0
      ? await gatherPositions(ctx.shards, survey, positions, (done) => sampling.update(done))
      : new Float32Array(0);
  sampling.done();
  const codec = flatCodec(spec, sample, dim);
  if (codec.ranges) await output.whole(FILES.sq8Ranges, codec.ranges);
  const chunkRows = chunkRowsFor(count, threads, FLAT_CHUNK);
  const name = flatVectorsFile(codec.storage);
  const writer = await output.writer(name, { rowBytes: codec.rowBytes });
  const encoder = new ChunkEncoder(
    encoderSetup(dim, ctx.metric, { codec }),
    threads,
    Math.ceil(count / chunkRows),
  );
  const adding = ctx.bar('add', count, 'vectors');
  try {
    const pipeline = new OrderedPipeline<EncodedChunk>(
      threads * IN_FLIGHT_PER_THREAD,
      async (c) => {
        await writer.write(c.entries);
        adding.tick(c.entries.byteLength / codec.rowBytes);
      },
    );
    await forEachChunk(ctx.shards, dim, chunkRows, (vectors) =>
      pipeline.push(encoder.encode(vectors)),
    );
    await pipeline.drain();
  } finally {
    await encoder.close();
  }
  adding.done();
  await output.done(name, writer);
  return { kind: 'flat', params: storageParams(codec.storage) };
}

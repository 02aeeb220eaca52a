/**
 * Streamed IVF builds (`IVF<n>[_HNSW<M>],Flat|SQfp16|SQ8|PQ<m>`) in bounded memory: the
 * training sample is gathered by position and trained on as in memory; then chunks of vectors
 * are assigned and encoded on the worker threads (`_HNSW<M>`: assigned by the centroid graph on
 * this thread, with usearch's own search threads, and encoded on the workers), their entries
 * gathered in a run buffer sized by the memory budget, spilled to sorted runs when it fills,
 * and merged list by list into the index files.
 */
import type { NearestCentroid } from '../vector-index/centroid-assigner.js';
import { CentroidGraph } from '../vector-index/centroid-graph.js';
import type { FactorySpec } from '../vector-index/factory.js';
import { ivfEncoding, trainingPositions, trainIvf } from '../vector-index/ivf-build.js';
import { entryBytes, type IvfEncoding } from '../vector-index/ivf-encode.js';
import { FILES, ivfParams, listVectorsFile } from '../vector-index/storage.js';
import type { PretrainedIvf } from '../vector-index/train-options.js';
import { trainOnGpu } from './gpu-training.js';
import {
  chunkRowsFor,
  IN_FLIGHT_PER_THREAD,
  type BuildContext,
  type BuiltData,
} from './build-context.js';
import { ChunkEncoder, encoderSetup, type EncodedChunk } from './chunk-encoder.js';
import { ListRunBuffer, mergeRuns, type ListSink } from './list-runs.js';
import { formatBytes } from './memory-budget.js';
import { OrderedPipeline } from './ordered.js';
import { forEachChunk, gatherPositions } from './shard-passes.js';
import { join } from 'node:path';

type IvfSpec = Extract<FactorySpec, { kind: 'ivf-flat' | 'ivf-pq' }>;

/** How the add step spends the budget. */
interface AddPlan {
  chunkRows: number;
  /** Entries the run buffer holds before it spills. */
  capacity: number;
}

export async function streamIvf(ctx: BuildContext, spec: IvfSpec): Promise<BuiltData> {
  const { survey, metric, threads } = ctx;
  const { dim } = survey;
  const { trained, encoding } = await train(ctx, spec);
  const plan = planAdd(ctx, spec, trained.centroids.length * 4, entryBytes(encoding));
  const { centroids } = trained;
  const graph =
    spec.quantizerM === undefined
      ? undefined
      : new CentroidGraph(centroids, dim, metric, { m: spec.quantizerM, threads });
  const setup = encoderSetup(dim, metric, { encoding, centroids, labelsGiven: !!graph });
  const encoder = new ChunkEncoder(setup, threads, Math.ceil(survey.count / plan.chunkRows));
  let added: Added;
  try {
    const buffer = new ListRunBuffer(spec.nlist, entryBytes(encoding), plan.capacity);
    added = await addAll(ctx, encoder, buffer, plan.chunkRows, graph);
  } finally {
    graph?.close();
    await encoder.close();
  }
  const offsets = await writeLists(ctx, spec, encoding, added);
  await ctx.output.whole(FILES.centroids, trained.centroids);
  await ctx.output.whole(FILES.offsets, offsets);
  if (encoding.pq) await ctx.output.whole(FILES.pqCodebooks, encoding.pq.codebooks);
  if (encoding.codec?.ranges) await ctx.output.whole(FILES.sq8Ranges, encoding.codec.ranges);
  const nprobe = ctx.train.nprobe ?? 1;
  const params = ivfParams({ nlist: spec.nlist, nprobe, ...encoding });
  return { kind: spec.kind, params, runs: added.runs?.length ?? 0 };
}

/** Gathers the sample and trains centroids and codes on it (on a GPU with --use_gpu). */
async function train(ctx: BuildContext, spec: IvfSpec) {
  const { survey, metric, threads } = ctx;
  const { dim } = survey;
  const positions = trainingPositions(spec, survey.count, ctx.train);
  const sampleBytes = positions.length * dim * 4 + spec.nlist * dim * 12;
  if (sampleBytes > ctx.memoryBudget)
    throw new Error(
      `training ${spec.factory} on ${positions.length} sampled vectors takes about ` +
        `${formatBytes(sampleBytes)}, more than --memory_budget ${formatBytes(ctx.memoryBudget)}: ` +
        `lower --sampling_rate or nlist, or raise the budget`,
    );
  const sampling = ctx.bar('sampling', ctx.shards.count, 'shards');
  const sample = await gatherPositions(ctx.shards, survey, positions, (d) => sampling.update(d));
  sampling.done();
  const steps = new Map<string, ReturnType<BuildContext['bar']>>();
  const options = {
    ...ctx.train,
    progress: (phase: string, done: number, total: number) => {
      let bar = steps.get(phase);
      if (!bar) steps.set(phase, (bar = ctx.bar(phase, total, 'steps')));
      bar.update(done);
    },
  };
  let trained: PretrainedIvf;
  if (ctx.useGpu) {
    const { providers, log } = ctx.useGpu;
    const gpu = { ...options, samplingRate: 1 };
    trained = await trainOnGpu(spec, sample, dim, metric, gpu, log, providers);
  } else trained = trainIvf(spec, sample, dim, metric, options);
  for (const bar of steps.values()) bar.done();
  return { trained, encoding: ivfEncoding(spec, trained, sample, dim, metric, threads) };
}

/** Chunk size and run capacity within the budget; an error when the budget cannot hold a chunk. */
function planAdd(
  ctx: BuildContext,
  spec: IvfSpec,
  centroidBytes: number,
  payload: number,
): AddPlan {
  const { threads, memoryBudget: budget, survey } = ctx;
  const rowBytes = survey.dim * 4;
  const inFlight = threads * IN_FLIGHT_PER_THREAD;
  const budgetRows = Math.floor(budget / (8 * inFlight * rowBytes));
  const chunkRows = Math.max(64, Math.min(chunkRowsFor(survey.count, threads, 16_384), budgetRows));
  // The centroid graph (`_HNSW<M>`) holds a copy of the centroids and their links.
  const graphBytes = spec.quantizerM ? centroidBytes + spec.nlist * spec.quantizerM * 16 : 0;
  const fixed =
    centroidBytes * (1 + 2 * threads) +
    graphBytes +
    inFlight * chunkRows * (rowBytes + payload + 4) +
    survey.largestShardBytes;
  const perEntry = ListRunBuffer.entryBytes(payload);
  // The payloads sit in one array: at most 1 GiB of them, whatever the budget.
  const capacity = Math.min(
    Math.floor((budget - fixed) / perEntry),
    Math.floor(2 ** 30 / Math.max(1, payload)),
  );
  if (capacity < chunkRows)
    throw new Error(
      `--memory_budget ${formatBytes(budget)} is too small for ${spec.factory}: the centroids, ` +
        `the largest shard and the chunks in flight take ${formatBytes(fixed)}, and the run ` +
        `buffer needs at least ${formatBytes(chunkRows * perEntry)} more`,
    );
  return { chunkRows, capacity };
}

/** The entries, all in the buffer (no run was needed), or all in spilled runs. */
type Added = { buffer: ListRunBuffer; runs?: undefined } | { runs: string[]; buffer?: undefined };

/**
 * Encodes every vector into `buffer`, spilling it to a run whenever it fills; with `graph`,
 * each chunk is assigned here and its labels sent with it.
 */
async function addAll(
  ctx: BuildContext,
  encoder: ChunkEncoder,
  buffer: ListRunBuffer,
  chunkRows: number,
  graph: NearestCentroid | undefined,
): Promise<Added> {
  const runs: string[] = [];
  const spill = async () => {
    const path = join(await ctx.output.scratch(), `run-${runs.length}`);
    await buffer.spill(path);
    runs.push(path);
  };
  const adding = ctx.bar('add', ctx.survey.count, 'vectors');
  const pipeline = new OrderedPipeline<{ chunk: EncodedChunk; first: number }>(
    ctx.threads * IN_FLIGHT_PER_THREAD,
    async ({ chunk, first }) => {
      const labels = chunk.labels!;
      const ids = Int32Array.from({ length: labels.length }, (_, i) => first + i);
      for (let at = 0; at < labels.length;) {
        if (buffer.free === 0) await spill();
        const n = Math.min(buffer.free, labels.length - at);
        buffer.add(labels, ids, chunk.entries, at, n);
        at += n;
      }
      adding.tick(labels.length);
    },
  );
  await forEachChunk(ctx.shards, ctx.survey.dim, chunkRows, (vectors, first) =>
    pipeline.push(
      encoder.encode(vectors, graph?.assign(vectors)).then((chunk) => ({ chunk, first })),
    ),
  );
  await pipeline.drain();
  adding.done();
  if (runs.length === 0) return { buffer };
  if (buffer.size > 0) await spill();
  return { runs };
}

/** Writes list-ids and the list rows (from the buffer, or merged from the runs); the offsets. */
async function writeLists(
  ctx: BuildContext,
  spec: IvfSpec,
  encoding: IvfEncoding,
  { buffer, runs }: Added,
): Promise<Int32Array> {
  const { output } = ctx;
  const rowsName = encoding.pq ? FILES.listCodes : listVectorsFile(encoding.codec.storage);
  const ids = await output.writer(FILES.listIds);
  const rows = await output.writer(rowsName, { rowBytes: entryBytes(encoding) });
  const offsets = new Int32Array(spec.nlist + 1);
  const merging = ctx.bar('lists', spec.nlist, 'lists');
  const sink: ListSink = {
    list: async (list, listIds, payloads) => {
      await ids.write(listIds);
      await rows.write(payloads);
      offsets[list + 1]! += listIds.byteLength / 4;
      merging.update(list + 1);
    },
  };
  if (buffer) await buffer.writeLists(sink);
  else {
    const readBuffer = Math.min(16 << 20, Math.floor(ctx.memoryBudget / (2 * runs.length)));
    await mergeRuns(runs, spec.nlist, entryBytes(encoding), sink, readBuffer);
  }
  merging.done();
  for (let l = 0; l < spec.nlist; l++) offsets[l + 1]! += offsets[l]!;
  await output.done(FILES.listIds, ids);
  await output.done(rowsName, rows);
  return offsets;
}

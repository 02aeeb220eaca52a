/**
 * A thread of the index builder's encoding pool: assigns a chunk of vectors to the IVF's
 * centroids and encodes it (residuals in PQ or a scalar quantizer, or plain rows), with
 * everything it needs sent once at start.
 */
import { parentPort, workerData } from 'node:worker_threads';
import { encodeJob, type EncodeJob, type EncoderSetup } from './chunk-encoder.js';
import { servePool } from './worker-pool.js';

if (parentPort) {
  const encode = encodeJob(workerData as EncoderSetup);
  servePool(parentPort, (job: EncodeJob) => {
    const result = encode(job);
    const transfer = [result.entries.buffer as ArrayBuffer];
    if (result.labels) transfer.push(result.labels.buffer as ArrayBuffer);
    return { result, transfer };
  });
}

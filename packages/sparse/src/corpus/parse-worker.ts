/**
 * Worker thread of a parallel build: parses the batches of corpus text it is sent and posts
 * each back as a ParsedBatch, its typed arrays transferred.
 */
import { parentPort, workerData } from 'node:worker_threads';
import { parseBatch } from './parse-batch.js';

interface BatchMessage {
  seq: number;
  text: Uint8Array;
}

const quantization = (workerData as { quantization: number }).quantization;
const decoder = new TextDecoder();
parentPort?.on('message', ({ seq, text }: BatchMessage) => {
  try {
    const batch = parseBatch(decoder.decode(text), quantization);
    parentPort!.postMessage({ seq, batch }, [
      batch.passageLines.buffer,
      batch.termOffsets.buffer,
      batch.termTokens.buffer,
      batch.impacts.buffer,
    ]);
  } catch (error) {
    parentPort!.postMessage({ seq, error: (error as Error).message });
  }
});

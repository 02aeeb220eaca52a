/**
 * Worker-thread entry: analyses the documents it is sent, then builds and writes the index
 * file. Started by build-index.ts; never imported elsewhere.
 */
import { parentPort, workerData } from 'node:worker_threads';
import { Analyzer } from './analyzer.js';
import type { BuildWorkerData, FromWorker, ToWorker } from './build-protocol.js';
import { IndexBuilder } from './index-builder.js';
import { writeIndexFile } from './index-format.js';

function runWorker(): void {
  const port = parentPort;
  if (port === null) throw new Error('build-worker.ts must run in a worker thread');
  const data = workerData as BuildWorkerData;
  const analyzer = new Analyzer(data.analysis);
  const builder = new IndexBuilder();
  const reply = (message: FromWorker) => port.postMessage(message);
  const handle = async (message: ToWorker) => {
    if (message.type === 'docs') {
      for (let i = 0; i < message.ids.length; i++) {
        builder.addDocument(message.ids[i]!, analyzer.analyze(message.texts[i]!));
      }
      reply({ type: 'ack', count: message.ids.length });
      return;
    }
    const index = builder.finish();
    await writeIndexFile(data.path, index, data.key);
    reply({ type: 'done', stats: index.stats });
  };
  port.on('message', (message: ToWorker) => {
    handle(message).catch((error: unknown) => {
      const err = error instanceof Error ? error : new Error(String(error));
      reply({ type: 'error', message: err.message, ...(err.stack ? { stack: err.stack } : {}) });
    });
  });
}

runWorker();

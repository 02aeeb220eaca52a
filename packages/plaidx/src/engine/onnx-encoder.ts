/**
 * The in-process ColBERT encoder: an ONNX export run by @irserve/onnx (imported lazily, only
 * when a service sets `checkpoint`), with ColBERT's conventions applied here: queries are
 * `[CLS] [Q] text [SEP]` expanded with [MASK] to query_maxlen and keep every position;
 * documents are `[CLS] [D] window [SEP]` over token windows of the passage, skip-list tokens
 * dropped; every token vector is L2-normalised.
 */
import type * as Onnx from '@irserve/onnx';
import { IrserveError, resolveModel, type EngineContext, type ModelRequest } from 'irserve/plugin';
import type { TokenMatrix } from '../search/query.js';
import {
  readConventions,
  specialIds,
  type Conventions,
  type SpecialIds,
} from './colbert-conventions.js';
import type { PassageWindow, TokenEncoder } from './token-encoder.js';

export interface OnnxEncoderOptions {
  checkpoint: string;
  batchSize: number;
  windowSize: number;
  windowStride: number;
  threads: number;
}

async function importOnnx(): Promise<typeof Onnx> {
  try {
    return await import('@irserve/onnx');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ERR_MODULE_NOT_FOUND')
      throw new IrserveError(
        'ERR_CONFIG',
        'config.checkpoint runs ColBERT with the package @irserve/onnx, which is not installed: npm install @irserve/onnx (or use encoder_url)',
        { cause: error },
      );
    throw error;
  }
}

interface Row {
  ids: number[];
  /** Positions the encoder must not attend to (unattended [MASK] expansion). */
  hidden: number;
}

class OnnxColbertEncoder implements TokenEncoder {
  constructor(
    readonly onnx: typeof Onnx,
    readonly lease: Onnx.ModelLease,
    readonly conventions: Conventions,
    readonly ids: SpecialIds,
    readonly output: string,
    readonly options: OnnxEncoderOptions,
  ) {}

  encodeQueries(texts: readonly string[]): Promise<TokenMatrix[]> {
    const {
      query_maxlen: length,
      mask_expansion: expand,
      attend_to_mask_tokens: attend,
    } = this.conventions;
    const rows = texts.map((text): Row => {
      const body = this.lease.tokenizer.tokenize(text, length).slice(0, length - 3);
      const ids = [this.ids.cls, this.ids.queryMarker, ...body, this.ids.sep];
      const padding = expand ? length - ids.length : 0;
      for (let i = 0; i < padding; i++) ids.push(this.ids.mask);
      return { ids, hidden: attend ? 0 : padding };
    });
    return this.#run(rows, undefined);
  }

  async encodePassages(texts: readonly string[]): Promise<PassageWindow[]> {
    const size = Math.min(this.options.windowSize, this.conventions.doc_maxlen - 3);
    const stride = Math.min(this.options.windowStride, size);
    const rows: Row[] = [];
    const owners: number[] = [];
    texts.forEach((text, passage) => {
      if (text.trim() === '') return;
      const content = this.lease.tokenizer.tokenize(text, 1_000_000);
      for (let start = 0; ; start += stride) {
        rows.push({
          ids: [
            this.ids.cls,
            this.ids.documentMarker,
            ...content.slice(start, start + size),
            this.ids.sep,
          ],
          hidden: 0,
        });
        owners.push(passage);
        if (start + size >= content.length) break;
      }
    });
    const matrices = await this.#run(rows, (id) => !this.ids.skip.has(id));
    return matrices.map((matrix, i) => ({ passage: owners[i]!, matrix }));
  }

  /** Runs rows in chunks; keeps the positions `keep` accepts (every position without it). */
  #run(rows: Row[], keep: ((id: number) => boolean) | undefined): Promise<TokenMatrix[]> {
    return this.onnx.inChunks(
      rows,
      this.options.batchSize,
      (row) => row.ids.length,
      async (chunk) => {
        const padId = this.lease.tokenizer.padId;
        const batch = this.onnx.padRows(
          chunk.map((row) => ({ ids: row.ids, typeIds: [], truncated: false })),
          padId,
          'right',
        );
        chunk.forEach((row, r) => {
          for (let i = row.ids.length - row.hidden; i < row.ids.length; i++)
            batch.attentionMask[r * batch.length + i] = 0n;
        });
        const states = (await this.lease.session.run(batch, [this.output]))[this.output]!;
        const dim = states.dims[2]!;
        return chunk.map((row, r) => {
          const positions = row.ids.flatMap((id, i) => (!keep || keep(id) ? [i] : []));
          const vectors = new Float32Array(positions.length * dim);
          positions.forEach((position, t) => {
            const base = (r * batch.length + position) * dim;
            let norm = 0;
            for (let j = 0; j < dim; j++) norm += states.data[base + j]! ** 2;
            const scale = norm > 0 ? 1 / Math.sqrt(norm) : 0;
            for (let j = 0; j < dim; j++) vectors[t * dim + j] = states.data[base + j]! * scale;
          });
          return { vectors, length: positions.length, dim };
        });
      },
    );
  }

  /** The graph's static output dimension, else that of an encoded probe query. */
  async dimension(): Promise<number> {
    const declared = this.lease.session.outputShape(this.output)?.[2];
    if (typeof declared === 'number' && declared > 0) return declared;
    const [probe] = await this.encodeQueries(['dimension probe']);
    return probe!.dim;
  }

  close(): Promise<void> {
    return this.lease.release();
  }
}

/**
 * The model `checkpoint` names (a folder, or a hub id of an ONNX ColBERT export).
 *
 * @example checkpointModel('colbert-ir/colbertv2.0').field // 'config.checkpoint'
 */
export function checkpointModel(checkpoint: string): ModelRequest {
  return { reference: checkpoint, kind: 'onnx', field: 'config.checkpoint' };
}

/**
 * Loads the checkpoint folder (shared with every service naming it) as a ColBERT encoder.
 *
 * @example const encoder = await onnxColbertEncoder({ checkpoint: 'models/colbert', ... }, context)
 */
export async function onnxColbertEncoder(
  options: OnnxEncoderOptions,
  context: EngineContext,
): Promise<TokenEncoder> {
  const onnx = await importOnnx();
  const model = await resolveModel(context, checkpointModel(options.checkpoint));
  const folder = model.folder;
  const lease = await onnx.sessionPoolFor(context).acquire(folder, {
    ...(model.modelFile ? { modelFile: model.modelFile } : {}),
    intra_op_threads: options.threads,
    head: 'colbert',
  });
  try {
    const conventions = readConventions(lease.folder.onnxConfig, folder);
    const names = lease.session.outputNames;
    const output =
      conventions.output ??
      ['token_embeddings', 'last_hidden_state'].find((n) => names.includes(n)) ??
      names[0]!;
    if (!names.includes(output))
      throw new IrserveError(
        'ERR_CONFIG',
        `config.checkpoint: model folder ${folder}: the graph has no output ${output} (it has ${names.join(', ')})`,
      );
    const shape = lease.session.outputShape(output);
    if (shape && shape.length !== 3)
      throw new IrserveError(
        'ERR_CONFIG',
        `config.checkpoint: model folder ${folder}: ${output} must be [batch, sequence, dim] token vectors, got [${shape.join(', ')}]`,
      );
    return new OnnxColbertEncoder(
      onnx,
      lease,
      conventions,
      specialIds(lease.tokenizer, conventions, folder),
      output,
      options,
    );
  } catch (error) {
    await lease.release();
    throw error;
  }
}

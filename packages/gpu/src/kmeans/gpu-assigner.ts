/**
 * Nearest-centroid assignment on an ONNX Runtime execution provider: the k-means step that
 * costs n·k·d, run by a GPU for `irserve-build-index --use_gpu`. The centroid update stays on
 * the CPU (n·d), as does adding the vectors afterwards (as RoutIR does).
 */
import ort from 'onnxruntime-node';
import type { InferenceSession } from 'onnxruntime-node';
import { assignGraph } from './assign-graph.js';

export type AssignMetric = 'ip' | 'l2';

/** Bytes of the distance matrix one run may hold on the device. */
const MAX_DISTANCE_BYTES = 2 ** 30;

export class GpuAssigner {
  /** The providers the session runs on, first choice first. */
  readonly providers: string[];
  readonly #session: InferenceSession;

  private constructor(session: InferenceSession, providers: string[]) {
    this.#session = session;
    this.providers = providers;
  }

  /**
   * A session on `providers` (ONNX Runtime errors when the first cannot initialise).
   *
   * @example
   * const assigner = await GpuAssigner.create(['cuda']);
   */
  static async create(providers: string[]): Promise<GpuAssigner> {
    const session = await ort.InferenceSession.create(assignGraph(), {
      executionProviders: providers,
      logSeverityLevel: 3,
    });
    return new GpuAssigner(session, providers);
  }

  /**
   * The nearest of the `k` centroids for each of the `n` rows of `data`.
   *
   * @example
   * const labels = await assigner.assign(centroids, data, 768, 'l2');
   */
  async assign(
    centroids: Float32Array,
    data: Float32Array,
    dim: number,
    metric: AssignMetric,
  ): Promise<Int32Array> {
    const k = centroids.length / dim;
    const n = data.length / dim;
    const ct = transpose(centroids, k, dim);
    const h = new Float32Array(k);
    if (metric === 'l2')
      for (let c = 0; c < k; c++) {
        let sum = 0;
        for (let j = 0; j < dim; j++) sum += centroids[c * dim + j]! ** 2;
        h[c] = sum / 2;
      }
    const ctTensor = new ort.Tensor('float32', ct, [dim, k]);
    const hTensor = new ort.Tensor('float32', h, [k]);
    const rows = Math.max(1, Math.floor(MAX_DISTANCE_BYTES / (4 * k)));
    const labels = new Int32Array(n);
    for (let start = 0; start < n; start += rows) {
      const end = Math.min(n, start + rows);
      const x = new ort.Tensor('float32', data.subarray(start * dim, end * dim), [
        end - start,
        dim,
      ]);
      const out = await this.#session.run({ x, ct: ctTensor, h: hTensor });
      const chunk = out.labels!.data as BigInt64Array;
      for (let i = 0; i < chunk.length; i++) labels[start + i] = Number(chunk[i]!);
      x.dispose();
      out.labels!.dispose();
    }
    ctTensor.dispose();
    hTensor.dispose();
    return labels;
  }

  async close(): Promise<void> {
    await this.#session.release();
  }
}

function transpose(matrix: Float32Array, rows: number, cols: number): Float32Array {
  const out = new Float32Array(matrix.length);
  for (let r = 0; r < rows; r++)
    for (let c = 0; c < cols; c++) out[c * rows + r] = matrix[r * cols + c]!;
  return out;
}

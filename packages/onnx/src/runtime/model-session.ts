/**
 * One ONNX Runtime session over a model graph, with irserve's feeds and typed outputs. Sessions
 * are usually taken from a SessionPool, which shares one per graph and options.
 */
import ort from 'onnxruntime-node';
import type { InferenceSession, Tensor } from 'onnxruntime-node';
import { engineError, modelError } from '../errors.js';
import type { EncodedBatch } from '../tokenizer/encoded-batch.js';
import { onDevice, requestedDevice, type DeviceChoice } from './device.js';
import { ENCODER_INPUTS, feedsFor, type InputCheck } from './feeds.js';
import type { SessionOptions } from './session-options.js';
import { toFloatTensor, type FloatTensor } from './tensors.js';

/** A graph built in memory whose weights ONNX Runtime reads from files in `weightsFolder`. */
export interface BuiltGraph {
  /** What messages call the model (the checkpoint's weight file). */
  readonly label: string;
  readonly bytes: Uint8Array;
  readonly weightsFolder: string;
}

export class ModelSession {
  /** The graph file, or the weight file of a graph built from a checkpoint. */
  readonly modelFile: string;
  /** The execution providers in use and why others were passed over (`device: "auto"`). */
  readonly device: DeviceChoice;
  readonly #session: InferenceSession;

  private constructor(modelFile: string, session: InferenceSession, device: DeviceChoice) {
    this.modelFile = modelFile;
    this.#session = session;
    this.device = device;
  }

  /**
   * Loads a graph file (or a graph built from a checkpoint) and checks that irserve can fill its
   * inputs (`inputs`: an encoder's by default; a seq2seq decoder passes its own).
   *
   * @example
   * const session = await ModelSession.create('/models/minilm/model.onnx', sessionOptions());
   */
  static async create(
    graph: string | BuiltGraph,
    options: SessionOptions,
    inputs: InputCheck = ENCODER_INPUTS,
  ): Promise<ModelSession> {
    const modelFile = typeof graph === 'string' ? graph : graph.label;
    let session: InferenceSession;
    let device: DeviceChoice;
    try {
      ({ value: session, choice: device } = await onDevice(
        requestedDevice(options.device),
        options.execution_providers,
        (providers) =>
          typeof graph === 'string'
            ? ort.InferenceSession.create(graph, sessionSettings(providers, options))
            : ort.InferenceSession.create(graph.bytes, {
                ...sessionSettings(providers, options),
                extra: {
                  session: { model_external_initializers_file_folder_path: graph.weightsFolder },
                },
              }),
      ));
    } catch (error) {
      throw modelError(
        modelFile,
        `ONNX Runtime cannot load the graph: ${(error as Error).message}`,
      );
    }
    const unknown = inputs.unknown(session.inputNames);
    if (unknown.length > 0) {
      await session.release();
      throw modelError(
        modelFile,
        `the graph wants inputs irserve cannot fill: ${unknown.join(', ')} (${inputs.hint})`,
      );
    }
    return new ModelSession(modelFile, session, device);
  }

  get inputNames(): readonly string[] {
    return this.#session.inputNames;
  }

  get outputNames(): readonly string[] {
    return this.#session.outputNames;
  }

  /** Declared inputs: names, element types and shapes (symbolic dimensions as strings). */
  get inputMetadata(): readonly InferenceSession.ValueMetadata[] {
    return this.#session.inputMetadata;
  }

  /** Declared shape of an output (symbolic dimensions as strings), or undefined. */
  outputShape(name: string): readonly (number | string)[] | undefined {
    const meta = this.#session.outputMetadata.find((m) => m.name === name);
    return meta?.isTensor ? meta.shape : undefined;
  }

  /**
   * Runs the graph on an encoded batch; returns the named outputs (all, or `outputs`) as raw
   * ONNX Runtime tensors. A failure is an ERR_ENGINE for this batch.
   *
   * @example
   * const { logits } = await session.runRaw(batch, ['logits']);
   */
  async runRaw(batch: EncodedBatch, outputs?: readonly string[]): Promise<Record<string, Tensor>> {
    const feeds = feedsFor(this.#session.inputMetadata, batch);
    try {
      return await this.runTensors(feeds, outputs);
    } finally {
      for (const tensor of Object.values(feeds)) tensor.dispose();
    }
  }

  /**
   * Runs the graph on feeds the caller built (and disposes); for graphs whose inputs are not
   * token ids alone, such as a seq2seq decoder. A failure is an ERR_ENGINE for this batch.
   *
   * @example
   * const { logits } = await decoder.runTensors({ input_ids, encoder_hidden_states }, ['logits']);
   */
  async runTensors(
    feeds: Record<string, Tensor>,
    outputs?: readonly string[],
  ): Promise<Record<string, Tensor>> {
    try {
      return outputs ? await this.#session.run(feeds, outputs) : await this.#session.run(feeds);
    } catch (error) {
      throw engineError(
        `the model ${this.modelFile} failed to run: ${(error as Error).message}`,
        error,
      );
    }
  }

  /**
   * Runs the graph and returns the named float outputs as Float32Array tensors.
   *
   * @example
   * const { last_hidden_state } = await session.run(batch, ['last_hidden_state']);
   */
  async run(batch: EncodedBatch, outputs: readonly string[]): Promise<Record<string, FloatTensor>> {
    const raw = await this.runRaw(batch, outputs);
    const result: Record<string, FloatTensor> = {};
    for (const name of outputs) {
      const tensor = raw[name];
      if (!tensor) throw engineError(`the model ${this.modelFile} returned no output ${name}`);
      result[name] = toFloatTensor(tensor);
    }
    return result;
  }

  /** Frees the native session; later runs fail. */
  async release(): Promise<void> {
    await this.#session.release();
  }
}

function sessionSettings(
  providers: string[],
  options: SessionOptions,
): InferenceSession.SessionOptions {
  return {
    executionProviders: providers,
    ...(options.intra_op_threads > 0 ? { intraOpNumThreads: options.intra_op_threads } : {}),
    ...(options.inter_op_threads > 0 ? { interOpNumThreads: options.inter_op_threads } : {}),
    graphOptimizationLevel: options.graph_optimization,
    logSeverityLevel: 3,
  };
}

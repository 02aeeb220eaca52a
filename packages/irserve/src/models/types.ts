/** The types of model references and of the files they resolve to (no code). */
import type { Graphs, ModelKind } from './choose-files.js';

export type { Graphs, ModelKind } from './choose-files.js';

export interface ModelRequest {
  /** The value of the config field: a path, or a hub id (`org/name[@rev][/path][:QUANT]`). */
  reference: string;
  /** What the engine serves: an ONNX graph, an encoder-decoder pair, or a GGUF file. */
  kind: ModelKind;
  /** The config field, for messages (`config.encoder.model_path`; empty: none). */
  field: string;
  /** Graphs the engine's config names inside the model folder (`encoder_file`, ...). */
  graphs?: Graphs;
}

export interface ResolvedModel {
  /** What the engine loads: the model folder, or the file of a GGUF model (absolute). */
  readonly path: string;
  /** The model folder (absolute): `path` itself, or the folder of a GGUF file. */
  readonly folder: string;
  /** The graph inside `folder` a hub id chose, when it is not the loader's default. */
  readonly modelFile?: string;
  /** `local`: a path on disk; `cache` / `hub`: a hub id found in the cache or downloaded. */
  readonly source: 'local' | 'cache' | 'hub';
  /** The repository (`org/name`) of a hub id. */
  readonly repo?: string;
  /** The commit served (a hub id's revision resolved once, then pinned for the process). */
  readonly commit?: string;
  /** How the files are served: `checkpoint` is a repository without an ONNX export. */
  readonly format?: 'onnx' | 'seq2seq' | 'gguf' | 'checkpoint';
  /** For logs: the path, or `org/name@revision (commit abc1234)`. */
  readonly label: string;
}

/** Resolves model references; one per app (it pins each hub revision to one commit). */
export interface ModelSource {
  resolve(request: ModelRequest): Promise<ResolvedModel>;
}

export interface ModelLogger {
  info(message: string): void;
  debug?(message: string): void;
}

export interface ModelSourceOptions {
  /** Directory relative paths resolve against (the config file's). */
  configDir: string;
  /** Where download progress and the commit served are logged (a pino logger fits). */
  logger: ModelLogger;
  /** Draw download progress bars. */
  interactive: boolean;
  /** Variables `HF_*` are read from (default: process.env). */
  env?: NodeJS.ProcessEnv;
  /** Never touch the network (irserve's `--offline`; `HF_HUB_OFFLINE=1` does the same). */
  offline?: boolean;
}

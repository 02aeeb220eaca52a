/**
 * Which files of a repository an engine needs, from its listing: never every weight format of
 * the repository, only the one that is served.
 *
 * - `onnx`: one graph (`model.onnx`, else `onnx/model.onnx`, or the one named) with its external
 *   weights (`model.onnx_data`), and the tokenizer, config and sentence-transformers files
 *   (the tokenizer: `tokenizer.json`, else T5's SentencePiece `spiece.model`);
 * - `seq2seq`: the encoder and decoder graphs Optimum exports for T5 / mT5, and the same files;
 * - `gguf`: one GGUF file (by name or quantisation; split files with all their parts);
 * - `checkpoint`: a repository without an ONNX export: the weights of one format (safetensors,
 *   else `pytorch_model.bin`; one file or the shards of an index) with the same small files,
 *   for the graph irserve builds from a checkpoint.
 */
import { HubError } from './hub-errors.js';

/** What an engine serves: an ONNX graph, an encoder-decoder pair, a GGUF file, or any (pull). */
export type ModelKind = 'onnx' | 'seq2seq' | 'gguf' | 'auto';

export interface FileChoice {
  /** How the model is served. */
  readonly kind: 'onnx' | 'seq2seq' | 'gguf' | 'checkpoint';
  /** Repository paths to fetch. */
  readonly files: readonly string[];
  /** The model folder inside the repository (`''`: the root). */
  readonly folder: string;
  /** The graph or GGUF file, relative to `folder`, when it is not the loader's default. */
  readonly modelFile?: string;
}

/** The graphs a config names: `model` for one-graph engines, `encoder`/`decoder` for seq2seq. */
export interface Graphs {
  model?: string;
  encoder?: string;
  decoder?: string;
}

export interface ChoiceRequest {
  kind: ModelKind;
  /** A file or folder of the repository the reference names. */
  path?: string;
  /** A GGUF quantisation (`Q8_0`). */
  quant?: string;
  /** Graphs the engine's config names, relative to the model folder (`encoder_file`, ...). */
  graphs?: Graphs;
}

/** The small files a model folder may hold, all fetched when present. */
const SMALL_FILES = [
  'config.json',
  'tokenizer.json',
  'tokenizer_config.json',
  'special_tokens_map.json',
  'sentence_bert_config.json',
  'modules.json',
  'config_sentence_transformers.json',
  'onnx_config.json',
  'artifact.metadata',
];
/** T5 / mT5's SentencePiece model: fetched only where the folder has no tokenizer.json. */
const SPIECE = 'spiece.model';
const MODULE_CONFIG = /^\d+_[A-Za-z]+\/config\.json$/;
const SEQ2SEQ_ENCODERS = ['encoder_model.onnx', 'onnx/encoder_model.onnx'];
const SEQ2SEQ_DECODERS = [
  'decoder_model.onnx',
  'decoder_model_merged.onnx',
  'onnx/decoder_model.onnx',
  'onnx/decoder_model_merged.onnx',
];

/**
 * The files to fetch for `request` from a repository holding `files`; a HubError listing what
 * the repository holds when nothing fits.
 *
 * @example
 * chooseFiles(new Set(['config.json', 'tokenizer.json', 'onnx/model.onnx']), { kind: 'onnx' }, 'org/m')
 * // { kind: 'onnx', folder: '', files: ['onnx/model.onnx', 'config.json', 'tokenizer.json'] }
 */
export function chooseFiles(
  files: ReadonlySet<string>,
  request: ChoiceRequest,
  label: string,
): FileChoice {
  const path = request.path;
  if (path && !files.has(path) && ![...files].some((f) => f.startsWith(`${path}/`)))
    throw new HubError('entry-not-found', `${label} has no file or folder ${path}${holds(files)}`);
  const kind = request.kind === 'auto' ? guessKind(files, request) : request.kind;
  const choice =
    kind === 'gguf'
      ? chooseGguf(files, request, label)
      : kind === 'seq2seq'
        ? chooseSeq2Seq(files, request)
        : chooseGraph(files, request, label);
  return choice ?? chooseCheckpoint(files, request, kind, label);
}

function guessKind(files: ReadonlySet<string>, request: ChoiceRequest): ModelKind {
  const path = request.path ?? '';
  if (request.quant || path.endsWith('.gguf')) return 'gguf';
  const inFolder = [...files].filter((f) => !path || f === path || f.startsWith(`${path}/`));
  if (path.endsWith('.onnx')) return /(^|\/)encoder_model/.test(path) ? 'seq2seq' : 'onnx';
  if (inFolder.some((f) => /(^|\/)model\.onnx$/.test(f))) return 'onnx';
  if (inFolder.some((f) => /(^|\/)encoder_model\.onnx$/.test(f))) return 'seq2seq';
  if (inFolder.some((f) => f.endsWith('.onnx'))) return 'onnx';
  if (inFolder.some((f) => f.endsWith('.gguf'))) return 'gguf';
  return 'onnx';
}

/** The files of `folder` (`''`: the root) with `name`, as repository paths. */
function at(folder: string, name: string): string {
  return folder ? `${folder}/${name}` : name;
}

/** The repository folder a path names: itself when a folder, its parent when a file. */
function baseFolder(files: ReadonlySet<string>, path: string | undefined): string {
  if (!path) return '';
  if (!files.has(path)) return path;
  const slash = path.lastIndexOf('/');
  return slash < 0 ? '' : path.slice(0, slash);
}

/**
 * The model folder of a graph at `graphFolder`: the deepest folder from there up to the root
 * holding `tokenizer.json` or `spiece.model` (`onnx/` folders of sentence-transformers repositories keep it at
 * the root), else `fallback`.
 */
function modelFolder(files: ReadonlySet<string>, graphFolder: string, fallback: string): string {
  for (let folder = graphFolder; ; folder = folder.slice(0, Math.max(0, folder.lastIndexOf('/')))) {
    if (files.has(at(folder, 'tokenizer.json')) || files.has(at(folder, SPIECE))) return folder;
    if (folder === '') return fallback;
  }
}

function smallFiles(files: ReadonlySet<string>, folder: string): string[] {
  const inside = (f: string) => (folder ? f.startsWith(`${folder}/`) : true);
  const relativeName = (f: string) => (folder ? f.slice(folder.length + 1) : f);
  const spiece = !files.has(at(folder, 'tokenizer.json'));
  return [...files].filter((f) => {
    const name = relativeName(f);
    return (
      inside(f) &&
      (SMALL_FILES.includes(name) || MODULE_CONFIG.test(name) || (spiece && name === SPIECE))
    );
  });
}

/** The external weights of a graph (`model.onnx_data`, `model.onnx.data`, `..._data_1`). */
function externalData(files: ReadonlySet<string>, graph: string): string[] {
  return [...files].filter((f) => f.startsWith(`${graph}_data`) || f.startsWith(`${graph}.data`));
}

function relativeTo(folder: string, path: string): string {
  return folder ? path.slice(folder.length + 1) : path;
}

function chooseGraph(
  files: ReadonlySet<string>,
  request: ChoiceRequest,
  label: string,
): FileChoice | undefined {
  const top = baseFolder(files, request.path);
  let graph: string | undefined;
  if (request.path && files.has(request.path)) graph = request.path;
  else if (request.graphs?.model) graph = [at(top, request.graphs.model)].find((f) => files.has(f));
  else graph = [at(top, 'model.onnx'), at(top, 'onnx/model.onnx')].find((f) => files.has(f));
  if (!graph) {
    const graphs = [...files].filter(
      (f) => f.endsWith('.onnx') && (!top || f.startsWith(`${top}/`)),
    );
    if (graphs.length === 1) graph = graphs[0];
    else if (graphs.length > 1)
      throw new HubError(
        'entry-not-found',
        `${label} holds ${graphs.length} ONNX graphs and no ${at(top, 'model.onnx')} or ${at(top, 'onnx/model.onnx')}: name one, e.g. ${label.split('@')[0]}/${graphs[0]} (graphs: ${graphs.join(', ')})`,
      );
    else return undefined;
  }
  const graphFolder = graph!.includes('/') ? graph!.slice(0, graph!.lastIndexOf('/')) : '';
  const folder = modelFolder(files, graphFolder, top);
  const modelFile = relativeTo(folder, graph!);
  const isDefault = modelFile === 'model.onnx' || modelFile === 'onnx/model.onnx';
  return {
    kind: 'onnx',
    folder,
    files: [graph!, ...externalData(files, graph!), ...smallFiles(files, folder)],
    ...(isDefault ? {} : { modelFile }),
  };
}

function chooseSeq2Seq(files: ReadonlySet<string>, request: ChoiceRequest): FileChoice | undefined {
  const folder = baseFolder(files, request.path);
  const { encoder: encoderFile, decoder: decoderFile } = request.graphs ?? {};
  const encoder = (encoderFile ? [encoderFile] : SEQ2SEQ_ENCODERS)
    .map((c) => at(folder, c))
    .find((f) => files.has(f));
  const decoder = (decoderFile ? [decoderFile] : SEQ2SEQ_DECODERS)
    .map((c) => at(folder, c))
    .find((f) => files.has(f));
  if (!encoder || !decoder) return undefined;
  return {
    kind: 'seq2seq',
    folder,
    files: [
      ...[encoder, decoder].flatMap((graph) => [graph, ...externalData(files, graph)]),
      ...smallFiles(files, folder),
    ],
  };
}

/** GGUF files, projector files (`mmproj`) left out. */
function ggufFiles(files: ReadonlySet<string>, folder: string): string[] {
  return [...files].filter(
    (f) =>
      f.endsWith('.gguf') && !/(^|\/)mmproj/i.test(f) && (!folder || f.startsWith(`${folder}/`)),
  );
}

const SPLIT = /-(\d{5})-of-(\d{5})\.gguf$/;

function chooseGguf(
  files: ReadonlySet<string>,
  request: ChoiceRequest,
  label: string,
): FileChoice | undefined {
  const folder = baseFolder(files, request.path);
  const all = ggufFiles(files, folder);
  if (all.length === 0) return undefined;
  const firsts = all.filter((f) => !SPLIT.test(f) || SPLIT.exec(f)![1] === '00001');
  const quantOf = (f: string) =>
    new RegExp(`[-_.]${escape(request.quant!)}[-_.]`, 'i').test(`.${f.split('/').pop()}`);
  let chosen: string | undefined;
  if (request.path?.endsWith('.gguf')) chosen = request.path;
  else if (request.quant) chosen = firsts.find(quantOf);
  else if (firsts.length === 1) chosen = firsts[0];
  else
    chosen = ['Q8_0', 'Q4_K_M']
      .map((q) =>
        firsts.find((f) => new RegExp(`[-_.]${q}[-_.]`, 'i').test(`.${f.split('/').pop()}`)),
      )
      .find(Boolean);
  if (!chosen)
    throw new HubError(
      'entry-not-found',
      `${label} holds ${firsts.length} GGUF files${request.quant ? `, none of quantisation ${request.quant}` : ' and no Q8_0 or Q4_K_M one'}: name one as ${label.split('@')[0]}:QUANT or by file (${firsts.join(', ')})`,
    );
  const split = SPLIT.exec(chosen);
  const parts = split
    ? all.filter((f) => f.replace(SPLIT, '') === chosen.replace(SPLIT, ''))
    : [chosen];
  const dir = chosen.includes('/') ? chosen.slice(0, chosen.lastIndexOf('/')) : '';
  return { kind: 'gguf', folder: dir, files: parts, modelFile: relativeTo(dir, chosen) };
}

/**
 * The weights of a checkpoint in `folder`: `model.safetensors`, else its index and shards, else
 * `pytorch_model.bin`, else its index and shards (one format only, the first there is).
 */
function checkpointWeights(files: ReadonlySet<string>, folder: string): string[] {
  for (const [single, index, shard] of [
    ['model.safetensors', 'model.safetensors.index.json', /^model-\d+-of-\d+\.safetensors$/],
    ['pytorch_model.bin', 'pytorch_model.bin.index.json', /^pytorch_model-\d+-of-\d+\.bin$/],
  ] as const) {
    if (files.has(at(folder, single))) return [at(folder, single)];
    if (files.has(at(folder, index)))
      return [
        at(folder, index),
        ...[...files].filter(
          (f) => f.startsWith(at(folder, '')) && shard.test(relativeTo(folder, f)),
        ),
      ];
  }
  return [];
}

function chooseCheckpoint(
  files: ReadonlySet<string>,
  request: ChoiceRequest,
  kind: ModelKind,
  label: string,
): FileChoice {
  const folder = baseFolder(files, request.path);
  const weights = kind === 'gguf' ? [] : checkpointWeights(files, folder);
  if (weights.length > 0)
    return { kind: 'checkpoint', folder, files: [...weights, ...smallFiles(files, folder)] };
  const hint =
    kind === 'gguf'
      ? 'a GGUF file for the gpu extra (GgufEmbedding, GgufReranker)'
      : kind === 'seq2seq'
        ? "encoder_model.onnx and decoder_model.onnx (Optimum's text2text-generation export), or a checkpoint"
        : 'an ONNX graph (model.onnx, onnx/model.onnx) or a checkpoint (model.safetensors, pytorch_model.bin)';
  const other =
    ggufFiles(files, '').length > 0 && kind !== 'gguf'
      ? '; its GGUF files are served by the gpu extra (GgufEmbedding, GgufReranker)'
      : '';
  throw new HubError(
    'entry-not-found',
    `${label} holds nothing this engine can run: it needs ${hint}${other}${holds(files)}`,
  );
}

/** `; it holds: a, b, c (and N more)`. */
function holds(files: ReadonlySet<string>): string {
  const list = [...files].sort();
  const shown = list.slice(0, 25).join(', ');
  return `; it holds: ${shown || 'no files'}${list.length > 25 ? ` (and ${list.length - 25} more)` : ''}`;
}

function escape(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

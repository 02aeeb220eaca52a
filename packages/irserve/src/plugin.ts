/**
 * The surface for plugin authors: engine contract types and helpers. A plugin needs no import of
 * irserve at all; importing types from `irserve/plugin` gives editor completion.
 *
 * @example
 * import type { SearchRequest, Scores } from 'irserve/plugin';
 * export class MySearch {
 *   async searchBatch(requests: SearchRequest[]): Promise<Scores[]> { return requests.map(() => ({})); }
 * }
 */
export type {
  BatchOptions,
  DecomposeRequest,
  EmbedKind,
  EmbedRequest,
  Engine,
  EngineClass,
  EngineContext,
  EngineInit,
  FuseRequest,
  InputKind,
  Passage,
  Role,
  ScoreRequest,
  Scores,
  SearchRequest,
  SparseVector as IndexedSparseVector,
} from './engines/contract.js';
export { BaseEngine } from './engines/contract.js';
export {
  batchAborted,
  batchAbortReason,
  onBatchAbort,
  type AbortOptions,
} from './engines/batch-abort.js';
export type {
  BytesDocument,
  Collection,
  CollectionCatalog,
  LookupOptions,
  TextDocument,
  TextView,
  View,
} from './collections/types.js';
export { IrserveError, badRequest, type ErrorCode } from './errors.js';
export {
  readSubsetMapping,
  requestedSubset,
  subsetLabels,
  type SubsetLabels,
} from './engines/subset-mapping.js';
export { parseEngineConfig } from './engines/engine-config.js';
export { isBlankQuery, searchNonBlank } from './engines/blank-query.js';
export { batchSizeField, httpCallFields, memoryBudgetField } from './engines/engine-fields.js';
export { ONNX_DEVICES, onnxSessionFields } from './engines/onnx-session-fields.js';
export { SharedByKey, type SharedLease } from './util/shared-by-key.js';
export { filesIdentity } from './util/file-identity.js';
export { writeFileAtomically } from './util/write-atomically.js';
export { seededRandom } from './util/seeded-random.js';
export * from './storage/index.js';
/** Reading foreign binary files (pickles, torch archives, safetensors): one error class for all. */
export { FormatError } from './util/format-error.js';
export { PickleCursor } from './util/pickle-cursor.js';
export {
  commonFlags,
  defaultIo,
  EXIT,
  flag,
  formatHelp,
  isEntryPoint,
  runCommand,
  UsageError,
  type CliIo,
  type CommandSpec,
  type FlagValues,
  // Named by the declarations of every command's inferred flag table.
  type SwitchFlag,
  type ValueFlag,
} from './cli-kit/index.js';
export { createModelSource } from './models/model-source.js';
export { resolveModel } from './engines/resolve-model.js';
export type {
  ModelKind,
  ModelLogger,
  ModelRequest,
  ModelSource,
  ModelSourceOptions,
  ResolvedModel,
} from './models/types.js';
/**
 * The zod irserve builds its schemas with. Engine config schemas made with it compose with
 * irserve's own (one zod in the process; irserve's build ships it prebundled).
 */
export { z } from './prebundled/zod.js';

/**
 * The file choice a model request makes (from a hub reference and the engine's request), and
 * the files served once it is in the cache.
 */
import { join } from 'node:path';
import { chooseFiles, type ChoiceRequest, type FileChoice } from './choose-files.js';
import type { HubCache } from './hub-cache.js';
import { formatHubReference, type HubReference } from './model-reference.js';
import type { ModelRequest, ResolvedModel } from './types.js';

/**
 * What `chooseFiles` is asked for: the engine's kind and graphs, the reference's path and
 * quantisation.
 *
 * @example choiceRequest({ repo: 'o/m', revision: 'main', quant: 'Q8_0' }, request) // { kind, quant: 'Q8_0' }
 */
export function choiceRequest(reference: HubReference, request: ModelRequest): ChoiceRequest {
  return {
    kind: request.kind,
    ...(reference.path ? { path: reference.path } : {}),
    ...(reference.quant ? { quant: reference.quant } : {}),
    ...(request.graphs ? { graphs: request.graphs } : {}),
  };
}

/**
 * The files `request` needs among `files`, or undefined when none fit.
 *
 * @example tryChoose(new Set(['model.onnx', 'tokenizer.json']), reference, request)?.files
 */
export function tryChoose(
  files: ReadonlySet<string>,
  reference: HubReference,
  request: ModelRequest,
): FileChoice | undefined {
  try {
    return chooseFiles(files, choiceRequest(reference, request), reference.repo);
  } catch {
    return undefined;
  }
}

/**
 * The model an engine loads from the snapshot of `commit`: the model folder, and the graph or
 * GGUF file the choice named.
 *
 * @example resolvedModel(cache, reference, commit, choice, 'cache').folder // '.../snapshots/<commit>'
 */
export function resolvedModel(
  cache: HubCache,
  reference: HubReference,
  commit: string,
  choice: FileChoice,
  source: 'cache' | 'hub',
): ResolvedModel {
  const snapshot = cache.snapshotDir(reference.repo, commit);
  const folder = choice.folder ? join(snapshot, ...choice.folder.split('/')) : snapshot;
  const path = choice.kind === 'gguf' ? join(folder, ...choice.modelFile!.split('/')) : folder;
  return {
    path,
    folder,
    ...(choice.modelFile && choice.kind !== 'gguf' ? { modelFile: choice.modelFile } : {}),
    source,
    repo: reference.repo,
    commit,
    format: choice.kind,
    label: `${formatHubReference(reference)} (commit ${commit.slice(0, 12)})`,
  };
}

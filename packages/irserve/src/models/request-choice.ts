/** The file choice a model request makes, from a hub reference and the engine's request. */
import { chooseFiles, type ChoiceRequest, type FileChoice } from './choose-files.js';
import type { HubReference } from './model-reference.js';
import type { ModelRequest } from './model-source.js';

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

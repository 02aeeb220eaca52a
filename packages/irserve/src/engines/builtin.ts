import { API_ENGINES } from './apis/index.js';
import { BM25 } from './bm25/index.js';
import type { EngineClass } from './contract.js';
import { FUSION_ENGINES } from './fusion/index.js';

/** Engine classes that ship with the core package. */
export function builtinEngines(): EngineClass[] {
  return [BM25, ...FUSION_ENGINES, ...API_ENGINES];
}

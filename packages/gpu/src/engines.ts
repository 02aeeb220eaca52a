/**
 * The engines this extra registers when installed beside irserve. The core finds this module
 * through the `irserve.engines` field of the package's package.json.
 */
import type { EngineClass } from 'irserve/plugin';
import { GgufEmbedding } from './engine/gguf-embedding.js';
import { GgufReranker } from './engine/gguf-reranker.js';

export const engines: EngineClass[] = [GgufEmbedding, GgufReranker];

/**
 * The engines this extra registers when installed beside irserve. The core finds this module
 * through the `irserve.engines` field of the package's package.json.
 */
import type { EngineClass } from 'irserve/plugin';
import { CrossEncoderReranker } from './rerank/cross-encoder-reranker.js';
import { MonoT5Reranker, MT5Reranker } from './rerank/mt5-reranker.js';

export const engines: EngineClass[] = [CrossEncoderReranker, MT5Reranker, MonoT5Reranker];

/**
 * The engines this extra registers when installed beside irserve. The core finds this module
 * through the `irserve.engines` field of the package's package.json.
 */
import type { EngineClass } from 'irserve/plugin';
import { Dense } from './engine/dense.js';
import { SentenceTransformerEngine } from './engine/sentence-transformer.js';

export const engines: EngineClass[] = [Dense, SentenceTransformerEngine];

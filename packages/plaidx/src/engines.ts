/**
 * The engines this extra registers when installed beside irserve. The core finds this module
 * through the `irserve.engines` field of the package's package.json.
 */
import type { EngineClass } from 'irserve/plugin';
import { PLAIDX } from './engine/plaidx.js';

export const engines: EngineClass[] = [PLAIDX];

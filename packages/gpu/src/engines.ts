import type { EngineClass } from 'irserve/plugin';

export const engines: EngineClass[] = [];

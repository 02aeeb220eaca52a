/**
 * Pipelines: parse (`parser.ts`) -> plan (`compile.ts`, `bind.ts`) -> execute (`execute.ts`),
 * behind the `/pipeline` runner (`runner.ts`). See docs/pipelines.md.
 */
export { createPipelineRunner, type PipelineRunnerDeps } from './runner.js';
export { createPipelines } from './lazy-runner.js';
export { validatePipelineAliases, type AliasTable } from './aliases.js';
export { parsePipeline } from './parser.js';
export { printPipeline } from './print.js';
export { callNode, equalNodes, groupNode, seqNode } from './ast.js';
export type { CallNode, GroupNode, PipelineNode, SeqNode, StageNode } from './ast.js';
export { compilePlan } from './compile.js';
export type { Plan, StageRole } from './plan.js';
export { pipelineRequestSchema, type PipelineRequest } from './request-schema.js';

import type { PipelineRunner } from '../core/app-core.js';
import { onDemand } from '../util/on-demand.js';
import type { PipelineRunnerDeps } from './runner.js';

/**
 * The `/pipeline` runner of an app, loaded when it is first needed. With pipeline aliases the
 * runner (parser, planner, executor: some 20 modules) is built at once, since the aliases are
 * checked at start-up; without any, it is imported on the first pipeline request, so a server
 * that runs no pipeline never loads it.
 *
 * @example
 * const pipelines = await createPipelines({ services, content, collections, logger,
 *   aliases: {}, cache: { size: -1, ttl: 600 } });
 */
export async function createPipelines(deps: PipelineRunnerDeps): Promise<PipelineRunner> {
  const build = async () => (await import('./runner.js')).createPipelineRunner(deps);
  if (Object.keys(deps.aliases).length > 0) return build();
  const runner = onDemand(build);
  // Once loaded, calls go straight to the runner (no extra promise per request).
  return {
    run: (body, options) => {
      const loaded = runner.current;
      return loaded ? loaded.run(body, options) : runner.get().then((r) => r.run(body, options));
    },
    rerank: (pipeline, query, passages, options) => {
      const loaded = runner.current;
      return loaded
        ? loaded.rerank(pipeline, query, passages, options)
        : runner.get().then((r) => r.rerank(pipeline, query, passages, options));
    },
    check: async (body) => (await runner.get()).check(body),
    aliases: () => ({}),
  };
}

/** The start-up error of an offline run whose model is not (all) in the cache. */
import { join } from 'node:path';
import { IrserveError } from '../errors.js';
import type { HubCache } from './hub-cache.js';
import { formatHubReference, type HubReference } from './model-reference.js';
import type { ModelRequest } from './types.js';
import { tryChoose } from './request-choice.js';

/**
 * An ERR_CONFIG naming the repository, the revision, what the cache lacks, and the command
 * that fetches it.
 *
 * @example throw await missingOffline(cache, reference, request, undefined);
 */
export async function missingOffline(
  cache: HubCache,
  reference: HubReference,
  request: ModelRequest,
  pinned: string | undefined,
): Promise<IrserveError> {
  const { repo, revision } = reference;
  const commit = pinned ?? (await cache.readRef(repo, revision));
  let what: string;
  if (!commit)
    what = `the cache ${cache.root} has no ${revision === 'main' ? '' : `revision ${revision} of `}${repo} (no ${join(cache.repoDir(repo), 'refs', revision)})`;
  else {
    const present = await cache.snapshotFiles(repo, commit);
    const listing = await cache.readTree(repo, commit);
    const choice = listing ? tryChoose(new Set(listing.keys()), reference, request) : undefined;
    const missing = choice?.files.filter((file) => !present?.has(file));
    what = missing?.length
      ? `the cached commit ${commit} lacks ${missing.join(', ')}`
      : `the cached commit ${commit} holds ${present?.size ? [...present].sort().join(', ') : 'no files'}, not the ${request.kind === 'gguf' ? 'GGUF file' : 'graph, tokenizer and config'} this engine needs`;
  }
  const id = formatHubReference(reference);
  return new IrserveError(
    'ERR_CONFIG',
    `model ${id} is not in the Hugging Face cache and irserve runs offline (HF_HUB_OFFLINE or --offline): ${what}. Fetch it on a machine with network: irserve pull ${id} (or irserve pull <config.json>), with HF_HUB_CACHE pointing at this cache or copied into it`,
  );
}

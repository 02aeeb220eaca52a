/**
 * What a failed hub request means, in words a user can act on. The hub says why in the
 * `X-Error-Code` header (`RepoNotFound`, `RevisionNotFound`, `EntryNotFound`, `GatedRepo`), as
 * `huggingface_hub`'s `hf_raise_for_status` reads it.
 */
import type { HubSettings } from './hub-settings.js';

export type HubErrorKind =
  | 'repo-not-found'
  | 'revision-not-found'
  | 'entry-not-found'
  | 'gated'
  | 'bad-token'
  | 'forbidden'
  | 'unavailable'
  | 'protocol';

/** A hub request that failed, with what to do about it in the message. */
export class HubError extends Error {
  constructor(
    readonly kind: HubErrorKind,
    message: string,
    options?: { cause?: unknown },
  ) {
    super(message, options);
    this.name = 'HubError';
  }

  /** Worth another try: the hub (or the way to it) is down, not the request wrong. */
  get transient(): boolean {
    return this.kind === 'unavailable';
  }
}

export interface FailedRequest {
  status: number;
  errorCode: string | undefined;
  errorMessage: string | undefined;
  repo: string;
  revision: string;
  file?: string;
}

/**
 * The HubError for an answer that is not a success.
 *
 * @example
 * hubError({ status: 404, errorCode: 'RevisionNotFound', repo: 'org/m', revision: 'v9' }, settings)
 * // HubError('revision-not-found', 'org/m has no revision "v9" on https://huggingface.co')
 */
export function hubError(failed: FailedRequest, settings: HubSettings): HubError {
  const { status, errorCode, errorMessage, repo, revision, file } = failed;
  const where = settings.endpoint;
  const token = settings.token
    ? `the token from ${settings.tokenSource}`
    : 'no token (set HF_TOKEN, or log in with `hf auth login`, which writes HF_HOME/token)';
  if (errorCode === 'RevisionNotFound')
    return new HubError('revision-not-found', `${repo} has no revision "${revision}" on ${where}`);
  if (errorCode === 'EntryNotFound')
    return new HubError(
      'entry-not-found',
      `${repo}@${revision} has no file ${file ?? ''} on ${where}`,
    );
  if (errorCode === 'GatedRepo')
    return new HubError(
      'gated',
      `${repo} is a gated repository: accept its conditions at ${where}/${repo} with your account, then give irserve a token of that account (HF_TOKEN); sent: ${token}`,
    );
  if (status === 401 && errorMessage === 'Invalid credentials in Authorization header')
    return new HubError('bad-token', `${where} refused ${token}: the token is not valid`);
  if (errorCode === 'RepoNotFound' || status === 401 || status === 404)
    return new HubError(
      'repo-not-found',
      `${where} has no repository ${repo} that ${token} can read (a private or gated one needs a token that may read it; check the spelling at ${where}/${repo})`,
    );
  if (status === 403)
    return new HubError(
      'forbidden',
      `${where} refused access to ${repo} (403${errorMessage ? `: ${errorMessage}` : ''}) with ${token}`,
    );
  if (status === 429 || status >= 500)
    return new HubError('unavailable', `${where} answered ${status} for ${repo}; try again later`);
  return new HubError(
    'protocol',
    `${where} answered ${status} for ${repo}${file ? ` ${file}` : ''}${errorMessage ? `: ${errorMessage}` : ''}`,
  );
}

/** The HubError for a request that got no answer (refused, reset, timed out). */
export function unreachable(settings: HubSettings, error: unknown): HubError {
  const cause = (error as { code?: string }).code ?? (error as Error).message;
  return new HubError(
    'unavailable',
    `cannot reach ${settings.endpoint} (${cause}); set HF_ENDPOINT to a mirror, or run offline from the cache (HF_HUB_OFFLINE=1)`,
    { cause: error },
  );
}

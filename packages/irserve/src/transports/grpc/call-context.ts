import type { Metadata } from '@grpc/grpc-js';
import { REQUEST_ID_HEADER, acceptRequestId } from '../../core/request-id.js';
import { IrserveError } from '../../errors.js';
import { HOPS_HEADER, MAX_HOPS } from '../../core/hops.js';

/** Metadata key carrying the catalog code of an error, so irserve clients keep it exactly. */
export const ERROR_CODE_KEY = 'x-irserve-error-code';

function first(metadata: Metadata, key: string): string | undefined {
  const value = metadata.get(key)[0];
  return typeof value === 'string' ? value : undefined;
}

/** `x-request-id` from the metadata when acceptable (see core/request-id.ts), or a new one. */
export function requestIdOf(metadata: Metadata): string {
  return acceptRequestId(first(metadata, REQUEST_ID_HEADER));
}

/**
 * Relay hops so far (`x-irserve-hops`, as over HTTP). Too many means `server_imports` form a
 * loop, which is refused rather than followed forever.
 */
export function hopsOf(metadata: Metadata): number {
  const value = first(metadata, HOPS_HEADER);
  const hops = value !== undefined && /^\d{1,3}$/.test(value) ? Number(value) : 0;
  if (hops > MAX_HOPS) {
    throw new IrserveError(
      'ERR_BAD_REQUEST',
      `request crossed more than ${MAX_HOPS} instances: server_imports form a loop`,
    );
  }
  return hops;
}

/** The `authorization` metadata value (what the bearer check reads). */
export function authorizationOf(metadata: Metadata): string | undefined {
  return first(metadata, 'authorization');
}

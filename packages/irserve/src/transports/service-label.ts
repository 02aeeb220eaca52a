import type { AppCore } from '../core/app-core.js';
import { ROLES } from '../engines/contract.js';

/**
 * The configured service or collection a request names, or "": names a client made up never
 * become label values, so a hostile client cannot grow the series without bound. Shared by the
 * HTTP and gRPC request metrics.
 *
 * @example
 * serviceLabel(core, { service: 'bm25' }); // 'bm25' when configured, else ''
 */
export function serviceLabel(
  core: AppCore,
  names: { service?: unknown; collection?: unknown },
): string {
  const { service, collection } = names;
  if (typeof service === 'string' && ROLES.some((role) => core.services.has(role, service)))
    return service;
  if (typeof collection === 'string' && core.collections.has(collection)) return collection;
  return '';
}

import type { AppCore } from '../core/app-core.js';
import { EXTRA_CAPABILITIES, ROLES } from '../engines/contract.js';

const CAPABILITIES = [...ROLES, ...EXTRA_CAPABILITIES];

/**
 * The configured service (of any role or capability, embed services included) or collection a
 * request names, or "": names a client made up never become label values, so a hostile client
 * cannot grow the series without bound. Shared by the HTTP and gRPC request metrics.
 *
 * @example
 * serviceLabel(core, { service: 'bm25' }); // 'bm25' when configured, else ''
 */
export function serviceLabel(
  core: AppCore,
  names: { service?: unknown; collection?: unknown },
): string {
  const { service, collection } = names;
  if (
    typeof service === 'string' &&
    CAPABILITIES.some((capability) => core.services.has(capability, service))
  )
    return service;
  if (typeof collection === 'string' && core.collections.has(collection)) return collection;
  return '';
}

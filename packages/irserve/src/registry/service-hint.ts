import { CAPABILITY_METHOD, type Capability } from '../engines/contract.js';
import { closest } from '../util/suggest.js';
import type { ServiceLookup } from './types.js';

/** Every capability a service can have, for "it is a score service". */
const CAPABILITIES = Object.keys(CAPABILITY_METHOD) as Capability[];

/** At most this many names are listed; a longer list ends with "and N more". */
const LISTED = 20;

/**
 * The end of a "no such service" message, for a name no service of `roles` has: the roles the
 * name does serve, else the closest name of those roles as a "did you mean"; then the names of
 * `roles`.
 *
 * @example
 * unknownServiceHint(services, ['search'], 'bm52');
 * // " (did you mean 'bm25'?); search services: bm25, dense"
 */
export function unknownServiceHint(
  services: Pick<ServiceLookup, 'has' | 'names'>,
  roles: readonly Capability[],
  name: string,
): string {
  const others = CAPABILITIES.filter((role) => !roles.includes(role) && services.has(role, name));
  const known = [...new Set(roles.flatMap((role) => services.names(role)))];
  const hint = others.length > 0 ? undefined : closest(name, known);
  const note =
    others.length > 0
      ? ` ('${name}' is a ${others.join(' and ')} service)`
      : hint
        ? ` (did you mean '${hint}'?)`
        : '';
  const label = roles.length === 1 ? `${roles[0]} services` : 'services';
  return `${note}; ${label}: ${listed(known)}`;
}

function listed(names: readonly string[]): string {
  if (names.length === 0) return 'none';
  if (names.length <= LISTED) return names.join(', ');
  return `${names.slice(0, LISTED).join(', ')} and ${names.length - LISTED} more`;
}

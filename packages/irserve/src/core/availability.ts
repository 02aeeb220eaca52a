/**
 * Which services can answer now. An engine over an external back-end (`@irserve/backends`)
 * reports its back-end's state in `/health`; a service whose back-end is not `up` is listed as
 * unavailable in `/avail` (so a front or a script can tell "down" from "absent"), and
 * `/health?service=NAME` answers 503 for it, so a load balancer can route that service's
 * traffic around a replica that cannot reach its back-end.
 */
import { CAPABILITY_METHOD, type Capability } from '../engines/contract.js';
import { IrserveError, badRequest } from '../errors.js';
import { unknownServiceHint } from '../registry/service-hint.js';
import type { AppCore } from './app-core.js';

const CAPABILITIES = Object.keys(CAPABILITY_METHOD) as Capability[];

export interface EngineHealth {
  service?: unknown;
  state?: unknown;
}

/**
 * Whether an engine's `/health` entry lets it answer: an entry without `state` reports other
 * things (an LSR index's `prepared`, a GGUF model's `loaded`) and is up; with one, only `up` is.
 *
 * @example engineIsUp({ prepared: 'ready' }) // true
 * @example engineIsUp({ state: 'connecting' }) // false
 */
export function engineIsUp(health: EngineHealth): boolean {
  return health.state === undefined || health.state === 'up';
}

/**
 * Services whose engine says it cannot answer (a back-end down, connecting or closed; a damaged
 * index), sorted, from a `/health` report's `engines`.
 *
 * @example
 * unavailableServices({ engines: [{ service: 'pg', state: 'down' }] }) // ['pg']
 */
export function unavailableServices(report: Record<string, unknown>): string[] {
  const engines = Array.isArray(report.engines) ? (report.engines as EngineHealth[]) : [];
  return engines
    .filter((engine) => !engineIsUp(engine) && typeof engine.service === 'string')
    .map((engine) => engine.service as string)
    .sort();
}

/** Longest service name `/health?service=` accepts (config names are far shorter). */
const MAX_NAME = 256;

/**
 * `/health`, for the whole replica or for one service (`?service=NAME`): the report and its
 * HTTP status: 503 while the replica is not ready or, for a service, while its back-end is not
 * up. An unknown service is ERR_SERVICE_NOT_FOUND (400, as for any request naming an unknown service).
 *
 * @example
 * const { status, report } = healthFor(core, 'pg'); // 503 and report.service.available false
 */
export function healthFor(
  core: AppCore,
  service: unknown,
): { status: number; report: Record<string, unknown> } {
  const report = core.health();
  const ready = report.ready !== false;
  if (service === undefined) return { status: ready ? 200 : 503, report };
  if (typeof service !== 'string' || service.length === 0 || service.length > MAX_NAME)
    throw badRequest(`service: give one service name of at most ${MAX_NAME} characters`, {
      fields: ['service'],
    });
  if (!CAPABILITIES.some((role) => core.services.has(role, service)))
    throw new IrserveError(
      'ERR_SERVICE_NOT_FOUND',
      `service "${service}" is not served here${unknownServiceHint(core.services, CAPABILITIES, service)}`,
    );
  const available = !unavailableServices(report).includes(service);
  return {
    status: ready && available ? 200 : 503,
    report: { ...report, service: { name: service, available } },
  };
}

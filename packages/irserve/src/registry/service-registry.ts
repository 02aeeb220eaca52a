import type { Capability } from '../engines/contract.js';
import { IrserveError } from '../errors.js';
import { unknownServiceHint } from './service-hint.js';
import type { BuiltService, Service, ServiceLookup } from './types.js';

/** The app's services by (role, name). An instance per app: no module-level state. */
export class ServiceRegistry implements ServiceLookup {
  readonly #byRole = new Map<Capability, Map<string, BuiltService<Capability>>>();

  /** Adds a service; a second service of the same name and role is an error. */
  add(service: BuiltService<Capability>): void {
    let services = this.#byRole.get(service.role);
    if (!services) {
      services = new Map();
      this.#byRole.set(service.role, services);
    }
    if (services.has(service.name))
      throw new Error(`a ${service.role} service named "${service.name}" is already registered`);
    services.set(service.name, service);
  }

  /** The service of that name and role; the error lists the role's services, with a hint. */
  get<R extends Capability>(role: R, name: string): Service<R> {
    const service = this.#byRole.get(role)?.get(name);
    if (!service) {
      throw new IrserveError(
        'ERR_SERVICE_NOT_FOUND',
        `Service '${name}' not found or does not support ${role}${unknownServiceHint(this, [role], name)}`,
        { details: { service: name, role } },
      );
    }
    return service as unknown as Service<R>;
  }

  has(role: Capability, name: string): boolean {
    return this.#byRole.get(role)?.has(name) ?? false;
  }

  names(role: Capability): string[] {
    return [...(this.#byRole.get(role)?.keys() ?? [])];
  }

  /** Closes every service (drains batch queues); one failure does not stop the others. */
  async close(): Promise<void> {
    const all = [...this.#byRole.values()].flatMap((services) => [...services.values()]);
    await Promise.allSettled(all.map((service) => service.close()));
  }
}

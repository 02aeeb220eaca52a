import type { Logger } from 'pino';
import type { Role } from '../engines/contract.js';
import type { AppObserver } from '../metrics/observer.js';
import type { CacheStore } from '../cache/cache-store.js';
import type { ServiceRegistry } from '../registry/service-registry.js';
import type { FederatedCollections } from './federated-collections.js';
import { type ImportEntry, RemoteImport } from './remote-import.js';

export interface FederationDeps {
  registry: ServiceRegistry;
  collections: FederatedCollections;
  logger: Logger;
  cacheFor: (role: Role, name: string) => CacheStore<never> | undefined;
  /** Metrics of relayed calls (none when disabled). */
  observer?: AppObserver | undefined;
}

/** All `server_imports` of an app. A remote that is down never stops the start. */
export class Federation {
  readonly #imports: RemoteImport[];

  constructor(entries: readonly ImportEntry[], deps: FederationDeps) {
    this.#imports = entries.map(
      (entry) =>
        new RemoteImport(entry, { ...deps, logger: deps.logger.child({ remote: entry.endpoint }) }),
    );
  }

  /** First discovery of every remote, concurrently; failures retry in the background. */
  async start(): Promise<void> {
    await Promise.all(this.#imports.map((remote) => remote.start()));
  }

  health(): Record<string, unknown>[] {
    return this.#imports.map((remote) => remote.health());
  }

  async close(): Promise<void> {
    await Promise.allSettled(this.#imports.map((remote) => remote.close()));
  }
}

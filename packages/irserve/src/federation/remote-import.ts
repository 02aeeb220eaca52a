import type { Logger } from 'pino';
import { ROLES, type Role } from '../engines/contract.js';
import type { CacheStore } from '../cache/cache-store.js';
import type { ServiceRegistry } from '../registry/service-registry.js';
import { backoffDelay } from '../util/backoff.js';
import type { FederatedCollections } from './federated-collections.js';
import { remoteCollection } from './remote-collection.js';
import { parseAvail } from './remote-avail.js';
import { RemoteClient } from './remote-client.js';
import { BatchingTransport } from './batching-transport.js';
import type { AppObserver } from '../metrics/observer.js';
import { buildRelayService } from './relay-service.js';
import type { RemoteTransport } from './remote-transport.js';
import {
  type SelectedTransport,
  type TransportEntry,
  selectTransport,
} from './transport-select.js';

export interface ImportEntry {
  endpoint: string;
  apiKey: string | undefined;
  timeout: number;
  retries: number;
  /** `auto` (default): gRPC when the remote offers it, else REST. */
  transport?: TransportEntry['transport'];
  grpcEndpoint?: string | undefined;
  tls?: boolean;
}

export interface ImportDeps {
  registry: ServiceRegistry;
  collections: FederatedCollections;
  logger: Logger;
  /** Cache store for a relayed service (the relay default: 1024 entries / 600 s). */
  cacheFor: (role: Role, name: string) => CacheStore<never> | undefined;
  /** Metrics of relayed calls (none when disabled). */
  observer?: AppObserver | undefined;
}

export type ImportState = 'pending' | 'up' | 'unreachable';

/** How often a discovered remote is read again, so services it adds later appear here. */
const REFRESH_MS = 30_000;

/**
 * One `server_imports` entry: discovers the remote's services and collections from its `/avail`
 * (sending the key), registers a relay for each name not already served here (local names win),
 * and keeps trying in the background while the remote is down.
 */
export class RemoteImport {
  /** The REST client (discovery; the data plane too unless gRPC is chosen). */
  readonly client: RemoteClient;
  readonly #entry: TransportEntry;
  readonly #deps: ImportDeps;
  /** Chosen at the first successful discovery and kept: relays hold on to it. */
  #selected: SelectedTransport | undefined;
  /** REST relays to a remote that takes `POST /batch` share this, created at first discovery. */
  #batching: BatchingTransport | undefined;
  readonly #imported = new Set<string>();
  #state: ImportState = 'pending';
  #lastError: string | undefined;
  #attempt = 0;
  #timer: NodeJS.Timeout | undefined;
  #closed = false;

  constructor(entry: ImportEntry, deps: ImportDeps) {
    this.#deps = deps;
    this.#entry = { ...entry, transport: entry.transport ?? 'auto', tls: entry.tls ?? false };
    this.client = new RemoteClient({
      endpoint: entry.endpoint,
      apiKey: entry.apiKey,
      timeoutSeconds: entry.timeout,
      retries: entry.retries,
      logger: deps.logger,
    });
  }

  /** One discovery attempt now; on failure, retries go on in the background. */
  async start(): Promise<void> {
    await this.#discover();
  }

  /** The transport relays use: the chosen one, REST until one is chosen. */
  get #transport(): RemoteTransport {
    return this.#selected?.transport ?? this.client;
  }

  health(): Record<string, unknown> {
    const unreachable = this.#transport.unreachableSince;
    return {
      endpoint: this.client.endpoint,
      ...(this.#selected ? { transport: this.#selected.kind } : {}),
      state: unreachable !== undefined ? 'unreachable' : this.#state,
      services: this.#imported.size,
      ...(this.#lastError ? { last_error: this.#lastError } : {}),
    };
  }

  async close(): Promise<void> {
    this.#closed = true;
    clearTimeout(this.#timer);
    if (this.#selected?.kind === 'grpc') await this.#selected.transport.close();
    await this.client.close();
  }

  /** The remote's `/avail`, over the chosen transport (choosing it the first time). */
  async #avail(): Promise<unknown> {
    if (this.#selected) return this.#selected.transport.get('/avail', { retries: 0 });
    const selected = await selectTransport(this.#entry, this.client, this.#deps.logger);
    if (this.#closed) {
      if (selected.kind === 'grpc') await selected.transport.close();
    } else this.#selected = selected;
    return selected.avail;
  }

  async #discover(): Promise<void> {
    try {
      const listing = parseAvail(await this.#avail());
      this.#register(listing);
      if (this.#state !== 'up')
        this.#deps.logger.info(
          {
            transport: this.#selected?.kind,
            services: this.#imported.size,
          },
          'imported remote services',
        );
      this.#state = 'up';
      this.#lastError = undefined;
      this.#attempt = 0;
      this.#schedule(REFRESH_MS);
    } catch (error) {
      this.#lastError = (error as Error).message;
      if (this.#attempt === 0)
        this.#deps.logger.warn(
          { reason: this.#lastError },
          'remote not available yet: retrying in the background',
        );
      this.#state = this.#state === 'up' ? 'up' : 'pending';
      this.#schedule(backoffDelay(this.#attempt++, Math.random, 500, 30_000));
    }
  }

  #schedule(ms: number): void {
    if (this.#closed) return;
    this.#timer = setTimeout(() => void this.#discover(), ms);
    this.#timer.unref();
  }

  /** What relays send through: batches where the remote takes them over REST. */
  #relayTransport(listing: ReturnType<typeof parseAvail>): RemoteTransport {
    if (this.#batching) return this.#batching;
    if (this.#selected?.kind === 'grpc' || listing.batchPath === undefined) return this.#transport;
    this.#batching = new BatchingTransport(this.#transport, listing.batchPath);
    return this.#batching;
  }

  #register(listing: ReturnType<typeof parseAvail>): void {
    const { registry, collections, logger } = this.#deps;
    const relayTransport = this.#relayTransport(listing);
    for (const role of ROLES) {
      for (const name of listing.services[role]) {
        const key = `${role}:${name}`;
        if (this.#imported.has(key)) continue;
        if (registry.has(role, name)) {
          logger.info(
            { service: name, role },
            'a service of this name is served here already: the local one wins',
          );
          this.#imported.add(key);
          continue;
        }
        const inputKind = role === 'score' ? (listing.scoreKinds[name] ?? 'text') : 'text';
        registry.add(
          buildRelayService({
            name,
            role,
            inputKind,
            client: relayTransport,
            cache: this.#deps.cacheFor(role, name),
            onCall: this.#deps.observer
              ? (seconds, ok) =>
                  this.#deps.observer?.relayCall(this.client.endpoint, role, seconds, ok)
              : undefined,
            onCacheEvent: this.#deps.observer?.cache({ service: name, role, store: 'memory' }),
          }),
        );
        this.#imported.add(key);
      }
    }
    for (const [name, entry] of Object.entries(listing.collections)) {
      if (this.#imported.has(`collection:${name}`)) continue;
      this.#imported.add(`collection:${name}`);
      if (!collections.addRemote(remoteCollection(this.#transport, name, entry))) {
        logger.info(
          { collection: name },
          'a collection of this name is served here already: the local one wins',
        );
      }
    }
  }
}

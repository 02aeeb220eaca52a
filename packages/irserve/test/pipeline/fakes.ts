/**
 * Fakes for pipeline tests: a service lookup whose services record every request, and a
 * collection catalog with a content service that counts its lookups.
 */
import { pino } from 'pino';
import type {
  BytesDocument,
  Collection,
  CollectionCatalog,
  ContentRequest,
  ContentResult,
  ContentService,
  TextDocument,
  ViewKind,
} from '../../src/collections/types.js';
import { ROLES, type Capability, type InputKind, type Role } from '../../src/engines/contract.js';
import { IrserveError } from '../../src/errors.js';
import type { RoleIO, Service, ServiceLookup } from '../../src/registry/types.js';

export interface RecordedCall {
  role: Role;
  name: string;
  request: Record<string, unknown>;
}

type Handler<R extends Role> = (
  request: RoleIO[R]['request'],
) => RoleIO[R]['result'] | Promise<RoleIO[R]['result']>;

export class FakeServices implements ServiceLookup {
  readonly calls: RecordedCall[] = [];
  readonly #services = new Map<string, Service>();

  add<R extends Role>(
    role: R,
    name: string,
    handler: Handler<R>,
    options: { inputKind?: InputKind; cached?: boolean } = {},
  ): this {
    const calls = this.calls;
    const service: Service<R> = {
      name,
      role,
      inputKind: options.inputKind ?? 'text',
      engineName: name,
      async call(request) {
        calls.push({ role, name, request: request });
        const value = await handler(request);
        return { value, cached: options.cached ?? false, timestamp: 1 };
      },
    };
    this.#services.set(`${role}:${name}`, service);
    return this;
  }

  get<R extends Capability>(role: R, name: string): Service<R> {
    const service = this.#services.get(`${role}:${name}`);
    if (!service)
      throw new IrserveError('ERR_SERVICE_NOT_FOUND', `Service '${name}' not found for ${role}`);
    return service as unknown as Service<R>;
  }

  has(role: Capability, name: string): boolean {
    return this.#services.has(`${role}:${name}`);
  }

  names(role: Capability): string[] {
    return [...this.#services.values()].filter((s) => s.role === role).map((s) => s.name);
  }

  /** Requests received by one service, in order. */
  requestsOf(name: string, role?: Role): Record<string, unknown>[] {
    return this.calls
      .filter((c) => c.name === name && (role === undefined || c.role === role))
      .map((c) => c.request);
  }

  allNames(): string[] {
    return ROLES.flatMap((role) => this.names(role));
  }
}

export type FakeDoc = TextDocument | BytesDocument;

export interface FakeCollectionSpec {
  defaultView: string;
  views: Record<string, { kind: ViewKind; docs: FakeDoc[] }>;
}

/** Collections in memory; `lookups` records every content lookup; `delayMs` holds each one. */
export class FakeContent implements ContentService, CollectionCatalog {
  readonly lookups: ContentRequest[] = [];
  delayMs = 0;
  readonly #collections: Record<string, FakeCollectionSpec>;

  constructor(collections: Record<string, FakeCollectionSpec>) {
    this.#collections = collections;
  }

  async lookup(request: ContentRequest): Promise<ContentResult> {
    this.lookups.push(request);
    if (this.delayMs > 0) await new Promise((r) => setTimeout(r, this.delayMs));
    const spec = this.#collections[request.collection];
    if (!spec) throw new IrserveError('ERR_COLLECTION_NOT_FOUND', `no ${request.collection}`);
    const viewName = request.view ?? spec.defaultView;
    const view = spec.views[viewName];
    if (!view) throw new IrserveError('ERR_COLLECTION_NOT_FOUND', `no view ${viewName}`);
    const document = view.docs.find((d) => d.id === request.id);
    if (!document) throw new IrserveError('ERR_DOC_NOT_FOUND', `no document ${request.id}`);
    return {
      collection: request.collection,
      id: request.id,
      view: viewName,
      kind: view.kind,
      document,
      cached: false,
    };
  }

  async open(): Promise<void> {}
  async close(): Promise<void> {}

  get(name: string): Collection {
    const spec = this.#collections[name];
    if (!spec) throw new IrserveError('ERR_COLLECTION_NOT_FOUND', `no ${name}`);
    const viewKinds = Object.fromEntries(Object.entries(spec.views).map(([v, s]) => [v, s.kind]));
    return {
      name,
      defaultView: spec.defaultView,
      viewKinds,
      view: () => {
        throw new Error('not used by the pipeline');
      },
    };
  }

  has(name: string): boolean {
    return name in this.#collections;
  }

  names(): string[] {
    return Object.keys(this.#collections);
  }

  /** Ids looked up, in order. */
  ids(): string[] {
    return this.lookups.map((l) => l.id);
  }
}

export const silentLogger = () => pino({ level: 'silent' });

/** Text documents `{id, text}` from an id -> text map. */
export function textDocs(texts: Record<string, string>): TextDocument[] {
  return Object.entries(texts).map(([id, text]) => ({ id, text }));
}

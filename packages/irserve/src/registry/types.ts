/**
 * The service registry as the rest of irserve sees it: (name, role) to a callable service.
 */
import type {
  Capability,
  DecomposeRequest,
  EmbedRequest,
  FuseRequest,
  InputKind,
  Role,
  ScoreRequest,
  Scores,
  SearchRequest,
  SparseVector,
} from '../engines/contract.js';
import type { CachedResult } from '../cache/cached.js';
import type { Abortable } from '../util/abort-scope.js';
import type { SharedDeadlines } from '../util/shared-deadlines.js';

/** Request and result types of each role and extra capability. */
export interface RoleIO {
  search: { request: SearchRequest; result: Scores };
  score: { request: ScoreRequest; result: number[] };
  fuse: { request: FuseRequest; result: Scores };
  decompose_query: { request: DecomposeRequest; result: string[] };
  embed: { request: EmbedRequest; result: Float32Array };
  embed_sparse: { request: EmbedRequest; result: SparseVector };
}

export interface CallOptions {
  /**
   * Aborts the call (a client that went away): queued work is dropped, running work abandoned.
   * An AbortSignal, or an AbortScope (irserve's transports pass one: no AbortSignal is made
   * unless an engine asks for it).
   */
  signal?: Abortable;
  /**
   * When the caller stops waiting, in `Date.now()` milliseconds: work still queued then is
   * dropped, an engine call still running is abandoned, and the call fails with ERR_TIMEOUT.
   */
  deadline?: number;
  /** Correlation id, logged and forwarded through relays. */
  requestId?: string;
  /** Instances this request has crossed through relays (import-loop protection). */
  hops?: number;
  /**
   * Deadline signals shared by the calls of one request that end at the same time (a
   * pipeline's stages); without it each call makes its own.
   */
  deadlines?: SharedDeadlines;
}

/** What a service call returns: the value, whether the cache served it, and when it was computed. */
export type ServiceResult<T> = CachedResult<T>;

/** A registered service for one role (or extra capability). */
export interface Service<R extends Capability = Role> {
  readonly name: string;
  readonly role: R;
  /** For search and score: the kind of input the engine takes. */
  readonly inputKind: InputKind;
  /** The engine class name (`/avail` lists services by name). */
  readonly engineName: string;
  call(
    request: RoleIO[R]['request'],
    options?: CallOptions,
  ): Promise<ServiceResult<RoleIO[R]['result']>>;
  /**
   * The cached result of `request` when an in-process cache holds it, right away (no promise);
   * otherwise undefined, and the caller goes through `call`. Absent on services without one.
   */
  cachedNow?(request: RoleIO[R]['request']): ServiceResult<RoleIO[R]['result']> | undefined;
  /**
   * The keys of a score map this service returned, in `Object.keys` order, as its result check
   * read them (or as an unchecked engine kept them, `Engine.resultKeys`), so that the pipeline
   * does not read them again (about 5 µs for 100 ids); undefined when unknown (not a result of
   * this service, or an unchecked engine that keeps none). Absent on services that keep none
   * (remotes).
   */
  checkedKeys?(scores: object): readonly string[] | undefined;
}

/** A service plus what the app needs to shut it down. */
export interface BuiltService<R extends Capability> extends Service<R> {
  close(): Promise<void>;
}

export interface ServiceLookup {
  /** The service of that name and role; throws ERR_SERVICE_NOT_FOUND. */
  get<R extends Capability>(role: R, name: string): Service<R>;
  has(role: Capability, name: string): boolean;
  /** Names of the services of a role, in registration order. */
  names(role: Capability): string[];
}

/**
 * The engine contract that plugin authors write against (DESIGN.md section 3).
 *
 * An engine is a class; its capabilities are the batch methods it defines. Engines receive one
 * request object per item, so every extra request field reaches them.
 */
import type { Logger } from 'pino';
import type { z } from 'zod';
import type { Collection, CollectionCatalog } from '../collections/types.js';
import type { ModelRequest, ModelSource } from '../models/types.js';

/** The engine roles of the specification. */
export type Role = 'search' | 'score' | 'fuse' | 'decompose_query';
export const ROLES: readonly Role[] = ['search', 'score', 'fuse', 'decompose_query'];

/** Name of the batch method that serves each role. */
export const ROLE_METHOD = {
  search: 'searchBatch',
  score: 'scoreBatch',
  fuse: 'fuseBatch',
  decompose_query: 'decomposeQueryBatch',
} as const satisfies Record<Role, string>;

/**
 * Capabilities beside the four roles: `embed` (texts to dense vectors) and `embed_sparse`
 * (texts to sparse vectors). They are served by `/embed`, the provider-compatible routes and
 * MCP, never by pipelines, and are not RoutIR roles (`/avail` lists them under their own keys).
 */
export type ExtraCapability = 'embed' | 'embed_sparse';
export const EXTRA_CAPABILITIES: readonly ExtraCapability[] = ['embed', 'embed_sparse'];

/** Everything an engine can be registered for: a role or an extra capability. */
export type Capability = Role | ExtraCapability;

/** Name of the batch method that serves each capability. */
export const CAPABILITY_METHOD = {
  ...ROLE_METHOD,
  embed: 'embedBatch',
  embed_sparse: 'embedSparseBatch',
} as const satisfies Record<Capability, string>;

/** Input kind of a search or score engine; fuse and decompose_query are always text. */
export type InputKind = 'text' | 'bytes';

/** A ranking: document id to score. Order of keys is not significant. */
export type Scores = Record<string, number>;

/** A passage to score: text, or for a bytes engine a list of binary parts. */
export type Passage = string | Uint8Array[];

export interface SearchRequest {
  query: string;
  limit: number;
  subset?: string;
  [field: string]: unknown;
}

export interface ScoreRequest {
  query: string;
  passages: Passage[];
  [field: string]: unknown;
}

export interface FuseRequest {
  query: string;
  rankings: Scores[];
  [field: string]: unknown;
}

export interface DecomposeRequest {
  query: string;
  limit?: number;
  [field: string]: unknown;
}

/** Whether a text to embed is a query or a passage (the engine applies its own prompts). */
export type EmbedKind = 'query' | 'passage';

export interface EmbedRequest {
  text: string;
  kind: EmbedKind;
  [field: string]: unknown;
}

/** A sparse vector: parallel lists of vocabulary indices and their weights. */
export interface SparseVector {
  indices: number[];
  values: number[];
}

/** What the app lends an engine. */
export interface EngineContext {
  /** The app's collections (engines such as BM25 index one). */
  readonly collections: CollectionCatalog;
  /** A child logger named after the service. */
  readonly logger: Logger;
  /** A directory this service may write to (indexes, sidecars); created on demand. */
  readonly cacheDir: string;
  /** The config file's directory: relative paths in an engine's config resolve against it. */
  readonly configDir: string;
  /** Whether progress bars may be drawn (a terminal is attached). */
  readonly interactive: boolean;
  /**
   * A map the app shares among all its engines, for resources several services may use (a
   * model loaded once); keys are prefixed with the package name. Absent outside an app.
   */
  readonly resources?: Map<string, unknown>;

  /**
   * Where models come from: `resolveModel(context, ...)` (irserve/plugin) turns a config field
   * naming a model (a path, or a Hugging Face Hub id) into files on disk. One per app, so a
   * hub revision is pinned to one commit; absent outside an app (a source is made per call).
   */
  readonly models?: ModelSource;

  /**
   * The engine of another service of this app, by service name (undefined when none): for
   * engines that delegate part of their work, such as a kNN back-end embedding its queries
   * through an embedder service. Call it from `start()` or later, once every engine exists.
   */
  readonly engine?: (service: string) => Engine | undefined;
}

export interface EngineInit {
  /** The service name from the config. */
  name: string;
  /** The service's engine-specific `config` object. */
  config: Record<string, unknown>;
  context: EngineContext;
}

/**
 * What a batch method gets besides its requests. `signal` aborts when nobody waits for the
 * batch any more (every request timed out or its client left): an engine may stop early.
 * Engines that ignore it keep working; their late results are dropped.
 */
export interface BatchOptions {
  signal?: AbortSignal;
}

/** An engine instance: any subset of the role methods, plus optional lifecycle hooks. */
export interface Engine {
  searchBatch?(requests: SearchRequest[], options?: BatchOptions): Promise<Scores[]>;
  scoreBatch?(requests: ScoreRequest[], options?: BatchOptions): Promise<number[][]>;
  fuseBatch?(requests: FuseRequest[], options?: BatchOptions): Promise<Scores[]>;
  decomposeQueryBatch?(requests: DecomposeRequest[], options?: BatchOptions): Promise<string[][]>;
  /**
   * Checks one request before it joins a batch (a subset the engine has no mapping for, a view
   * it cannot read): throw an IrserveError (ERR_BAD_REQUEST naming the field) to reject that
   * request alone. Optional; called once per request that misses the cache.
   */
  checkRequest?(role: Capability, request: Record<string, unknown>): void;
  /**
   * The keys of a score map this engine returned, in `Object.keys` order, when it kept them
   * (irserve's rank-based fusion rules); consulted only for engines whose results are trusted
   * unchecked (see `trustedResults`), so that the pipeline need not read them again.
   */
  resultKeys?(scores: Scores): readonly string[] | undefined;
  /** One dense vector per request (same dimension for every request of an engine). */
  embedBatch?(requests: EmbedRequest[], options?: BatchOptions): Promise<Float32Array[]>;
  /** One sparse vector per request (learned sparse encoders such as SPLADE). */
  embedSparseBatch?(requests: EmbedRequest[], options?: BatchOptions): Promise<SparseVector[]>;
  /** Called once before the server accepts requests (load models, build indexes). */
  start?(): Promise<void>;
  /** Called once when the app closes. */
  close?(): Promise<void>;
  /**
   * Collections this engine serves (a view over its back-end's index or table); the app adds
   * them to its catalog after constructing the engines. Local collections of the same name win.
   */
  provideCollections?(): Collection[];
  /**
   * The engine's own state for `/health`, listed under `engines`. `state` other than `up` (a
   * back-end `down`, an index `damaged`) takes the service out of `/avail` and fails
   * `/health?service=`; without `state` the entry only informs.
   */
  health?(): Record<string, unknown>;
  /**
   * What the engine opened that determines its answers besides its config, once started: an
   * index's checksum, a model's files (`filesIdentity`). A shared cache store (`cache_kv_url`)
   * keys the service's entries by it, with the engine and its config, so a changed index or
   * model never answers from the old one's entries while replicas of one configuration share.
   * Leave it out when the config says it all (an API's URL and model name).
   */
  cacheIdentity?(): string | undefined | Promise<string | undefined>;
}

/** An engine class as registered by name. */
export interface EngineClass {
  new (init: EngineInit): Engine;
  readonly name: string;
  readonly inputKind?: InputKind;
  /**
   * The schema of the service's `config` object. The config file's JSON Schema
   * (`irserve --print_config_schema`) uses it for services of this engine, and services are
   * checked against it at start-up; the engine parses its config with the same schema.
   */
  readonly configSchema?: z.ZodType;
  /**
   * The models a service of this engine names in its `config` (each a path or a Hugging Face
   * Hub id), so that `irserve pull <config.json>` fetches them ahead of serving. Throws on a
   * config the engine refuses (as its constructor would).
   */
  readonly models?: (config: Record<string, unknown>) => ModelRequest[];
}

/** Roles an engine class can serve: exactly those whose batch method it defines. */
export function rolesOf(engineClass: EngineClass): Role[] {
  const proto = engineClass.prototype as Record<string, unknown>;
  return ROLES.filter((role) => typeof proto[ROLE_METHOD[role]] === 'function');
}

/** Roles and extra capabilities an engine class can serve: those whose batch method it defines. */
export function capabilitiesOf(engineClass: EngineClass): Capability[] {
  const proto = engineClass.prototype as Record<string, unknown>;
  const extras = EXTRA_CAPABILITIES.filter(
    (capability) => typeof proto[CAPABILITY_METHOD[capability]] === 'function',
  );
  return [...rolesOf(engineClass), ...extras];
}

/** The `can*` getter of each capability (BaseEngine's, or an engine's own). */
const CAPABILITY_GETTER = {
  search: 'canSearch',
  score: 'canScore',
  fuse: 'canFuse',
  decompose_query: 'canDecomposeQuery',
  embed: 'canEmbed',
  embed_sparse: 'canEmbedSparse',
} as const satisfies Record<Capability, string>;

/**
 * Whether an engine instance serves a capability its class has the method of: yes unless its
 * `can*` getter says false, as an engine does whose config leaves it without what the method
 * needs (an `LSR` service without an encoder cannot embed or score texts).
 */
export function instanceServes(engine: Engine, capability: Capability): boolean {
  return (engine as Partial<Record<string, unknown>>)[CAPABILITY_GETTER[capability]] !== false;
}

/**
 * Whether `value` looks like an engine class: a constructor with at least one role method or
 * `embedBatch` / `embedSparseBatch`.
 */
export function isEngineClass(value: unknown): value is EngineClass {
  if (typeof value !== 'function' || !value.prototype) return false;
  return capabilitiesOf(value as EngineClass).length > 0;
}

/**
 * Base class for engines. Extending it is optional; it adds the `can*` getters of the contract,
 * true when the matching batch method exists. An engine overrides one to say false when its
 * config leaves it unable to serve that capability: the service is then not registered for it
 * (`instanceServes`).
 */
export abstract class BaseEngine {
  readonly name: string;
  readonly config: Record<string, unknown>;
  readonly context: EngineContext;

  constructor(init: EngineInit) {
    this.name = init.name;
    this.config = init.config;
    this.context = init.context;
  }

  get canSearch(): boolean {
    return typeof (this as Engine).searchBatch === 'function';
  }
  get canScore(): boolean {
    return typeof (this as Engine).scoreBatch === 'function';
  }
  get canFuse(): boolean {
    return typeof (this as Engine).fuseBatch === 'function';
  }
  get canDecomposeQuery(): boolean {
    return typeof (this as Engine).decomposeQueryBatch === 'function';
  }
  get canEmbed(): boolean {
    return typeof (this as Engine).embedBatch === 'function';
  }
  get canEmbedSparse(): boolean {
    return typeof (this as Engine).embedSparseBatch === 'function';
  }
}

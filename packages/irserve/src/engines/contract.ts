/**
 * The engine contract that plugin authors write against (DESIGN.md section 3).
 *
 * An engine is a class; its capabilities are the batch methods it defines. Engines receive one
 * request object per item, so every extra request field reaches them.
 */
import type { Logger } from 'pino';
import type { CollectionCatalog } from '../collections/types.js';

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
}

export interface EngineInit {
  /** The service name from the config. */
  name: string;
  /** The service's engine-specific `config` object. */
  config: Record<string, unknown>;
  context: EngineContext;
}

/** An engine instance: any subset of the role methods, plus optional lifecycle hooks. */
export interface Engine {
  searchBatch?(requests: SearchRequest[]): Promise<Scores[]>;
  scoreBatch?(requests: ScoreRequest[]): Promise<number[][]>;
  fuseBatch?(requests: FuseRequest[]): Promise<Scores[]>;
  decomposeQueryBatch?(requests: DecomposeRequest[]): Promise<string[][]>;
  /** Called once before the server accepts requests (load models, build indexes). */
  start?(): Promise<void>;
  /** Called once when the app closes. */
  close?(): Promise<void>;
}

/** An engine class as registered by name. */
export interface EngineClass {
  new (init: EngineInit): Engine;
  readonly name: string;
  readonly inputKind?: InputKind;
}

/** Roles an engine class can serve: exactly those whose batch method it defines. */
export function rolesOf(engineClass: EngineClass): Role[] {
  const proto = engineClass.prototype as Record<string, unknown>;
  return ROLES.filter((role) => typeof proto[ROLE_METHOD[role]] === 'function');
}

/** Whether `value` looks like an engine class (a constructor with at least one role method). */
export function isEngineClass(value: unknown): value is EngineClass {
  if (typeof value !== 'function' || !value.prototype) return false;
  return rolesOf(value as EngineClass).length > 0;
}

/**
 * Base class for engines. Extending it is optional; it adds the `can*` getters of the contract,
 * true exactly when the matching batch method exists.
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
}

/**
 * What the rest of irserve sees of collections: named collections with typed views.
 * Readers (JSONL offset maps, tar shards, gzip shards, local files) sit behind these interfaces.
 */

import type { Abortable } from '../util/abort-scope.js';

export type ViewKind = 'text' | 'bytes';

/** A document of a text view. */
export interface TextDocument {
  id: string;
  text: string;
  title?: string;
  language?: string;
}

/** One binary part of a bytes document. */
export interface BytesPart {
  data: Uint8Array;
  mime: string;
}

/** A document of a bytes view. */
export interface BytesDocument {
  id: string;
  parts: BytesPart[];
  language?: string;
}

interface ViewBase {
  readonly name: string;
  /** Prepare the view (build or load offset maps, shard indexes). Idempotent. */
  open(): Promise<void>;
  /** Whether the view holds a document with this id. */
  has(id: string): Promise<boolean>;
  close(): Promise<void>;
}

/**
 * What a lookup may be told: `signal` aborts once nobody waits for the document (its request
 * left or timed out). Views that answer from local files ignore it; a view that asks another
 * server (a remote instance, a database) cuts its call.
 */
export interface LookupOptions {
  readonly signal?: Abortable | undefined;
}

export interface TextView extends ViewBase {
  readonly kind: 'text';
  /** The document with this id, or undefined when the view has none. */
  get(id: string, options?: LookupOptions): Promise<TextDocument | undefined>;
  /**
   * Every document in corpus order (engines that index a collection use this).
   * Optional: not every source can enumerate.
   */
  documents?(): AsyncIterable<TextDocument>;
  /**
   * A string that changes whenever the underlying data changes (for example path, size and
   * mtime of the corpus); engines key their persisted indexes on it.
   */
  fingerprint(): Promise<string>;
}

export interface BytesView extends ViewBase {
  readonly kind: 'bytes';
  get(id: string, options?: LookupOptions): Promise<BytesDocument | undefined>;
}

export type View = TextView | BytesView;

/** A collection: named views, one of which is the default. */
export interface Collection {
  readonly name: string;
  readonly defaultView: string;
  /** View name to kind, as `/avail` lists it. */
  readonly viewKinds: Readonly<Record<string, ViewKind>>;
  /** The view with this name (the default when omitted); throws ERR_COLLECTION_NOT_FOUND. */
  view(name?: string): View;
}

/** The app's collections, as engines and the pipeline see them. */
export interface CollectionCatalog {
  /** The collection with this name; throws ERR_COLLECTION_NOT_FOUND. */
  get(name: string): Collection;
  has(name: string): boolean;
  names(): string[];
}

/** A content lookup request (spec "Content lookup record"). */
export interface ContentRequest {
  collection: string;
  id: string;
  /** The view; the collection's default when omitted. */
  view?: string;
}

/** A resolved content lookup. */
export interface ContentResult {
  collection: string;
  id: string;
  view: string;
  kind: ViewKind;
  document: TextDocument | BytesDocument;
  /** True when served from the content cache. */
  cached: boolean;
}

/**
 * Content lookup behind the content processor (cache 256 entries / 600 s by default).
 * Throws ERR_COLLECTION_NOT_FOUND for an unknown collection or view and ERR_DOC_NOT_FOUND for an
 * unknown id.
 */
export interface ContentService {
  lookup(request: ContentRequest, options?: LookupOptions): Promise<ContentResult>;
  /** Builds every offset map and shard index (used by `irserve warmup` and at start-up). */
  open(): Promise<void>;
  close(): Promise<void>;
}

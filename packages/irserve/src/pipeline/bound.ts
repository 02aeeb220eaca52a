/**
 * A plan bound to one request: every call has its service, its request fields (runtime_kwargs
 * and limits) and, for rerank stages, the view to read. The executor runs this.
 */
import type { Role } from '../engines/contract.js';
import type { Service } from '../registry/types.js';
import type { StageRole } from './plan.js';

export interface BoundCall<R extends Role> {
  /** The stage label (`[alias]`, else the service name). */
  readonly label: string;
  readonly role: StageRole;
  readonly service: Service<R>;
  /** `%N`: keep the top N of the result (the first N sub-queries for an expander). */
  readonly cut: number | undefined;
  /** Fields of the engine request besides query, passages and rankings. */
  readonly fields: Readonly<Record<string, unknown>>;
}

export interface BoundSearch extends BoundCall<'search'> {
  readonly kind: 'search';
  /** `%N`, else `limit` from runtime_kwargs, else the default of `/search`. */
  readonly limit: number;
}

export interface BoundRerank extends BoundCall<'score'> {
  readonly kind: 'rerank';
  /** The view of the request's collection whose content the scorer reads. */
  readonly view: string;
}

export interface BoundGroup {
  readonly kind: 'group';
  readonly expander: BoundCall<'decompose_query'> | undefined;
  readonly branches: readonly BoundSeq[];
  readonly merger: BoundCall<'fuse'>;
}

export type BoundStage = BoundSearch | BoundRerank | BoundGroup;

export interface BoundSeq {
  readonly kind: 'seq';
  readonly stages: readonly BoundStage[];
}

export interface BoundPipeline {
  readonly root: BoundSeq;
  /** The service of the last stage (the merger when it is a group): the envelope's `service`. */
  readonly service: string;
  /** The request's collection (where rerank stages read). */
  readonly collection: string | undefined;
  /**
   * Whether another request with the same plan and collection, and no runtime_kwargs, binds to
   * this same result: true unless the request had runtime_kwargs or a rerank stage's view was
   * taken unchecked (a remote collection whose views were not known yet).
   */
  readonly reusable: boolean;
}

/** The service whose result a stage returns. */
export function lastService(seq: BoundSeq): string {
  const last = seq.stages[seq.stages.length - 1];
  if (!last) return '';
  switch (last.kind) {
    case 'search':
    case 'rerank':
      return last.service.name;
    case 'group':
      return last.merger.service.name;
  }
}

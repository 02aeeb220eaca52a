import type {
  BytesDocument,
  ContentResult,
  ContentService,
  TextDocument,
} from '../collections/types.js';
import type { Passage } from '../engines/contract.js';
import { IrserveError } from '../errors.js';
import { deadlineSignal } from '../util/deadline.js';
import { raceAbort, type Abortable } from '../util/abort-scope.js';
import type { CallOptions } from '../registry/types.js';
import type { BoundRerank } from './bound.js';
import { planError } from './plan-error.js';

/** How many missing ids an error lists (the count is always given). */
const LISTED_MISSING = 20;

/**
 * The passage a scorer gets for a document. Text views give the document text alone, as
 * RoutIR does (a view that should include the title declares it among its fields); bytes views
 * give the list of their parts' bytes.
 */
export function passageOf(result: ContentResult): Passage {
  switch (result.kind) {
    case 'text':
      return (result.document as TextDocument).text;
    case 'bytes':
      return (result.document as BytesDocument).parts.map((part) => part.data);
  }
}

/** Where rerank stages get their passages: a collection, or the request itself (`rerank`). */
export interface PassageSource {
  /** The passages of `ids` for a rerank stage, in the order of `ids`. */
  passages(stage: BoundRerank, ids: readonly string[]): Promise<Passage[]>;
}

/**
 * Passages given inline by the request (a rerank API call): document ids are their positions
 * in `texts`. Only text scorers can read them.
 */
export class InlinePassages implements PassageSource {
  constructor(private readonly texts: readonly string[]) {}

  async passages(stage: BoundRerank, ids: readonly string[]): Promise<Passage[]> {
    if (stage.service.inputKind !== 'text')
      throw planError(
        `stage '${stage.label}': score service '${stage.service.name}' takes ${stage.service.inputKind} passages, and inline documents are text`,
      );
    return ids.map((id) => this.texts[Number(id)] ?? '');
  }
}

/**
 * Fetches rerank passages for one pipeline run through the request's collection. Each
 * (view, id) is looked up once per run, and concurrent branches share a lookup in flight, so
 * `{a, b}M >> r` and `x >> {r1, r2}M` fetch every document once.
 */
export class ContentFetcher implements PassageSource {
  readonly #content: ContentService;
  readonly #collection: string;
  readonly #call: Pick<CallOptions, 'signal' | 'deadline'>;
  readonly #pending = new Map<string, Promise<Passage | undefined>>();

  /** `call`: the request's deadline and signal, which bound the wait for slow lookups too. */
  constructor(
    content: ContentService,
    collection: string,
    call: Pick<CallOptions, 'signal' | 'deadline'> = {},
  ) {
    this.#content = content;
    this.#collection = collection;
    this.#call = call;
  }

  /**
   * The passages of `ids` for a rerank stage, in the order of `ids`. Ids the collection lacks
   * fail the stage with ERR_DOC_NOT_FOUND (400) listing them; a request whose deadline passes
   * (or whose client goes away) while lookups are pending fails with ERR_TIMEOUT (or its reason).
   */
  async passages(stage: BoundRerank, ids: readonly string[]): Promise<Passage[]> {
    const { signal, dispose } = deadlineSignal(
      this.#call.deadline,
      this.#call.signal,
      `fetching the passages of stage '${stage.label}' from collection '${this.#collection}'`,
    );
    let found: (Passage | undefined)[];
    try {
      const lookups = ids.map((id) => this.#lookup(stage.view, id, signal));
      found = await raceAbort(Promise.all(lookups), signal);
    } finally {
      dispose();
    }
    const missing = ids.filter((_, index) => found[index] === undefined);
    if (missing.length > 0) throw this.#missing(stage, missing);
    const passages = found as Passage[];
    const wantBytes = stage.service.inputKind === 'bytes';
    if (passages.some((passage) => Array.isArray(passage) !== wantBytes))
      throw planError(
        `stage '${stage.label}': view '${stage.view}' of collection '${this.#collection}' does not give ${stage.service.inputKind} passages, which score service '${stage.service.name}' takes`,
      );
    return passages;
  }

  #lookup(view: string, id: string, signal: Abortable | undefined): Promise<Passage | undefined> {
    const key = `${view}\u0000${id}`;
    let pending = this.#pending.get(key);
    if (!pending) {
      pending = this.#fetch(view, id, signal);
      this.#pending.set(key, pending);
    }
    return pending;
  }

  /** One document; `signal` (the request's, with its deadline) cuts a lookup nobody waits for. */
  async #fetch(
    view: string,
    id: string,
    signal: Abortable | undefined,
  ): Promise<Passage | undefined> {
    try {
      const request = { collection: this.#collection, id, view };
      return passageOf(await this.#content.lookup(request, signal ? { signal } : undefined));
    } catch (error) {
      if (error instanceof IrserveError && error.code === 'ERR_DOC_NOT_FOUND') return undefined;
      throw error;
    }
  }

  #missing(stage: BoundRerank, missing: readonly string[]): IrserveError {
    const listed = missing.slice(0, LISTED_MISSING).map((id) => JSON.stringify(id));
    const more =
      missing.length > LISTED_MISSING ? ` and ${missing.length - LISTED_MISSING} more` : '';
    return new IrserveError(
      'ERR_DOC_NOT_FOUND',
      `stage '${stage.label}' cannot rerank: collection '${this.#collection}' (view '${stage.view}') has no document ${listed.join(', ')}${more}`,
      {
        details: {
          stage: stage.label,
          collection: this.#collection,
          view: stage.view,
          missing: missing.slice(0, LISTED_MISSING),
          missing_count: missing.length,
        },
      },
    );
  }
}

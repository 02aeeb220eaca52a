/**
 * Decoding gRPC request messages into the JSON bodies the core validates, and encoding the core's
 * envelopes as response messages. Field names follow `proto/routir.proto`.
 */
import type { BytesDocument, ContentResult, TextDocument } from '../../collections/types.js';
import { badRequest } from '../../errors.js';
import { fromStruct, type Struct } from './struct.js';

interface Envelope {
  query?: unknown;
  service?: unknown;
  cached?: unknown;
  timestamp?: unknown;
}

export interface PassageMessage {
  value?: 'text' | 'bytes';
  text?: string;
  bytes?: { parts?: Uint8Array[] };
}

type Message = Record<string, unknown>;

/** Optional proto3 fields are absent when unset (loader option `defaults` skips oneof members). */
function optional(message: Message, ...keys: string[]): Message {
  const out: Message = {};
  for (const key of keys) if (message[key] !== undefined) out[key] = message[key];
  return out;
}

/** The fields every request has, with `extras` merged underneath: named fields win. */
function base(message: Message): Message {
  return {
    ...fromStruct(message.extras as Struct | undefined),
    service: message.service,
    query: message.query,
  };
}

export function searchBody(message: Message): Message {
  return { ...base(message), ...optional(message, 'limit', 'subset', 'instruction') };
}

/**
 * Score passages in the core's JSON shape: text stays text, a bytes passage becomes a list of
 * base64 parts (the shape REST `/score` takes), so one validation covers both transports.
 */
export function scoreBody(message: Message): Message {
  const passages = ((message.passages ?? []) as PassageMessage[]).map((passage, index) => {
    if (passage.value === 'text') return passage.text ?? '';
    if (passage.value === 'bytes')
      return (passage.bytes?.parts ?? []).map((part) => Buffer.from(part).toString('base64'));
    throw badRequest(`passages[${index}]: no value set (set text or bytes)`, {
      fields: [`passages[${index}]`],
    });
  });
  return { ...base(message), ...optional(message, 'prompt'), passages };
}

export function fuseBody(message: Message): Message {
  const rankings = (message.scores ?? []) as { scores?: Record<string, number> }[];
  return { ...base(message), scores: rankings.map((ranking) => ranking.scores ?? {}) };
}

export function decomposeBody(message: Message): Message {
  return { ...base(message), ...optional(message, 'limit') };
}

export function pipelineBody(message: Message): Message {
  const kwargs = (message.runtime_kwargs ?? {}) as Record<string, Struct>;
  const runtime = Object.fromEntries(
    Object.entries(kwargs).map(([alias, struct]) => [alias, fromStruct(struct)]),
  );
  return {
    pipeline: message.pipeline,
    query: message.query,
    ...optional(message, 'collection'),
    ...(Object.keys(runtime).length > 0 ? { runtime_kwargs: runtime } : {}),
  };
}

/** The envelope fields every response message has. */
function envelopeFields(envelope: Envelope): Message {
  return {
    query: envelope.query,
    service: envelope.service,
    cached: envelope.cached === true,
    timestamp: typeof envelope.timestamp === 'number' ? envelope.timestamp : Date.now() / 1000,
  };
}

/** Search and Fuse responses: `scores` as a map. */
export function scoresResponse(envelope: Message): Message {
  return { ...envelopeFields(envelope), scores: envelope.scores };
}

export function scoreResponse(envelope: Message): Message {
  const scores = envelope.scores as number[];
  return { ...envelopeFields(envelope), scores, meta: { n_passages: scores.length } };
}

export function decomposeResponse(envelope: Message): Message {
  return { ...envelopeFields(envelope), queries: envelope.queries };
}

export function pipelineResponse(envelope: Message): Message {
  const expanded = envelope.expanded_queries;
  return {
    query: envelope.query,
    scores: envelope.scores,
    expanded_queries: Array.isArray(expanded) ? expanded : [],
    cached: envelope.cached === true,
    timestamp: typeof envelope.timestamp === 'number' ? envelope.timestamp : Date.now() / 1000,
    ...optional(envelope, 'service', 'collection', 'pipeline'),
  };
}

/** A content lookup as a ContentResponse: `text` for text views, `data` parts for bytes views. */
export function contentResponse(result: ContentResult): Message {
  const common: Message = {
    collection: result.collection,
    id: result.id,
    view: result.view,
    kind: result.kind,
    cached: result.cached,
    timestamp: Date.now() / 1000,
  };
  if (result.kind === 'text') {
    const doc = result.document as TextDocument;
    return {
      ...common,
      text: doc.text,
      ...optional(doc as unknown as Message, 'title', 'language'),
    };
  }
  const doc = result.document as BytesDocument;
  return {
    ...common,
    data: { parts: doc.parts.map((part) => part.data) },
    mimes: doc.parts.map((part) => part.mime),
    ...optional(doc as unknown as Message, 'language'),
  };
}

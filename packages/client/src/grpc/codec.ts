/**
 * Request objects (the same ones the HTTP client sends) to gRPC messages, and response
 * messages back to the HTTP responses' shapes, so code written against one transport reads the
 * other's answers unchanged.
 */
import { toStruct } from './struct.js';

type Message = Record<string, unknown>;

/** Named fields of the right type become message fields; the rest travel in `extras`. */
function split(body: Message, named: Record<string, 'string' | 'number'>, skip: string[]) {
  const message: Message = {};
  const extras: Message = {};
  for (const [key, value] of Object.entries(body)) {
    if (skip.includes(key)) continue;
    if (named[key] !== undefined && typeof value === named[key]) message[key] = value;
    else if (value !== undefined) extras[key] = value;
  }
  return { ...message, extras: toStruct(extras) };
}

function decodeBase64(text: string): Uint8Array {
  const binary = atob(text);
  const bytes = new Uint8Array(binary.length);
  for (let i = 0; i < binary.length; i += 1) bytes[i] = binary.charCodeAt(i);
  return bytes;
}

function passage(value: unknown): Message {
  if (typeof value === 'string') return { text: value };
  const parts = (value as (string | Uint8Array)[]).map((part) =>
    typeof part === 'string' ? decodeBase64(part) : part,
  );
  return { bytes: { parts } };
}

const S = 'string' as const;
const N = 'number' as const;

/** The request message of `rpc` for a request object. */
export function requestMessage(rpc: string, body: Message): Message {
  switch (rpc) {
    case 'Search':
      return split(body, { service: S, query: S, limit: N, subset: S, instruction: S }, []);
    case 'Score':
      return {
        ...split(body, { service: S, query: S, prompt: S }, ['passages']),
        passages: ((body.passages ?? []) as unknown[]).map(passage),
      };
    case 'Fuse':
      return {
        ...split(body, { service: S, query: S }, ['scores']),
        scores: ((body.scores ?? []) as Record<string, number>[]).map((scores) => ({ scores })),
      };
    case 'DecomposeQuery':
      return split(body, { service: S, query: S, limit: N }, []);
    case 'Pipeline': {
      const kwargs = (body.runtime_kwargs ?? {}) as Record<string, Message>;
      return {
        pipeline: body.pipeline,
        query: body.query,
        ...(typeof body.collection === 'string' ? { collection: body.collection } : {}),
        runtime_kwargs: Object.fromEntries(
          Object.entries(kwargs).map(([alias, fields]) => [alias, toStruct(fields)]),
        ),
      };
    }
    case 'Content':
      return {
        collection: body.collection,
        id: String(body.id),
        ...(typeof body.view === 'string' ? { view: body.view } : {}),
      };
    default:
      return {};
  }
}

function encodeBase64(bytes: Uint8Array): string {
  let binary = '';
  for (const byte of bytes) binary += String.fromCharCode(byte);
  return btoa(binary);
}

function avail(message: Message): Message {
  const services = (message.services ?? {}) as Record<string, { items?: string[] }>;
  const views = (message.content_views ?? {}) as Record<
    string,
    { views?: Record<string, string>; default?: string }
  >;
  return {
    search: services.search?.items ?? [],
    score: services.score?.items ?? [],
    fuse: services.fuse?.items ?? [],
    decompose_query: services.decompose_query?.items ?? [],
    collection: Object.fromEntries(
      Object.entries(views).map(([name, entry]) => [
        name,
        { views: { ...entry.views }, default: entry.default ?? null },
      ]),
    ),
    content: Object.keys(views),
    score_view_kinds: message.score_view_kinds ?? {},
    pipeline_aliases: message.pipeline_aliases ?? {},
    ...(typeof message.grpc_port === 'number' ? { grpc_port: message.grpc_port } : {}),
  };
}

function content(message: Message): Message {
  const { content: which, data, mimes, text, timestamp: _t, ...rest } = message;
  if (which !== 'data') return { ...rest, kind: rest.kind ?? 'text', text };
  const parts = ((data as { parts?: Uint8Array[] } | undefined)?.parts ?? []).map((part, i) => ({
    data: encodeBase64(part),
    mime: (mimes as string[] | undefined)?.[i] ?? 'application/octet-stream',
  }));
  return { ...rest, kind: rest.kind ?? 'bytes', data: parts };
}

/** A response message in the shape of the HTTP answer to the same call. */
export function responseJson(rpc: string, decoded: Message): Message {
  const message: Message = {};
  // proto-loader names the synthetic oneofs of proto3 optional fields `_view`, `_title`, ...
  for (const [key, value] of Object.entries(decoded))
    if (!key.startsWith('_')) message[key] = value;
  switch (rpc) {
    case 'Avail':
      return avail(message);
    case 'Content':
      return content(message);
    case 'Ping':
      return message;
    case 'Pipeline': {
      const { expanded_queries: expanded, ...rest } = message;
      const list =
        Array.isArray(expanded) && expanded.length > 0 ? { expanded_queries: expanded } : {};
      return { ...rest, ...list, processed: true };
    }
    default:
      return { ...message, processed: true };
  }
}

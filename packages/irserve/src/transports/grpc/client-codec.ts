/**
 * The client side of the wire: REST-shaped JSON bodies (what relays build for `/search`,
 * `/score`, ...) to request messages, and response messages back to REST-shaped JSON, so a relay
 * reads the same answer whichever transport carried it.
 */
import { toStruct } from './struct.js';

type Message = Record<string, unknown>;

/** Path to RPC name. */
export const RPC_OF_PATH: Record<string, string> = {
  '/ping': 'Ping',
  '/avail': 'Avail',
  '/search': 'Search',
  '/query': 'Search',
  '/score': 'Score',
  '/fuse': 'Fuse',
  '/decompose_query': 'DecomposeQuery',
  '/content': 'Content',
  '/pipeline': 'Pipeline',
};

/** Named fields of the right type become message fields; the rest go to `extras`. */
function split(body: Message, named: Record<string, 'string' | 'number'>): Message {
  const message: Message = {};
  const extras: Message = {};
  for (const [key, value] of Object.entries(body)) {
    const type = named[key];
    if (type !== undefined && typeof value === type) message[key] = value;
    else if (key !== 'passages' && key !== 'scores' && value !== undefined) extras[key] = value;
  }
  return { ...message, extras: toStruct(extras) };
}

function passageMessage(passage: unknown): Message {
  if (typeof passage === 'string') return { text: passage };
  const parts = (passage as (string | Uint8Array)[]).map((part) =>
    typeof part === 'string' ? Buffer.from(part, 'base64') : part,
  );
  return { bytes: { parts } };
}

const S = 'string' as const;
const N = 'number' as const;

/** The request message of an RPC from a REST-shaped body. */
export function requestMessage(rpc: string, body: Message): Message {
  switch (rpc) {
    case 'Search':
      return split(body, { service: S, query: S, limit: N, subset: S, instruction: S });
    case 'Score':
      return {
        ...split(body, { service: S, query: S, prompt: S }),
        passages: ((body.passages ?? []) as unknown[]).map(passageMessage),
      };
    case 'Fuse':
      return {
        ...split(body, { service: S, query: S }),
        scores: ((body.scores ?? []) as Record<string, number>[]).map((scores) => ({ scores })),
      };
    case 'DecomposeQuery':
      return split(body, { service: S, query: S, limit: N });
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
    default:
      return body;
  }
}

function availJson(message: Message): Message {
  const services = (message.services ?? {}) as Record<string, { items?: string[] }>;
  const views = (message.content_views ?? {}) as Record<
    string,
    { views?: Record<string, string>; default?: string }
  >;
  const collection = Object.fromEntries(
    Object.entries(views).map(([name, entry]) => [
      name,
      { views: { ...entry.views }, default: entry.default ?? null },
    ]),
  );
  return {
    search: services.search?.items ?? [],
    score: services.score?.items ?? [],
    fuse: services.fuse?.items ?? [],
    decompose_query: services.decompose_query?.items ?? [],
    collection,
    score_view_kinds: message.score_view_kinds ?? {},
    pipeline_aliases: message.pipeline_aliases ?? {},
    ...(typeof message.grpc_port === 'number' ? { grpc_port: message.grpc_port } : {}),
  };
}

function contentJson(message: Message): Message {
  const { content, data, mimes, text, ...rest } = message;
  if (content !== 'data') return { ...rest, kind: rest.kind ?? 'text', text };
  const parts = ((data as { parts?: Uint8Array[] } | undefined)?.parts ?? []).map((part, i) => ({
    data: Buffer.from(part).toString('base64'),
    mime: (mimes as string[] | undefined)?.[i] ?? 'application/octet-stream',
  }));
  return { ...rest, kind: rest.kind ?? 'bytes', data: parts };
}

/** The message without proto-loader's names of proto3 optional fields' oneofs (`_view`, ...). */
function withoutSyntheticOneofs(message: Message): Message {
  const out: Message = {};
  for (const [key, value] of Object.entries(message)) if (!key.startsWith('_')) out[key] = value;
  return out;
}

/** A response message as the REST answer of the same call. */
export function responseJson(rpc: string, decoded: Message): Message {
  const message = withoutSyntheticOneofs(decoded);
  switch (rpc) {
    case 'Avail':
      return availJson(message);
    case 'Content':
      return contentJson(message);
    case 'Pipeline': {
      const { expanded_queries: expanded, ...rest } = message;
      // REST leaves out an empty expanded_queries; so does RoutIR's gRPC client.
      const list =
        Array.isArray(expanded) && expanded.length > 0 ? { expanded_queries: expanded } : {};
      return { ...rest, ...list, processed: true };
    }
    case 'Ping':
      return message;
    default:
      return { ...message, processed: true };
  }
}

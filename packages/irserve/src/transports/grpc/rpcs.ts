/**
 * The RPCs of `routir.v1.Routir`: each decodes its message, calls the transport-neutral core
 * (the same functions the HTTP routes call), and encodes the envelope. No logic of its own.
 */
import type { AppCore } from '../../core/app-core.js';
import { contentRequestSchema } from '../../core/content.js';
import { avail, decomposeQuery, fuse, score, search } from '../../core/handlers.js';
import { parseRequest } from '../../core/validate.js';
import type { CallOptions } from '../../registry/types.js';
import { availResponse } from './avail.js';
import {
  contentResponse,
  decomposeBody,
  decomposeResponse,
  fuseBody,
  pipelineBody,
  pipelineResponse,
  scoreBody,
  scoreResponse,
  scoresResponse,
  searchBody,
} from './messages.js';

type Message = Record<string, unknown>;

/** What one RPC gets besides its message. */
export interface RpcContext {
  options: CallOptions & { requestId: string };
  /** The port this gRPC server listens on (for Avail). */
  grpcPort: number;
}

export type Rpc = (core: AppCore, message: Message, context: RpcContext) => Promise<Message>;

export const RPCS = {
  Ping: async () => ({ status: 'pong' }),
  Avail: async (core, _message, { grpcPort }) => availResponse(avail(core), grpcPort),
  Search: async (core, message, { options }) =>
    scoresResponse(await search(core, searchBody(message), options)),
  Score: async (core, message, { options }) =>
    scoreResponse(await score(core, scoreBody(message), options)),
  Fuse: async (core, message, { options }) =>
    scoresResponse(await fuse(core, fuseBody(message), options)),
  DecomposeQuery: async (core, message, { options }) =>
    decomposeResponse(await decomposeQuery(core, decomposeBody(message), options)),
  Content: async (core, message) => {
    // Validated like REST `/content`, then looked up directly: bytes stay bytes (no base64).
    const request = parseRequest(contentRequestSchema, {
      collection: message.collection,
      id: message.id,
      ...(message.view !== undefined ? { view: message.view } : {}),
    });
    const result = await core.content.lookup({
      collection: request.collection,
      id: request.id,
      ...(request.view ? { view: request.view } : {}),
    });
    return contentResponse(result);
  },
  Pipeline: async (core, message, { options }) =>
    pipelineResponse(
      await core.pipelines.run(pipelineBody(message), {
        requestId: options.requestId,
        ...(options.signal ? { signal: options.signal } : {}),
        ...(options.deadline !== undefined ? { deadline: options.deadline } : {}),
      }),
    ),
} satisfies Record<string, Rpc>;

export type RpcName = keyof typeof RPCS;

/** The only RPC that needs no credentials (liveness probes), as `/ping` over HTTP. */
export const OPEN_RPCS: ReadonlySet<string> = new Set<RpcName>(['Ping']);

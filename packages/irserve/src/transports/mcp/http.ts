/**
 * MCP over Streamable HTTP at `/mcp`, stateless: each POST gets a fresh server and transport
 * (no session to lose when the process restarts or sits behind a load balancer). Bearer auth
 * is the server's own hook; the origin check guards against DNS rebinding.
 */
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import type { FastifyInstance } from 'fastify';
import type { McpConfig } from '../../config/mcp-schema.js';
import type { AppCore } from '../../core/app-core.js';
import { checkOrigin } from './origin.js';
import { createMcpServer, type McpOptions } from './server.js';

/** Registers `POST /mcp` (and GET/DELETE, which a stateless server answers with 405). */
export function mcpRoutes(
  server: FastifyInstance,
  core: AppCore,
  config: Pick<McpConfig, 'allowed_origins' | 'allowed_hosts'>,
  options: McpOptions = {},
): void {
  server.route({
    method: ['GET', 'POST', 'DELETE'],
    url: '/mcp',
    handler: async (request, reply) => {
      checkOrigin({ origin: request.headers.origin, host: request.headers.host }, config);
      const mcp = createMcpServer(core, options);
      const transport = new StreamableHTTPServerTransport({
        sessionIdGenerator: undefined,
        enableJsonResponse: true,
      });
      reply.raw.setHeader('x-request-id', request.id);
      reply.hijack();
      reply.raw.on('close', () => {
        void transport.close();
        void mcp.close();
      });
      await mcp.connect(transport);
      await transport.handleRequest(request.raw, reply.raw, request.body);
    },
  });
}

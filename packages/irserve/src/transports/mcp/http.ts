/**
 * MCP over Streamable HTTP at `/mcp`, stateless: each POST gets a fresh server and transport
 * (no session to lose when the process restarts or sits behind a load balancer). Bearer auth
 * is the server's own hook; the origin check guards against DNS rebinding.
 */
import type { FastifyInstance } from 'fastify';
import type { McpConfig } from '../../config/mcp-schema.js';
import type { AppCore } from '../../core/app-core.js';
import { checkOrigin } from './origin.js';
import type { McpOptions } from './server.js';

/** The SDK's modules, loaded on the first `/mcp` request: start-up does not pay for them. */
async function loadSdk() {
  const [{ StreamableHTTPServerTransport }, { createMcpServer }] = await Promise.all([
    import('@modelcontextprotocol/sdk/server/streamableHttp.js'),
    import('./server.js'),
  ]);
  return { StreamableHTTPServerTransport, createMcpServer };
}

/** Registers `POST /mcp`, and GET/DELETE answered with 405 (a stateless server). */
export function mcpRoutes(
  server: FastifyInstance,
  core: AppCore,
  config: Pick<McpConfig, 'allowed_origins' | 'allowed_hosts'>,
  options: McpOptions = {},
): void {
  let sdk: ReturnType<typeof loadSdk> | undefined;
  // Stateless: no server-initiated stream to GET, no session to DELETE (as the SDK's example).
  server.route({
    method: ['GET', 'DELETE'],
    url: '/mcp',
    handler: async (request, reply) => {
      checkOrigin({ origin: request.headers.origin, host: request.headers.host }, config);
      return reply
        .code(405)
        .header('allow', 'POST')
        .send({
          jsonrpc: '2.0',
          error: {
            code: -32000,
            message: 'Method not allowed: this MCP endpoint is stateless; POST each message',
          },
          id: null,
        });
    },
  });
  server.route({
    method: 'POST',
    url: '/mcp',
    handler: async (request, reply) => {
      checkOrigin({ origin: request.headers.origin, host: request.headers.host }, config);
      const { StreamableHTTPServerTransport, createMcpServer } = await (sdk ??= loadSdk());
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

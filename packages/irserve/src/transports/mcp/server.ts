/**
 * The MCP server of an app: read-only tools over the core (docs/mcp.md). One per connection
 * (stdio) or per request (Streamable HTTP, stateless); tool descriptions list the services of
 * the moment, so imported services appear once their remote answers.
 */
import { readFileSync } from 'node:fs';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import type { AppCore } from '../../core/app-core.js';
import { registerCatalogTools, type Descriptions } from './tools-catalog.js';
import { registerRetrievalTools } from './tools-retrieval.js';

export interface McpOptions {
  /** Service descriptions from the config, by service name. */
  descriptions?: Descriptions;
  /** The irserve version the server reports. */
  version?: string;
}

/**
 * A new MCP server over `core`; connect it to a transport.
 *
 * @example
 * const mcp = createMcpServer(app.core, { version: '0.1.0' });
 * await mcp.connect(new StdioServerTransport());
 */
export function createMcpServer(core: AppCore, options: McpOptions = {}): McpServer {
  const mcp = new McpServer(
    { name: 'irserve', version: options.version ?? packageVersion() },
    {
      capabilities: { tools: {} },
      instructions:
        'irserve is a retrieval server. Call list_services first, then search or run_pipeline; get_document reads a result.',
    },
  );
  registerCatalogTools(mcp, core, options.descriptions ?? {});
  registerRetrievalTools(mcp, core);
  return mcp;
}

/** irserve's version (the same relative path from `src/` and `dist/`). */
function packageVersion(): string {
  try {
    const url = new URL('../../../package.json', import.meta.url);
    return (JSON.parse(readFileSync(url, 'utf8')) as { version: string }).version;
  } catch {
    return '0.0.0';
  }
}

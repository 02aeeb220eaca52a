import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import { pino } from '../prebundled/pino.js';
import { createAppFromFile } from '../app/from-file.js';
import { serviceDescriptions } from '../app/assemble.js';
import { createMcpServer } from '../transports/mcp/server.js';
import type { CommandRun } from './command-run.js';
import type { MCP } from './usage.js';

/**
 * `irserve mcp <config.json> [--log_level warn]`: the config's services as an MCP server over
 * stdio (what Claude Desktop and other MCP clients launch). stdout carries the protocol, so
 * logs go to stderr. Runs until the client closes stdin or a signal arrives.
 *
 * @example
 * // claude_desktop_config.json: {"mcpServers": {"irserve": {"command": "npx", "args": ["irserve", "mcp", "/path/config.json"]}}}
 */
export const mcpCommand: CommandRun<typeof MCP.flags> = async ({ flags, positionals }) => {
  const logger = pino({ level: flags.log_level }, pino.destination(2));
  const app = await createAppFromFile(positionals[0]!, { logger, interactive: false });
  try {
    await app.start();
    const mcp = createMcpServer(app.core, { descriptions: serviceDescriptions(app.config) });
    const transport = new StdioServerTransport();
    const closed = new Promise<void>((resolve) => {
      transport.onclose = resolve;
      process.stdin.once('end', resolve);
      process.once('SIGINT', resolve);
      process.once('SIGTERM', resolve);
    });
    await mcp.connect(transport);
    logger.info('irserve MCP server on stdio');
    await closed;
    await mcp.close();
    return 0;
  } finally {
    await app.close();
  }
};

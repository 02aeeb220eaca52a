/**
 * DNS-rebinding protection for `/mcp`: a browser page on another origin must not reach a local
 * MCP server. Requests without an Origin header come from non-browser clients and pass.
 */
import type { McpConfig } from '../../config/mcp-schema.js';
import { IrserveError } from '../../errors.js';

const LOOPBACK = new Set(['localhost', '127.0.0.1', '[::1]', '::1']);

function hostnameOf(value: string): string | undefined {
  try {
    return new URL(value).hostname;
  } catch {
    return undefined;
  }
}

/**
 * Throws ERR_FORBIDDEN when `origin` (or `host`, when `allowed_hosts` is set) is not allowed.
 *
 * @example
 * checkOrigin({ origin: 'http://evil.example', host: 'localhost:8000' }, config) // throws
 */
export function checkOrigin(
  headers: { origin?: string | undefined; host?: string | undefined },
  config: Pick<McpConfig, 'allowed_origins' | 'allowed_hosts'>,
): void {
  const { origin, host } = headers;
  if (origin !== undefined && origin !== '') {
    const hostname = hostnameOf(origin);
    const allowed =
      config.allowed_origins.includes(origin) ||
      config.allowed_origins.includes('*') ||
      (hostname !== undefined && LOOPBACK.has(hostname));
    if (!allowed)
      throw new IrserveError(
        'ERR_FORBIDDEN',
        `origin ${origin} may not call /mcp; add it to mcp.allowed_origins`,
      );
  }
  if (config.allowed_hosts.length > 0) {
    const hostname = host === undefined ? undefined : hostnameOf(`http://${host}`);
    if (hostname === undefined || !config.allowed_hosts.includes(hostname))
      throw new IrserveError(
        'ERR_FORBIDDEN',
        `host ${host ?? '(none)'} is not in mcp.allowed_hosts`,
      );
  }
}

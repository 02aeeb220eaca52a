import { z } from '../prebundled/zod.js';

/** The `mcp` section: the Model Context Protocol endpoint `/mcp` (docs/mcp.md). */
export const mcpConfigSchema = z.strictObject({
  enabled: z
    .boolean()
    .default(true)
    .describe(
      'Serve `/mcp` on the HTTP port (default true; `irserve mcp` over stdio works either way).',
    ),
  /**
   * Browser origins allowed to call `/mcp` besides loopback ones (`http://localhost:*`,
   * `http://127.0.0.1:*`, `http://[::1]:*`); requests without an Origin header (non-browser
   * clients) are always allowed. Guards against DNS rebinding.
   */
  allowed_origins: z
    .array(z.string().min(1))
    .default([])
    .describe(
      'Browser origins allowed to call /mcp besides loopback ones; requests without an Origin header are always allowed (guards against DNS rebinding).',
    ),
  allowed_hosts: z
    .array(z.string().min(1))
    .default([])
    .describe(
      "When non-empty, the Host header's hostname must be one of these (DNS rebinding, behind proxies).",
    ),
});

export type McpConfig = z.output<typeof mcpConfigSchema>;

import { z } from 'zod';

/** The `mcp` section: the Model Context Protocol endpoint `/mcp` (docs/mcp.md). */
export const mcpConfigSchema = z.strictObject({
  /** Serve `/mcp` on the HTTP port (default true; `irserve mcp` over stdio works either way). */
  enabled: z.boolean().default(true),
  /**
   * Browser origins allowed to call `/mcp` besides loopback ones (`http://localhost:*`,
   * `http://127.0.0.1:*`, `http://[::1]:*`); requests without an Origin header (non-browser
   * clients) are always allowed. Guards against DNS rebinding.
   */
  allowed_origins: z.array(z.string().min(1)).default([]),
  /** When non-empty, the Host header's hostname must be one of these (DNS rebinding, behind proxies). */
  allowed_hosts: z.array(z.string().min(1)).default([]),
});

export type McpConfig = z.output<typeof mcpConfigSchema>;

import { resolve } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { fixtureCopy } from './helpers.js';

const BIN = resolve(import.meta.dirname, '../../src/cli/bin.ts');
let client: Client;
let fixture: ReturnType<typeof fixtureCopy>;

beforeAll(async () => {
  fixture = fixtureCopy();
  client = new Client({ name: 'irserve-test', version: '1.0.0' });
  await client.connect(
    new StdioClientTransport({
      command: process.execPath,
      args: ['--import', 'tsx', BIN, 'mcp', fixture.configPath, '--log-level', 'error'],
      stderr: 'pipe',
    }),
  );
}, 60_000);
afterAll(async () => {
  await client?.close();
  fixture?.remove();
});

describe('irserve mcp config.json (stdio) with the SDK client', () => {
  it('reports irserve and its tools', async () => {
    expect(client.getServerVersion()?.name).toBe('irserve');
    const { tools } = await client.listTools();
    expect(tools).toHaveLength(7);
  });

  it('runs a pipeline over stdio', async () => {
    const result = await client.callTool({
      name: 'run_pipeline',
      arguments: {
        pipeline: 'bm25%10 >> overlap',
        query: 'shock wave',
        collection: 'aero',
        limit: 1,
      },
    });
    const structured = result.structuredContent as { results: { id: string; text: string }[] };
    expect(structured.results[0]).toMatchObject({
      id: 'd4',
      text: expect.stringContaining('Shock'),
    });
  });

  it('keeps stdout clean for the protocol (logs go to stderr)', async () => {
    const { structuredContent } = await client.callTool({ name: 'list_services', arguments: {} });
    expect((structuredContent as { embed: unknown[] }).embed).toHaveLength(1);
  });
});

/**
 * The client's types cannot drift from the server: they are regenerated from the OpenAPI
 * document of a server built from this checkout and compared with the committed file (and
 * docs/openapi.json with the document). The gRPC client's proto is the server's, copied by the
 * build (packages/client/scripts/copy-proto.mjs).
 */
import { readFile } from 'node:fs/promises';
import { describe, expect, it } from 'vitest';
import { createApp } from 'irserve';
import { formatted, generateTypes, type OpenApiDocument } from '../scripts/generate-types.js';
import { quietLogger } from '../../irserve/test/helpers/logger.js';

const root = new URL('../../../', import.meta.url);
const read = (path: string) => readFile(new URL(path, root), 'utf8');
const REGENERATE = 'run: npm run build && npx tsx packages/client/scripts/generate-types.ts';

async function serverDocument(): Promise<OpenApiDocument> {
  const app = await createApp({}, { logger: quietLogger(), extras: false, interactive: false });
  try {
    return (await app.http.inject({ method: 'GET', url: '/openapi.json' })).json();
  } finally {
    await app.close();
  }
}

describe('generated types', () => {
  it("match the server's OpenAPI document", async () => {
    const document = await serverDocument();
    const expected = await formatted(generateTypes(document), 'typescript');
    expect(await read('packages/client/src/generated/api.ts'), REGENERATE).toBe(expected);
    expect(JSON.parse(await read('docs/openapi.json')), REGENERATE).toEqual(document);
  });

  it("ship the server's proto file, copied by the build", async () => {
    const copy = await read('packages/client/proto/routir.proto').catch(() => undefined);
    expect(copy, 'run: npm run build (it copies irserve/proto/routir.proto)').toBe(
      await read('packages/irserve/proto/routir.proto'),
    );
  });
});

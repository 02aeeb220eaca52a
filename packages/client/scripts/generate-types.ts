/**
 * Writes `src/generated/api.ts` from irserve's OpenAPI document: one type per schema of
 * `components.schemas`, and an `Operations` map (operationId to method, path, request and
 * response types) that the client's methods are typed with. A test regenerates it from the
 * running server's document and fails on any difference, so the two cannot drift.
 *
 * Run after changing a route's schemas: `npm run build && npx tsx packages/client/scripts/generate-types.ts`
 * (reads the document from a server built from the workspace, writes docs/openapi.json too).
 */
import { declaration, type JsonSchema } from './schema-to-ts.js';

interface OpenApiOperation {
  operationId: string;
  requestBody?: { content?: Record<string, { schema?: JsonSchema }> };
  responses: Record<string, { content?: Record<string, { schema?: JsonSchema }> }>;
}

export interface OpenApiDocument {
  info: { version: string };
  components: { schemas: Record<string, JsonSchema> };
  paths: Record<string, Record<string, OpenApiOperation>>;
}

function refName(schema: JsonSchema | undefined): string {
  return typeof schema?.$ref === 'string'
    ? schema.$ref.replace('#/components/schemas/', '')
    : 'unknown';
}

function operationsMap(document: OpenApiDocument): string {
  const lines: string[] = [];
  for (const [path, operations] of Object.entries(document.paths)) {
    for (const [method, operation] of Object.entries(operations)) {
      const request = refName(operation.requestBody?.content?.['application/json']?.schema);
      const ok = operation.responses['200']?.content ?? {};
      const response = ok['application/json'] ? refName(ok['application/json'].schema) : 'Blob';
      lines.push(
        `  ${operation.operationId}: { method: '${method.toUpperCase()}'; path: '${path}'; request: ${request === 'unknown' && method === 'get' ? 'undefined' : request}; response: ${response} };`,
      );
    }
  }
  return `/** Every operation of the API by operationId. */\nexport interface Operations {\n${lines.join('\n')}\n}\n`;
}

/**
 * The TypeScript source of `src/generated/api.ts` for `document`.
 *
 * @example
 * const source = generateTypes(await (await fetch('http://127.0.0.1:8000/openapi.json')).json());
 */
export function generateTypes(document: OpenApiDocument): string {
  const header =
    '// Generated from the irserve OpenAPI document by packages/client/scripts/generate-types.ts.\n' +
    '// Do not edit: change the route schemas in packages/irserve and regenerate.\n\n' +
    `/** The API version the types were generated from. */\nexport const API_VERSION = '${document.info.version}';\n\n`;
  const schemas = Object.entries(document.components.schemas)
    .sort(([a], [b]) => a.localeCompare(b))
    .map(([name, schema]) => declaration(name, schema));
  return `${header}${schemas.join('\n')}\n${operationsMap(document)}`;
}

/** `source` formatted by the repository's Prettier settings (how it is committed). */
export async function formatted(source: string, parser: 'typescript' | 'json'): Promise<string> {
  const prettier = await import('prettier');
  const options = await prettier.resolveConfig(new URL('../../../package.json', import.meta.url));
  return prettier.format(source, { ...options, parser });
}

/** `npx tsx packages/client/scripts/generate-types.ts`: regenerates the types and docs/openapi.json. */
async function main(): Promise<void> {
  const { writeFile } = await import('node:fs/promises');
  const { createApp } = await import('irserve');
  const { pino } = await import('pino');
  const app = await createApp(
    {},
    { extras: false, interactive: false, logger: pino({ level: 'warn' }) },
  );
  try {
    const response = await app.http.inject({ method: 'GET', url: '/openapi.json' });
    const document = response.json<OpenApiDocument>();
    const root = new URL('../../../', import.meta.url);
    await writeFile(
      new URL('docs/openapi.json', root),
      await formatted(JSON.stringify(document), 'json'),
    );
    await writeFile(
      new URL('packages/client/src/generated/api.ts', root),
      await formatted(generateTypes(document), 'typescript'),
    );
  } finally {
    await app.close();
  }
}

if (import.meta.url === `file://${process.argv[1]}`) await main();

/**
 * Builds the OpenAPI 3.1 document from the routes themselves: the server's `onRoute` hook hands
 * every route to `collect`, and `document()` turns their zod schemas (the ones the handlers
 * validate with) into `components.schemas`. Nothing here lists routes by hand.
 */
import { z } from '../../../prebundled/zod.js';
import { defaultErrors, ERROR_STATUS_TEXT } from './errors-doc.js';
import type { NamedSchema, ResponseSchemas, RouteDoc } from './route-doc.js';
import { tidySchema } from '../../../util/tidy-schema.js';

/** The parts of a Fastify route the document needs. */
export interface RouteInfo {
  method: string | string[];
  url: string;
  config?: { openapi?: RouteDoc } | undefined;
}

interface Operation {
  method: string;
  path: string;
  doc: RouteDoc;
}

const SCHEMA_REF = (name: string) => `#/components/schemas/${name}`;
const DOCUMENTED_METHODS = new Set(['GET', 'POST', 'PUT', 'DELETE', 'PATCH']);

/** `/content/:collection/*` -> `/content/{collection}/{path}`. */
export function openApiPath(url: string, wildcardName = 'path'): string {
  return url.replace(/:([A-Za-z0-9_]+)/g, '{$1}').replace(/\*$/, `{${wildcardName}}`);
}

/** `POST /v1/embeddings` -> `postV1Embeddings`. */
export function defaultOperationId(method: string, url: string): string {
  const words = [method.toLowerCase(), ...url.split(/[^A-Za-z0-9]+/).filter(Boolean)];
  return words.map((word, i) => (i === 0 ? word : word[0]!.toUpperCase() + word.slice(1))).join('');
}

/** Collects routes as they are registered and renders the document on demand. */
export class OpenApiBuilder {
  readonly #operations: Operation[] = [];

  collect(route: RouteInfo): void {
    const doc = route.config?.openapi ?? {};
    if (doc.hidden) return;
    const methods = Array.isArray(route.method) ? route.method : [route.method];
    for (const method of methods) {
      if (!DOCUMENTED_METHODS.has(method)) continue;
      this.#operations.push({ method, path: openApiPath(route.url, doc.wildcardName), doc });
    }
  }

  /** The OpenAPI 3.1 document of every collected route (loads the response schemas). */
  async document(info: { title: string; version: string; description: string }) {
    const schemas: ResponseSchemas = await import('./response-schemas.js');
    const requests = z.registry<{ id: string }>();
    const responses = z.registry<{ id: string }>();
    responses.add(schemas.errorResponseSchema, { id: 'Error' });
    const paths: Record<string, Record<string, unknown>> = {};
    const seen = new Set<string>();
    for (const operation of this.#operations) {
      const built = this.#operation(operation, requests, responses, schemas);
      if (seen.has(built.operationId))
        throw new Error(`OpenAPI: operationId "${built.operationId}" is used twice`);
      seen.add(built.operationId);
      paths[operation.path] = { ...paths[operation.path], [operation.method.toLowerCase()]: built };
    }
    return {
      openapi: '3.1.0',
      info,
      components: {
        securitySchemes: { bearer: { type: 'http', scheme: 'bearer' } },
        schemas: { ...renderSchemas(requests, 'input'), ...renderSchemas(responses, 'output') },
      },
      security: [{ bearer: [] }],
      paths,
    };
  }

  #operation(
    { method, path, doc }: Operation,
    requests: z.core.$ZodRegistry<{ id: string }>,
    responses: z.core.$ZodRegistry<{ id: string }>,
    schemas: ResponseSchemas,
  ) {
    const ok = doc.response
      ? jsonContent(
          register(responses, { name: doc.response.name, schema: doc.response.schema(schemas) }),
          doc.example?.response,
        )
      : doc.rawResponse
        ? Object.fromEntries(doc.rawResponse.map((type) => [type, { schema: {} }]))
        : jsonContent({}, undefined);
    const errors = doc.errors ?? defaultErrors(method, doc.public === true);
    return {
      operationId: doc.operationId ?? defaultOperationId(method, path),
      summary: doc.summary ?? `${method} ${path}`,
      ...(doc.description ? { description: doc.description } : {}),
      ...(doc.tags ? { tags: doc.tags } : {}),
      ...(doc.deprecated ? { deprecated: true } : {}),
      ...(doc.public ? { security: [] } : {}),
      ...parameters(path, doc),
      ...(doc.body || method === 'POST'
        ? {
            requestBody: {
              required: true,
              content: jsonContent(
                doc.body ? register(requests, doc.body) : { type: 'object' },
                doc.example?.request,
              ),
            },
          }
        : {}),
      responses: {
        '200': { description: 'OK', content: ok },
        ...Object.fromEntries(
          errors.map((status) => [
            String(status),
            {
              description: ERROR_STATUS_TEXT[status] ?? 'error',
              content: jsonContent({ $ref: SCHEMA_REF('Error') }, undefined),
            },
          ]),
        ),
      },
    };
  }
}

function register(registry: z.core.$ZodRegistry<{ id: string }>, named: NamedSchema) {
  const existing = registry.get(named.schema);
  if (existing && existing.id !== named.name)
    throw new Error(`OpenAPI: one schema is named both ${existing.id} and ${named.name}`);
  if (!existing) registry.add(named.schema, { id: named.name });
  return { $ref: SCHEMA_REF(named.name) };
}

function jsonContent(schema: unknown, example: unknown) {
  return {
    'application/json': { schema, ...(example !== undefined ? { example } : {}) },
  };
}

function parameters(path: string, doc: RouteDoc) {
  const list: Record<string, unknown>[] = [];
  for (const [, name] of path.matchAll(/\{([^}]+)\}/g)) {
    list.push({
      name,
      in: 'path',
      required: true,
      schema: { type: 'string' },
      ...(doc.params?.[name!] ? { description: doc.params[name!] } : {}),
    });
  }
  if (doc.query) {
    const schema = z.toJSONSchema(doc.query, { io: 'input', unrepresentable: 'any' }) as {
      properties?: Record<string, { description?: string }>;
      required?: string[];
    };
    for (const [name, property] of Object.entries(schema.properties ?? {})) {
      const { description, ...rest } = property;
      list.push({
        name,
        in: 'query',
        required: schema.required?.includes(name) ?? false,
        schema: rest,
        ...(description ? { description } : {}),
      });
    }
  }
  return list.length > 0 ? { parameters: list } : {};
}

/** The registry's schemas without the per-schema `$schema`/`$id` (the document carries them). */
function renderSchemas(
  registry: z.core.$ZodRegistry<{ id: string }>,
  io: 'input' | 'output',
): Record<string, unknown> {
  const rendered = z.toJSONSchema(registry, {
    io,
    unrepresentable: 'any',
    uri: (id) => SCHEMA_REF(id),
  }) as { schemas: Record<string, Record<string, unknown>> };
  return Object.fromEntries(
    Object.entries(rendered.schemas).map(([name, { $schema: _s, $id: _i, ...schema }]) => [
      name,
      tidySchema(schema),
    ]),
  );
}

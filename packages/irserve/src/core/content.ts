/**
 * Transport-neutral content handlers: `POST /content` (JSON) and `GET /content/:collection/:id`
 * (raw text or bytes).
 */
import { z } from '../prebundled/zod.js';
import { badRequest } from '../errors.js';
import type {
  BytesDocument,
  ContentResult,
  LookupOptions,
  TextDocument,
} from '../collections/types.js';
import type { AppCore } from './app-core.js';
import { parseRequest } from './validate.js';

const MAX_ID = 4096;
const MAX_NAME = 1024;

const name = (what: string) =>
  z
    .string({ error: `must be a string naming a ${what}` })
    .min(1, 'must not be empty')
    .max(MAX_NAME, `is too long (at most ${MAX_NAME} characters)`);

/** `id` may be a JSON number (ids that are numbers in the corpus); it is used as a string. */
export const contentRequestSchema = z.looseObject({
  collection: name('collection'),
  id: z
    .union(
      [
        z
          .string()
          .min(1, 'must not be empty')
          .max(MAX_ID, `is too long (at most ${MAX_ID} characters)`),
        z.number().finite(),
      ],
      { error: 'must be a string (the document id)' },
    )
    .transform(String),
  view: name('view').nullish(),
});

function jsonBody(result: ContentResult): Record<string, unknown> {
  const base = {
    collection: result.collection,
    id: result.id,
    view: result.view,
    kind: result.kind,
  };
  if (result.kind === 'text') {
    const doc = result.document as TextDocument;
    return {
      ...base,
      text: doc.text,
      ...(doc.title !== undefined ? { title: doc.title } : {}),
      ...(doc.language !== undefined ? { language: doc.language } : {}),
      cached: result.cached,
    };
  }
  const doc = result.document as BytesDocument;
  const data = doc.parts.map((part) => ({
    data: Buffer.from(part.data.buffer, part.data.byteOffset, part.data.byteLength).toString(
      'base64',
    ),
    mime: part.mime,
  }));
  return {
    ...base,
    data,
    ...(doc.language !== undefined ? { language: doc.language } : {}),
    cached: result.cached,
  };
}

/**
 * `POST /content`: `{collection, id, view?}` -> `{collection, id, view, kind, text, title?,
 * language?, cached}` for text views, `{..., data: [{data: base64, mime}], cached}` for bytes.
 */
export async function getContent(
  core: AppCore,
  body: unknown,
  options?: LookupOptions,
): Promise<Record<string, unknown>> {
  const request = parseRequest(contentRequestSchema, body);
  const lookup = {
    collection: request.collection,
    id: request.id,
    ...(request.view ? { view: request.view } : {}),
  };
  const result = await core.content.lookup(lookup, options);
  return jsonBody(result);
}

/**
 * `GET /content/:collection/:id?view=`: the text as `text/plain; charset=utf-8`, or the raw bytes
 * of a one-part bytes document with its mime type.
 */
export async function getRawContent(
  core: AppCore,
  params: { collection: string; id: string; view?: string },
): Promise<{ body: Buffer | string; contentType: string }> {
  const request = parseRequest(contentRequestSchema, params);
  const result = await core.content.lookup({
    collection: request.collection,
    id: request.id,
    ...(request.view ? { view: request.view } : {}),
  });
  if (result.kind === 'text')
    return {
      body: (result.document as TextDocument).text,
      contentType: 'text/plain; charset=utf-8',
    };
  const parts = (result.document as BytesDocument).parts;
  const part = parts[0];
  if (parts.length !== 1 || part === undefined) {
    throw badRequest(
      `document ${JSON.stringify(request.id.slice(0, 200))} has ${parts.length} parts; raw GET serves one-part documents only: use POST /content`,
    );
  }
  return {
    body: Buffer.from(part.data.buffer, part.data.byteOffset, part.data.byteLength),
    contentType: part.mime,
  };
}

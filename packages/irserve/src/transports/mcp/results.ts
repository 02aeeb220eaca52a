/**
 * Tool results: the structured value as `structuredContent` and as JSON text (for clients that
 * read only `content`), or an error result the agent can read and correct.
 */
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import type { AppCore } from '../../core/app-core.js';
import type { TextDocument } from '../../collections/types.js';
import { IrserveError, toIrserveError } from '../../errors.js';
import { rankedList } from '../../core/ranked-list.js';

/** A successful tool result. */
export function toolResult(value: Record<string, unknown>): CallToolResult {
  return { content: [{ type: 'text', text: JSON.stringify(value) }], structuredContent: value };
}

/** Runs a tool body; an error becomes `isError` with its code and message (never a crash). */
export async function guarded(
  body: () => Promise<Record<string, unknown>>,
): Promise<CallToolResult> {
  try {
    return toolResult(await body());
  } catch (error) {
    const known = toIrserveError(error);
    return { isError: true, content: [{ type: 'text', text: `${known.code}: ${known.message}` }] };
  }
}

/**
 * A ranked result list (best first, equal scores by ascending id as the server's cuts break
 * them) with, when a collection is given, each document's text cut to `chars`.
 */
export async function rankedResults(
  core: AppCore,
  scores: Record<string, number>,
  limit: number,
  snippet: { collection?: string | undefined; view?: string | undefined; chars: number },
): Promise<Record<string, unknown>[]> {
  if (snippet.collection !== undefined && !core.collections.has(snippet.collection))
    throw new IrserveError(
      'ERR_COLLECTION_NOT_FOUND',
      `unknown collection '${snippet.collection}'`,
    );
  return Promise.all(
    rankedList(scores, limit).map(async ({ id, score }) => {
      const { collection, view, chars } = snippet;
      if (collection === undefined || chars === 0) return { id, score };
      const text = await textOf(core, collection, id, view);
      if (text === undefined) return { id, score };
      const cut = text.text.length > chars ? `${text.text.slice(0, chars)}…` : text.text;
      return { id, score, ...(text.title ? { title: text.title } : {}), text: cut };
    }),
  );
}

/** The text of a document of a text view; undefined for bytes views and missing documents. */
async function textOf(
  core: AppCore,
  collection: string,
  id: string,
  view: string | undefined,
): Promise<TextDocument | undefined> {
  try {
    const result = await core.content.lookup({ collection, id, ...(view ? { view } : {}) });
    return result.kind === 'text' ? (result.document as TextDocument) : undefined;
  } catch {
    return undefined;
  }
}

import type {
  BytesDocument,
  BytesView,
  Collection,
  LookupOptions,
  TextDocument,
  TextView,
  View,
  ViewKind,
} from '../collections/types.js';
import { IrserveError } from '../errors.js';
import type { RemoteTransport } from './remote-transport.js';

/** Turns a remote `/content` answer into a document; `undefined` when the remote has no such id. */
function toDocument(
  kind: ViewKind,
  id: string,
  body: Record<string, unknown>,
): TextDocument | BytesDocument {
  const language = typeof body.language === 'string' ? { language: body.language } : {};
  if (kind === 'bytes') {
    const parts = Array.isArray(body.data) ? body.data : [];
    return {
      id,
      parts: parts.map((part: { data?: unknown; mime?: unknown }) => ({
        data: new Uint8Array(Buffer.from(typeof part.data === 'string' ? part.data : '', 'base64')),
        mime: typeof part.mime === 'string' ? part.mime : 'application/octet-stream',
      })),
      ...language,
    };
  }
  if (typeof body.text !== 'string') {
    throw new IrserveError(
      'ERR_UPSTREAM',
      typeof body.error === 'string' ? body.error : 'remote content answer has no text',
    );
  }
  return {
    id,
    text: body.text,
    ...(typeof body.title === 'string' ? { title: body.title } : {}),
    ...language,
  };
}

function remoteView(
  client: RemoteTransport,
  collection: string,
  name: string,
  kind: ViewKind,
): View {
  // The request's signal cuts the remote call once nobody waits for the document.
  const get = async (id: string, options?: LookupOptions) => {
    try {
      const body = (await client.post(
        '/content',
        { collection, id, view: name },
        options?.signal ? { signal: options.signal } : undefined,
      )) as Record<string, unknown>;
      return toDocument(kind, id, body);
    } catch (error) {
      // irserve says ERR_DOC_NOT_FOUND; RoutIR says 400 "ID <id> is not found." without a code.
      if (
        error instanceof IrserveError &&
        (error.code === 'ERR_DOC_NOT_FOUND' || / is not found\.?$/.test(error.message))
      )
        return undefined;
      throw error;
    }
  };
  const common = {
    name,
    open: async () => {},
    close: async () => {},
    has: async (id: string) => (await get(id)) !== undefined,
  };
  if (kind === 'bytes') return { ...common, kind, get: get as BytesView['get'] };
  return {
    ...common,
    kind,
    get: get as TextView['get'],
    fingerprint: async () => `${client.endpoint}/${collection}/${name}`,
  };
}

/** A collection served by a remote instance: lookups go to its `/content` (the view is honoured). */
export function remoteCollection(
  client: RemoteTransport,
  name: string,
  listing: { views: Record<string, ViewKind>; defaultView: string },
): Collection {
  const views = new Map(
    Object.entries(listing.views).map(([view, kind]) => [
      view,
      remoteView(client, name, view, kind),
    ]),
  );
  return {
    name,
    defaultView: listing.defaultView,
    viewKinds: { ...listing.views },
    view(viewName?: string) {
      const view = views.get(viewName ?? listing.defaultView);
      if (!view) {
        throw new IrserveError(
          'ERR_COLLECTION_NOT_FOUND',
          `View '${viewName}' is not defined for collection '${name}' (views: ${[...views.keys()].join(', ')})`,
        );
      }
      return view;
    },
  };
}

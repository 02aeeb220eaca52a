// Every HTTP call the playground makes, in one place (so it can move to @irserve/client later).
// The bearer key is kept in sessionStorage: gone when the tab closes, never in a URL.

const KEY_STORAGE = 'irserve.apiKey';

export function getKey() {
  return sessionStorage.getItem(KEY_STORAGE) ?? '';
}

export function setKey(key) {
  if (key) sessionStorage.setItem(KEY_STORAGE, key);
  else sessionStorage.removeItem(KEY_STORAGE);
}

/** An answer that is not 2xx: the server's message and `ERR_...` code, and its details. */
export class ApiError extends Error {
  constructor(status, body) {
    super(body?.error ?? `HTTP ${status}`);
    this.status = status;
    this.code = body?.code ?? 'ERR_HTTP';
    this.details = body ?? {};
  }
}

async function call(method, path, body, signal) {
  const headers = { accept: 'application/json' };
  const key = getKey();
  if (key) headers.authorization = `Bearer ${key}`;
  if (body !== undefined) headers['content-type'] = 'application/json';
  const response = await fetch(path, {
    method,
    headers,
    body: body === undefined ? undefined : JSON.stringify(body),
    signal,
  });
  const text = await response.text();
  let parsed;
  try {
    parsed = text ? JSON.parse(text) : {};
  } catch {
    parsed = { error: text.slice(0, 200) };
  }
  if (!response.ok) throw new ApiError(response.status, parsed);
  return { body: parsed, requestId: response.headers.get('x-request-id') };
}

/** `GET /avail`: services by role, collections with their views, pipeline aliases. */
export async function avail() {
  return (await call('GET', '/avail')).body;
}

/**
 * The JSON body the page sends to `POST /pipeline` (also what its `curl` export sends): with
 * `explain` unless `explain: false`; without `limit` the server's default depth applies (as in
 * `irserve experiment`).
 */
export function pipelineBody({ pipeline, query, collection, limit, explain = true }) {
  const body = { pipeline, query, explain };
  if (collection) body.collection = collection;
  if (limit) body.limit = limit;
  return body;
}

/** `POST /pipeline` with `explain`; resolves with the envelope and the request id. */
export async function runPipeline(request, signal) {
  const body = pipelineBody(request);
  const { body: envelope, requestId } = await call('POST', '/pipeline', body, signal);
  return { ...envelope, requestId };
}

/** `POST /content`: a document's text (and title), or its bytes as base64 parts with a MIME type. */
export async function content(collection, id, view) {
  const body = { collection, id };
  if (view) body.view = view;
  return (await call('POST', '/content', body)).body;
}

/** Descriptions of the error statuses the OpenAPI document lists under each operation. */
export const ERROR_STATUS_TEXT: Readonly<Record<number, string>> = {
  400: 'bad request: a field is missing or wrong, an unknown service or collection, a pipeline syntax error (with its column)',
  401: 'missing or invalid bearer token',
  404: 'no such document or route',
  413: 'request body too large',
  415: 'the body is not application/json',
  500: 'an engine failed',
  502: 'an imported remote failed',
  503: 'overloaded or shutting down; retry after the Retry-After header',
  504: 'an imported remote timed out',
};

/** Default error statuses of an operation by HTTP method. */
export function defaultErrors(method: string, isPublic: boolean): number[] {
  const auth = isPublic ? [] : [401];
  return method === 'GET' ? [...auth, 500] : [400, ...auth, 413, 415, 500, 503];
}

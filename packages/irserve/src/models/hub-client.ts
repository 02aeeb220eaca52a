/**
 * The hub's HTTP protocol, as `huggingface_hub` speaks it:
 *
 * - `GET /api/models/{repo}/revision/{revision}?blobs=true`: the commit a revision points to
 *   and every file (size, git blob id, LFS sha256);
 * - `HEAD /{repo}/resolve/{commit}/{file}`: the file's `ETag` (`X-Linked-Etag` for LFS files,
 *   which answer with a redirect to a separate file host), size (`X-Linked-Size`) and commit
 *   (`X-Repo-Commit`); relative redirects (a renamed repository) are followed, others are not;
 * - `GET` on the file's URL, with `Range` to resume. The token goes to the hub's host only,
 *   never to the file host a redirect names (its URL is signed).
 */
import { Agent, EnvHttpProxyAgent, request, type Dispatcher } from 'undici';
import type { RepoFileEntry, RepoListing } from './hub-cache.js';
import { HubError, hubError, unreachable } from './hub-errors.js';
import type { HubSettings } from './hub-settings.js';

/** What the hub says about one file before it is downloaded. */
export interface FileMetadata {
  /** The blob name: the LFS sha256, else the git blob sha1 (quotes and `W/` removed). */
  etag: string;
  size: number;
  commit: string;
  /** Where the bytes are (the file host's signed URL for LFS files). */
  url: string;
  /** Whether `url` is on the hub's host (then the token goes with the request). */
  sameHost: boolean;
}

const MAX_REDIRECTS = 5;

/**
 * Talks to one hub endpoint. Owns its connection pool: `close()` when done.
 *
 * @example
 * const client = new HubClient(settings);
 * const { commit, files } = await client.listing('BAAI/bge-small-en-v1.5', 'main');
 */
export class HubClient {
  readonly #settings: HubSettings;
  readonly #dispatcher: Dispatcher;

  constructor(settings: HubSettings, env: NodeJS.ProcessEnv = process.env) {
    this.#settings = settings;
    const proxied = ['HTTPS_PROXY', 'HTTP_PROXY', 'https_proxy', 'http_proxy'].some((n) => env[n]);
    // Python's httpx honours the proxy variables; so does irserve (NO_PROXY included).
    this.#dispatcher = proxied ? new EnvHttpProxyAgent() : new Agent({ connectTimeout: 10_000 });
  }

  /** The commit `revision` points to, and the repository's files at that commit. */
  async listing(repo: string, revision: string): Promise<{ commit: string; files: RepoListing }> {
    const url = `${this.#settings.endpoint}/api/models/${repo}/revision/${encodeURIComponent(revision)}?blobs=true`;
    const answer = await this.#request(url, 'GET', { repo, revision }, this.#authHeaders());
    const body = (await answer.body.json().catch((error: unknown) => {
      throw new HubError('protocol', `${url} did not answer JSON: ${(error as Error).message}`);
    })) as { sha?: unknown; siblings?: unknown };
    if (typeof body.sha !== 'string' || !Array.isArray(body.siblings))
      throw new HubError('protocol', `${url} answered without "sha" and "siblings"`);
    const files = new Map<string, RepoFileEntry>();
    for (const sibling of body.siblings as Sibling[]) {
      if (typeof sibling?.rfilename !== 'string') continue;
      files.set(sibling.rfilename, entryOf(sibling));
    }
    return { commit: body.sha, files };
  }

  /** The file's etag, size, commit and download URL (`HEAD` on its resolve URL). */
  async fileMetadata(repo: string, revision: string, file: string): Promise<FileMetadata> {
    let url = this.resolveUrl(repo, revision, file);
    for (let hop = 0; hop <= MAX_REDIRECTS; hop++) {
      const answer = await this.#request(
        url,
        'HEAD',
        { repo, revision, file },
        {
          ...this.#authHeaders(),
          'accept-encoding': 'identity',
        },
      );
      await answer.body.dump();
      const location = header(answer.headers, 'location');
      const commit = header(answer.headers, 'x-repo-commit');
      const etag = normalizeEtag(
        header(answer.headers, 'x-linked-etag') ?? header(answer.headers, 'etag'),
      );
      const redirect = answer.statusCode >= 300 && answer.statusCode < 400 && location;
      if (redirect && !/^([a-z][a-z0-9+.-]*:)?\/\//i.test(location)) {
        url = new URL(location, url).href; // relative: a renamed repository, still on the hub
        continue;
      }
      const size = Number(
        header(answer.headers, 'x-linked-size') ??
          (redirect ? undefined : header(answer.headers, 'content-length')),
      );
      if (!commit || !etag || !Number.isSafeInteger(size))
        throw new HubError(
          'protocol',
          `${url} answered without ${!commit ? 'X-Repo-Commit' : !etag ? 'an ETag' : 'a size'}: it does not look like a Hugging Face Hub (check HF_ENDPOINT, proxies and firewalls)`,
        );
      const target = redirect ? new URL(location, url).href : url;
      return {
        etag,
        size,
        commit,
        url: target,
        sameHost: sameOrigin(target, this.#settings.endpoint),
      };
    }
    throw new HubError('protocol', `${url}: more than ${MAX_REDIRECTS} redirects`);
  }

  /**
   * Starts the download of a file's bytes from `start` (a `Range` request past 0); follows the
   * file host's own redirects. The caller reads and closes the body.
   */
  async download(
    meta: Pick<FileMetadata, 'url' | 'sameHost'>,
    start: number,
    what: { repo: string; revision: string; file: string },
  ): Promise<Dispatcher.ResponseData> {
    let url = meta.url;
    let sameHost = meta.sameHost;
    for (let hop = 0; hop <= MAX_REDIRECTS; hop++) {
      const headers: Record<string, string> = {
        ...(sameHost ? this.#authHeaders() : { 'user-agent': USER_AGENT }),
        'accept-encoding': 'identity',
        ...(start > 0 ? { range: `bytes=${start}-` } : {}),
      };
      const answer = await this.#request(
        url,
        'GET',
        what,
        headers,
        this.#settings.downloadTimeoutS,
      );
      const location = header(answer.headers, 'location');
      if (answer.statusCode >= 300 && answer.statusCode < 400 && location) {
        await answer.body.dump();
        url = new URL(location, url).href;
        sameHost &&= sameOrigin(url, this.#settings.endpoint);
        continue;
      }
      return answer;
    }
    throw new HubError('protocol', `${meta.url}: more than ${MAX_REDIRECTS} redirects`);
  }

  /** `{endpoint}/{repo}/resolve/{revision}/{file}`, as `hf_hub_url` writes it. */
  resolveUrl(repo: string, revision: string, file: string): string {
    const path = file.split('/').map(encodeURIComponent).join('/');
    return `${this.#settings.endpoint}/${repo}/resolve/${encodeURIComponent(revision)}/${path}`;
  }

  async close(): Promise<void> {
    await this.#dispatcher.close();
  }

  #authHeaders(): Record<string, string> {
    const token = this.#settings.token;
    return { 'user-agent': USER_AGENT, ...(token ? { authorization: `Bearer ${token}` } : {}) };
  }

  /** One request; an answer of 400 or more is a HubError saying what it means. */
  async #request(
    url: string,
    method: 'GET' | 'HEAD',
    what: { repo: string; revision: string; file?: string },
    headers: Record<string, string>,
    bodyTimeoutS = this.#settings.metadataTimeoutS,
  ): Promise<Dispatcher.ResponseData> {
    let answer: Dispatcher.ResponseData;
    try {
      answer = await request(url, {
        method,
        headers,
        dispatcher: this.#dispatcher,
        headersTimeout: this.#settings.metadataTimeoutS * 1000,
        bodyTimeout: bodyTimeoutS * 1000,
      });
    } catch (error) {
      throw unreachable(this.#settings, error);
    }
    if (answer.statusCode < 400) return answer;
    await answer.body.dump();
    throw hubError(
      {
        status: answer.statusCode,
        errorCode: header(answer.headers, 'x-error-code'),
        errorMessage: header(answer.headers, 'x-error-message'),
        ...what,
      },
      this.#settings,
    );
  }
}

const USER_AGENT = 'irserve (huggingface_hub-compatible)';

interface Sibling {
  rfilename?: unknown;
  size?: unknown;
  blobId?: unknown;
  lfs?: { sha256?: unknown; oid?: unknown; size?: unknown };
}

function entryOf(sibling: Sibling): RepoFileEntry {
  const size = typeof sibling.size === 'number' ? sibling.size : -1;
  const entry: RepoFileEntry = {
    size,
    blob_id: typeof sibling.blobId === 'string' ? sibling.blobId : '',
  };
  const sha256 = sibling.lfs?.sha256 ?? sibling.lfs?.oid;
  if (typeof sha256 === 'string') {
    entry.lfs_sha256 = sha256;
    entry.lfs_size = typeof sibling.lfs?.size === 'number' ? sibling.lfs.size : size;
  }
  return entry;
}

function header(headers: Dispatcher.ResponseData['headers'], name: string): string | undefined {
  const value = headers[name];
  return Array.isArray(value) ? value[0] : value;
}

/** `W/"abc"` and `"abc"` → `abc`, as `_normalize_etag`. */
export function normalizeEtag(etag: string | undefined): string | undefined {
  if (etag === undefined) return undefined;
  const value = etag.replace(/^W\//, '').replace(/^"|"$/g, '');
  return value === '' ? undefined : value;
}

function sameOrigin(a: string, b: string): boolean {
  return new URL(a).origin === new URL(b).origin;
}

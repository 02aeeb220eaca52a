/**
 * A local stand-in for the Hugging Face Hub that speaks its HTTP protocol, for tests that point
 * HF_ENDPOINT at it (no test reaches the real hub):
 *
 * - `HEAD|GET /{repo}/resolve/{revision}/{path}`: small files answer 200 with `ETag` (the git
 *   blob sha1) and `X-Repo-Commit`; LFS files (weights) answer 302 to a separate file host with
 *   `X-Linked-Etag` (sha256) and `X-Linked-Size`; errors carry `X-Error-Code` (`RepoNotFound`,
 *   `RevisionNotFound`, `EntryNotFound`, `GatedRepo`) as the hub's do;
 * - `GET /api/models/{repo}/revision/{revision}[?blobs=true]`: the commit and the file listing;
 * - the file host serves `Range` requests, and refuses a request carrying `Authorization`
 *   (a signed URL, as S3 refuses two credentials);
 * - faults: cut a download after N bytes, serve wrong bytes, ignore `Range`.
 *
 * Every request is recorded (`requests`), so a test can assert that none was made.
 */
import { createHash } from 'node:crypto';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface PublishOptions {
  /** The branch or tag that moves to the new commit (default `main`). */
  revision?: string;
  /** Readable only with a token (401 `RepoNotFound` without). */
  private?: boolean;
  /** Readable only with a token granted access (401 / 403 `GatedRepo`). */
  gated?: boolean;
}

export interface RecordedRequest {
  host: 'hub' | 'files';
  method: string;
  url: string;
  authorization: string | undefined;
  range: string | undefined;
}

export interface Faults {
  /** The file host closes the connection after this many bytes of a body (then it is cleared). */
  cutAfterBytes?: number;
  /** How many downloads to cut that way (default 1). */
  cuts?: number;
  /** The file host serves other bytes than the file's (a broken mirror). */
  corrupt?: boolean;
  /** The file host answers 200 with the whole file to a Range request. */
  ignoreRange?: boolean;
  /** The hub announces this size (X-Linked-Size) instead of the real one. */
  claimedSize?: number;
}

interface Blob {
  bytes: Buffer;
  sha256: string;
  gitSha1: string;
  lfs: boolean;
}

interface Repo {
  commits: Map<string, Map<string, Blob>>;
  refs: Map<string, string>;
  private: boolean;
  gated: boolean;
}

/** Files stored with Git LFS on the hub (by `.gitattributes`): weights and graphs. */
const LFS = /\.(onnx|onnx_data|onnx\.data|safetensors|gguf|bin|pt|h5|msgpack)$|_data(_\d+)?$/;

export class HubStandIn {
  readonly requests: RecordedRequest[] = [];
  readonly faults: Faults = {};
  /** Tokens the hub accepts; `granted` ones may also read gated repositories. */
  readonly tokens = new Map<string, { granted: boolean }>([
    ['hf_good', { granted: true }],
    ['hf_not_granted', { granted: false }],
  ]);
  readonly #repos = new Map<string, Repo>();
  readonly #blobs = new Map<string, Blob>();
  #hub!: Server;
  #files!: Server;
  #count = 0;

  /** The hub's base URL: the value of HF_ENDPOINT. */
  endpoint = '';
  /** The file host LFS downloads are redirected to. */
  fileHost = '';

  static async start(): Promise<HubStandIn> {
    const hub = new HubStandIn();
    hub.#hub = createServer((req, res) => hub.#answerHub(req, res));
    hub.#files = createServer((req, res) => hub.#answerFiles(req, res));
    hub.endpoint = await listen(hub.#hub);
    hub.fileHost = await listen(hub.#files);
    return hub;
  }

  /**
   * Publishes `files` as a new commit of `repo` and moves `revision` (default `main`) to it;
   * returns the commit hash.
   *
   * @example
   * const commit = hub.publish('org/tiny-bert', { 'config.json': '{}', 'onnx/model.onnx': bytes });
   */
  publish(
    repo: string,
    files: Record<string, Buffer | string>,
    options: PublishOptions = {},
  ): string {
    const entry = this.#repos.get(repo) ?? {
      commits: new Map(),
      refs: new Map(),
      private: false,
      gated: false,
    };
    entry.private = options.private ?? entry.private;
    entry.gated = options.gated ?? entry.gated;
    const tree = new Map<string, Blob>();
    for (const [path, content] of Object.entries(files)) tree.set(path, this.#blob(path, content));
    const commit = createHash('sha1')
      .update(
        `${repo}\n${this.#count++}\n${[...tree].map(([p, b]) => `${p}:${b.sha256}`).join('\n')}`,
      )
      .digest('hex');
    entry.commits.set(commit, tree);
    entry.refs.set(options.revision ?? 'main', commit);
    this.#repos.set(repo, entry);
    return commit;
  }

  /** Requests to the hub and the file host that touch `repo` or its blobs. */
  requestsFor(repo: string): RecordedRequest[] {
    return this.requests.filter((r) => r.url.includes(repo) || r.host === 'files');
  }

  async close(): Promise<void> {
    await Promise.all([this.#hub, this.#files].map((server) => closeServer(server)));
  }

  #blob(path: string, content: Buffer | string): Blob {
    const bytes = Buffer.isBuffer(content) ? content : Buffer.from(content);
    const sha256 = createHash('sha256').update(bytes).digest('hex');
    const gitSha1 = createHash('sha1').update(`blob ${bytes.length}\0`).update(bytes).digest('hex');
    const blob = { bytes, sha256, gitSha1, lfs: LFS.test(path) };
    this.#blobs.set(sha256, blob);
    return blob;
  }

  #record(host: RecordedRequest['host'], req: IncomingMessage): void {
    this.requests.push({
      host,
      method: req.method ?? 'GET',
      url: req.url ?? '',
      authorization: req.headers.authorization,
      range: req.headers.range,
    });
  }

  #answerHub(req: IncomingMessage, res: ServerResponse): void {
    this.#record('hub', req);
    const url = new URL(req.url ?? '/', this.endpoint);
    const api = /^\/api\/models\/([^/]+\/[^/]+)\/revision\/([^/]+)$/.exec(url.pathname);
    if (api) return this.#answerListing(req, res, api[1]!, decodeURIComponent(api[2]!), url);
    const resolve = /^\/([^/]+\/[^/]+)\/resolve\/([^/]+)\/(.+)$/.exec(url.pathname);
    if (resolve)
      return this.#answerResolve(
        req,
        res,
        resolve[1]!,
        decodeURIComponent(resolve[2]!),
        resolve[3]!.split('/').map(decodeURIComponent).join('/'),
      );
    res.writeHead(404).end('Not Found');
  }

  /** The repository's files at `revision`, or an error answer already sent. */
  #tree(req: IncomingMessage, res: ServerResponse, repo: string, revision: string) {
    const entry = this.#repos.get(repo);
    const token = /^Bearer (.+)$/.exec(req.headers.authorization ?? '')?.[1];
    const access = token === undefined ? undefined : this.tokens.get(token);
    if (token !== undefined && !access)
      return fail(res, 401, undefined, 'Invalid credentials in Authorization header');
    if (!entry || (entry.private && !access))
      return fail(res, 401, 'RepoNotFound', 'Repository not found');
    if (entry.gated && !access?.granted)
      return fail(res, access ? 403 : 401, 'GatedRepo', 'Access to model is restricted.');
    const commit = entry.refs.get(revision) ?? (entry.commits.has(revision) ? revision : undefined);
    if (!commit) return fail(res, 404, 'RevisionNotFound', 'Invalid rev id');
    return { commit, files: entry.commits.get(commit)! };
  }

  #answerListing(
    req: IncomingMessage,
    res: ServerResponse,
    repo: string,
    revision: string,
    url: URL,
  ) {
    const tree = this.#tree(req, res, repo, revision);
    if (!tree) return;
    const blobs = url.searchParams.get('blobs') === 'true';
    const siblings = [...tree.files].map(([rfilename, blob]) => {
      const size = this.faults.claimedSize ?? blob.bytes.length;
      return {
        rfilename,
        ...(blobs
          ? {
              size,
              blobId: blob.gitSha1,
              ...(blob.lfs ? { lfs: { sha256: blob.sha256, size, pointerSize: 134 } } : {}),
            }
          : {}),
      };
    });
    const body = JSON.stringify({ _id: repo, id: repo, modelId: repo, sha: tree.commit, siblings });
    res.writeHead(200, { 'content-type': 'application/json' }).end(body);
  }

  #answerResolve(
    req: IncomingMessage,
    res: ServerResponse,
    repo: string,
    revision: string,
    path: string,
  ) {
    const tree = this.#tree(req, res, repo, revision);
    if (!tree) return;
    const blob = tree.files.get(path);
    if (!blob) {
      res.setHeader('x-repo-commit', tree.commit);
      return fail(res, 404, 'EntryNotFound', 'Entry not found');
    }
    const size = this.faults.claimedSize ?? blob.bytes.length;
    if (blob.lfs) {
      res
        .writeHead(302, {
          location: `${this.fileHost}/repos/${blob.sha256.slice(0, 2)}/${blob.sha256}?X-Amz-Signature=stand-in`,
          'x-repo-commit': tree.commit,
          'x-linked-etag': `"${blob.sha256}"`,
          'x-linked-size': String(size),
          etag: `"${createHash('sha1').update(blob.sha256).digest('hex')}"`,
        })
        .end();
      return;
    }
    // The hub sends weak ETags for some small files: clients must strip `W/`.
    const etag = path.endsWith('.json') ? `W/"${blob.gitSha1}"` : `"${blob.gitSha1}"`;
    res.writeHead(200, {
      'x-repo-commit': tree.commit,
      etag,
      'content-length': String(size),
      'content-type': 'application/octet-stream',
    });
    res.end(req.method === 'HEAD' ? undefined : blob.bytes);
  }

  #answerFiles(req: IncomingMessage, res: ServerResponse): void {
    this.#record('files', req);
    if (req.headers.authorization)
      return void res
        .writeHead(400, { 'content-type': 'application/xml' })
        .end(
          '<Error><Code>InvalidArgument</Code><Message>Only one auth mechanism allowed</Message></Error>',
        );
    const sha = /^\/repos\/[0-9a-f]{2}\/([0-9a-f]{64})$/.exec(
      new URL(req.url ?? '/', this.fileHost).pathname,
    )?.[1];
    const blob = sha ? this.#blobs.get(sha) : undefined;
    if (!blob) return void res.writeHead(404).end();
    let bytes = this.faults.corrupt ? Buffer.from(blob.bytes.map((b) => b ^ 0xff)) : blob.bytes;
    const range = /^bytes=(\d+)-$/.exec(req.headers.range ?? '');
    if (range && !this.faults.ignoreRange) {
      const start = Number(range[1]);
      res.writeHead(206, {
        'content-range': `bytes ${start}-${bytes.length - 1}/${bytes.length}`,
        'content-length': String(bytes.length - start),
      });
      bytes = bytes.subarray(start);
    } else res.writeHead(200, { 'content-length': String(bytes.length) });
    const cut = this.faults.cutAfterBytes;
    if (cut !== undefined && cut < bytes.length) {
      this.faults.cuts = (this.faults.cuts ?? 1) - 1;
      if (this.faults.cuts <= 0) delete this.faults.cutAfterBytes;
      res.write(bytes.subarray(0, cut), () => res.destroy());
      return;
    }
    res.end(req.method === 'HEAD' ? undefined : bytes);
  }
}

function fail(
  res: ServerResponse,
  status: number,
  code: string | undefined,
  message: string,
): undefined {
  res.writeHead(status, {
    ...(code ? { 'x-error-code': code } : {}),
    'x-error-message': message,
    'content-type': 'application/json',
  });
  res.end(JSON.stringify({ error: message }));
  return undefined;
}

async function listen(server: Server): Promise<string> {
  await new Promise<void>((done) => server.listen(0, '127.0.0.1', done));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

async function closeServer(server: Server): Promise<void> {
  server.closeAllConnections();
  await new Promise<void>((done) => server.close(() => done()));
}

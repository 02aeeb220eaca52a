/**
 * Hub ids to files: the Hugging Face cache first (Python's layout, shared with Python), then a
 * download of only the files the engine needs. A revision is resolved to a commit once and
 * pinned for the life of the resolver (one per app), and the commit served is logged.
 *
 * Cache first means a model in the cache is used without a request, also when online: `main`
 * stays the commit the cache records until `irserve pull` fetches the newer one.
 */
import { existsSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { IrserveError } from '../errors.js';
import { chooseFiles, type FileChoice } from './choose-files.js';
import { cacheNotWritable, downloadBlob, formatBytes } from './download-blob.js';
import { HubCache, type RepoListing } from './hub-cache.js';
import { HubClient } from './hub-client.js';
import { downloadProgress } from './download-progress.js';
import { missingOffline } from './offline-error.js';
import { choiceRequest, resolvedModel, tryChoose } from './request-choice.js';
import { HubError } from './hub-errors.js';
import { hubSettings, type HubSettings } from './hub-settings.js';
import { formatHubReference, parseHubReference, type HubReference } from './model-reference.js';
import type { ModelLogger, ModelRequest, ModelSourceOptions, ResolvedModel } from './types.js';

export class ModelResolver {
  readonly settings: HubSettings;
  readonly cache: HubCache;
  readonly #logger: ModelLogger;
  readonly #interactive: boolean;
  readonly #env: NodeJS.ProcessEnv;
  /** Where relative paths were looked for, for messages (the model source checks paths). */
  readonly #configDir: string;
  /** `repo@revision` → the commit this process serves. */
  readonly #pinned = new Map<string, string>();
  readonly #inFlight = new Map<string, Promise<ResolvedModel>>();
  /** `repo@revision` → the hub's listing, asked once while services resolve concurrently. */
  readonly #listings = new Map<string, Promise<{ commit: string; files: RepoListing }>>();

  constructor(
    settings: HubSettings,
    options: Partial<Pick<ModelSourceOptions, 'configDir'>> & Omit<ModelSourceOptions, 'configDir'>,
  ) {
    this.settings = settings;
    this.#configDir = resolve(options.configDir ?? '.');
    this.cache = new HubCache(settings.cacheDir);
    this.#logger = options.logger;
    this.#interactive = options.interactive;
    this.#env = options.env ?? process.env;
  }

  /**
   * A resolver with the settings of `options.env` (`HF_*`).
   *
   * @example const resolver = await ModelResolver.create({ logger, interactive: false });
   */
  static async create(
    options: Partial<Pick<ModelSourceOptions, 'configDir'>> & Omit<ModelSourceOptions, 'configDir'>,
  ): Promise<ModelResolver> {
    const env = options.env ?? process.env;
    return new ModelResolver(
      await hubSettings(env, options.offline ? { offline: true } : {}),
      options,
    );
  }

  /** The files of a hub id (not a local path: that is the model source's first step). */
  async resolve(request: ModelRequest): Promise<ResolvedModel> {
    const reference = this.#parse(request);
    const key = JSON.stringify([reference, request.kind, request.graphs ?? {}]);
    let pending = this.#inFlight.get(key);
    if (!pending) {
      pending = this.#resolve(reference, request, { refresh: false });
      this.#inFlight.set(key, pending);
      pending.catch(() => this.#inFlight.delete(key));
    }
    return pending;
  }

  /**
   * `irserve pull`: asks the hub which commit the revision is now (unless offline) and fetches
   * what is missing, even when an older commit of the revision is cached.
   */
  async pull(request: ModelRequest): Promise<ResolvedModel> {
    return this.#resolve(this.#parse(request), request, { refresh: true });
  }

  #parse(request: ModelRequest): HubReference {
    const parsed = parseHubReference(request.reference);
    if ('error' in parsed)
      throw new IrserveError(
        'ERR_CONFIG',
        `${fieldPrefix(request)}no file or folder at ${this.#localPath(request)}${
          parsed.error.startsWith('it starts like a path')
            ? ''
            : `, and "${request.reference}" is not a Hugging Face Hub id either (${parsed.error})`
        }`,
      );
    return parsed;
  }

  #localPath(request: ModelRequest): string {
    return resolve(this.#configDir, request.reference);
  }

  /**
   * Why a hub id was looked up, when the reference may have been meant as a path (its parent
   * folder exists: `models/minilm` beside a `models/` folder); nothing for a plain hub id.
   */
  #asPath(request: ModelRequest): string {
    const path = this.#localPath(request);
    return existsSync(dirname(path)) && dirname(path) !== this.#configDir
      ? `no file or folder at ${path}, so "${request.reference}" was taken for a Hugging Face Hub id: `
      : '';
  }

  async #resolve(
    reference: HubReference,
    request: ModelRequest,
    options: { refresh: boolean },
  ): Promise<ResolvedModel> {
    try {
      const cached =
        options.refresh && !this.settings.offline
          ? undefined
          : await this.#fromCache(reference, request);
      if (cached) return cached;
      if (this.settings.offline)
        throw await missingOffline(
          this.cache,
          reference,
          request,
          this.#pinned.get(pinKey(reference)),
        );
      return await this.#fromHub(reference, request, options.refresh);
    } catch (error) {
      const message =
        error instanceof IrserveError
          ? error.message
          : `model ${formatHubReference(reference)}: ${(error as Error).message}`;
      throw new IrserveError(
        'ERR_CONFIG',
        `${fieldPrefix(request)}${this.#asPath(request)}${message}`,
        {
          cause: error,
        },
      );
    }
  }

  /** The model from the cache, when its snapshot holds every file it needs. */
  async #fromCache(
    reference: HubReference,
    request: ModelRequest,
  ): Promise<ResolvedModel | undefined> {
    const key = pinKey(reference);
    const commit =
      this.#pinned.get(key) ?? (await this.cache.readRef(reference.repo, reference.revision));
    if (!commit) return undefined;
    const present = await this.cache.snapshotFiles(reference.repo, commit);
    if (!present) return undefined;
    const listing = await this.cache.readTree(reference.repo, commit);
    const choice = tryChoose(new Set((listing ?? present).keys()), reference, request);
    if (!choice || !choice.files.every((file) => present.has(file))) return undefined;
    // Without a listing, a graph picked as the only one cached may not be the one the
    // repository serves by default: ask the hub, unless offline (then the cache is all there is).
    if (
      !listing &&
      choice.kind === 'onnx' &&
      choice.modelFile &&
      !reference.path &&
      !this.settings.offline
    )
      return undefined;
    this.#pin(reference, commit);
    return resolvedModel(this.cache, reference, commit, choice, 'cache');
  }

  async #fromHub(
    reference: HubReference,
    request: ModelRequest,
    refresh: boolean,
  ): Promise<ResolvedModel> {
    const client = new HubClient(this.settings, this.#env);
    try {
      const { commit, files } = await this.#listing(client, reference, refresh);
      const label = `${reference.repo}@${commit}`;
      const choice = chooseFiles(new Set(files.keys()), choiceRequest(reference, request), label);
      await this.cache.writeTree(reference.repo, commit, files).catch((error: unknown) => {
        throw cacheNotWritable(this.cache.root, error);
      });
      await this.cache.tag();
      const started = performance.now();
      const fetched = await this.#download(client, reference, commit, choice, files);
      await this.cache.writeRef(reference.repo, reference.revision, commit);
      if (refresh) this.#pinned.delete(pinKey(reference));
      this.#pin(reference, commit);
      const resolved = resolvedModel(
        this.cache,
        reference,
        commit,
        choice,
        fetched > 0 ? 'hub' : 'cache',
      );
      if (fetched > 0)
        this.#logger.info(
          `model ${resolved.label}: downloaded ${formatBytes(fetched)} in ${((performance.now() - started) / 1000).toFixed(1)}s into ${resolved.folder}`,
        );
      return resolved;
    } finally {
      await client.close();
    }
  }

  /**
   * The commit and files of the reference's revision: of the pinned commit when there is one;
   * else asked once, so services resolving the same revision at once get the same commit.
   */
  #listing(
    client: HubClient,
    reference: HubReference,
    refresh: boolean,
  ): Promise<{ commit: string; files: RepoListing }> {
    const key = pinKey(reference);
    const pinned = this.#pinned.get(key);
    if (refresh || pinned)
      return client.listing(reference.repo, (!refresh && pinned) || reference.revision);
    let pending = this.#listings.get(key);
    if (!pending) {
      pending = client.listing(reference.repo, reference.revision);
      this.#listings.set(key, pending);
      pending.catch(() => this.#listings.delete(key));
    }
    return pending;
  }

  /** Fetches the chosen files the snapshot lacks; returns the bytes downloaded. */
  async #download(
    client: HubClient,
    reference: HubReference,
    commit: string,
    choice: FileChoice,
    listing: RepoListing,
  ): Promise<number> {
    const { repo } = reference;
    const present = (await this.cache.snapshotFiles(repo, commit)) ?? new Set<string>();
    let bytes = 0;
    for (const file of choice.files) {
      if (present.has(file)) continue;
      const meta = await client.fileMetadata(repo, commit, file);
      if (meta.commit !== commit)
        throw new HubError(
          'protocol',
          `${file}: the hub answered for commit ${meta.commit}, not ${commit}`,
        );
      const listed = listing.get(file);
      if (listed && listed.size >= 0 && listed.size !== meta.size)
        throw new HubError(
          'protocol',
          `${file}: the listing says ${listed.size} bytes, the file ${meta.size}`,
        );
      await downloadBlob({
        client,
        cache: this.cache,
        repo,
        commit,
        file,
        meta,
        progress: (total) =>
          downloadProgress(`${repo} ${file}`, total, {
            logger: this.#logger,
            interactive: this.#interactive,
          }),
        onWait: (holder) =>
          this.#logger.info(
            `model ${repo} ${file}: waiting for ${holder}, which is downloading it`,
          ),
      });
      await this.cache.linkBlob(repo, commit, file, meta.etag).catch((error: unknown) => {
        throw cacheNotWritable(this.cache.root, error);
      });
      bytes += meta.size;
    }
    return bytes;
  }

  /** Pins `reference`'s revision to `commit`, logging the commit once. */
  #pin(reference: HubReference, commit: string): void {
    const key = pinKey(reference);
    if (this.#pinned.has(key)) return;
    this.#pinned.set(key, commit);
    this.#logger.info(
      `model ${reference.repo}@${reference.revision} is commit ${commit} for the life of this process`,
    );
  }
}

/** `config.model_path: `, or nothing for a request without a field (a command-line id). */
function fieldPrefix(request: ModelRequest): string {
  return request.field ? `${request.field}: ` : '';
}

function pinKey(reference: HubReference): string {
  return `${reference.repo}@${reference.revision}`;
}

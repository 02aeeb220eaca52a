/**
 * A bytes view over members of plain `.tar` shards (source `tar`): the shard is chosen by the
 * resolver, members by the matcher, through each shard's `.taridx` index sidecar.
 */
import { access } from 'node:fs/promises';
import { dirname, resolve } from 'node:path';
import type { TarSource } from '../config.js';
import type { ReaderContext } from '../context.js';
import type { LanguageMap } from '../language-map.js';
import { mimeFor } from '../mime.js';
import { onceAsync } from '../once.js';
import { matchMembers } from '../tar/matcher.js';
import type { ShardResolver } from '../tar/shard-resolver.js';
import { discoverShards, formatShard, hasShard } from '../tar/shard-template.js';
import { TarShard } from '../tar/tar-index.js';
import type { BytesDocument, BytesView } from '../types.js';

export interface TarViewOptions {
  name: string;
  /** Absolute tar path template, with `{shard}` when there are several shards. */
  template: string;
  resolver: ShardResolver | undefined;
  matcher: TarSource['matcher'];
  mime: string | undefined;
  cacheDir: string | undefined;
  languages?: LanguageMap | undefined;
  context: ReaderContext;
}

export class TarView implements BytesView {
  readonly kind = 'bytes' as const;
  readonly name: string;
  readonly #options: TarViewOptions;
  readonly #shards = new Map<string, Promise<TarShard | undefined>>();
  readonly open: () => Promise<void>;

  constructor(options: TarViewOptions) {
    this.name = options.name;
    this.#options = options;
    this.open = onceAsync(() => this.#openAll());
  }

  /** Indexes every shard on disk (warmup), so first lookups do not wait. */
  async #openAll(): Promise<void> {
    await this.#options.resolver?.open();
    await this.#options.languages?.open();
    const paths = hasShard(this.#options.template)
      ? await discoverShards(this.#options.template)
      : [this.#options.template];
    for (const path of paths) await this.#shard(path);
  }

  #shard(path: string): Promise<TarShard | undefined> {
    let shard = this.#shards.get(path);
    if (!shard) {
      shard = (async () => {
        try {
          await access(path);
        } catch {
          return undefined;
        }
        return TarShard.open(path, this.#options.cacheDir, this.#options.context);
      })();
      shard.catch(() => this.#shards.delete(path));
      this.#shards.set(path, shard);
    }
    return shard;
  }

  async #members(id: string) {
    await this.open();
    const { resolver, template, matcher } = this.#options;
    let path = template;
    if (resolver) {
      const shardId = resolver.shardOf(id);
      if (shardId === undefined) return undefined;
      path = formatShard(template, shardId, resolver.width);
      // A shard taken from the id (substring) must not name another directory.
      if (dirname(resolve(path)) !== dirname(resolve(template)) || /[\0/\\]/.test(String(shardId)))
        return undefined;
    }
    const shard = await this.#shard(path);
    if (!shard) return undefined;
    const match = matchMembers(matcher, id);
    const members = shard.find(match.prefix, match.test);
    return members.length > 0 ? { shard, members } : undefined;
  }

  async has(id: string): Promise<boolean> {
    return (await this.#members(id)) !== undefined;
  }

  async get(id: string): Promise<BytesDocument | undefined> {
    const found = await this.#members(id);
    if (!found) return undefined;
    const parts = [];
    for (const member of found.members)
      parts.push({
        data: await found.shard.read(member),
        mime: mimeFor(member.name, this.#options.mime),
      });
    const doc: BytesDocument = { id, parts };
    const language = this.#options.languages?.get(id);
    if (language !== undefined) doc.language = language;
    return doc;
  }

  async close(): Promise<void> {
    const shards = [...this.#shards.values()];
    this.#shards.clear();
    for (const shard of shards) await (await shard.catch(() => undefined))?.close();
  }
}
